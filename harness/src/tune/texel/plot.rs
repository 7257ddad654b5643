//! `loss.svg`: training and validation loss by epoch, drawn with plotters'
//! SVG backend (text is emitted as SVG `<text>`, so no font files are needed).

use std::path::Path;

use plotters::prelude::*;

/// Plot `(epoch, train, valid)` rows to `path`.
pub fn write_loss_svg(
    path: &Path,
    title: &str,
    rows: &[(usize, f64, f64)],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let max_epoch = rows.iter().map(|r| r.0).max().unwrap_or(1).max(1) as f64;
    let values = rows
        .iter()
        .flat_map(|r| [r.1, r.2])
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let (lo, hi) = if lo.is_finite() && hi > lo {
        let pad = (hi - lo) * 0.05;
        (lo - pad, hi + pad)
    } else if lo.is_finite() {
        (lo - 1e-3, lo + 1e-3)
    } else {
        (0.0, 1.0)
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("Texel tuning {title}: loss by epoch"),
            ("sans-serif", 20),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..max_epoch, lo..hi)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_desc("MSE")
        .y_label_formatter(&|v| format!("{v:.5}"))
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            rows.iter().map(|r| (r.0 as f64, r.1)),
            &BLUE,
        ))?
        .label("training")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE));
    // An empty validation set has loss 0 throughout: no line.
    if rows.iter().any(|r| r.2 > 0.0) {
        chart
            .draw_series(LineSeries::new(
                rows.iter().map(|r| (r.0 as f64, r.2)),
                &RED,
            ))?
            .label("validation")
            .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
