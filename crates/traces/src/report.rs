//! `qa traces report`: one self-contained HTML file (inline CSS and SVG, no scripts, no external
//! assets) with the stats tables and charts: a latency histogram per stage, per-query stage
//! breakdown of the last 200 queries, the route mix and the fallback rate over time.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::stats::{Recent, Stats, STAGES};
use super::svg::{escape, Svg};

const COLORS: [&str; 4] = ["#4e79a7", "#f28e2b", "#59a14f", "#76b7b2"];
const W: f64 = 720.0;
const H: f64 = 240.0;
const LEFT: f64 = 56.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 28.0;

fn fmt_num(x: f64) -> String {
    if x >= 100.0 || x == x.trunc() { format!("{x:.0}") } else { format!("{x:.1}") }
}

/// Axes with a y scale from 0 to `ymax`; returns the plot's height.
fn axes(svg: &mut Svg, ymax: f64, ylabel: &str) -> f64 {
    let ph = H - TOP - BOTTOM;
    svg.line(LEFT, TOP, LEFT, H - BOTTOM, "#333");
    svg.line(LEFT, H - BOTTOM, W - 8.0, H - BOTTOM, "#333");
    for i in 0..=4 {
        let v = ymax * f64::from(i) / 4.0;
        let y = H - BOTTOM - ph * f64::from(i) / 4.0;
        svg.line(LEFT - 4.0, y, LEFT, y, "#333");
        svg.text(LEFT - 6.0, y + 4.0, "end", &fmt_num(v));
    }
    svg.text(8.0, 12.0, "start", ylabel);
    ph
}

/// Histogram of one stage's latencies (sorted values) in 20 equal-width bins.
fn histogram(sorted: &[f64], stage: &str, color: &str) -> String {
    let mut svg = Svg::new(W, H, &format!("{stage} latency histogram"));
    let bins = 20usize;
    let (lo, hi) = (sorted.first().copied().unwrap_or(0.0), sorted.last().copied().unwrap_or(0.0));
    let width = if hi > lo { (hi - lo) / bins as f64 } else { 1.0 };
    let mut counts = vec![0usize; bins];
    for &v in sorted {
        let i = (((v - lo) / width) as usize).min(bins - 1);
        counts[i] += 1;
    }
    // At least 4 so the 5 axis ticks are whole numbers of traces.
    let ymax = counts.iter().copied().max().unwrap_or(0).max(4) as f64;
    let ph = axes(&mut svg, ymax, "traces");
    let bw = (W - 8.0 - LEFT) / bins as f64;
    for (i, c) in counts.iter().enumerate() {
        let h = ph * *c as f64 / ymax;
        let (a, b) = (lo + width * i as f64, lo + width * (i + 1) as f64);
        svg.rect(LEFT + bw * i as f64 + 1.0, H - BOTTOM - h, bw - 2.0, h, color, Some(&format!("{} – {} ms: {c}", fmt_num(a), fmt_num(b))));
    }
    for i in [0, bins / 2, bins] {
        svg.text(LEFT + bw * i as f64, H - BOTTOM + 14.0, "middle", &fmt_num(lo + width * i as f64));
    }
    svg.text(W / 2.0, H - 6.0, "middle", &format!("{stage} latency (ms)"));
    svg.finish()
}

/// Stacked bars: rag, graph and synthesis per query (the last 200), oldest first.
fn stage_breakdown(recent: &[Recent]) -> String {
    let mut svg = Svg::new(W, H, "stage breakdown per query");
    let ymax = recent.iter().map(|r| (r.rag + r.graph + r.synthesis).max(r.total)).fold(0.0, f64::max).max(1.0);
    let ph = axes(&mut svg, ymax, "ms");
    let n = recent.len().max(1) as f64;
    let bw = (W - 8.0 - LEFT) / n;
    for (i, r) in recent.iter().enumerate() {
        let x = LEFT + bw * i as f64;
        let mut y = H - BOTTOM;
        for (j, (name, v)) in [("rag", r.rag), ("graph", r.graph), ("synthesis", r.synthesis)].into_iter().enumerate() {
            let h = ph * v.max(0.0) / ymax;
            y -= h;
            svg.rect(x, y, (bw - 0.5).max(0.5), h, COLORS[j], Some(&format!("{} {name}: {} ms", r.trace_id, fmt_num(v))));
        }
    }
    for (j, name) in ["rag", "graph", "synthesis"].into_iter().enumerate() {
        let x = W - 240.0 + 80.0 * j as f64;
        svg.rect(x, H - 16.0, 10.0, 10.0, COLORS[j], None);
        svg.text(x + 14.0, H - 7.0, "start", name);
    }
    svg.text(LEFT, H - 7.0, "start", &format!("last {} queries, oldest first", recent.len()));
    svg.finish()
}

