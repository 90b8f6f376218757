//! Schema-guided constrained decoding: a JSON-prefix validator that also follows a JSON schema.
//!
//! [`JsonPrefix`] only guarantees syntax; a small model given a schema in the prompt still writes
//! keys from the wrong object, never-ending arrays and strings. [`SchemaGuide`] feeds the same
//! bytes to a [`JsonPrefix`] and, from the syntax events it reports, keeps a stack of schema
//! frames: inside an object only a not-yet-used declared key may be typed and the object closes
//! only once its required keys are present; a value must open with the type its schema asks for;
//! arrays respect `minItems`/`maxItems` and refuse a string item equal to an earlier one; strings
//! respect `minLength`/`maxLength` (or a default cap). Like [`JsonPrefix`] it is incremental and
//! cheap to clone, so candidates are tested on clones.
//!
//! Only a subset of JSON Schema is understood (`type` object/array/string/number/integer/boolean,
//! `properties`, `required`, `additionalProperties: false`, `items`, `minItems`, `maxItems`,
//! `minLength`, `maxLength`; annotations are ignored). [`SchemaGuide::new`] refuses anything else,
//! and [`JsonConstraint`] then falls back to syntax only.
//!
//! The guide never accepts a byte after which no completion is possible (a comma when the array
//! is full or every key is used, a key no declared name starts with), so greedy decoding cannot
//! paint itself into a corner.

use std::sync::Arc;

use serde_json::Value;

use super::error::SchemaError;
use super::json_constraint::{Container, Event, JsonPrefix, Position, ValueKind};

/// Longest string, in characters, when the schema gives no `maxLength`: long enough for a
/// description, short enough that a model repeating itself inside a string is cut off.
pub(crate) const DEFAULT_MAX_STRING_CHARS: usize = 160;

/// Validation keywords this guide does not implement: a schema using one is not guided.
const UNSUPPORTED_KEYWORDS: &[&str] = &[
    "enum",
    "const",
    "pattern",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "if",
    "then",
    "else",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependencies",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
];

/// Most properties one object schema may declare (the used keys are a bit mask).
const MAX_PROPERTIES: usize = 64;

/// An object schema's properties: the name as written between the quotes, and its schema node.
type Property = (Vec<u8>, usize);

/// A compiled schema node; children are indices into the guide's node table.
#[derive(Debug)]
enum Node {
    Object {
        /// Property names as they appear between the quotes in JSON, and their schemas.
        props: Vec<Property>,
        /// Bit `i` set when `props[i]` is required.
        required: u64,
    },
    Array {
        items: usize,
        min: usize,
        max: usize,
    },
    String {
        min: usize,
        max: usize,
    },
    Number {
        integer: bool,
    },
    Boolean,
}

/// An open container and what it has seen so far.
#[derive(Debug, Clone)]
enum Frame {
    Object {
        node: usize,
        /// Bit `i` set once key `i` was written.
        used: u64,
        /// The key being typed (raw bytes between the quotes).
        key: Vec<u8>,
        /// Schema of the value after the last complete key.
        value: Option<usize>,
    },
    Array {
        node: usize,
        /// Items started so far.
        count: usize,
        /// Completed string items (raw bytes), to refuse repeats.
        seen: Vec<Vec<u8>>,
    },
}

/// A string value being read.
#[derive(Debug, Clone)]
struct StringValue {
    min: usize,
    max: usize,
    chars: usize,
    /// An array item whose bytes are kept to refuse a repeat of an earlier item.
    distinct: bool,
    bytes: Vec<u8>,
}

/// A JSON-prefix validator that also follows a schema (see the module documentation).
#[derive(Debug, Clone)]
pub(crate) struct SchemaGuide {
    syntax: JsonPrefix,
    nodes: Arc<[Node]>,
    /// Per node, the length of its shortest valid JSON text.
    min_len: Arc<[usize]>,
    root: usize,
    frames: Vec<Frame>,
    string: Option<StringValue>,
    /// The number being read must stay an integer.
    integer: bool,
}

