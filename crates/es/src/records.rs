//! Loading records from JSONL, a JSON array or CSV.
//!
//! The format follows the extension (`.jsonl`/`.ndjson`, `.json`, `.csv`); a `.json` file whose
//! first non-space byte is `{` is read as a stream of objects (JSONL, or objects one after
//! another), and an unknown extension is sniffed the same way (`[`/`{` → JSON, else CSV).
//!
//! CSV values are typed the way a person reading the file would: integers (without leading
//! zeros, so codes like `00123` stay strings), floats, `true`/`false`, everything else a string
//! (ISO-8601 dates stay strings: the mapping decides they are dates); an empty cell is absent.

use std::path::Path;

use serde_json::{Map, Number, Value};

use crate::EsError;

/// One record: a JSON object.
pub type Record = Map<String, Value>;

/// The formats [`load_records`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    JsonLines,
    JsonArray,
    Csv,
}

/// Load every record of a JSONL, JSON-array or CSV file (see the module documentation).
pub fn load_records(path: &Path) -> Result<Vec<Record>, EsError> {
    let bytes = std::fs::read(path).map_err(|e| EsError::io("cannot read", path, e))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| EsError::Records(format!("{}: not UTF-8 text ({e})", path.display())))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let first = text.trim_start().bytes().next();
    let format = match (ext.as_deref(), first) {
        (Some("jsonl" | "ndjson"), _) => Format::JsonLines,
        (Some("csv"), _) => Format::Csv,
        (_, Some(b'[')) => Format::JsonArray,
        (_, Some(b'{')) => Format::JsonLines,
        (Some("json"), None) => Format::JsonArray,
        (Some("json"), Some(_)) => {
            return Err(EsError::Records(format!("{}: expected a JSON array or objects", path.display())));
        }
        _ => Format::Csv,
    };
    let records = match format {
        Format::JsonLines if ext.as_deref() == Some("json") || ext.as_deref().is_none() => parse_json_stream(text),
        Format::JsonLines => parse_jsonl(text),
        Format::JsonArray => parse_json_array(text),
        Format::Csv => parse_csv(text),
    };
    records.map_err(|e| match e {
        EsError::Records(m) => EsError::Records(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// One JSON object per line; blank lines skipped.
pub(crate) fn parse_jsonl(text: &str) -> Result<Vec<Record>, EsError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => out.push(o),
            Ok(_) => {
                return Err(EsError::Records(format!("line {}: not a JSON object", i + 1)));
            }
            Err(e) => return Err(EsError::Records(format!("line {}: {e}", i + 1))),
        }
    }
    Ok(out)
}

/// JSON objects one after another (pretty-printed or one per line).
fn parse_json_stream(text: &str) -> Result<Vec<Record>, EsError> {
    let mut out = Vec::new();
    for item in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        match item {
            Ok(Value::Object(o)) => out.push(o),
            Ok(_) => {
                return Err(EsError::Records(format!("record {}: not a JSON object", out.len() + 1)));
            }
            Err(e) => return Err(EsError::Records(format!("line {}: {e}", e.line()))),
        }
    }
    Ok(out)
}

/// A JSON array of objects.
fn parse_json_array(text: &str) -> Result<Vec<Record>, EsError> {
    let v: Value = serde_json::from_str(text).map_err(|e| EsError::Records(format!("line {}: {e}", e.line())))?;
    let Value::Array(items) = v else {
        return Err(EsError::Records("expected a JSON array of objects".into()));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::Object(o) => Ok(o),
            _ => Err(EsError::Records(format!("element {}: not a JSON object", i + 1))),
        })
        .collect()
}

/// CSV with a header row (RFC 4180 quoting), values typed.
pub(crate) fn parse_csv(text: &str) -> Result<Vec<Record>, EsError> {
    let rows = csv_rows(text)?;
    let mut rows = rows.into_iter();
    let Some((_, header)) = rows.next() else {
        return Ok(Vec::new());
    };
    let header: Vec<String> = header.into_iter().map(|h| h.trim().to_string()).collect();
    for (i, h) in header.iter().enumerate() {
        if h.is_empty() {
            return Err(EsError::Records(format!("line 1: column {} has no name", i + 1)));
        }
        if header[..i].contains(h) {
            return Err(EsError::Records(format!("line 1: column {h:?} appears twice")));
        }
    }
    let mut out = Vec::new();
    for (line, row) in rows {
        if row.len() == 1 && row[0].is_empty() {
            continue;
        }
        if row.len() != header.len() {
            return Err(EsError::Records(format!("line {line}: {} values for {} columns", row.len(), header.len())));
        }
        let mut rec = Map::new();
        for (name, cell) in header.iter().zip(row) {
            if let Some(v) = typed_cell(&cell) {
                rec.insert(name.clone(), v);
            }
        }
        out.push(rec);
    }
    Ok(out)
}

/// Split CSV text into rows of fields, each row with the line number it starts on.
fn csv_rows(text: &str) -> Result<Vec<(usize, Vec<String>)>, EsError> {
    let mut rows = Vec::new();
    let mut row: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    let mut row_line = 1;
    let mut in_quotes = false;
    let mut quote_line = 0;
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                in_quotes = true;
                quote_line = line;
            }
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                row.push(std::mem::take(&mut field));
                rows.push((row_line, std::mem::take(&mut row)));
                line += 1;
                row_line = line;
            }
            _ => field.push(c),
        }
    }
    if in_quotes {
        return Err(EsError::Records(format!("line {quote_line}: a quoted value is never closed")));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push((row_line, row));
    }
    Ok(rows)
}