/// Horizontal bars, one per route.
fn route_mix(routes: &BTreeMap<String, usize>) -> String {
    let rows = routes.len().max(1) as f64;
    let height = 24.0 * rows + 24.0;
    let mut svg = Svg::new(W, height, "route mix");
    let max = routes.values().copied().max().unwrap_or(0).max(1) as f64;
    let total: usize = routes.values().sum();
    let left = 140.0;
    for (i, (route, c)) in routes.iter().enumerate() {
        let y = 8.0 + 24.0 * i as f64;
        let w = (W - left - 120.0) * *c as f64 / max;
        svg.text(left - 6.0, y + 13.0, "end", route);
        svg.rect(left, y, w, 18.0, COLORS[i % COLORS.len()], Some(&format!("{route}: {c}")));
        let share = if total == 0 { 0.0 } else { *c as f64 * 100.0 / total as f64 };
        svg.text(left + w + 6.0, y + 13.0, "start", &format!("{c} ({share:.1}%)"));
    }
    svg.finish()
}

/// Share of traces with a fallback per bucket: hourly counters grouped by day unless the span is
/// under two days.
fn fallback_over_time(hourly: &BTreeMap<i64, (usize, usize)>) -> (String, &'static str) {
    let span_hours = match (hourly.keys().next(), hourly.keys().next_back()) {
        (Some(a), Some(b)) => b - a + 1,
        _ => 0,
    };
    let by_day = span_hours >= 48;
    let mut buckets: BTreeMap<i64, (usize, usize)> = BTreeMap::new();
    for (h, (n, f)) in hourly {
        let key = if by_day { h.div_euclid(24) * 24 } else { *h };
        let e = buckets.entry(key).or_default();
        e.0 += n;
        e.1 += f;
    }
    let unit = if by_day { "day" } else { "hour" };
    let mut svg = Svg::new(W, H, &format!("fallback rate per {unit}"));
    let ph = axes(&mut svg, 100.0, "% with fallback");
    let n = buckets.len();
    // Points sit at their time, so empty buckets leave gaps in x.
    let (first, last) = (buckets.keys().next().copied().unwrap_or(0), buckets.keys().next_back().copied().unwrap_or(0));
    let span = (last - first).max(1) as f64;
    let mut pts = Vec::new();
    for (i, (h, (count, fb))) in buckets.iter().enumerate() {
        let rate = if *count == 0 { 0.0 } else { *fb as f64 * 100.0 / *count as f64 };
        let x = LEFT + 10.0 + (W - 8.0 - LEFT - 20.0) * (h - first) as f64 / span;
        let y = H - BOTTOM - ph * rate / 100.0;
        pts.push((x, y));
        let label = bucket_label(*h, by_day);
        svg.circle(x, y, 3.0, COLORS[1], Some(&format!("{label}: {fb}/{count} ({rate:.1}%)")));
        if i == 0 || i + 1 == n || (n > 2 && i == n / 2) {
            let anchor = if n > 1 && i + 1 == n { "end" } else if i == 0 && n > 1 { "start" } else { "middle" };
            svg.text(x, H - BOTTOM + 14.0, anchor, &label);
        }
    }
    if pts.len() > 1 {
        svg.polyline(&pts, COLORS[1]);
    }
    svg.text(W / 2.0, H - 6.0, "middle", &format!("per {unit} (UTC)"));
    (svg.finish(), unit)
}

fn bucket_label(hour: i64, by_day: bool) -> String {
    let t = chrono::DateTime::from_timestamp(hour * 3600, 0).unwrap_or_default();
    if by_day { t.format("%Y-%m-%d").to_string() } else { t.format("%m-%d %H:00").to_string() }
}

const CSS: &str = "body{font-family:sans-serif;margin:2em auto;max-width:960px;color:#222}\
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}\
td.l,th.l{text-align:left}h2{margin-top:1.8em;border-bottom:1px solid #ddd}svg{display:block;margin:.5em 0}\
.muted{color:#666}";

fn opt(x: Option<f64>) -> String {
    x.map(|v| format!("{v:.1}")).unwrap_or_else(|| "–".into())
}

