//! Index mappings in Elasticsearch's shape: read from `_mapping` responses or mapping files,
//! written back in the same shape, and looked up by dotted field path.
//!
//! Inference of a mapping from records lives in [`crate::infer`].

use serde_json::{Map, Value, json};

use crate::EsError;

/// How a field is indexed, reduced to what the path needs to treat fields differently.
/// ES numeric types (`integer`, `short`, `float`, `scaled_float`, …) collapse to `Long`/`Double`;
/// the original type name is kept in [`Field::es_type`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// Exact values (term filters, terms aggregations).
    Keyword,
    /// Analysed prose (match queries).
    Text,
    /// Dates (range filters, date histograms).
    Date,
    /// Integers.
    Long,
    /// Floating-point numbers.
    Double,
    /// Booleans.
    Boolean,
    /// Anything else (`ip`, `geo_point`, `nested`, …): known to exist, not queried by the path.
    Other,
}

impl FieldKind {
    /// The kind of an ES type name.
    pub fn from_es_type(t: &str) -> FieldKind {
        match t {
            "keyword" | "constant_keyword" | "wildcard" => FieldKind::Keyword,
            "text" | "match_only_text" => FieldKind::Text,
            "date" | "date_nanos" => FieldKind::Date,
            "long" | "integer" | "short" | "byte" | "unsigned_long" => FieldKind::Long,
            "double" | "float" | "half_float" | "scaled_float" => FieldKind::Double,
            "boolean" => FieldKind::Boolean,
            _ => FieldKind::Other,
        }
    }

    /// The canonical ES type name of the kind (`other` for [`FieldKind::Other`]).
    pub fn es_type(self) -> &'static str {
        match self {
            FieldKind::Keyword => "keyword",
            FieldKind::Text => "text",
            FieldKind::Date => "date",
            FieldKind::Long => "long",
            FieldKind::Double => "double",
            FieldKind::Boolean => "boolean",
            FieldKind::Other => "other",
        }
    }

    /// Numbers and dates: ranges, min/max, averages.
    pub fn is_numeric_or_date(self) -> bool {
        matches!(self, FieldKind::Long | FieldKind::Double | FieldKind::Date)
    }
}

/// One leaf field of a mapping.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Field {
    /// Dotted path (`consignee.name`).
    pub path: String,
    /// How it is indexed.
    pub kind: FieldKind,
    /// The ES type name as declared (`integer`, `scaled_float`, …).
    pub es_type: String,
    /// The name of a `keyword` multi-field of a text field (`keyword` → `path.keyword`), used
    /// for exact filters and aggregations on prose fields.
    pub keyword_subfield: Option<String>,
    /// The declared date `format`, if any.
    pub format: Option<String>,
}

impl Field {
    /// The path to use for exact matches and aggregations: the field itself unless it is text
    /// with a keyword multi-field (`None` for text without one).
    pub fn exact_path(&self) -> Option<String> {
        match (self.kind, &self.keyword_subfield) {
            (FieldKind::Text, Some(sub)) => Some(format!("{}.{sub}", self.path)),
            (FieldKind::Text, None) | (FieldKind::Other, _) => None,
            _ => Some(self.path.clone()),
        }
    }
}

/// The fields of one index, sorted by path.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mapping {
    /// The index name.
    pub index: String,
    /// Leaf fields, sorted by path (objects are flattened into dotted paths).
    pub fields: Vec<Field>,
}

