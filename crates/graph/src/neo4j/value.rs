//! Value mapping between JSON and Bolt: parameters in, rows out (the shapes are in the module
//! documentation of [`super`]).

use super::*;

// ---------------------------------------------------------------------------------------------
// JSON → Bolt (parameters)

/// A JSON value as a Bolt parameter: null, bool, integer (i64; larger unsigned numbers become
/// floats), float, string, list and map.
pub(crate) fn json_to_bolt(v: &Value) -> BoltType {
    match v {
        Value::Null => BoltType::Null(neo4rs::BoltNull),
        Value::Bool(b) => BoltType::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => BoltType::from(i),
            None => BoltType::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => BoltType::from(s.as_str()),
        Value::Array(items) => BoltType::List(BoltList::from(items.iter().map(json_to_bolt).collect::<Vec<_>>())),
        Value::Object(map) => json_map_to_bolt(map),
    }
}

pub(super) fn json_map_to_bolt(map: &serde_json::Map<String, Value>) -> BoltType {
    BoltType::Map(params_to_bolt(map))
}

pub(crate) fn params_to_bolt(params: &serde_json::Map<String, Value>) -> BoltMap {
    let mut m = BoltMap::with_capacity(params.len());
    for (k, v) in params {
        m.put(BoltString::from(k.as_str()), json_to_bolt(v));
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Bolt → JSON (results)

pub(super) fn row_to_json(row: &neo4rs::Row) -> std::result::Result<Row, neo4rs::Error> {
    let mut values = Vec::new();
    for key in row.keys() {
        let value: BoltType = row.get(&key.value).map_err(neo4rs::Error::DeserializationError)?;
        values.push((key.value.clone(), value));
    }
    Ok(values_to_row(values))
}

/// Column values → a JSON row; relationships are resolved against every node in the row.
pub(crate) fn values_to_row(values: Vec<(String, BoltType)>) -> Row {
    let mut names = HashMap::new();
    for (_, v) in &values {
        collect_node_names(v, &mut names);
    }
    values.into_iter().map(|(k, v)| (k, bolt_to_json(&v, &names))).collect()
}

pub(super) fn node_key(n: &BoltNode) -> String {
    match n.properties.value.get("id") {
        Some(BoltType::String(s)) => s.value.clone(),
        _ => format!("#{}", n.id.value),
    }
}

/// Internal node id → our string id, for every node inside `v`.
pub(super) fn collect_node_names(v: &BoltType, names: &mut HashMap<i64, String>) {
    match v {
        BoltType::Node(n) => {
            names.insert(n.id.value, node_key(n));
        }
        BoltType::List(l) => l.value.iter().for_each(|x| collect_node_names(x, names)),
        BoltType::Map(m) => m.value.values().for_each(|x| collect_node_names(x, names)),
        BoltType::Path(p) => p.nodes.value.iter().for_each(|x| collect_node_names(x, names)),
        _ => {}
    }
}

pub(super) fn props_json(props: &BoltMap, names: &HashMap<i64, String>) -> Value {
    Value::Object(props.value.iter().map(|(k, v)| (k.value.clone(), bolt_to_json(v, names))).collect())
}

pub(super) fn endpoint(id: i64, names: &HashMap<i64, String>) -> Value {
    Value::String(names.get(&id).cloned().unwrap_or_else(|| format!("#{id}")))
}

pub(super) fn node_json(n: &BoltNode, names: &HashMap<i64, String>) -> Value {
    let labels: Vec<Value> = n.labels.value.iter().map(|l| bolt_to_json(l, names)).collect();
    json!({"id": node_key(n), "labels": labels, "properties": props_json(&n.properties, names)})
}

pub(super) fn path_json(p: &neo4rs::BoltPath, outer: &HashMap<i64, String>) -> Value {
    let nodes = p.nodes();
    let rels = p.rels();
    let indices: Vec<i64> = p.indices().iter().map(|i| i.value).collect();
    let mut names = outer.clone();
    for n in &nodes {
        names.insert(n.id.value, node_key(n));
    }
    let Some(first) = nodes.first() else { return json!({"nodes": [], "edges": []}) };
    let mut out_nodes = vec![node_json(first, &names)];
    let mut edges = Vec::new();
    let mut prev = first;
    // Indices alternate (relationship, node): relationship indices are 1-based, negative when the
    // relationship points from the next node back to the previous one.
    for pair in indices.chunks_exact(2) {
        let (ri, ni) = (pair[0], pair[1]);
        let (Some(next), Some(rel)) = (usize::try_from(ni).ok().and_then(|i| nodes.get(i)), rels.get((ri.unsigned_abs() as usize).wrapping_sub(1))) else {
            break;
        };
        let (source, target) = if ri > 0 { (prev, next) } else { (next, prev) };
        edges.push(json!({
            "source": node_key(source),
            "type": rel.typ.value,
            "target": node_key(target),
            "properties": props_json(&rel.properties, &names),
        }));
        out_nodes.push(node_json(next, &names));
        prev = next;
    }
    json!({"nodes": out_nodes, "edges": edges})
}

pub(super) fn float_json(f: f64) -> Value {
    if f.is_finite() {
        json!(f)
    } else if f.is_nan() {
        json!("NaN")
    } else if f > 0.0 {
        json!("Infinity")
    } else {
        json!("-Infinity")
    }
}

/// ISO-8601 duration from Bolt's (months, days, seconds, nanoseconds).
pub(super) fn duration_iso(months: i64, days: i64, seconds: i64, nanos: i64) -> String {
    let mut s = String::from("P");
    let (years, months) = (months / 12, months % 12);
    for (n, unit) in [(years, 'Y'), (months, 'M'), (days, 'D')] {
        if n != 0 {
            s.push_str(&format!("{n}{unit}"));
        }
    }
    let total_nanos = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
    if total_nanos != 0 || s.len() == 1 {
        s.push('T');
        let sign = if total_nanos < 0 { "-" } else { "" };
        let abs = total_nanos.unsigned_abs();
        let (h, m) = (abs / 3_600_000_000_000, (abs / 60_000_000_000) % 60);
        let (sec, frac) = ((abs / 1_000_000_000) % 60, abs % 1_000_000_000);
        if h != 0 {
            s.push_str(&format!("{sign}{h}H"));
        }
        if m != 0 {
            s.push_str(&format!("{sign}{m}M"));
        }
        if sec != 0 || frac != 0 || (h == 0 && m == 0) {
            let frac = if frac == 0 { String::new() } else { format!(".{frac:09}").trim_end_matches('0').to_string() };
            s.push_str(&format!("{sign}{sec}{frac}S"));
        }
    }
    s
}

/// Convert a result value to JSON (see the module docs for the shapes); `names` maps internal
/// node ids to our string ids, for relationship endpoints.
pub(crate) fn bolt_to_json(v: &BoltType, names: &HashMap<i64, String>) -> Value {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
    let or_debug = |r: std::result::Result<String, ()>| Value::String(r.unwrap_or_else(|_| format!("{v:?}")));
    match v {
        BoltType::Null(_) => Value::Null,
        BoltType::Boolean(b) => json!(b.value),
        BoltType::Integer(i) => json!(i.value),
        BoltType::Float(f) => float_json(f.value),
        BoltType::String(s) => json!(s.value),
        BoltType::Bytes(b) => json!(b.value.to_vec()),
        BoltType::List(l) => Value::Array(l.value.iter().map(|x| bolt_to_json(x, names)).collect()),
        BoltType::Map(m) => props_json(m, names),
        BoltType::Node(n) => node_json(n, names),
        BoltType::Relation(r) => json!({
            "source": endpoint(r.start_node_id.value, names),
            "type": r.typ.value,
            "target": endpoint(r.end_node_id.value, names),
            "properties": props_json(&r.properties, names),
        }),
        BoltType::UnboundedRelation(r) => json!({
            "source": null,
            "type": r.typ.value,
            "target": null,
            "properties": props_json(&r.properties, names),
        }),
        BoltType::Path(p) => path_json(p, names),
        BoltType::Point2D(p) => json!({"srid": p.sr_id.value, "x": float_json(p.x.value), "y": float_json(p.y.value)}),
        BoltType::Point3D(p) => {
            json!({"srid": p.sr_id.value, "x": float_json(p.x.value), "y": float_json(p.y.value), "z": float_json(p.z.value)})
        }
        BoltType::Duration(d) => {
            let mut m = BoltMap::new();
            m.put("d".into(), BoltType::Duration(d.clone()));
            or_debug(m.get::<(i64, i64, i64, i64)>("d").map(|(mo, da, se, na)| duration_iso(mo, da, se, na)).map_err(|_| ()))
        }
        BoltType::Date(d) => or_debug(NaiveDate::try_from(d).map(|d| d.format("%Y-%m-%d").to_string()).map_err(|_| ())),
        // The driver's conversions panic on out-of-range values; a bad value must not.
        BoltType::Time(t) => or_debug(qa_core::error::catch_panic(|| {
            let (time, offset): (NaiveTime, FixedOffset) = t.into();
            format!("{time}{offset}")
        })
        .map_err(|_| ())),
        BoltType::LocalTime(t) => or_debug(qa_core::error::catch_panic(|| NaiveTime::from(t).to_string()).map_err(|_| ())),
        BoltType::DateTime(dt) => or_debug(DateTime::<FixedOffset>::try_from(dt).map(|d| d.to_rfc3339()).map_err(|_| ())),
        BoltType::LocalDateTime(dt) => {
            or_debug(NaiveDateTime::try_from(dt).map(|d| d.format("%Y-%m-%dT%H:%M:%S%.f").to_string()).map_err(|_| ()))
        }
        BoltType::DateTimeZoneId(dt) => {
            or_debug(DateTime::<FixedOffset>::try_from(dt).map(|d| format!("{}[{}]", d.to_rfc3339(), dt.tz_id())).map_err(|_| ()))
        }
    }
}