fn compile(schema: &Value, nodes: &mut Vec<Node>) -> Result<usize, SchemaError> {
    let obj = schema.as_object().ok_or(SchemaError::Shape("a schema that is not an object"))?;
    if let Some(k) = UNSUPPORTED_KEYWORDS.iter().find(|k| obj.contains_key(**k)) {
        return Err(SchemaError::UnsupportedKeyword(k));
    }
    let count = |key: &str| -> Result<Option<usize>, SchemaError> {
        match obj.get(key) {
            None => Ok(None),
            Some(v) => v.as_u64().map(|n| Some(n as usize)).ok_or_else(|| SchemaError::NotACount(key.to_string())),
        }
    };
    let ty = obj.get("type").and_then(Value::as_str).ok_or(SchemaError::Shape("no single \"type\""))?;
    let node = match ty {
        "object" => {
            match obj.get("additionalProperties") {
                None | Some(Value::Bool(false)) => {}
                Some(_) => return Err(SchemaError::Shape("\"additionalProperties\" other than false")),
            }
            let mut props = Vec::new();
            if let Some(p) = obj.get("properties") {
                let p = p.as_object().ok_or(SchemaError::Shape("\"properties\" is not an object"))?;
                if p.len() > MAX_PROPERTIES {
                    return Err(SchemaError::TooManyProperties(MAX_PROPERTIES));
                }
                for (name, sub) in p {
                    let quoted = serde_json::to_string(name)?;
                    let raw = quoted.as_bytes()[1..quoted.len() - 1].to_vec();
                    props.push((raw, compile(sub, nodes)?));
                }
            }
            let mut required = 0u64;
            if let Some(r) = obj.get("required") {
                for name in r.as_array().ok_or(SchemaError::Shape("\"required\" is not a list"))? {
                    let name = name.as_str().ok_or(SchemaError::Shape("a required name is not a string"))?;
                    let quoted = serde_json::to_string(name)?;
                    let raw = &quoted.as_bytes()[1..quoted.len() - 1];
                    let i = props
                        .iter()
                        .position(|(n, _)| n.as_slice() == raw)
                        .ok_or_else(|| SchemaError::UndeclaredRequired(name.to_string()))?;
                    required |= 1 << i;
                }
            }
            Node::Object { props, required }
        }
        "array" => {
            let items = obj.get("items").ok_or(SchemaError::Shape("an array without \"items\""))?;
            let items = compile(items, nodes)?;
            let min = count("minItems")?.unwrap_or(0);
            let max = count("maxItems")?.unwrap_or(usize::MAX);
            if min > max {
                return Err(SchemaError::Shape("minItems above maxItems"));
            }
            Node::Array { items, min, max }
        }
        "string" => {
            let min = count("minLength")?.unwrap_or(0);
            let max = count("maxLength")?.unwrap_or(DEFAULT_MAX_STRING_CHARS.max(min));
            if min > max {
                return Err(SchemaError::Shape("minLength above maxLength"));
            }
            Node::String { min, max }
        }
        "number" => Node::Number { integer: false },
        "integer" => Node::Number { integer: true },
        "boolean" => Node::Boolean,
        other => return Err(SchemaError::UnsupportedType(other.to_string())),
    };
    nodes.push(node);
    Ok(nodes.len() - 1)
}

impl SchemaGuide {
    /// A guide for `schema`, before the first byte; `Err` (with the reason) when the schema uses
    /// something outside the supported subset.
    pub fn new(schema: &Value) -> Result<SchemaGuide, SchemaError> {
        let mut nodes = Vec::new();
        let root = compile(schema, &mut nodes)?;
        // Children are compiled before their parent, so one pass in order suffices.
        let mut min_len: Vec<usize> = Vec::with_capacity(nodes.len());
        for node in &nodes {
            let len = match node {
                Node::Object { props, required } => {
                    let entries: Vec<usize> = (0..props.len())
                        .filter(|i| required & (1 << i) != 0)
                        .map(|i| props[i].0.len() + 3 + min_len[props[i].1])
                        .collect();
                    2 + entries.iter().sum::<usize>() + entries.len().saturating_sub(1)
                }
                Node::Array { items, min, .. } => 2 + min * min_len[*items] + min.saturating_sub(1),
                Node::String { min, .. } => 2 + min,
                Node::Number { .. } => 1,
                Node::Boolean => 4,
            };
            min_len.push(len);
        }
        Ok(SchemaGuide {
            syntax: JsonPrefix::new(),
            nodes: nodes.into(),
            min_len: min_len.into(),
            root,
            frames: Vec::new(),
            string: None,
            integer: false,
        })
    }