impl Mapping {
    /// A mapping from the shapes Elasticsearch and mapping files use: a `GET idx/_mapping`
    /// response (`{"idx": {"mappings": {...}}}`, the first index when there are several),
    /// `{"mappings": {"properties": ...}}`, or `{"properties": ...}`.
    pub fn from_es_json(index: &str, v: &Value) -> Result<Mapping, EsError> {
        let mappings = if v.get("properties").is_some() {
            v
        } else if let Some(m) = v.get("mappings") {
            m
        } else if let Some(m) = v.get(index).and_then(|i| i.get("mappings")) {
            m
        } else if let Some(m) = v.as_object().and_then(|o| o.values().find_map(|i| i.get("mappings"))) {
            m
        } else {
            return Err(EsError::Mapping("expected {\"mappings\": {\"properties\": …}} or {\"properties\": …}".into()));
        };
        // `_doc` type wrapper of ES 6 mapping files.
        let mappings = mappings.get("_doc").unwrap_or(mappings);
        let props = match mappings.get("properties") {
            Some(Value::Object(p)) => p,
            Some(_) => return Err(EsError::Mapping("\"properties\" is not an object".into())),
            None => return Ok(Mapping { index: index.to_string(), fields: Vec::new() }),
        };
        let mut fields = Vec::new();
        collect_fields("", props, &mut fields)?;
        fields.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Mapping { index: index.to_string(), fields })
    }

    /// The mapping in Elasticsearch's shape (`{"mappings": {"properties": …}}`), objects nested
    /// again, text fields with their keyword multi-field.
    pub fn to_es_json(&self) -> Value {
        let mut root = Map::new();
        for f in &self.fields {
            let mut def = Map::new();
            def.insert("type".into(), json!(f.es_type));
            if let Some(sub) = &f.keyword_subfield {
                def.insert("fields".into(), json!({ sub: {"type": "keyword", "ignore_above": 256} }));
            }
            if let Some(fmt) = &f.format {
                def.insert("format".into(), json!(fmt));
            }
            insert_path(&mut root, &f.path, Value::Object(def));
        }
        json!({"mappings": {"properties": root}})
    }

    /// The field at a dotted path; `name.keyword` (a keyword multi-field) resolves to its parent
    /// text field.
    pub fn field(&self, path: &str) -> Option<&Field> {
        if let Ok(i) = self.fields.binary_search_by(|f| f.path.as_str().cmp(path)) {
            return Some(&self.fields[i]);
        }
        let (parent, sub) = path.rsplit_once('.')?;
        self.field(parent).filter(|f| f.keyword_subfield.as_deref() == Some(sub))
    }

    /// The kind a path is queried as: a keyword multi-field is `Keyword`, not its parent's `Text`.
    pub fn kind_of(&self, path: &str) -> Option<FieldKind> {
        let f = self.field(path)?;
        Some(if f.path == path { f.kind } else { FieldKind::Keyword })
    }

    /// Every path a request may name: the fields and their keyword multi-fields.
    pub fn paths(&self) -> impl Iterator<Item = String> + '_ {
        self.fields.iter().flat_map(|f| std::iter::once(f.path.clone()).chain(f.keyword_subfield.as_ref().map(|s| format!("{}.{s}", f.path))))
    }
}

fn collect_fields(prefix: &str, props: &Map<String, Value>, out: &mut Vec<Field>) -> Result<(), EsError> {
    for (name, def) in props {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        let Some(def) = def.as_object() else {
            return Err(EsError::Mapping(format!("field {path:?}: definition is not an object")));
        };
        let es_type = def.get("type").and_then(Value::as_str);
        if let (Some(Value::Object(sub)), None | Some("object")) = (def.get("properties"), es_type) {
            collect_fields(&path, sub, out)?;
            continue;
        }
        let es_type = es_type.unwrap_or("object").to_string();
        let kind = FieldKind::from_es_type(&es_type);
        let keyword_subfield = def.get("fields").and_then(Value::as_object).and_then(|subs| {
            subs.iter().find(|(_, d)| d.get("type").and_then(Value::as_str) == Some("keyword")).map(|(n, _)| n.clone())
        });
        let format = def.get("format").and_then(Value::as_str).map(str::to_string);
        out.push(Field { path, kind, es_type, keyword_subfield, format });
    }
    Ok(())
}

fn insert_path(root: &mut Map<String, Value>, path: &str, def: Value) {
    match path.split_once('.') {
        None => {
            root.insert(path.to_string(), def);
        }
        Some((head, rest)) => {
            let node = root.entry(head.to_string()).or_insert_with(|| json!({"properties": {}}));
            if let Some(Value::Object(props)) = node.get_mut("properties") {
                insert_path(props, rest, def);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_mapping_response_with_objects_and_multi_fields() {
        let v = json!({"ships": {"mappings": {"properties": {
            "carrier": {"type": "keyword"},
            "notes": {"type": "text", "fields": {"raw": {"type": "keyword"}}},
            "consignee": {"properties": {"name": {"type": "text"}, "city": {"type": "keyword"}}},
            "weight_kg": {"type": "scaled_float", "scaling_factor": 100},
            "eta": {"type": "date", "format": "yyyy-MM-dd"}
        }}}});
        let m = Mapping::from_es_json("ships", &v).unwrap();
        let paths: Vec<_> = m.fields.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["carrier", "consignee.city", "consignee.name", "eta", "notes", "weight_kg"]);
        assert_eq!(m.field("weight_kg").unwrap().kind, FieldKind::Double);
        assert_eq!(m.kind_of("notes.raw"), Some(FieldKind::Keyword));
        assert_eq!(m.kind_of("notes"), Some(FieldKind::Text));
        assert!(m.field("notes.keyword").is_none(), "only the declared multi-field exists");
        assert_eq!(m.field("notes").unwrap().exact_path().as_deref(), Some("notes.raw"));
        assert_eq!(m.field("consignee.name").unwrap().exact_path(), None);
    }

    #[test]
    fn round_trips_through_the_es_shape() {
        let v = json!({"properties": {"a": {"properties": {"b": {"type": "long"}}}, "t": {"type": "text", "fields": {"keyword": {"type": "keyword"}}}}});
        let m = Mapping::from_es_json("i", &v).unwrap();
        let again = Mapping::from_es_json("i", &m.to_es_json()).unwrap();
        assert_eq!(m, again);
        assert!(Mapping::from_es_json("i", &json!({"nothing": 1})).is_err());
    }
}
