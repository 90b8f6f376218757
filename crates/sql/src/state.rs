//! The SQL agent's state and its contract.
//!
//! Every stage returns an *update* (a JSON object of some state keys) and the agent merges it
//! into the state by the key's rule: singletons and dicts are replaced, lists are appended to,
//! counters are incremented. A stage writing a key that is not in the contract, or a value of
//! the wrong shape for its rule, is a programming error reported as `StateError` (the agent
//! turns it into a failed run, never a panic). The contract and every update (stage, keys)
//! are recorded in the trace, so a run can be replayed key by key.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Merge {
    /// Singletons and dicts: the new value replaces the old one.
    Replace,
    /// Lists: the new items are appended.
    Append,
    /// Counters: the new value is added.
    Increment,
}

/// Every key the agent's state may hold, the stage that owns it and its merge rule.
pub(crate) const CONTRACT: &[(&str, &str, Merge)] = &[
    ("question", "input", Merge::Replace),
    ("dialect", "input", Merge::Replace),
    ("database", "input", Merge::Replace),
    ("clarifications", "input", Merge::Append),
    ("db_schema", "schema", Merge::Replace),
    ("semantic_schema", "schema", Merge::Replace),
    ("schema_context", "schema", Merge::Replace),
    ("intent_json", "plan", Merge::Replace),
    ("plan", "plan", Merge::Replace),
    ("plan_ok", "plan", Merge::Replace),
    ("plan_confidence", "plan", Merge::Replace),
    ("coverage", "plan", Merge::Replace),
    ("plan_fixes", "plan", Merge::Append),
    ("ambiguity", "plan", Merge::Replace),
    ("clarifying_question", "plan", Merge::Replace),
    ("few_shots", "generate", Merge::Append),
    ("sql_candidates", "generate", Merge::Append),
    ("sql", "generate", Merge::Replace),
    ("gen_attempts", "generate", Merge::Increment),
    ("validation_ok", "validate", Merge::Replace),
    ("val_reasons", "validate", Merge::Append),
    ("val_signals", "validate", Merge::Replace),
    ("val_attempts", "validate", Merge::Increment),
    ("loop_count", "validate", Merge::Increment),
    ("exec_preview", "execute", Merge::Replace),
    ("result_sample", "execute", Merge::Append),
    ("exec_rows", "execute", Merge::Replace),
    ("result_columns", "execute", Merge::Replace),
    ("result_truncated", "execute", Merge::Replace),
    ("error", "any", Merge::Replace),
    ("viz_spec", "present", Merge::Replace),
    ("suggestions", "validate", Merge::Append),
    ("warnings", "any", Merge::Append),
];

pub(crate) fn rule(key: &str) -> Option<Merge> {
    CONTRACT.iter().find(|(k, _, _)| *k == key).map(|(_, _, m)| *m)
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum StateError {
    #[error("stage '{stage}' wrote '{key}', which is not in the state contract")]
    UnknownKey { stage: String, key: String },
    #[error("stage '{stage}' wrote '{key}' ({rule:?}) with a value of the wrong shape: {found}")]
    WrongShape { stage: String, key: String, rule: Merge, found: String },
}

/// One applied update, for the trace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct StepRecord {
    pub(crate) stage: String,
    pub(crate) keys: Vec<String>,
    pub(crate) latency_ms: f64,
}

/// The agent's state: the values of the contract's keys, and every update applied, in order.
/// Saved whole in a checkpoint; a resumed run starts from it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentState {
    pub(crate) values: Map<String, Value>,
    pub(crate) steps: Vec<StepRecord>,
}

impl AgentState {
    /// Merge `update` by the contract. All keys are checked before any is applied, so a bad
    /// update leaves the state unchanged.
    pub(crate) fn apply(&mut self, stage: &str, update: Map<String, Value>, latency_ms: f64) -> Result<(), StateError> {
        for (key, value) in &update {
            let rule = rule(key).ok_or_else(|| StateError::UnknownKey { stage: stage.into(), key: key.clone() })?;
            let shape_ok = match rule {
                Merge::Replace => true,
                Merge::Append => value.is_array(),
                Merge::Increment => value.is_u64(),
            };
            if !shape_ok {
                return Err(StateError::WrongShape { stage: stage.into(), key: key.clone(), rule, found: short(value) });
            }
        }
        let mut keys = Vec::with_capacity(update.len());
        for (key, value) in update {
            match rule(&key).unwrap_or(Merge::Replace) {
                Merge::Replace => {
                    self.values.insert(key.clone(), value);
                }
                Merge::Append => {
                    let slot = self.values.entry(key.clone()).or_insert_with(|| Value::Array(Vec::new()));
                    if let (Value::Array(list), Value::Array(items)) = (slot, value) {
                        list.extend(items);
                    }
                }
                Merge::Increment => {
                    let add = value.as_u64().unwrap_or(0);
                    let old = self.values.get(&key).and_then(Value::as_u64).unwrap_or(0);
                    self.values.insert(key.clone(), Value::from(old + add));
                }
            }
            keys.push(key);
        }
        self.steps.push(StepRecord { stage: stage.into(), keys, latency_ms });
        Ok(())
    }

    /// The value of `key`; None when it is absent or null.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key).filter(|v| !v.is_null())
    }

    /// The value of `key` as text, if it is a string.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// The value of `key` as a flag: false unless it is `true`.
    pub fn bool(&self, key: &str) -> bool {
        self.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    /// The value of `key` as a counter: 0 unless it is a non-negative integer.
    pub fn count(&self, key: &str) -> u64 {
        self.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// The items of list `key`: empty unless it is a list.
    pub fn list(&self, key: &str) -> &[Value] {
        self.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Typed read of a replaced value.
    pub(crate) fn typed<T: serde::de::DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.get(key).and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The contract as JSON, for the trace.
    pub(crate) fn contract_json() -> Value {
        Value::Array(
            CONTRACT
                .iter()
                .map(|(k, stage, m)| serde_json::json!({"key": k, "stage": stage, "merge": m}))
                .collect(),
        )
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s,
    }
}

/// Build an update object: `update([("sql", json!(..)), ...])`.
pub(crate) fn update<const N: usize>(pairs: [(&str, Value); N]) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_rules_replace_append_increment() {
        let mut s = AgentState::default();
        s.apply("generate", update([("sql", json!("a")), ("sql_candidates", json!(["a"])), ("gen_attempts", json!(1))]), 1.0).unwrap();
        s.apply("generate", update([("sql", json!("b")), ("sql_candidates", json!(["b", "c"])), ("gen_attempts", json!(2))]), 1.0).unwrap();
        assert_eq!(s.str("sql"), Some("b"));
        assert_eq!(s.list("sql_candidates").len(), 3);
        assert_eq!(s.count("gen_attempts"), 3);
        assert_eq!(s.steps.len(), 2);
    }

    #[test]
    fn unknown_key_or_wrong_shape_is_refused_and_changes_nothing() {
        let mut s = AgentState::default();
        let e = s.apply("plan", update([("plan_ok", json!(true)), ("bogus", json!(1))]), 0.0).unwrap_err();
        assert!(matches!(e, StateError::UnknownKey { .. }));
        assert!(s.values.is_empty());
        let e = s.apply("generate", update([("sql_candidates", json!("not a list"))]), 0.0).unwrap_err();
        assert!(matches!(e, StateError::WrongShape { .. }));
        let e = s.apply("validate", update([("loop_count", json!(-1))]), 0.0).unwrap_err();
        assert!(matches!(e, StateError::WrongShape { .. }));
        assert!(s.steps.is_empty());
    }
}