    /// Feed all of `bytes`; false (and the guide left in an unspecified state) if any byte
    /// breaks the syntax or the schema.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        bytes.iter().all(|&b| self.push(b))
    }

    /// Whether `bytes` could be appended, without changing `self`.
    #[cfg(test)]
    pub fn accepts(&self, bytes: &[u8]) -> bool {
        self.clone().push_bytes(bytes)
    }

    /// The value is finished (and, having been checked at every step, matches the schema).
    pub fn is_complete(&self) -> bool {
        self.syntax.is_complete()
    }

    /// The text read so far is a whole value (a trailing top-level number counts).
    pub fn could_end_here(&self) -> bool {
        self.syntax.could_end_here()
    }

    /// The fewest bytes that complete the value from here (whitespace aside). Decoding with a
    /// token budget keeps this within the tokens left, so the answer can always be closed in time.
    pub fn min_completion(&self) -> usize {
        let (position, pending) = self.syntax.position();
        let last = self.frames.len().wrapping_sub(1);
        let mut total = pending;
        // The innermost frame's own cost when the position already accounts for it.
        let mut top_done = false;
        // An array item whose opening byte is still to come (counted as started).
        let mut item_pending = false;
        match position {
            Position::AfterValue | Position::Scalar => {}
            Position::String => {
                if let Some(s) = &self.string {
                    total += s.min.saturating_sub(s.chars);
                }
                total += 1;
            }
            Position::ValueStart => match self.frames.last() {
                None => total += self.min_len[self.root],
                Some(Frame::Object { value, .. }) => total += value.map_or(0, |v| self.min_len[v]),
                Some(Frame::Array { node, .. }) => {
                    if let Node::Array { items, .. } = &self.nodes[*node] {
                        total += self.min_len[*items];
                    }
                    item_pending = true;
                }
            },
            Position::Colon => {
                if let Some(Frame::Object { value: Some(v), .. }) = self.frames.last() {
                    total += 1 + self.min_len[*v];
                }
            }
            Position::Key => {
                if let Some(Frame::Object { node, used, key, .. }) = self.frames.last()
                    && let Node::Object { props, .. } = &self.nodes[*node]
                {
                    let best = props
                        .iter()
                        .enumerate()
                        .filter(|(i, (name, _))| used & (1 << i) == 0 && name.starts_with(key))
                        .map(|(i, (name, child))| {
                            name.len() - key.len() + 2 + self.min_len[*child] + self.object_rest(*node, used | (1 << i))
                        })
                        .min();
                    total += best.unwrap_or(usize::MAX / 2);
                    top_done = true;
                }
            }
            Position::ObjectFirst | Position::ObjectKey => {
                if let Some(Frame::Object { node, used, .. }) = self.frames.last()
                    && let Node::Object { props, required } = &self.nodes[*node]
                {
                    let missing = required & !used;
                    let entries: Vec<usize> = (0..props.len())
                        .filter(|i| missing & (1 << i) != 0)
                        .map(|i| self.entry_len(*node, i))
                        .collect();
                    total += if !entries.is_empty() {
                        entries.iter().sum::<usize>() + entries.len() - 1 + 1
                    } else if position == Position::ObjectKey {
                        // After a comma some key must follow.
                        (0..props.len()).filter(|i| used & (1 << i) == 0).map(|i| self.entry_len(*node, i)).min().unwrap_or(0) + 1
                    } else {
                        1
                    };
                    top_done = true;
                }
            }
            Position::ArrayFirst => {
                if let Some(Frame::Array { node, .. }) = self.frames.last() {
                    total += self.array_rest(*node, 0);
                    top_done = true;
                }
            }
        }
        for (i, frame) in self.frames.iter().enumerate().rev() {
            if i == last && top_done {
                continue;
            }
            total += match frame {
                Frame::Object { node, used, .. } => self.object_rest(*node, *used),
                Frame::Array { node, count, .. } => self.array_rest(*node, count + usize::from(i == last && item_pending)),
            };
        }
        total
    }

    /// `"name": <shortest value>` for property `i` of object `node`.
    fn entry_len(&self, node: usize, i: usize) -> usize {
        match &self.nodes[node] {
            Node::Object { props, .. } => props[i].0.len() + 3 + self.min_len[props[i].1],
            _ => 0,
        }
    }

    /// Bytes that close object `node` after a value, with keys `used` written: a comma and an
    /// entry per missing required key, then `}`.
    fn object_rest(&self, node: usize, used: u64) -> usize {
        match &self.nodes[node] {
            Node::Object { props, required } => {
                let missing = required & !used;
                (0..props.len()).filter(|i| missing & (1 << i) != 0).map(|i| 1 + self.entry_len(node, i)).sum::<usize>() + 1
            }
            _ => 0,
        }
    }

    /// Bytes that close array `node` holding `count` items (after an item, or just after `[`
    /// when `count` is 0): the items `minItems` still asks for, then `]`.
    fn array_rest(&self, node: usize, count: usize) -> usize {
        match &self.nodes[node] {
            Node::Array { items, min, .. } => {
                let needed = min.saturating_sub(count);
                let commas = if count == 0 { needed.saturating_sub(1) } else { needed };
                needed * self.min_len[*items] + commas + 1
            }
            _ => 0,
        }
    }

    /// Feed one byte; false if it breaks the syntax or the schema.
    pub fn push(&mut self, b: u8) -> bool {
        let Some(event) = self.syntax.push_event(b) else {
            return false;
        };
        match event {
            Event::Space | Event::Colon | Event::LiteralByte => true,
            Event::Open(kind) => self.open(kind),
            Event::KeyOpen => {
                if let Some(Frame::Object { key, .. }) = self.frames.last_mut() {
                    key.clear();
                }
                self.key_possible()
            }
            Event::StringByte { key: true, .. } => {
                if let Some(Frame::Object { key, .. }) = self.frames.last_mut() {
                    key.push(b);
                }
                self.key_possible()
            }
            Event::StringByte { key: false, starts_char } => self.string_byte(b, starts_char),
            Event::StringClose { key: true } => self.close_key(),
            Event::StringClose { key: false } => self.close_string(),
            Event::NumberByte => !(self.integer && matches!(b, b'.' | b'e' | b'E')),
            Event::Comma => self.comma(),
            Event::Close(Container::Object) => self.close_object(),
            Event::Close(Container::Array) => self.close_array(),
        }
    }

    /// A value starts: it must be of the type its schema asks for (and fit in its array).
    fn open(&mut self, kind: ValueKind) -> bool {
        let SchemaGuide { nodes, root, frames, string, integer, .. } = self;
        let (node, in_array) = match frames.last_mut() {
            None => (*root, false),
            Some(Frame::Object { value, .. }) => match value {
                Some(n) => (*n, false),
                None => return false,
            },
            Some(Frame::Array { node, count, .. }) => {
                let Node::Array { items, max, .. } = &nodes[*node] else {
                    return false;
                };
                if *count >= *max {
                    return false;
                }
                *count += 1;
                (*items, true)
            }
        };
        match (kind, &nodes[node]) {
            (ValueKind::Object, Node::Object { .. }) => {
                frames.push(Frame::Object { node, used: 0, key: Vec::new(), value: None });
            }
            (ValueKind::Array, Node::Array { .. }) => {
                frames.push(Frame::Array { node, count: 0, seen: Vec::new() });
            }
            (ValueKind::String, &Node::String { min, max }) => {
                *string = Some(StringValue { min, max, chars: 0, distinct: in_array, bytes: Vec::new() });
            }
            (ValueKind::Number, &Node::Number { integer: int }) => *integer = int,
            (ValueKind::True | ValueKind::False, Node::Boolean) => {}
            _ => return false,
        }
        true
    }

    /// The innermost object's properties, the mask of those used, and the key being typed.
    fn unused_props(&self) -> Option<(&[Property], u64, &[u8])> {
        match self.frames.last() {
            Some(Frame::Object { node, used, key, .. }) => match &self.nodes[*node] {
                Node::Object { props, .. } => Some((props, *used, key)),
                _ => None,
            },
            _ => None,
        }
    }

    /// Some unused declared key starts with the key typed so far.
    fn key_possible(&self) -> bool {
        self.unused_props().is_some_and(|(props, used, key)| {
            props.iter().enumerate().any(|(i, (name, _))| used & (1 << i) == 0 && name.starts_with(key))
        })
    }

    fn close_key(&mut self) -> bool {
        let Some((props, used, key)) = self.unused_props() else {
            return false;
        };
        let Some((i, child)) =
            props.iter().enumerate().find(|(i, (name, _))| used & (1 << i) == 0 && name.as_slice() == key).map(|(i, (_, c))| (i, *c))
        else {
            return false;
        };
        if let Some(Frame::Object { used, value, .. }) = self.frames.last_mut() {
            *used |= 1 << i;
            *value = Some(child);
        }
        true
    }

    fn string_byte(&mut self, b: u8, starts_char: bool) -> bool {
        let Some(s) = self.string.as_mut() else {
            return false;
        };
        if starts_char {
            if s.chars >= s.max {
                return false;
            }
            s.chars += 1;
        }
        if s.distinct {
            s.bytes.push(b);
        }
        true
    }

    fn close_string(&mut self) -> bool {
        let Some(s) = self.string.take() else {
            return false;
        };
        if s.chars < s.min {
            return false;
        }
        if s.distinct
            && let Some(Frame::Array { seen, .. }) = self.frames.last_mut()
        {
            // A string at its length cap may repeat an earlier item: refusing the quote there
            // would leave no way forward.
            if s.chars < s.max && seen.contains(&s.bytes) {
                return false;
            }
            seen.push(s.bytes);
        }
        true
    }

    /// A comma must lead somewhere: another item below `maxItems`, or an unused key.
    fn comma(&mut self) -> bool {
        match self.frames.last() {
            Some(Frame::Array { node, count, .. }) => match &self.nodes[*node] {
                Node::Array { max, .. } => count < max,
                _ => false,
            },
            Some(Frame::Object { .. }) => {
                self.unused_props().is_some_and(|(props, used, _)| (0..props.len()).any(|i| used & (1 << i) == 0))
            }
            None => false,
        }
    }

    fn close_object(&mut self) -> bool {
        match self.frames.last() {
            Some(Frame::Object { node, used, .. }) => match &self.nodes[*node] {
                Node::Object { required, .. } if required & !used == 0 => {
                    self.frames.pop();
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }

    fn close_array(&mut self) -> bool {
        match self.frames.last() {
            Some(Frame::Array { node, count, .. }) => match &self.nodes[*node] {
                Node::Array { min, .. } if count >= min => {
                    self.frames.pop();
                    true
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// The constraint for one JSON answer: schema-guided when the schema is supported, else syntax
/// only.
#[derive(Debug, Clone)]
pub(crate) enum JsonConstraint {
    /// Any JSON value is accepted.
    Syntax(JsonPrefix),
    /// Only values matching the schema are accepted.
    Schema(SchemaGuide),
}

impl JsonConstraint {
    /// A constraint for `schema`, primed with `prefix`; `None` when `prefix` is not the start of
    /// a JSON value. A prefix the schema guide refuses falls back to syntax only.
    pub fn start(schema: &Value, prefix: &str) -> Option<JsonConstraint> {
        let mut syntax = JsonPrefix::new();
        if !syntax.push_bytes(prefix.as_bytes()) {
            return None;
        }
        let guided = SchemaGuide::new(schema).ok().and_then(|mut guide| guide.push_bytes(prefix.as_bytes()).then_some(guide));
        Some(match guided {
            Some(guide) => JsonConstraint::Schema(guide),
            None => JsonConstraint::Syntax(syntax),
        })
    }

    /// `self` with `bytes` appended, if they are accepted.
    pub fn advanced(&self, bytes: &[u8]) -> Option<JsonConstraint> {
        let mut next = self.clone();
        next.push_bytes(bytes).then_some(next)
    }

    /// The fewest bytes that complete the value (schema-guided only; 0 for syntax only, whose
    /// decoding is not budgeted).
    pub fn min_completion(&self) -> usize {
        match self {
            JsonConstraint::Syntax(_) => 0,
            JsonConstraint::Schema(g) => g.min_completion(),
        }
    }

    /// The schema is enforced, not only the syntax.
    pub fn is_schema_guided(&self) -> bool {
        matches!(self, JsonConstraint::Schema(_))
    }

    /// Feed `bytes`; false (and `self` left in an unspecified state) if any is refused.
    pub fn push_bytes(&mut self, bytes: &[u8]) -> bool {
        match self {
            JsonConstraint::Syntax(v) => v.push_bytes(bytes),
            JsonConstraint::Schema(g) => g.push_bytes(bytes),
        }
    }

    /// The value is finished: only whitespace may follow.
    pub fn is_complete(&self) -> bool {
        match self {
            JsonConstraint::Syntax(v) => v.is_complete(),
            JsonConstraint::Schema(g) => g.is_complete(),
        }
    }

    /// The text so far would be a complete value if it ended here.
    pub fn could_end_here(&self) -> bool {
        match self {
            JsonConstraint::Syntax(v) => v.could_end_here(),
            JsonConstraint::Schema(g) => g.could_end_here(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The graph-extraction schema (as in `kg::llm_extract::schema`).
    fn graph() -> Value {
        json!({
            "type": "object",
            "properties": {
                "entities": {"type": "array", "maxItems": 12, "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "type": {"type": "string"}, "description": {"type": "string"}},
                    "required": ["name", "type", "description"], "additionalProperties": false}},
                "relations": {"type": "array", "maxItems": 16, "items": {
                    "type": "object",
                    "properties": {"source": {"type": "string"}, "target": {"type": "string"}, "type": {"type": "string"}},
                    "required": ["source", "target", "type"], "additionalProperties": false}}
            },
            "required": ["entities", "relations"],
            "additionalProperties": false
        })
    }

    /// The subquery schema (as in `retrieve::subquery_schema`).
    fn subqueries() -> Value {
        json!({
            "type": "object",
            "properties": {"subqueries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 4}},
            "required": ["subqueries"],
            "additionalProperties": false
        })
    }

    fn guide(schema: &Value) -> SchemaGuide {
        SchemaGuide::new(schema).expect("supported schema")
    }

    fn accepts(schema: &Value, text: &str) -> bool {
        guide(schema).push_bytes(text.as_bytes())
    }

    fn complete(schema: &Value, text: &str) -> bool {
        let mut g = guide(schema);
        g.push_bytes(text.as_bytes()) && g.is_complete()
    }

    #[test]
    fn prefixes_of_both_schemas_seed_the_guide() {
        assert!(accepts(&subqueries(), "{\"subqueries\": [\""));
        assert!(accepts(&graph(), "{\"entities\": ["));
        let c = JsonConstraint::start(&subqueries(), "{\"subqueries\": [\"").expect("valid prefix");
        assert!(c.is_schema_guided());
        assert!(JsonConstraint::start(&graph(), "{\"entities\": [").expect("valid prefix").is_schema_guided());
        assert!(JsonConstraint::start(&graph(), "{]").is_none(), "not JSON at all");
        let off_schema = JsonConstraint::start(&graph(), "{\"nodes\": [").expect("valid JSON prefix");
        assert!(!off_schema.is_schema_guided(), "a prefix the schema refuses falls back to syntax only");
    }

    #[test]
    fn keys_are_restricted_to_declared_unused_properties() {
        let s = graph();
        assert!(accepts(&s, "{\"ent"));
        assert!(accepts(&s, "{\"relations\""));
        assert!(!accepts(&s, "{\"x"), "unknown key");
        assert!(!accepts(&s, "{\"entities\": [{\"source"), "a relation key inside an entity");
        assert!(accepts(&s, "{\"entities\": [{\"name\": \"BME280\", \"type"));
        assert!(!accepts(&s, "{\"entities\": [{\"name\": \"a\", \"name"), "duplicate key");
        assert!(!accepts(&s, "{\"entities\": [], \"entities"), "duplicate key");
        assert!(!accepts(&s, "{\"entit\""), "a key prefix is not a key");
        assert!(!accepts(&s, "{\"entitiesX"), "longer than any key");
    }

    #[test]
    fn required_keys_come_before_the_closing_brace() {
        let s = graph();
        assert!(!accepts(&s, "{}"));
        assert!(!accepts(&s, "{\"entities\": []}"));
        assert!(complete(&s, "{\"entities\": [], \"relations\": []}"));
        assert!(complete(&s, "{\"relations\": [], \"entities\": []}"), "any key order");
        assert!(!accepts(&s, "{\"entities\": [{\"name\": \"a\", \"type\": \"b\"}"));
        assert!(complete(
            &s,
            "{\"entities\": [{\"name\": \"ESP32\", \"type\": \"board\", \"description\": \"a microcontroller\"}], \
             \"relations\": [{\"source\": \"BME280\", \"target\": \"ESP32\", \"type\": \"CONNECTS_TO\"}]}"
        ));
        // With every key used a comma leads nowhere.
        assert!(!accepts(&s, "{\"entities\": [], \"relations\": [],"));
        assert!(!accepts(&s, "{\"entities\": [{\"name\": \"a\", \"type\": \"b\", \"description\": \"c\","));
    }

    #[test]
    fn value_types_must_match() {
        let s = graph();
        assert!(!accepts(&s, "{\"entities\": {"), "object where an array is expected");
        assert!(!accepts(&s, "{\"entities\": \""), "string where an array is expected");
        assert!(!accepts(&s, "{\"entities\": [\""), "string where an object item is expected");
        assert!(!accepts(&s, "{\"entities\": [{\"name\": 1"), "number where a string is expected");
        assert!(!accepts(&s, "{\"entities\": [{\"name\": n"), "null where a string is expected");
        assert!(!accepts(&s, "["), "array at the top of an object schema");
        let mixed = json!({"type": "object", "properties": {
            "n": {"type": "integer"}, "x": {"type": "number"}, "ok": {"type": "boolean"}}});
        assert!(complete(&mixed, "{\"n\": -12, \"x\": 1.5e3, \"ok\": true}"));
        assert!(!accepts(&mixed, "{\"n\": 1."), "an integer has no fraction");
        assert!(!accepts(&mixed, "{\"n\": 1e"), "an integer has no exponent");
        assert!(!accepts(&mixed, "{\"ok\": 1"));
        assert!(!accepts(&mixed, "{\"ok\": n"));
        assert!(complete(&mixed, "{}"), "nothing required");
    }

    #[test]
    fn items_are_bounded_by_min_and_max() {
        let s = subqueries();
        assert!(!accepts(&s, "{\"subqueries\": []"), "minItems 1");
        let four = "{\"subqueries\": [\"a\", \"b\", \"c\", \"d\"";
        assert!(accepts(&s, four));
        assert!(!accepts(&s, &format!("{four},")), "a fifth item");
        assert!(complete(&s, &format!("{four}]}}")));
        assert!(complete(&s, "{\"subqueries\": [\"only one\"]}"));
        let s = graph();
        let entity = "{\"name\": \"a\", \"type\": \"b\", \"description\": \"c\"}";
        let twelve = [entity; 12].join(", ");
        assert!(accepts(&s, &format!("{{\"entities\": [{twelve}")));
        assert!(!accepts(&s, &format!("{{\"entities\": [{twelve}, ")));
    }

    #[test]
    fn repeated_string_items_are_refused() {
        let s = subqueries();
        assert!(accepts(&s, "{\"subqueries\": [\"*\", \"*"), "a repeat may still grow");
        assert!(!accepts(&s, "{\"subqueries\": [\"*\", \"*\""));
        assert!(!accepts(&s, "{\"subqueries\": [\"a b\", \"c\", \"a b\""));
        assert!(accepts(&s, "{\"subqueries\": [\"*\", \"**\""));
        // Entities are objects: only string items are compared.
        let entity = "{\"name\": \"a\", \"type\": \"b\", \"description\": \"c\"}";
        assert!(accepts(&graph(), &format!("{{\"entities\": [{entity}, {entity}")));
    }

    #[test]
    fn strings_are_capped_and_min_length_holds() {
        let s = subqueries();
        let at_cap = "x".repeat(DEFAULT_MAX_STRING_CHARS);
        assert!(accepts(&s, &format!("{{\"subqueries\": [\"{at_cap}\"")));
        assert!(!accepts(&s, &format!("{{\"subqueries\": [\"{at_cap}x")));
        // Multi-byte characters and escapes count once.
        let euros = "€".repeat(DEFAULT_MAX_STRING_CHARS);
        assert!(accepts(&s, &format!("{{\"subqueries\": [\"{euros}\"")));
        assert!(accepts(&s, &format!("{{\"subqueries\": [\"{}\\u00e9\"", "x".repeat(DEFAULT_MAX_STRING_CHARS - 1))));
        let bounded = json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 2, "maxLength": 3}}});
        assert!(!accepts(&bounded, "{\"s\": \"\""));
        assert!(!accepts(&bounded, "{\"s\": \"a\""));
        assert!(complete(&bounded, "{\"s\": \"abc\"}"));
        assert!(!accepts(&bounded, "{\"s\": \"abcd"));
        // A repeat at the length cap is let through rather than leave no way forward.
        let capped = json!({"type": "array", "items": {"type": "string", "maxLength": 2}});
        assert!(complete(&capped, "[\"ab\", \"ab\"]"));
        assert!(!accepts(&capped, "[\"a\", \"a\""));
    }

    #[test]
    fn completion_is_detected_and_accepts_is_pure() {
        let s = subqueries();
        let mut g = guide(&s);
        assert!(g.push_bytes(b"{\"subqueries\": [\"dew point\""));
        assert!(g.accepts(b"]}"));
        assert!(!g.accepts(b", \"dew point\""));
        assert!(!g.is_complete());
        assert!(g.push_bytes(b", \"humidity\"]"));
        assert!(!g.is_complete() && !g.could_end_here());
        assert!(g.push_bytes(b"}"));
        assert!(g.is_complete() && g.could_end_here());
        assert!(!g.accepts(b","));
        assert!(g.accepts(b"\n"));
    }

    /// `min_completion` is exact: no byte lowers it by more than one (so it never exceeds the
    /// shortest completion) and some byte always lowers it by one until the value is complete
    /// (so a completion of that length exists). Checked along a walk from each prefix.
    #[test]
    fn min_completion_is_the_shortest_completion() {
        let alphabet: Vec<u8> = b"{}[],:\"0tabcdefghijklmnopqrstuvwxyz ".to_vec();
        let walk = |mut g: SchemaGuide, prefix: &str| {
            let start = g.min_completion();
            for step in 0..=start {
                let now = g.min_completion();
                assert_eq!(now, start - step, "{prefix}: the estimate fell unevenly");
                if now == 0 {
                    assert!(g.could_end_here(), "{prefix}: estimate 0 but not complete");
                    return;
                }
                assert!(!g.could_end_here(), "{prefix}: complete with estimate {now}");
                let mut closer = None;
                for &b in &alphabet {
                    let mut c = g.clone();
                    if c.push(b) {
                        assert!(c.min_completion() + 1 >= now, "{prefix}: {:?} jumps ahead", b as char);
                        if closer.is_none() && c.min_completion() + 1 == now {
                            closer = Some(c);
                        }
                    }
                }
                g = closer.unwrap_or_else(|| panic!("{prefix}: no byte gets closer at estimate {now}"));
            }
        };
        let cases = [
            (graph(), ""),
            (graph(), "{"),
            (graph(), "{\"entities\": ["),
            (graph(), "{\"entities\": [{\"na"),
            (graph(), "{\"entities\": [{\"name\": \"BME"),
            (graph(), "{\"entities\": [{\"name\": \"a\", \"type\": \"b\", \"description\": \"c\"}, "),
            (graph(), "{\"relations\": [{\"source\": \"a\""),
            (graph(), "{\"entities\": [], \"relations\": [{\"type\":"),
            (subqueries(), "{\"subqueries\": [\""),
            (subqueries(), "{\"subqueries\": [\"a\\"),
            (subqueries(), "{\"subqueries\": ["),
            (subqueries(), "{\"subqueries\": [\"a\","),
            (json!({"type": "object", "properties": {"n": {"type": "integer"}, "b": {"type": "boolean"}}, "required": ["n", "b"]}), "{\"b\": t"),
            (json!({"type": "array", "minItems": 2, "items": {"type": "string", "minLength": 3}}), "[\"a"),
        ];
        for (schema, prefix) in cases {
            let mut g = guide(&schema);
            assert!(g.push_bytes(prefix.as_bytes()), "{prefix}");
            walk(g, prefix);
        }
    }

    #[test]
    fn unsupported_schemas_fall_back_to_syntax() {
        for schema in [
            json!({"type": "string", "enum": ["a", "b"]}),
            json!({"type": ["string", "null"]}),
            json!({"type": "object", "additionalProperties": true}),
            json!({"type": "object", "properties": {"a": {"$ref": "#/x"}}}),
            json!({"type": "array"}),
            json!({"type": "object", "required": ["missing"]}),
            json!({"anyOf": [{"type": "string"}]}),
            json!({"type": "null"}),
            json!(true),
        ] {
            assert!(SchemaGuide::new(&schema).is_err(), "{schema}");
            let c = JsonConstraint::start(&schema, "").expect("empty prefix");
            assert!(!c.is_schema_guided());
        }
        // Annotations are ignored.
        let annotated = json!({"type": "object", "title": "t", "description": "d", "$schema": "x",
            "properties": {"a": {"type": "string", "description": "d", "examples": ["e"]}}});
        assert!(SchemaGuide::new(&annotated).is_ok());
    }
}
