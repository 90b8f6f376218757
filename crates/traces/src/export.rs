//! `qa traces export`: one flat row per trace, as CSV (RFC 4180 quoting) or JSONL.

use std::io::Write;

use serde::Serialize;

use super::TraceLite;

/// One exported row: a trace's id, time, route, status, question, latencies (ms), token counts, evidence
/// sizes, fallbacks, Cypher verdict and error. Serializes to the JSONL form; [`Row::write_csv`]
/// writes the CSV form in [`CSV_HEADER`] order.
#[derive(Debug, Clone, Serialize)]
pub struct Row<'a> {
    trace_id: &'a str,
    timestamp: &'a str,
    route: &'a str,
    /// `answered`, `needs_clarification`, `error`, or empty when not recorded.
    status: &'static str,
    question: &'a str,
    rag_ms: f64,
    graph_ms: f64,
    synthesis_ms: f64,
    total_ms: f64,
    llm_calls_ms: f64,
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
    total_tokens: Option<u64>,
    chunks: usize,
    graph_nodes: usize,
    /// Fallback kinds joined by `;`.
    fallbacks: String,
    cypher_ok: Option<bool>,
    error: Option<&'a str>,
}

/// The CSV header row, the columns of [`Row::write_csv`].
pub const CSV_HEADER: &str = "trace_id,timestamp,route,status,question,rag_ms,graph_ms,synthesis_ms,total_ms,llm_calls_ms,prompt_tokens,completion_tokens,total_tokens,chunks,graph_nodes,fallbacks,cypher_ok,error";

impl<'a> Row<'a> {
    /// The row of one trace; borrows its strings.
    pub fn from(t: &'a TraceLite) -> Self {
        let l = &t.latency_ms;
        Row {
            trace_id: &t.trace_id,
            timestamp: &t.timestamp,
            route: t.route.as_str(),
            status: t.status().map_or("", |s| s.as_str()),
            question: &t.user_question,
            rag_ms: l.rag,
            graph_ms: l.graph,
            synthesis_ms: l.synthesis,
            total_ms: l.total,
            llm_calls_ms: l.llm_calls,
            prompt_tokens: t.token_usage.map(|u| u.prompt),
            completion_tokens: t.token_usage.map(|u| u.completion),
            total_tokens: t.token_usage.map(|u| u.total),
            chunks: t.chunks(),
            graph_nodes: t.graph_nodes(),
            fallbacks: t.graph.fallback_used.join(";"),
            cypher_ok: t.cypher_ok(),
            error: t.error.as_deref(),
        }
    }

    /// Write the row as one CSV line (RFC 4180 quoting), newline included.
    pub fn write_csv(&self, w: &mut impl Write) -> std::io::Result<()> {
        fn opt<T: ToString>(x: Option<T>) -> String {
            x.map(|v| v.to_string()).unwrap_or_default()
        }
        let fields = [
            csv_field(self.trace_id),
            csv_field(self.timestamp),
            csv_field(self.route),
            csv_field(self.status),
            csv_field(self.question),
            self.rag_ms.to_string(),
            self.graph_ms.to_string(),
            self.synthesis_ms.to_string(),
            self.total_ms.to_string(),
            self.llm_calls_ms.to_string(),
            opt(self.prompt_tokens),
            opt(self.completion_tokens),
            opt(self.total_tokens),
            self.chunks.to_string(),
            self.graph_nodes.to_string(),
            csv_field(&self.fallbacks),
            opt(self.cypher_ok),
            csv_field(self.error.unwrap_or("")),
        ];
        writeln!(w, "{}", fields.join(","))
    }
}

/// A CSV field: quoted when it holds a comma, a quote, CR or LF (or starts/ends with a space);
/// quotes inside are doubled.
fn csv_field(s: &str) -> String {
    let needs = s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ');
    if needs {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Write the rows of the traces in `path` that pass `filter` to `sink`: CSV with its header, or
/// JSON Lines.
pub fn write(path: &std::path::Path, filter: &crate::Filter, csv: bool, sink: &mut dyn std::io::Write) -> Result<crate::ScanCounts, crate::TracesError> {
    let write_err = |source: std::io::Error| crate::TracesError::Write { what: "the export", source };
    if csv {
        writeln!(sink, "{CSV_HEADER}").map_err(write_err)?;
    }
    let mut io_err: Option<std::io::Error> = None;
    let counts = crate::scan(path, filter, |t| {
        if io_err.is_some() {
            return;
        }
        let row = Row::from(t);
        let res = if csv { row.write_csv(&mut &mut *sink) } else { serde_json::to_writer(&mut *sink, &row).map_err(std::io::Error::other).and_then(|_| writeln!(sink)) };
        if let Err(e) = res {
            io_err = Some(e);
        }
    })?;
    if let Some(e) = io_err {
        return Err(write_err(e));
    }
    sink.flush().map_err(write_err)?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quoting() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_field("cr\rhere"), "\"cr\rhere\"");
        assert_eq!(csv_field(" padded"), "\" padded\"");
        assert_eq!(csv_field(""), "");
    }

    #[test]
    fn row_to_csv() {
        let t: TraceLite = serde_json::from_str(
            r#"{"trace_id":"x","route":"graph","status":"error","user_question":"What, \"exactly\"?","latency_ms":{"total":12.5},"graph":{"fallback_used":["co_mention","shortest_path"],"validation":{"ok":false}},"token_usage":{"prompt":3,"completion":4,"total":7}}"#,
        )
        .unwrap();
        let mut out = Vec::new();
        Row::from(&t).write_csv(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "x,,graph,error,\"What, \"\"exactly\"\"?\",0,0,0,12.5,0,3,4,7,0,0,co_mention;shortest_path,false,\n");
        assert_eq!(CSV_HEADER.split(',').count(), 18);
    }
}
