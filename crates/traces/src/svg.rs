//! A small SVG writer for the report's charts: rectangles, lines, polylines and text, every text
//! and attribute value escaped (questions are user input).

use std::fmt::Write;

/// Escape text for XML/HTML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Control characters other than tab/newline are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// An SVG document being written.
pub struct Svg {
    out: String,
}

impl Svg {
    pub fn new(width: f64, height: f64, label: &str) -> Self {
        let mut out = String::new();
        let _ = write!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" role="img" aria-label="{}" font-family="sans-serif" font-size="11">"#,
            escape(label)
        );
        Svg { out }
    }

    /// A filled rectangle, with an optional tooltip (`<title>`).
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: Option<&str>) {
        let _ = write!(self.out, r#"<rect x="{x:.2}" y="{y:.2}" width="{:.2}" height="{:.2}" fill="{}""#, w.max(0.0), h.max(0.0), escape(fill));
        match title {
            Some(t) => {
                let _ = write!(self.out, "><title>{}</title></rect>", escape(t));
            }
            None => self.out.push_str("/>"),
        }
    }

    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str) {
        let _ = write!(self.out, r#"<line x1="{x1:.2}" y1="{y1:.2}" x2="{x2:.2}" y2="{y2:.2}" stroke="{}"/>"#, escape(stroke));
    }

    pub fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        let pts: Vec<String> = points.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect();
        let _ = write!(self.out, r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#, pts.join(" "), escape(stroke));
    }

    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str, title: Option<&str>) {
        let _ = write!(self.out, r#"<circle cx="{cx:.2}" cy="{cy:.2}" r="{r:.2}" fill="{}""#, escape(fill));
        match title {
            Some(t) => {
                let _ = write!(self.out, "><title>{}</title></circle>", escape(t));
            }
            None => self.out.push_str("/>"),
        }
    }

    /// Text; `anchor` is start, middle or end.
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, s: &str) {
        let _ = write!(self.out, r#"<text x="{x:.2}" y="{y:.2}" text-anchor="{}">{}</text>"#, escape(anchor), escape(s));
    }

    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_escaped_svg() {
        let mut s = Svg::new(100.0, 50.0, "a \"chart\"");
        s.rect(1.0, 2.0, 3.0, 4.0, "#123456", Some("<b>&</b>"));
        s.rect(0.0, 0.0, -5.0, 1.0, "red", None);
        s.line(0.0, 0.0, 10.0, 10.0, "black");
        s.polyline(&[(0.0, 1.0), (2.5, 3.0)], "blue");
        s.text(5.0, 6.0, "middle", "x < y & 'z'");
        let out = s.finish();
        assert_eq!(
            out,
            concat!(
                r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50" viewBox="0 0 100 50" role="img" aria-label="a &quot;chart&quot;" font-family="sans-serif" font-size="11">"#,
                r##"<rect x="1.00" y="2.00" width="3.00" height="4.00" fill="#123456"><title>&lt;b&gt;&amp;&lt;/b&gt;</title></rect>"##,
                r#"<rect x="0.00" y="0.00" width="0.00" height="1.00" fill="red"/>"#,
                r#"<line x1="0.00" y1="0.00" x2="10.00" y2="10.00" stroke="black"/>"#,
                r#"<polyline points="0.00,1.00 2.50,3.00" fill="none" stroke="blue" stroke-width="2"/>"#,
                r#"<text x="5.00" y="6.00" text-anchor="middle">x &lt; y &amp; &#39;z&#39;</text>"#,
                "</svg>"
            )
        );
        assert_eq!(escape("a\u{1}b"), "a b");
    }
}