/// The whole report as one HTML document; `filters` describes the filters applied (empty for
/// none).
pub fn render(stats: &Stats, latencies: &[Vec<f64>], recent: &[Recent], hourly: &BTreeMap<i64, (usize, usize)>, filters: &str) -> String {
    let mut o = String::new();
    let _ = write!(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>qa trace report</title><style>{CSS}</style></head><body>\n");
    let _ = writeln!(o, "<h1>qa trace report</h1>");
    let _ = writeln!(
        o,
        "<p class=\"muted\">{} · {} trace(s), {} malformed line(s) skipped{} · generated {}</p>",
        escape(&stats.file),
        stats.traces,
        stats.malformed_lines,
        if filters.is_empty() { String::new() } else { format!(" · filters: {}", escape(filters)) },
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC")
    );

    let _ = writeln!(o, "<h2>Summary</h2>\n<table><tr><th class=\"l\">measure</th><th>count</th><th>rate</th></tr>");
    let r = &stats.rates;
    let mut rate_row = |name: &str, x: &super::stats::Rate| {
        let _ = writeln!(o, "<tr><td class=\"l\">{}</td><td>{}</td><td>{:.1}%</td></tr>", escape(name), x.count, x.rate * 100.0);
    };
    rate_row("empty RAG context", &r.empty_rag_context);
    rate_row("empty graph evidence", &r.empty_graph_evidence);
    rate_row("fallback used", &r.fallback_used);
    for (k, v) in &r.fallback_by_kind {
        rate_row(&format!("fallback: {k}"), v);
    }
    rate_row("Cypher validation failures", &r.cypher_validation_failures);
    rate_row("LLM errors / degradations", &r.llm_errors);
    rate_row("clarification requests", &r.clarification_requests);
    rate_row("session turns", &r.session_turns);
    rate_row("restated by the LLM", &r.restated_by_llm);
    rate_row("LLM restatement fallbacks", &r.restatement_fallbacks);
    let t = &stats.tokens;
    let _ = writeln!(
        o,
        "</table>\n<p>Tokens: prompt {}, completion {}, total {} over {} trace(s) with usage (mean per query {:.1} / {:.1} / {:.1}).</p>",
        t.prompt, t.completion, t.total, t.traces_with_usage, t.mean_prompt, t.mean_completion, t.mean_total
    );

    let _ = writeln!(o, "<h2>Latency percentiles</h2>\n<p class=\"muted\">Milliseconds; exact nearest-rank percentiles over the filtered traces.</p>");
    let _ = writeln!(o, "<table><tr><th class=\"l\">stage</th><th>n</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>mean</th></tr>");
    for l in &stats.latency_ms {
        let _ = writeln!(
            o,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&l.stage),
            l.n,
            opt(l.p50),
            opt(l.p95),
            opt(l.p99),
            opt(l.max),
            opt(l.mean)
        );
    }
    let _ = writeln!(o, "</table>");

    let _ = writeln!(o, "<h2>Latency histograms</h2>");
    for (i, (stage, v)) in STAGES.iter().zip(latencies).enumerate() {
        let _ = writeln!(o, "<h3>{stage}</h3>\n{}", histogram(v, stage, COLORS[i]));
    }

    let _ = writeln!(o, "<h2>Stage breakdown per query</h2>\n{}", stage_breakdown(recent));
    let _ = writeln!(o, "<h2>Route mix</h2>\n{}", route_mix(&stats.routes));
    let (fb, unit) = fallback_over_time(hourly);
    let _ = writeln!(o, "<h2>Fallback rate over time</h2>\n<p class=\"muted\">Share of traces per {unit} whose graph evidence used a fallback strategy.</p>\n{fb}");

    let _ = writeln!(o, "<h2>Slowest questions</h2>\n<table><tr><th>total ms</th><th class=\"l\">trace</th><th class=\"l\">route</th><th class=\"l\">question</th></tr>");
    for s in &stats.slowest {
        let _ = writeln!(
            o,
            "<tr><td>{:.1}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>",
            s.total_ms,
            escape(&s.trace_id),
            escape(&s.route),
            escape(&s.question)
        );
    }
    let _ = writeln!(o, "</table>\n</body></html>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Collector;

    fn well_formed(svg: &str) {
        let doc = roxmltree::Document::parse(svg).unwrap_or_else(|e| panic!("{e}: {svg}"));
        assert_eq!(doc.root_element().tag_name().name(), "svg");
    }

    #[test]
    fn charts_are_well_formed_for_empty_and_odd_data() {
        well_formed(&histogram(&[], "rag", "#000"));
        well_formed(&histogram(&[3.0], "rag", "#000"));
        well_formed(&histogram(&[0.0, 0.0, 1e9], "total", "#000"));
        well_formed(&stage_breakdown(&[]));
        well_formed(&route_mix(&BTreeMap::new()));
        let routes: BTreeMap<String, usize> = [("<a&b>".to_string(), 3), ("\"q\"".to_string(), 0)].into();
        let svg = route_mix(&routes);
        well_formed(&svg);
        assert!(svg.contains("&lt;a&amp;b&gt;"));
        well_formed(&fallback_over_time(&BTreeMap::new()).0);
        let (svg, unit) = fallback_over_time(&[(100, (2, 1))].into());
        well_formed(&svg);
        assert_eq!(unit, "hour");
        let (_, unit) = fallback_over_time(&[(100, (2, 1)), (148, (1, 0))].into());
        assert_eq!(unit, "day");
    }

    #[test]
    fn empty_report_renders() {
        let agg = Collector::default().finish("none.jsonl".into(), 3);
        let html = render(&agg.stats, &agg.latencies, &agg.recent, &agg.hourly, "route <x>");
        assert!(html.contains("0 trace(s), 3 malformed line(s) skipped"));
        assert!(html.contains("filters: route &lt;x&gt;"));
        assert_eq!(html.matches("<svg").count(), 7);
    }
}