/// The JSON value of a CSV cell: absent when empty, numbers and booleans typed.
fn typed_cell(cell: &str) -> Option<Value> {
    let t = cell.trim();
    if t.is_empty() {
        return None;
    }
    if t.eq_ignore_ascii_case("true") {
        return Some(Value::Bool(true));
    }
    if t.eq_ignore_ascii_case("false") {
        return Some(Value::Bool(false));
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    let leading_zero = digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.");
    let numeric_chars = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
    if numeric_chars && !leading_zero && digits.as_bytes()[0].is_ascii_digit() {
        if let Ok(i) = t.parse::<i64>() {
            return Some(Value::Number(i.into()));
        }
        if let Some(n) = t.parse::<f64>().ok().and_then(Number::from_f64) {
            return Some(Value::Number(n));
        }
    }
    Some(Value::String(cell.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn write(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p
    }

    #[test]
    fn loads_jsonl_skipping_blank_lines_and_names_a_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "a.jsonl", "{\"a\":1}\n\n  \n{\"a\":2,\"b\":{\"c\":\"x\"}}\n");
        let recs = load_records(&p).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1]["b"]["c"], json!("x"));
        let bad = write(dir.path(), "b.ndjson", "{\"a\":1}\n{\"a\":\n{\"a\":3}\n");
        let err = load_records(&bad).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        let not_obj = write(dir.path(), "c.jsonl", "{\"a\":1}\n[1,2]\n");
        assert!(load_records(&not_obj).unwrap_err().to_string().contains("line 2"));
    }

    #[test]
    fn loads_a_json_array_and_sniffs_objects_in_a_json_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = write(dir.path(), "a.json", " [ {\"x\": true}, {\"x\": false} ]");
        assert_eq!(load_records(&p).unwrap().len(), 2);
        let p = write(dir.path(), "b.json", "{\n  \"x\": 1\n}\n{\"x\": 2}\n");
        let recs = load_records(&p).unwrap();
        assert_eq!(recs.iter().map(|r| r["x"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 2]);
        let p = write(dir.path(), "c.json", "[{\"x\": 1}, 3]");
        assert!(load_records(&p).unwrap_err().to_string().contains("element 2"));
    }

    #[test]
    fn csv_quotes_types_and_empty_cells() {
        let dir = tempfile::tempdir().unwrap();
        let body = "\u{feff}id,name,qty,price,ok,zip,when,note\r\n\
                    1,\"Smith, Jane\",3,2.50,TRUE,00123,2024-03-01,\"said \"\"hi\"\"\nthen left\"\r\n\
                    2,Bob,,-1.5e2,false,90210,2024-03-02T10:00:00Z,\r\n";
        let p = write(dir.path(), "a.csv", body);
        let recs = load_records(&p).unwrap();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0]["name"], json!("Smith, Jane"));
        assert_eq!(recs[0]["qty"], json!(3));
        assert_eq!(recs[0]["price"], json!(2.5));
        assert_eq!(recs[0]["ok"], json!(true));
        assert_eq!(recs[0]["zip"], json!("00123"), "leading zeros stay a string");
        assert_eq!(recs[0]["when"], json!("2024-03-01"));
        assert_eq!(recs[0]["note"], json!("said \"hi\"\nthen left"));
        assert!(!recs[1].contains_key("qty"), "empty cell is absent");
        assert_eq!(recs[1]["price"], json!(-150.0));
        assert_eq!(recs[1]["zip"], json!(90210));
        let bad = write(dir.path(), "b.csv", "a,b\n1,2\n3\n");
        assert!(load_records(&bad).unwrap_err().to_string().contains("line 3"));
        let open = write(dir.path(), "c.csv", "a,b\n1,\"never closed\n");
        assert!(load_records(&open).unwrap_err().to_string().contains("line 2"));
    }

    proptest::proptest! {
        /// Any text written as an RFC 4180 quoted field reads back unchanged (a letter prefix
        /// keeps it a string).
        #[test]
        fn quoted_csv_fields_round_trip(cells in proptest::collection::vec("[a-z][ -~\n\r\"',]{0,20}", 1..5)) {
            let header: Vec<String> = (0..cells.len()).map(|i| format!("c{i}")).collect();
            let quoted: Vec<String> = cells.iter().map(|c| format!("\"{}\"", c.replace('"', "\"\""))).collect();
            let text = format!("{}\r\n{}\r\n", header.join(","), quoted.join(","));
            let recs = parse_csv(&text).unwrap();
            proptest::prop_assert_eq!(recs.len(), 1);
            for (i, c) in cells.iter().enumerate() {
                let got = recs[0].get(&format!("c{i}"));
                if c.trim().is_empty() || ["true", "false"].contains(&c.trim().to_ascii_lowercase().as_str()) {
                    continue;
                }
                proptest::prop_assert_eq!(got, Some(&Value::String(c.clone())));
            }
        }
    }
}
