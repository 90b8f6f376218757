//! Any OpenAI-compatible `/v1/chat/completions` endpoint (OpenAI, llama.cpp server, vLLM,
//! Ollama, LM Studio…) over blocking HTTP.
//!
//! Failures are classified so callers can degrade sensibly: overload and server errors are
//! retried with backoff, a timeout is not (a slow server stays slow), and everything else maps
//! to one [`LlmError`] variant. The API key never leaves the `Authorization` header: error
//! messages, `Debug` output and logs are redacted.

use std::fmt;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::blocking::{Client, Response};
use reqwest::header::{AUTHORIZATION, HeaderValue, RETRY_AFTER};
use serde_json::{Value, json};

use super::{ChatRequest, ChatResponse, FinishReason, Llm, LlmError, OutputFormat, TokenUsage};

/// Server error bodies quoted in messages are cut to this many characters.
const MAX_ERROR_CHARS: usize = 300;
/// Longest exponential backoff between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// Longest wait a server may ask for with `Retry-After`; beyond it we would rather fail.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// Connecting should be quick even when generation is slow.
const MAX_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
use qa_core::secret::REDACTED;

/// How to reach and call an OpenAI-compatible endpoint.
#[derive(Clone)]
pub struct OpenAiOptions {
    /// e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`; a full
    /// `…/chat/completions` URL is accepted too.
    pub base_url: String,
    /// The model name sent with every request.
    pub model: String,
    /// Sent as `Authorization: Bearer <key>`; empty or blank means no key.
    pub api_key: Option<String>,
    /// Whole-request limit (connect + generation + body).
    pub timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and connection errors.
    pub max_retries: u32,
    /// Context window, when the user knows it (the API does not tell).
    pub context_length: Option<usize>,
    /// First retry delay; doubled on each further retry up to 8 s.
    pub backoff: Duration,
}

impl OpenAiOptions {
    /// Defaults: no key, 120 s timeout, 2 retries, 500 ms base backoff, unknown context.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        OpenAiOptions {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(120),
            max_retries: 2,
            context_length: None,
            backoff: Duration::from_millis(500),
        }
    }
}

// Manual so the key cannot end up in logs through `{:?}`.
impl fmt::Debug for OpenAiOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiOptions")
            .field("base_url", &public_url_str(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| REDACTED))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("context_length", &self.context_length)
            .field("backoff", &self.backoff)
            .finish()
    }
}

/// How much structure we ask the server for; servers that reject one level get the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum JsonMode {
    Schema,
    Object,
    Plain,
}

impl JsonMode {
    fn weaker(self) -> Option<JsonMode> {
        match self {
            JsonMode::Schema => Some(JsonMode::Object),
            JsonMode::Object => Some(JsonMode::Plain),
            JsonMode::Plain => None,
        }
    }
}

/// An [`Llm`] served by an OpenAI-compatible endpoint.
pub struct OpenAiLlm {
    opts: OpenAiOptions,
    client: Client,
    /// Full `…/chat/completions` URL.
    endpoint: reqwest::Url,
    /// The endpoint without credentials, query or fragment, for messages.
    public_endpoint: String,
    /// `Bearer <key>`, marked sensitive so reqwest never prints it.
    auth: Option<HeaderValue>,
    /// Strongest `response_format` this server accepted (or not yet rejected).
    json_mode: JsonMode,
}

impl fmt::Debug for OpenAiLlm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiLlm")
            .field("endpoint", &self.public_endpoint)
            .field("opts", &self.opts)
            .field("json_mode", &self.json_mode)
            .finish_non_exhaustive()
    }
}

