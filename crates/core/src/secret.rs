//! Secrets (passwords, API keys): one type that never prints itself and one scrubber for text
//! that might contain one.

/// What a secret is replaced by wherever text might be shown, logged or traced.
pub const REDACTED: &str = "<redacted>";

/// A secret value: shown as [`REDACTED`] by `Debug`, never serialized.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wrap a value (kept as given, untrimmed).
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The value itself, for the one place that must send it (a connection, a header).
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// `text` with every occurrence of the secret replaced by [`REDACTED`].
    pub fn scrub(&self, text: &str) -> String {
        scrub_secret(text, Some(self.expose()))
    }
}

/// `text` with every occurrence of `secret` (trimmed) replaced by [`REDACTED`]. Even a one-letter
/// secret is replaced: a scrambled message is better than a leaked password.
pub fn scrub_secret(text: &str, secret: Option<&str>) -> String {
    match secret.map(str::trim) {
        Some(s) if !s.is_empty() => text.replace(s, REDACTED),
        _ => text.to_string(),
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(REDACTED)
    }
}
