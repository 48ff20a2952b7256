//! The SVG primitives the plots and the graph share (`bench`'s time-vs-n plot, `grad --steps`,
//! `grad --graph`): the document with its white background, escaping, and the elements with
//! coordinates rounded to 0.1 px. Each caller keeps its own layout; nothing here knows a plot.

use std::fmt::Write as _;

/// Text as SVG character data or an attribute value.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `x,y x,y ...` for a `points` attribute.
pub fn points(pts: &[(f64, f64)]) -> String {
    let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
    p.join(" ")
}

/// A plot area in pixels: the rectangle grid lines cross.
#[derive(Clone, Copy)]
pub struct Frame {
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

/// An SVG document being written; [`Svg::finish`] closes it.
pub struct Svg {
    out: String,
}

impl Svg {
    /// `width` x `height` px on a white background; `font` is the root's `font-family` and
    /// `font-size` attributes (e.g. `font-family="sans-serif" font-size="11"`).
    pub fn new(width: f64, height: f64, font: &str) -> Self {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" {font}>\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
        );
        Svg { out }
    }

    /// Markup written as given (definitions, groups, shapes with their own attributes).
    pub fn raw(&mut self, markup: &str) {
        self.out.push_str(markup);
        if !markup.ends_with('\n') {
            self.out.push('\n');
        }
    }

    /// `<text>` at (x, y) with extra attributes; the text is escaped.
    pub fn text(&mut self, x: f64, y: f64, attrs: &str, text: &str) {
        let sep = if attrs.is_empty() { "" } else { " " };
        let _ = writeln!(
            self.out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\"{sep}{attrs}>{}</text>",
            escape(text)
        );
    }

    /// A straight line with extra attributes (`stroke="#eee"`).
    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), attrs: &str) {
        let _ = writeln!(
            self.out,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\" {attrs}/>"
        );
    }

    /// A polyline through `pts`, not filled.
    pub fn polyline(&mut self, pts: &[(f64, f64)], attrs: &str) {
        let _ = writeln!(
            self.out,
            "<polyline points=\"{}\" fill=\"none\" {attrs}/>",
            points(pts)
        );
    }

    /// A circle of radius `r` at (x, y).
    pub fn circle(&mut self, (x, y): (f64, f64), r: f64, attrs: &str) {
        let _ = writeln!(
            self.out,
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" {attrs}/>"
        );
    }

    /// The frame's outline.
    pub fn frame(&mut self, f: Frame, stroke: &str) {
        let _ = writeln!(
            self.out,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" \
             stroke=\"{stroke}\"/>",
            f.left,
            f.top,
            f.right - f.left,
            f.bottom - f.top
        );
    }

    /// A horizontal grid line across the frame at `y`, labelled (right-aligned) left of it.
    pub fn hgrid(&mut self, f: Frame, y: f64, stroke: &str, label: Option<&str>) {
        self.line((f.left, y), (f.right, y), &format!("stroke=\"{stroke}\""));
        if let Some(label) = label {
            self.text(f.left - 6.0, y + 4.0, "text-anchor=\"end\"", label);
        }
    }

    /// A vertical grid line across the frame at `x`, labelled (centred) below it.
    pub fn vgrid(&mut self, f: Frame, x: f64, stroke: &str, label: Option<&str>) {
        self.line((x, f.top), (x, f.bottom), &format!("stroke=\"{stroke}\""));
        if let Some(label) = label {
            self.text(x, f.bottom + 16.0, "text-anchor=\"middle\"", label);
        }
    }

    /// The document, closed.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>\n");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_with_escaped_text_and_grid() {
        let f = Frame {
            left: 10.0,
            right: 110.0,
            top: 5.0,
            bottom: 55.0,
        };
        let mut s = Svg::new(120.0, 80.0, "font-size=\"11\"");
        s.hgrid(f, 30.0, "#eee", Some("1 µs"));
        s.vgrid(f, 60.0, "#eee", None);
        s.text(1.0, 2.0, "", "a < b & \"c\"");
        s.polyline(&[(0.0, 1.0), (2.26, 3.0)], "stroke=\"red\"");
        let s = s.finish();
        assert!(
            s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"80\"")
        );
        assert!(
            s.contains("<line x1=\"10.0\" y1=\"30.0\" x2=\"110.0\" y2=\"30.0\" stroke=\"#eee\"/>")
        );
        assert!(s.contains("<text x=\"4.0\" y=\"34.0\" text-anchor=\"end\">1 µs</text>"));
        assert!(s.contains("<line x1=\"60.0\" y1=\"5.0\" x2=\"60.0\" y2=\"55.0\""));
        assert!(s.contains(">a &lt; b &amp; &quot;c&quot;</text>"));
        assert!(s.contains("points=\"0.0,1.0 2.3,3.0\""));
        assert!(s.ends_with("</svg>\n"));
    }
}