impl OpenAiLlm {
    /// A client for `opts` (nothing is sent yet); fails on an empty model name, a base URL that is
    /// invalid or not http(s), or a key that cannot be an HTTP header.
    pub fn new(opts: OpenAiOptions) -> Result<OpenAiLlm, LlmError> {
        if opts.model.trim().is_empty() {
            return Err(LlmError::Config("no model name given for the OpenAI-compatible endpoint".into()));
        }
        let endpoint = endpoint_url(&opts.base_url)?;
        let public_endpoint = public_url(&endpoint);
        let mut opts = opts;
        // An empty key (e.g. `QA_LLM_API_KEY=`) means "no key", not "Bearer ".
        opts.api_key = opts.api_key.filter(|k| !k.trim().is_empty());
        let auth = match &opts.api_key {
            Some(key) => Some(bearer(key)?),
            None => None,
        };
        let client = Client::builder()
            .connect_timeout(opts.timeout.min(MAX_CONNECT_TIMEOUT))
            .timeout(opts.timeout)
            .build()
            .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {}", error_chain(&e))))?;
        Ok(OpenAiLlm { opts, client, endpoint, public_endpoint, auth, json_mode: JsonMode::Schema })
    }

    /// Replaces the key wherever a server echoed it back.
    fn redact(&self, text: &str) -> String {
        qa_core::secret::scrub_secret(text, self.opts.api_key.as_deref())
    }

    fn timeout_error(&self) -> LlmError {
        LlmError::Timeout { secs: self.opts.timeout.as_secs_f64() }
    }

    fn unavailable(&self, err: &reqwest::Error) -> LlmError {
        // The URL (which may carry credentials or a query) is left out of the reason.
        let reason = error_chain(err);
        LlmError::Unavailable { url: self.public_endpoint.clone(), reason: self.redact(&reason) }
    }

    /// One POST; `Ok` carries any HTTP status, `Err` a transport failure already classified.
    fn post_once(&self, body: &Value) -> Result<(StatusCode, Option<Duration>, String), Transport> {
        let mut req = self.client.post(self.endpoint.clone()).json(body);
        if let Some(auth) = &self.auth {
            req = req.header(AUTHORIZATION, auth.clone());
        }
        let resp = req.send().map_err(|e| self.classify(&e))?;
        let status = resp.status();
        let retry_after = retry_after(&resp);
        // Reading the body is part of the call: a server that stalls mid-body times out too.
        let text = resp.text().map_err(|e| self.classify(&e))?;
        Ok((status, retry_after, text))
    }

    fn classify(&self, err: &reqwest::Error) -> Transport {
        if err.is_timeout() && !err.is_connect() {
            Transport::Fatal(self.timeout_error())
        } else if err.is_timeout() {
            // Nothing answered the connection attempt: retrying would only wait again.
            Transport::Fatal(self.unavailable(err))
        } else {
            // Refused, reset, DNS failure: often a server (re)starting, worth a retry.
            Transport::Retryable(self.unavailable(err))
        }
    }

