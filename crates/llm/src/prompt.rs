//! Prompts as typed artifacts. Each prompt the pipeline sends is a value of its own type (its
//! input), implementing [`Prompt`]: the chat request it renders, the JSON schema a valid reply
//! follows (when the reply is JSON) and the typed parse of a reply. Every prompt has a snapshot
//! test of its rendered request ([`assert_snapshot`]), so a wording change is a reviewed diff.

use std::path::Path;

use crate::{ChatRequest, OutputFormat};

/// A prompt: its input is the implementing value.
pub trait Prompt {
    /// What a valid reply parses into.
    type Reply;

    /// The chat request sent to the model.
    fn request(&self) -> ChatRequest;

    /// The JSON schema of a valid reply, when the reply is JSON.
    fn reply_schema(&self) -> Option<serde_json::Value> {
        match self.request().format {
            OutputFormat::Json { schema, .. } => Some(schema),
            OutputFormat::Text => None,
        }
    }

    /// The typed reply, or why `reply` is not one.
    fn parse(&self, reply: &str) -> Result<Self::Reply, PromptError>;
}

/// Why a model's reply does not parse as the prompt's reply type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PromptError(pub String);

impl From<String> for PromptError {
    fn from(reason: String) -> Self {
        PromptError(reason)
    }
}

/// A request as stable text for snapshot tests: purpose, limits, format, stops, then each
/// message under its role.
pub fn render(request: &ChatRequest) -> String {
    let mut out = format!(
        "purpose: {}\nmax_tokens: {}\ntemperature: {}\n",
        request.purpose, request.max_tokens, request.temperature
    );
    match &request.format {
        OutputFormat::Text => out.push_str("format: text\n"),
        OutputFormat::Json { name, schema, prefix } => {
            out.push_str(&format!("format: json {name}\nprefix: {prefix}\nschema: {schema}\n"));
        }
    }
    if !request.stop.is_empty() {
        out.push_str(&format!("stop: {:?}\n", request.stop));
    }
    for m in &request.messages {
        out.push_str(&format!("\n--- {} ---\n{}\n", m.role.as_str(), m.content));
    }
    out
}

/// Compare `actual` with the snapshot file at `path`. With `QA_UPDATE_SNAPSHOTS=1` the file is
/// (re)written instead. A missing file or a difference panics, naming the first differing line
/// and how to accept the change. For tests.
pub fn assert_snapshot(path: &Path, actual: &str) {
    if std::env::var_os("QA_UPDATE_SNAPSHOTS").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("creating {}: {e}", dir.display()));
        }
        std::fs::write(path, actual).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("snapshot {} unreadable ({e}); create it with QA_UPDATE_SNAPSHOTS=1", path.display()));
    if expected != actual {
        let line = expected.lines().zip(actual.lines()).position(|(a, b)| a != b).unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "snapshot {} differs at line {}:\n  expected: {:?}\n  actual:   {:?}\nrerun with QA_UPDATE_SNAPSHOTS=1 to accept the new text",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            actual.lines().nth(line).unwrap_or("<end>")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChatMessage;

    struct Echo;

    impl Prompt for Echo {
        type Reply = usize;
        fn request(&self) -> ChatRequest {
            ChatRequest {
                messages: vec![ChatMessage::system("Count."), ChatMessage::user("a b c")],
                max_tokens: 4,
                format: OutputFormat::Text,
                stop: vec!["\n".into()],
                temperature: 0.0,
                purpose: "test",
            }
        }
        fn parse(&self, reply: &str) -> Result<usize, PromptError> {
            reply.trim().parse().map_err(|e| PromptError(format!("not a count: {e}")))
        }
    }

    #[test]
    fn render_is_stable_and_parse_is_typed() {
        let text = render(&Echo.request());
        assert_eq!(text, "purpose: test\nmax_tokens: 4\ntemperature: 0\nformat: text\nstop: [\"\\n\"]\n\n--- system ---\nCount.\n\n--- user ---\na b c\n");
        assert_eq!(Echo.parse(" 3 "), Ok(3));
        assert!(Echo.parse("three").is_err());
        assert_eq!(Echo.reply_schema(), None);
    }

    #[test]
    fn a_changed_snapshot_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("echo.txt");
        std::fs::write(&path, "old\n").unwrap();
        let result = std::panic::catch_unwind(|| assert_snapshot(&path, "new\n"));
        assert!(result.is_err());
        assert_snapshot(&path, "old\n");
    }
}
