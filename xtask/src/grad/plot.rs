//! `--steps`: the central-difference error against the step size, log-log, as plain SVG.
//!
//! For each input at each point: `|central difference(h) - reverse mode|` for h from 1e-1 down
//! to 1e-15. Large steps show the truncation error (`|f'''| h^2 / 6`, slope 2), small ones the
//! round-off error (`eps |f| / h`, slope -1); both model lines are drawn dotted, the step the
//! project uses (`central_step`) is marked with a dashed line and a circle, the best step found
//! with a diamond.

use super::compute::PointResult;
use super::report::num;
use crate::svg::{Frame, Svg};

const W: f64 = 920.0;
const H: f64 = 516.0;
/// The plot area; the legend is right of it.
const FRAME: Frame = Frame {
    left: 80.0,
    right: 640.0,
    top: 76.0,
    bottom: 456.0,
};
const COLORS: [&str; 8] = [
    "#1a5fb4", "#c01c28", "#26a269", "#e66100", "#613583", "#865e3c", "#1c71d8", "#5e5c64",
];
/// Errors of exactly 0 are drawn at the bottom edge.
const LOWEST: f64 = -18.0;

/// The plot for every input at every point.
pub fn svg(source: &str, names: &[String], results: &[PointResult]) -> String {
    let sweeps: Vec<(String, &super::compute::Sweep)> = results
        .iter()
        .enumerate()
        .flat_map(|(p, r)| {
            let many = results.len() > 1;
            r.sweeps.iter().flatten().enumerate().map(move |(i, s)| {
                let at = if many {
                    format!(" at point {}", p + 1)
                } else {
                    String::new()
                };
                (format!("d/d{}{at}", names[i]), s)
            })
        })
        .collect();
    // Vertical range: every positive error, in whole decades.
    let logs: Vec<f64> = sweeps
        .iter()
        .flat_map(|(_, s)| s.error.iter())
        .filter(|e| e.is_finite() && **e > 0.0)
        .map(|e| e.log10())
        .collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if logs.is_empty() {
        (LOWEST, 0.0)
    } else {
        (lo.floor().max(LOWEST), hi.ceil().max(lo.floor() + 2.0))
    };
    let px = |h: f64| FRAME.left + (h.log10() + 15.0) / 14.0 * (FRAME.right - FRAME.left);
    let py = |e: f64| {
        let l = if e > 0.0 { e.log10().max(lo) } else { lo };
        FRAME.bottom - (l - lo) / (hi - lo) * (FRAME.bottom - FRAME.top)
    };

    let frame = FRAME;
    let mut svg = Svg::new(
        W,
        H,
        "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\"",
    );
    svg.raw(&format!(
        "<clipPath id=\"plot\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\
         </clipPath>",
        FRAME.left,
        FRAME.top,
        FRAME.right - FRAME.left,
        FRAME.bottom - FRAME.top
    ));
    let title = source.trim().replace('\n', "; ");
    let bold = "font-size=\"15\" font-weight=\"bold\"";
    svg.text(
        FRAME.left,
        24.0,
        bold,
        &format!("central-difference error against the step h: f = {title}"),
    );
    svg.text(
        FRAME.left,
        44.0,
        "fill=\"#444\"",
        "dots: |(f(x+h) - f(x-h)) / 2h - reverse mode| at each step; dotted: the models \
         truncation |f'''| h²/6 and round-off ε|f|/h;",
    );
    svg.text(
        FRAME.left,
        60.0,
        "fill=\"#444\"",
        "dashed line and circle: the project's step cbrt(ε) max(1, |x|); diamond: the best \
         step of the sweep",
    );
    // Grid and axes: a line per decade; every other step labelled, so the labels do not collide.
    for d in -15..=-1 {
        let label = (d % 2 != 0).then(|| format!("1e{d}"));
        svg.vgrid(frame, px(10f64.powi(d)), "#eee", label.as_deref());
    }
    let step = if hi - lo > 12.0 { 2 } else { 1 };
    for d in (lo as i32..=hi as i32).step_by(step) {
        svg.hgrid(frame, py(10f64.powi(d)), "#eee", Some(&format!("1e{d}")));
    }
    svg.frame(frame, "#333");
    svg.text(
        (FRAME.left + FRAME.right) / 2.0,
        FRAME.bottom + 40.0,
        "text-anchor=\"middle\"",
        "step h",
    );
    svg.raw(&format!(
        "<text transform=\"translate(22 {:.1}) rotate(-90)\" text-anchor=\"middle\">absolute \
         error (0 drawn at the bottom)</text>",
        (FRAME.top + FRAME.bottom) / 2.0
    ));
    let grey = "fill=\"#777\"";
    svg.text(
        FRAME.right - 8.0,
        FRAME.bottom - 8.0,
        "fill=\"#777\" text-anchor=\"end\"",
        "truncation ∝ h² →",
    );
    svg.text(
        FRAME.left + 8.0,
        FRAME.bottom - 8.0,
        grey,
        "← round-off ∝ 1/h",
    );
    svg.raw("<g clip-path=\"url(#plot)\">");
    for (k, (_, s)) in sweeps.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let model = |g: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
            (0..=56)
                .map(|j| {
                    let h = 10f64.powf(-1.0 - j as f64 / 4.0);
                    (px(h), py(g(h)))
                })
                .collect()
        };
        for (coef, g) in [
            (
                s.truncation,
                &(|h: f64| s.truncation * h * h) as &dyn Fn(f64) -> f64,
            ),
            (s.roundoff, &|h: f64| s.roundoff / h),
        ] {
            if coef > 0.0 && coef.is_finite() {
                svg.polyline(
                    &model(g),
                    &format!("stroke=\"{color}\" stroke-opacity=\"0.45\" stroke-dasharray=\"2 3\""),
                );
            }
        }
        let at: Vec<(f64, f64)> =
            s.h.iter()
                .zip(&s.error)
                .filter(|(_, e)| e.is_finite())
                .map(|(h, e)| (px(*h), py(*e)))
                .collect();
        // A dot per step, joined faintly: in the round-off regime the error jumps from step to
        // step (sometimes to exactly 0), and dots show that cloud without a wall of spikes.
        for p in &at {
            svg.circle(*p, 2.3, &format!("fill=\"{color}\""));
        }
        svg.polyline(
            &at,
            &format!("stroke=\"{color}\" stroke-width=\"2\" stroke-opacity=\"0.3\""),
        );
        let (dx, dy) = (px(s.default.0), py(s.default.1));
        let (bx, by) = (px(s.best.0), py(s.best.1));
        svg.line(
            (dx, FRAME.top),
            (dx, FRAME.bottom),
            &format!("stroke=\"{color}\" stroke-dasharray=\"6 4\""),
        );
        svg.circle(
            (dx, dy),
            5.0,
            &format!("fill=\"white\" stroke=\"{color}\" stroke-width=\"2\""),
        );
        svg.raw(&format!(
            "<path d=\"M{bx:.1},{:.1} l6,6 l-6,6 l-6,-6 z\" fill=\"{color}\"/>",
            by - 6.0
        ));
    }
    svg.raw("</g>");
    // Legend.
    let mut y = FRAME.top + 10.0;
    let small = "fill=\"#444\" font-size=\"11\"";
    for (k, (label, s)) in sweeps.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        svg.line(
            (FRAME.right + 16.0, y),
            (FRAME.right + 40.0, y),
            &format!("stroke=\"{color}\" stroke-width=\"2\""),
        );
        svg.text(FRAME.right + 46.0, y + 4.0, "", label);
        let default = format!(
            "○ default h {}, error {}",
            format_h(s.default.0),
            super::report::diff(s.default.1)
        );
        svg.text(FRAME.right + 46.0, y + 20.0, small, &default);
        let best = format!(
            "◆ best h {}, error {}",
            format_h(s.best.0),
            super::report::diff(s.best.1)
        );
        svg.text(FRAME.right + 46.0, y + 36.0, small, &best);
        y += 56.0;
    }
    svg.finish()
}

fn format_h(h: f64) -> String {
    if h.is_finite() {
        format!("{h:.1e}")
    } else {
        num(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_curve_per_input_with_markers() {
        let f = autograd_expr::parse("x * y^2").unwrap();
        let r = super::super::compute::at_point(&f, &[0.5, 2.0], false, false, true).unwrap();
        let names = ["x".to_string(), "y".to_string()];
        let s = svg("x * y^2", &names, &[r]);
        assert_eq!(s.matches("stroke-opacity=\"0.3\"/>").count(), 2); // two curves
        assert!(s.contains(">d/dx</text>") && s.contains(">d/dy</text>"));
        assert!(s.contains("default h 6.1e-6")); // cbrt(eps) at |x| <= 1
        assert!(s.trim_end().ends_with("</svg>"));
    }
}