    /// POSTs `body`, retrying 429, 5xx and connection errors with backoff. Returns the final
    /// status and body (any non-retryable status included) and the attempts made.
    fn post_with_retries(&self, body: &Value) -> Result<(StatusCode, String, u32), LlmError> {
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let retries_left = attempts <= self.opts.max_retries;
            let wait = match self.post_once(body) {
                Ok((status, retry_after, text)) => {
                    if !is_retryable(status) {
                        return Ok((status, text, attempts));
                    }
                    if !retries_left {
                        let message = self.server_message(&text);
                        return Err(LlmError::GaveUp { attempts, status: status.as_u16(), message });
                    }
                    tracing::debug!(status = status.as_u16(), attempts, "LLM endpoint busy or failing; retrying");
                    retry_after.unwrap_or_else(|| self.backoff(attempts))
                }
                Err(Transport::Fatal(e)) => return Err(e),
                Err(Transport::Retryable(e)) if !retries_left => return Err(e),
                Err(Transport::Retryable(e)) => {
                    tracing::debug!(attempts, error = %e, "LLM endpoint unreachable; retrying");
                    self.backoff(attempts)
                }
            };
            std::thread::sleep(wait);
        }
    }

    /// Delay before retry number `attempt`: base, 2×base, 4×base… capped.
    fn backoff(&self, attempt: u32) -> Duration {
        let factor = 1u32 << attempt.saturating_sub(1).min(16);
        self.opts.backoff.saturating_mul(factor).min(MAX_BACKOFF)
    }

    /// The server's own error message (`error.message`) if it sent JSON, else the raw body;
    /// redacted and truncated either way.
    fn server_message(&self, body: &str) -> String {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let message = parsed
            .as_ref()
            .and_then(|v| v.pointer("/error/message").or_else(|| v.get("error")).or_else(|| v.get("message")))
            .and_then(|m| m.as_str())
            .unwrap_or(body);
        qa_core::text::truncate(&self.redact(message.trim()), MAX_ERROR_CHARS)
    }

    /// Maps a final non-success status to its error.
    fn status_error(&self, status: StatusCode, body: &str) -> LlmError {
        let message = self.server_message(body);
        match status.as_u16() {
            401 | 403 => LlmError::Auth { status: status.as_u16() },
            404 => {
                let detail = if message.is_empty() { String::new() } else { format!(" (server says: {message})") };
                LlmError::ModelNotFound { model: self.opts.model.clone(), detail }
            }
            s => LlmError::Http { status: s, message },
        }
    }

    fn request_body(&self, request: &ChatRequest, mode: JsonMode) -> Value {
        let messages: Vec<Value> =
            request.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.content})).collect();
        let mut body = json!({
            "model": self.opts.model,
            "messages": messages,
            "max_tokens": request.max_tokens,
            // Via the shortest decimal of the f32, so 0.2 is sent as 0.2, not 0.20000000298….
            "temperature": request.temperature.to_string().parse::<f64>().unwrap_or(0.0),
        });
        if !request.stop.is_empty() {
            body["stop"] = json!(request.stop);
        }
        if let OutputFormat::Json { name, schema, .. } = &request.format {
            match mode {
                JsonMode::Schema => {
                    body["response_format"] = json!({
                        "type": "json_schema",
                        "json_schema": {"name": name, "schema": schema, "strict": true},
                    });
                }
                JsonMode::Object => body["response_format"] = json!({"type": "json_object"}),
                JsonMode::Plain => {}
            }
        }
        body
    }

    /// Sends the request, stepping down `response_format` while the server rejects it.
    /// Returns the successful body and the attempts made over all steps.
    fn exchange(&mut self, request: &ChatRequest) -> Result<(String, u32), LlmError> {
        let is_json = matches!(request.format, OutputFormat::Json { .. });
        let mut total_attempts = 0;
        loop {
            let body = self.request_body(request, self.json_mode);
            let (status, text, attempts) = self.post_with_retries(&body).map_err(|e| add_attempts(e, total_attempts))?;
            total_attempts += attempts;
            if status.is_success() {
                return Ok((text, total_attempts));
            }
            let weaker = self.json_mode.weaker().filter(|_| is_json && rejects_response_format(status, &text));
            match weaker {
                Some(mode) => {
                    tracing::debug!(from = ?self.json_mode, to = ?mode, "server rejected response_format; stepping down");
                    // Remembered: later calls on this client start at the level that works.
                    self.json_mode = mode;
                }
                None => return Err(self.status_error(status, &text)),
            }
        }
    }
}

/// A transport failure, and whether trying again might help.
enum Transport {
    Retryable(LlmError),
    Fatal(LlmError),
}

