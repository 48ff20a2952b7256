//! `time-vs-n.svg`: median time against n, log-log, one panel per function, one line per mode.

use super::criterion::Medians;
use super::figures::{median_of, sizes_of, FUNCTIONS, MODES};
use crate::svg::{Frame, Svg};

/// A panel's size, and its plot area within it; the legend (70 px) is below the panels.
const W: f64 = 520.0;
const H: f64 = 420.0;
const PANEL: Frame = Frame {
    left: 70.0,
    right: W - 20.0,
    top: 40.0,
    bottom: H - 50.0,
};
const COLORS: [&str; 9] = [
    "#000000", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#17becf",
];

/// The plot of every mode measured, plain f64 first.
pub fn plot(m: &Medians) -> String {
    let modes: Vec<(&str, &str)> = std::iter::once(("plain_f64", "plain f64"))
        .chain(MODES.iter().copied())
        .collect();
    let mut s = Svg::new(
        W * FUNCTIONS.len() as f64,
        H + 70.0,
        "font-family=\"sans-serif\" font-size=\"11\"",
    );
    for (panel, f) in FUNCTIONS.iter().enumerate() {
        let series: Vec<(usize, Vec<(f64, f64)>)> = modes
            .iter()
            .enumerate()
            .map(|(i, (mode, _))| {
                let pts = sizes_of(m, f)
                    .into_iter()
                    .filter_map(|n| Some((n as f64, median_of(m, f, mode, n)?)))
                    .collect();
                (i, pts)
            })
            .filter(|(_, p): &(usize, Vec<(f64, f64)>)| !p.is_empty())
            .collect();
        if series.is_empty() {
            continue;
        }
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for (x, y) in series.iter().flat_map(|(_, p)| p.iter()) {
            x0 = x0.min(*x);
            x1 = x1.max(*x);
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        let (lx0, lx1) = (x0.log2(), x1.log2().max(x0.log2() + 1.0));
        let (ly0, ly1) = (
            y0.log10().floor(),
            y1.log10().ceil().max(y0.log10().floor() + 1.0),
        );
        let ox = W * panel as f64;
        let frame = Frame {
            left: ox + PANEL.left,
            right: ox + PANEL.right,
            ..PANEL
        };
        let px = |x: f64| frame.left + (x.log2() - lx0) / (lx1 - lx0) * (frame.right - frame.left);
        let py = |y: f64| frame.top + (ly1 - y.log10()) / (ly1 - ly0) * (frame.bottom - frame.top);
        s.text(
            ox + W / 2.0,
            22.0,
            "font-size=\"14\" text-anchor=\"middle\"",
            &format!("{f}: median time per call vs n"),
        );
        s.frame(frame, "#888");
        let mut e = ly0 as i32;
        while e as f64 <= ly1 {
            s.hgrid(frame, py(10f64.powi(e)), "#ddd", Some(&decade_label(e)));
            e += 1;
        }
        let mut k = lx0.ceil() as i32;
        while k as f64 <= lx1 {
            let label = (1u64 << k).to_string();
            s.vgrid(frame, px(2f64.powi(k)), "#eee", Some(&label));
            k += 1;
        }
        s.text(
            ox + W / 2.0,
            H - 12.0,
            "text-anchor=\"middle\"",
            "n (inputs), log scale",
        );
        for (i, pts) in &series {
            let color = COLORS[i % COLORS.len()];
            let at: Vec<(f64, f64)> = pts.iter().map(|(x, y)| (px(*x), py(*y))).collect();
            s.polyline(&at, &format!("stroke=\"{color}\" stroke-width=\"1.5\""));
            for p in at {
                s.circle(p, 2.5, &format!("fill=\"{color}\""));
            }
        }
    }
    for (i, (_, title)) in modes.iter().enumerate() {
        let x = 20.0 + (i % 5) as f64 * 200.0;
        let y = H + 15.0 + (i / 5) as f64 * 20.0;
        let color = COLORS[i % COLORS.len()];
        s.line(
            (x, y),
            (x + 20.0, y),
            &format!("stroke=\"{color}\" stroke-width=\"2\""),
        );
        s.text(x + 25.0, y + 4.0, "", title);
    }
    s.finish()
}

/// `10^e` nanoseconds as an axis label: 1 ns, 10 ns, 100 ns, 1 µs, ...
fn decade_label(e: i32) -> String {
    let units = ["ns", "µs", "ms", "s"];
    let unit = (e.max(0) / 3).min(3);
    let mantissa = 10f64.powi(e - 3 * unit);
    format!("{mantissa} {}", units[unit as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_per_measured_function_and_decade_labels() {
        let mut m = Medians::new();
        for n in [2usize, 16, 128] {
            m.insert(format!("dense/plain_f64/{n}"), 10.0 * n as f64);
            m.insert(format!("dense/reverse_f64/{n}"), 40.0 * n as f64);
        }
        let s = plot(&m);
        // Only dense was measured: one panel, two lines of three points each.
        assert!(s.contains(">dense: median time per call vs n</text>"));
        assert!(!s.contains("rosenbrock:"));
        assert_eq!(s.matches("<polyline").count(), 2);
        assert_eq!(s.matches("<circle").count(), 6);
        // 20 ns to 5.12 µs: the decades 10 ns to 10 µs are labelled.
        assert!(s.contains(">10 ns</text>") && s.contains(">10 µs</text>"));
        assert_eq!(
            [0, 2, 3, 7, 9].map(decade_label),
            ["1 ns", "100 ns", "1 µs", "10 ms", "1 s"]
        );
    }
}
