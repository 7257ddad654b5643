//! `loss.svg`: training and validation loss by epoch, one line chart of
//! [`crate::report::chart`].

use std::path::Path;

use crate::report::chart::{line_chart, Chart};

/// Plot `(epoch, train, valid)` rows to `path`.
pub fn write_loss_svg(path: &Path, title: &str, rows: &[(usize, f64, f64)]) -> std::io::Result<()> {
    std::fs::write(path, loss_svg(title, rows))
}

/// The chart: a point that is not finite (a diverged epoch) is left out
/// rather than drawn off the page.
fn loss_svg(title: &str, rows: &[(usize, f64, f64)]) -> String {
    let points = |pick: fn(&(usize, f64, f64)) -> f64| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.0 as f64, pick(r)))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let mut series = vec![("training".to_string(), points(|r| r.1))];
    // An empty validation set has loss 0 throughout: no line.
    if rows.iter().any(|r| r.2 > 0.0) {
        series.push(("validation".to_string(), points(|r| r.2)));
    }
    let mut svg = line_chart(&Chart {
        id: "loss".into(),
        title: format!("Texel tuning {title}: loss by epoch (MSE)"),
        x_label: "epoch".into(),
        series,
        band: Vec::new(),
        lines: Vec::new(),
        y_range: None,
        width: 800.0,
        height: 500.0,
    });
    svg.push('\n');
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_losses_are_drawn_and_an_empty_validation_is_not() {
        let rows = [(0, 0.09, 0.1), (1, 0.08, 0.095), (2, f64::NAN, 0.09)];
        let svg = loss_svg("t<1>", &rows);
        assert!(svg.starts_with("<svg id=\"loss\" xmlns=\"http://www.w3.org/2000/svg\""));
        assert_eq!(svg.matches("class=\"series\"").count(), 2);
        assert!(svg.contains(">training<") && svg.contains(">validation<"));
        assert!(svg.contains("t&lt;1&gt;") && !svg.contains("NaN"), "{svg}");
        let svg = loss_svg("t", &[(0, 0.09, 0.0), (1, 0.08, 0.0)]);
        assert_eq!(svg.matches("class=\"series\"").count(), 1);
    }
}