impl Llm for OpenAiLlm {
    fn provider(&self) -> &'static str {
        "openai"
    }

    fn model_id(&self) -> String {
        self.opts.model.clone()
    }

    fn context_length(&self) -> Option<usize> {
        self.opts.context_length
    }

    fn count_tokens(&self, text: &str) -> usize {
        super::estimate_tokens(text)
    }

    fn chat(&mut self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let start = Instant::now();
        let result = self.exchange(request).and_then(|(text, attempts)| {
            let mut response = parse_response(&text, request, &|s| self.redact(s))?;
            response.attempts = attempts;
            Ok(response)
        });
        let latency_ms = start.elapsed().as_secs_f64() * 1000.0;
        match result {
            Ok(mut response) => {
                response.latency_ms = latency_ms;
                tracing::debug!(
                    purpose = request.purpose,
                    model = %self.opts.model,
                    status = 200,
                    attempts = response.attempts,
                    latency_ms,
                    prompt_tokens = response.usage.prompt,
                    completion_tokens = response.usage.completion,
                    "LLM call"
                );
                Ok(response)
            }
            Err(e) => {
                // The error's text is already redacted; headers are never logged.
                tracing::debug!(purpose = request.purpose, model = %self.opts.model, latency_ms, error = %e, "LLM call failed");
                Err(e)
            }
        }
    }
}

/// Builds the `ChatResponse` from a 2xx body (latency and attempts are filled by the caller).
fn parse_response(body: &str, request: &ChatRequest, redact: &dyn Fn(&str) -> String) -> Result<ChatResponse, LlmError> {
    let bad = |what: &str| LlmError::BadResponse(format!("{what}: {}", qa_core::text::truncate(&redact(body), MAX_ERROR_CHARS)));
    let v: Value = serde_json::from_str(body).map_err(|_| bad("not JSON"))?;
    let choice = v.get("choices").and_then(|c| c.get(0)).ok_or_else(|| bad("no choices"))?;
    let content = choice.pointer("/message/content").and_then(|c| c.as_str()).unwrap_or("");
    if content.trim().is_empty() {
        return Err(bad("empty message content"));
    }
    let finish_reason = match choice.get("finish_reason").and_then(|f| f.as_str()) {
        Some("length") => FinishReason::Length,
        _ => FinishReason::Stop,
    };
    let text = match request.format {
        OutputFormat::Text => content.to_string(),
        OutputFormat::Json { .. } => {
            // The caller validates the JSON (and may ask for a repair), so text that holds no
            // complete object is passed on as it is rather than failing the call.
            first_json_object(content).unwrap_or(content).to_string()
        }
    };
    let usage = parse_usage(&v).unwrap_or_else(|| {
        tracing::debug!("LLM response has no usage; estimating token counts");
        estimated_usage(request, content)
    });
    Ok(ChatResponse {
        text,
        usage,
        finish_reason,
        latency_ms: 0.0,
        prompt_tokens_per_s: None,
        completion_tokens_per_s: None,
        attempts: 1,
    })
}

fn parse_usage(v: &Value) -> Option<TokenUsage> {
    let usage = v.get("usage")?;
    let prompt = usage.get("prompt_tokens")?.as_u64()?;
    let completion = usage.get("completion_tokens").and_then(|c| c.as_u64()).unwrap_or(0);
    let total = usage.get("total_tokens").and_then(|t| t.as_u64()).unwrap_or(prompt + completion);
    Some(TokenUsage { prompt, completion, total })
}

fn estimated_usage(request: &ChatRequest, content: &str) -> TokenUsage {
    let prompt: usize = request.messages.iter().map(|m| super::estimate_tokens(&m.content)).sum();
    TokenUsage::new(prompt as u64, super::estimate_tokens(content) as u64)
}

/// The first balanced `{…}` in `text` that parses as JSON: models wrap their JSON in
/// ```json fences or a sentence of prose even when asked not to.
pub fn first_json_object(text: &str) -> Option<&str> {
    text.char_indices()
        .filter(|&(_, c)| c == '{')
        .filter_map(|(start, _)| balanced_object_end(&text[start..]).map(|len| &text[start..start + len]))
        .find(|candidate| serde_json::from_str::<Value>(candidate).is_ok())
}

/// Byte length of the object opening `text` (which starts with `{`), braces inside strings
/// ignored; `None` if it never closes.
fn balanced_object_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

