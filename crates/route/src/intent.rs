//! The structured output an LLM may give to refine the rules' decision (function-calling style):
//! parsed strictly — unknown keys, unknown enum names, a confidence outside [0, 1] or a filter
//! on a field the target lacks are errors, and the rules' decision stands.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::classify::QueryType;
use crate::profile::SourceProfile;
use crate::score::Target;

/// One filter the LLM proposes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntentFilter {
    /// The field.
    pub field: String,
    /// The value.
    pub value: String,
}

/// The LLM's reading of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteIntent {
    /// The source.
    pub target: Target,
    /// How to answer.
    pub query_type: QueryType,
    /// In [0, 1].
    pub confidence: f64,
    /// Filters stated by the question.
    #[serde(default)]
    pub filters: Vec<IntentFilter>,
    /// One sentence of why.
    #[serde(default)]
    pub reasoning: String,
}

/// Why an intent was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IntentError {
    /// Not JSON of the intent's shape.
    #[error("malformed intent: {0}")]
    Malformed(String),
    /// A value outside its range or not in the schema.
    #[error("invalid intent: {0}")]
    Invalid(String),
}

impl RouteIntent {
    /// The JSON schema the LLM is asked to follow.
    pub fn schema() -> Value {
        json!({
            "type": "object",
            "additionalProperties": false,
            "required": ["target", "query_type", "confidence"],
            "properties": {
                "target": {"enum": ["documents", "sql", "es"]},
                "query_type": {"enum": ["simple", "complex", "hybrid"]},
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "filters": {"type": "array", "items": {"type": "object", "additionalProperties": false, "required": ["field", "value"],
                    "properties": {"field": {"type": "string"}, "value": {"type": "string"}}}},
                "reasoning": {"type": "string"}
            }
        })
    }

    /// Parse and validate a reply against `profiles` (the configured sources): the target must
    /// be configured and every filter must name one of its fields (and, for a field with known
    /// values, one of them).
    pub fn parse(reply: &str, profiles: &[SourceProfile]) -> Result<RouteIntent, IntentError> {
        let intent: RouteIntent = serde_json::from_str(reply.trim()).map_err(|e| IntentError::Malformed(e.to_string()))?;
        if !(0.0..=1.0).contains(&intent.confidence) || intent.confidence.is_nan() {
            return Err(IntentError::Invalid(format!("confidence {} is outside [0, 1]", intent.confidence)));
        }
        let Some(profile) = profiles.iter().find(|p| p.target == intent.target) else {
            return Err(IntentError::Invalid(format!("target {} is not configured", intent.target.as_str())));
        };
        for f in &intent.filters {
            let Some(field) = profile.field(&f.field) else {
                return Err(IntentError::Invalid(format!("{} has no field {:?}", intent.target.as_str(), f.field)));
            };
            if !field.values.is_empty() && !field.values.iter().any(|v| v == &f.value) {
                return Err(IntentError::Invalid(format!("{:?} is not a value of {}", f.value, f.field)));
            }
        }
        Ok(intent)
    }
}
