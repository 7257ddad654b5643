//! SVG charts, the one chart engine of the harness: line charts (series,
//! a shaded band, dashed reference lines, round ticks), bar charts, and a
//! grid that puts several charts into one SVG file. `report.html` inlines
//! them; the tuners write them as files (Texel's `loss.svg`, SPSA's
//! `trajectories.svg`). Plain SVG text: no scripts, fonts or network.

use std::fmt::Write as _;

/// Series colours, in order.
pub const COLORS: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// Text escaped for SVG and HTML, attributes included.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A line chart: series, an optional shaded band, horizontal reference lines.
#[derive(Clone, Debug)]
pub struct Chart {
    /// The `id` of the `<svg>` element (pages and tests find charts by it).
    pub id: String,
    /// The heading drawn above the plot.
    pub title: String,
    /// The x axis label.
    pub x_label: String,
    /// (name, points); each series gets the next colour of [`COLORS`].
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// (x, low, high).
    pub band: Vec<(f64, f64, f64)>,
    /// (y, label, colour).
    pub lines: Vec<(f64, String, &'static str)>,
    /// Fixed y range (bottom, top); `None` fits the data with a margin.
    pub y_range: Option<(f64, f64)>,
    /// Width of the `<svg>` in pixels.
    pub width: f64,
    /// Height of the `<svg>` in pixels.
    pub height: f64,
}

/// Round tick steps (1, 2, 5 times a power of ten) covering `lo..hi`.
fn ticks(lo: f64, hi: f64, target: usize) -> Vec<f64> {
    let span = (hi - lo).max(1e-12);
    let raw = span / target.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= target as f64)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 50 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        format!("{v:.1e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').to_string()
    }
}

/// The chart as one `<svg>` element (with its namespace, so it is also a
/// complete SVG file).
pub fn line_chart(c: &Chart) -> String {
    let (w, h) = (c.width, c.height);
    let (left, right, top, bottom) = (58.0, 12.0, 28.0, 36.0);
    let xs = c
        .series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.0))
        .chain(c.band.iter().map(|b| b.0));
    let ys = c
        .series
        .iter()
        .flat_map(|s| s.1.iter().map(|p| p.1))
        .chain(c.band.iter().flat_map(|b| [b.1, b.2]))
        .chain(c.lines.iter().map(|l| l.0));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (mut y0, mut y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if !y0.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    if x1 - x0 < 1e-12 {
        x1 = x0 + 1.0;
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    if let Some((lo, hi)) = c.y_range.filter(|(lo, hi)| hi > lo) {
        (y0, y1) = (lo, hi);
    } else if y1 - y0 < 1e-12 {
        (y0, y1) = (y0 - 1.0, y1 + 1.0);
    } else {
        (y0, y1) = (y0 - pad, y1 + pad);
    }
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| top + (y1 - y) / (y1 - y0) * (h - top - bottom);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"11\" style=\"background:#fff\"><title>{}</title>\
         <text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
        esc(&c.id),
        esc(&c.title),
        w / 2.0,
        esc(&c.title)
    );
    // Grid and axes.
    for t in ticks(y0, y1, 6) {
        let y = py(t);
        let _ = write!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            w - right,
            left - 4.0,
            y + 4.0,
            tick_label(t)
        );
    }
    for t in ticks(x0, x1, if w < 400.0 { 4 } else { 7 }) {
        let x = px(t);
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top}\" y2=\"{}\" stroke=\"#eee\"/>\
             <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            h - bottom,
            h - bottom + 14.0,
            tick_label(t)
        );
    }
    let _ = write!(
        s,
        "<rect x=\"{left}\" y=\"{top}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        w - left - right,
        h - top - bottom,
        (left + w - right) / 2.0,
        h - 6.0,
        esc(&c.x_label)
    );
    if !c.band.is_empty() {
        let mut d = String::new();
        for (i, (x, _, hi)) in c.band.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                px(*x),
                py(*hi)
            );
        }
        for (x, lo, _) in c.band.iter().rev() {
            let _ = write!(d, "L{:.1},{:.1} ", px(*x), py(*lo));
        }
        let _ = write!(
            s,
            "<path class=\"band\" d=\"{d}Z\" fill=\"#1f77b4\" fill-opacity=\"0.15\"/>"
        );
    }
    for (y, label, color) in &c.lines {
        let yy = py(*y);
        let _ = write!(
            s,
            "<line class=\"bound\" x1=\"{left}\" x2=\"{}\" y1=\"{yy:.1}\" y2=\"{yy:.1}\" stroke=\"{color}\" stroke-dasharray=\"5,3\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"{color}\">{}</text>",
            w - right,
            w - right - 3.0,
            yy - 3.0,
            esc(label)
        );
    }
    for (k, (name, pts)) in c.series.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let mut d = String::new();
        for (i, (x, y)) in pts.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                px(*x),
                py(*y)
            );
        }
        let _ = write!(
            s,
            "<path class=\"series\" d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.6\"><title>{}</title></path>",
            esc(name)
        );
        if c.series.len() > 1 {
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>",
                left + 6.0,
                top + 14.0 + 13.0 * k as f64,
                esc(name)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Vertical bars `(label, value, colour)` from zero, each labelled with its
/// value.
pub fn bar_chart(id: &str, title: &str, bars: &[(String, f64, &str)]) -> String {
    let (w, h) = ((70.0 * bars.len() as f64 + 70.0).max(260.0), 300.0);
    let (left, top, bottom) = (40.0, 28.0, 80.0);
    let max = bars.iter().map(|b| b.1).fold(0.0, f64::max).max(1.0);
    let slot = (w - left - 10.0) / bars.len().max(1) as f64;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg id=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"11\"><title>{}</title>\
         <text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">{}</text>\
         <line x1=\"{left}\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#888\"/>",
        esc(id),
        esc(title),
        w / 2.0,
        esc(title),
        w - 10.0,
        h - bottom,
        h - bottom
    );
    for (i, (label, v, color)) in bars.iter().enumerate() {
        let bh = v / max * (h - top - bottom - 14.0);
        let x = left + slot * i as f64 + slot * 0.15;
        let y = h - bottom - bh;
        let _ = write!(
            s,
            "<rect class=\"bar\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{color}\"><title>{}: {v}</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{v}</text>\
             <text x=\"{:.1}\" y=\"{}\" text-anchor=\"end\" transform=\"rotate(-35 {:.1} {})\">{}</text>",
            slot * 0.7,
            esc(label),
            x + slot * 0.35,
            y - 3.0,
            x + slot * 0.35,
            h - bottom + 14.0,
            x + slot * 0.35,
            h - bottom + 14.0,
            esc(label)
        );
    }
    s.push_str("</svg>");
    s
}