/// Whether a 4xx is the server refusing our `response_format` (not e.g. a bad prompt).
/// Some servers (vLLM) answer 422 rather than 400.
fn rejects_response_format(status: StatusCode, body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    matches!(status.as_u16(), 400 | 422)
        && ["response_format", "json_schema", "json_object"].iter().any(|k| lower.contains(k))
}

/// The wait a 429/503 asks for, capped.
fn retry_after(resp: &Response) -> Option<Duration> {
    let value = resp.headers().get(RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, chrono::Utc::now())
}

/// `Retry-After` is either seconds or an HTTP date; a date in the past means "now".
fn parse_retry_after(value: &str, now: chrono::DateTime<chrono::Utc>) -> Option<Duration> {
    let value = value.trim();
    let wait = match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Duration::from_secs_f64(secs.min(MAX_RETRY_AFTER.as_secs_f64())),
        Ok(_) => return None,
        Err(_) => {
            let when = chrono::DateTime::parse_from_rfc2822(value).ok()?;
            let ms = (when.with_timezone(&chrono::Utc) - now).num_milliseconds();
            Duration::from_millis(ms.max(0) as u64)
        }
    };
    Some(wait.min(MAX_RETRY_AFTER))
}

/// `base_url` + `/chat/completions`, unless it already names that path. Working on the parsed
/// path keeps a query string (e.g. Azure's `?api-version=`) where it belongs.
fn endpoint_url(base_url: &str) -> Result<reqwest::Url, LlmError> {
    let mut url = reqwest::Url::parse(base_url.trim())
        .map_err(|e| LlmError::Config(format!("invalid LLM base URL '{}': {e}", public_url_str(base_url))))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(LlmError::Config(format!("LLM base URL must be http or https: {}", public_url(&url))));
    }
    let path = url.path().trim_end_matches('/').to_string();
    if !path.ends_with("/chat/completions") {
        url.set_path(&format!("{path}/chat/completions"));
    } else {
        url.set_path(&path);
    }
    Ok(url)
}

/// The URL without user, password, query or fragment: safe for messages.
fn public_url(url: &reqwest::Url) -> String {
    let mut url = url.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.to_string()
}

fn public_url_str(url: &str) -> String {
    match reqwest::Url::parse(url.trim()) {
        Ok(u) => public_url(&u),
        // Unparseable: show nothing that could be a secret embedded in it.
        Err(_) => "<invalid URL>".to_string(),
    }
}

fn bearer(key: &str) -> Result<HeaderValue, LlmError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {}", key.trim()))
        .map_err(|_| LlmError::Config("the API key contains characters not allowed in an HTTP header".into()))?;
    value.set_sensitive(true);
    Ok(value)
}


/// `err` and its sources, joined: reqwest's top-level message alone ("error sending request")
/// does not say what went wrong. The URL reqwest adds to its own message is left out.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let top = match err.downcast_ref::<reqwest::Error>() {
        Some(re) => strip_url_suffix(&re.to_string(), re.url()),
        None => err.to_string(),
    };
    qa_core::error::join_causes(top, err.source())
}

fn strip_url_suffix(message: &str, url: Option<&reqwest::Url>) -> String {
    match url {
        Some(u) => message.replace(&format!(" for url ({u})"), "").replace(u.as_str(), "<url>"),
        None => message.to_string(),
    }
}