/// Charts of equal size in rows of `columns`, as one SVG document: each
/// chart keeps its own element (a nested `<svg>` placed by `x` and `y`).
pub fn grid(charts: &[Chart], columns: usize) -> String {
    let columns = columns.clamp(1, charts.len().max(1));
    let rows = charts.len().div_ceil(columns).max(1);
    let (w, h) = charts
        .first()
        .map_or((300.0, 190.0), |c| (c.width, c.height));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" style=\"background:#fff\">\n",
        w * columns as f64,
        h * rows as f64
    );
    for (i, c) in charts.iter().enumerate() {
        let (x, y) = ((i % columns) as f64 * w, (i / columns) as f64 * h);
        let chart = line_chart(c);
        let placed = chart.replacen("<svg ", &format!("<svg x=\"{x}\" y=\"{y}\" "), 1);
        s.push_str(&placed);
        s.push('\n');
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        assert_eq!(ticks(0.0, 10.0, 5), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let t = ticks(-2.94, 2.94, 6);
        assert_eq!(t.first(), Some(&-2.0));
        assert!(t.contains(&0.0));
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(1500.0), "1500");
    }

    #[test]
    fn escapes_and_charts_have_ids() {
        let svg = line_chart(&Chart {
            id: "x-chart".into(),
            title: "a<b".into(),
            x_label: "games".into(),
            series: vec![("s".into(), vec![(0.0, 1.0), (2.0, 3.0)])],
            band: vec![(0.0, 0.5, 1.5), (2.0, 2.5, 3.5)],
            lines: vec![(2.94, "H1".into(), "#070")],
            y_range: None,
            width: 300.0,
            height: 200.0,
        });
        assert!(svg.starts_with("<svg id=\"x-chart\""));
        assert!(svg.contains("a&lt;b") && !svg.contains("a<b"));
        assert!(svg.contains("class=\"band\"") && svg.contains("class=\"bound\""));
        let bars = bar_chart("b", "t", &[("w".into(), 3.0, "#070")]);
        assert!(bars.contains("class=\"bar\""));
    }

    #[test]
    fn a_grid_places_every_chart_and_a_fixed_range_is_kept() {
        let chart = |id: &str| Chart {
            id: id.into(),
            title: id.into(),
            x_label: "iteration".into(),
            series: vec![(id.into(), vec![(0.0, 1.0), (1.0, 2.0)])],
            band: Vec::new(),
            lines: vec![(1.0, "start".into(), "#c60")],
            y_range: Some((0.0, 10.0)),
            width: 300.0,
            height: 150.0,
        };
        let svg = grid(&[chart("a"), chart("b"), chart("c")], 2);
        assert!(svg
            .starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"300\""));
        assert!(svg.contains("<svg x=\"300\" y=\"0\" id=\"b\""), "{svg}");
        assert!(svg.contains("<svg x=\"0\" y=\"150\" id=\"c\""), "{svg}");
        assert_eq!(svg.matches("class=\"series\"").count(), 3);
        // The range is the bounds, not the data: 10 is a tick label.
        assert!(svg.contains(">10</text>"), "{svg}");
    }
}