/// Attempts made before a failing step count toward the `GaveUp` total.
fn add_attempts(err: LlmError, earlier: u32) -> LlmError {
    match err {
        LlmError::GaveUp { attempts, status, message } => LlmError::GaveUp { attempts: attempts + earlier, status, message },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_accepts_base_trailing_slash_and_full_url() {
        for base in ["http://h:1/v1", "http://h:1/v1/", "http://h:1/v1/chat/completions", "http://h:1/v1/chat/completions/"] {
            assert_eq!(endpoint_url(base).unwrap().as_str(), "http://h:1/v1/chat/completions", "{base}");
        }
        assert!(matches!(endpoint_url("ftp://h/v1"), Err(LlmError::Config(_))));
        assert!(matches!(endpoint_url("not a url"), Err(LlmError::Config(_))));
    }

    #[test]
    fn endpoint_keeps_query() {
        let url = endpoint_url("https://h/openai/v1?api-version=1").unwrap();
        assert_eq!(url.as_str(), "https://h/openai/v1/chat/completions?api-version=1");
    }

    #[test]
    fn public_url_drops_credentials_and_query() {
        let u = reqwest::Url::parse("https://user:secret@h/v1/chat/completions?key=abc#x").unwrap();
        assert_eq!(public_url(&u), "https://h/v1/chat/completions");
    }

    #[test]
    fn json_object_extracted_from_fences_and_prose() {
        assert_eq!(first_json_object("```json\n{\"a\": [1, {\"b\": \"}\"}]}\n```"), Some("{\"a\": [1, {\"b\": \"}\"}]}"));
        assert_eq!(first_json_object("Sure! Here it is: {\"x\": \"a \\\" {\"} and more {"), Some("{\"x\": \"a \\\" {\"}"));
        // A brace in prose before the real object is skipped.
        assert_eq!(first_json_object("use {braces} then {\"k\": 1}"), Some("{\"k\": 1}"));
        assert_eq!(first_json_object("{\"truncated\": [1, 2"), None);
        assert_eq!(first_json_object("no json"), None);
    }

    #[test]
    fn the_key_is_redacted() {
        use qa_core::secret::scrub_secret;
        assert_eq!(scrub_secret("bad key sk-123 given", Some("sk-123")), "bad key <redacted> given");
        assert_eq!(scrub_secret("text", Some("  ")), "text");
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let mut opts = OpenAiOptions::new("http://127.0.0.1:9/v1", "m");
        opts.backoff = Duration::from_millis(500);
        let llm = OpenAiLlm::new(opts).unwrap();
        assert_eq!(llm.backoff(1), Duration::from_millis(500));
        assert_eq!(llm.backoff(2), Duration::from_secs(1));
        assert_eq!(llm.backoff(3), Duration::from_secs(2));
        assert_eq!(llm.backoff(30), MAX_BACKOFF);
    }

    #[test]
    fn debug_hides_key() {
        let mut opts = OpenAiOptions::new("https://u:pw@h/v1?k=q", "m");
        opts.api_key = Some("sk-very-secret".into());
        let llm = OpenAiLlm::new(opts.clone()).unwrap();
        for text in [format!("{opts:?}"), format!("{llm:?}")] {
            assert!(!text.contains("sk-very-secret") && !text.contains("pw") && !text.contains("k=q"), "{text}");
            assert!(text.contains(REDACTED), "{text}");
        }
    }

    #[test]
    fn empty_key_means_none_and_bad_key_is_config_error() {
        let mut opts = OpenAiOptions::new("http://h/v1", "m");
        opts.api_key = Some(String::new());
        assert!(OpenAiLlm::new(opts.clone()).unwrap().auth.is_none());
        opts.api_key = Some("bad\nkey".into());
        let err = OpenAiLlm::new(opts).unwrap_err().to_string();
        assert!(!err.contains("bad\nkey"), "{err}");
    }

    #[test]
    fn retry_after_seconds_or_http_date_capped() {
        let now = chrono::DateTime::parse_from_rfc2822("Wed, 21 Oct 2015 07:28:00 GMT").unwrap().to_utc();
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 0.5 ", now), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("3600", now), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("-1", now), None);
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:05 GMT", now), Some(Duration::from_secs(5)));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:27:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("Thu, 22 Oct 2015 07:28:00 GMT", now), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn format_rejection_detection() {
        assert!(rejects_response_format(StatusCode::BAD_REQUEST, r#"{"error":{"message":"response_format not supported"}}"#));
        assert!(!rejects_response_format(StatusCode::BAD_REQUEST, "prompt too long"));
        assert!(!rejects_response_format(StatusCode::INTERNAL_SERVER_ERROR, "json_schema"));
    }
}
