//! Where a remote index lives and how to log in: parsed from `https://user:pass@host:9200/INDEX`,
//! credentials filled in from the environment by the CLI.

use std::path::PathBuf;

use qa_core::secret::Secret;

use crate::EsError;

/// Default time a request may take, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// Default number of retries after a 429, 502, 503 or 504.
pub const DEFAULT_RETRIES: u32 = 3;
/// Default first back-off, doubled at every retry.
pub const DEFAULT_BACKOFF_MS: u64 = 250;
/// Default longest wait between two attempts (a longer `Retry-After` is cut to it).
pub const DEFAULT_MAX_BACKOFF_MS: u64 = 5_000;

/// How requests authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// No `Authorization` header.
    None,
    /// `Authorization: ApiKey <key>` (the key as Elasticsearch prints it: base64 of `id:key`).
    ApiKey(Secret),
    /// `Authorization: Basic …`.
    Basic {
        /// The user name (not secret: it may be shown).
        username: String,
        /// The password, if any.
        password: Option<Secret>,
    },
}

/// A remote Elasticsearch or OpenSearch index and how to reach it. `Debug` never shows a secret.
#[derive(Debug, Clone)]
pub struct RemoteConfig {
    /// `scheme://host:port` plus any path prefix before the index (a proxy's), without
    /// credentials and without a trailing `/`.
    pub base: String,
    /// The index (or alias) searched: the last path segment of the URL.
    pub index: String,
    /// An API key; wins over basic authentication when both are given.
    pub api_key: Option<Secret>,
    /// The user for basic authentication (from the URL's userinfo or `QA_ES_USERNAME`).
    pub username: Option<String>,
    /// The password for basic authentication (from the URL's userinfo or `QA_ES_PASSWORD`).
    pub password: Option<Secret>,
    /// A PEM file of CA certificates trusted for HTTPS in addition to the built-in roots.
    pub ca_cert: Option<PathBuf>,
    /// How long one request may take, in milliseconds (the body's own `timeout` is set by the
    /// guard; the client allows one more second so that the server's answer wins).
    pub timeout_ms: u64,
    /// Retries after a 429, 502, 503 or 504 (never after any other error).
    pub retries: u32,
    /// First back-off in milliseconds, doubled at every retry.
    pub backoff_ms: u64,
    /// Longest wait between two attempts in milliseconds; a longer `Retry-After` is cut to it.
    pub max_backoff_ms: u64,
}

impl RemoteConfig {
    /// Read `http(s)://[user[:password]@]host[:port][/prefix]/INDEX`. Userinfo becomes basic
    /// authentication and is removed from [`RemoteConfig::base`]; no query string or fragment.
    pub fn from_url(url: &str) -> Result<RemoteConfig, EsError> {
        let url = url.trim();
        let parsed = reqwest::Url::parse(url).map_err(|e| bad_url(url, &e.to_string()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(bad_url(url, "the URL must start with http:// or https://"));
        }
        if parsed.host_str().is_none_or(str::is_empty) {
            return Err(bad_url(url, "the URL has no host"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(bad_url(url, "the URL takes no query string or fragment: https://host:9200/INDEX"));
        }
        let username = Some(percent_decode(parsed.username())).filter(|u| !u.is_empty());
        let password = parsed.password().map(percent_decode).filter(|p| !p.is_empty()).map(Secret::new);
        let mut segments: Vec<String> = parsed.path_segments().map(|s| s.filter(|s| !s.is_empty()).map(percent_decode).collect()).unwrap_or_default();
        let Some(index) = segments.pop() else {
            return Err(EsError::NoIndex { name: redact_url(url), hint: "give the index as the URL's last path segment: https://host:9200/INDEX".into() });
        };
        check_index(&index)?;
        let mut base = format!("{}://{}", parsed.scheme(), parsed.host_str().unwrap_or_default());
        if let Some(port) = parsed.port() {
            base.push_str(&format!(":{port}"));
        }
        for s in &segments {
            base.push('/');
            base.push_str(s);
        }
        Ok(RemoteConfig {
            base,
            index,
            api_key: None,
            username,
            password,
            ca_cert: None,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            retries: DEFAULT_RETRIES,
            backoff_ms: DEFAULT_BACKOFF_MS,
            max_backoff_ms: DEFAULT_MAX_BACKOFF_MS,
        })
    }

    /// Credentials from the environment over the URL's: an API key when given; a user name
    /// replaces the URL's user and password; a password alone replaces the URL's password.
    pub fn set_credentials(&mut self, api_key: Option<&Secret>, username: Option<&Secret>, password: Option<&Secret>) {
        if let Some(key) = api_key {
            self.api_key = Some(key.clone());
        }
        if let Some(user) = username {
            self.username = Some(user.expose().to_string());
            self.password = password.cloned();
        } else if password.is_some() {
            self.password = password.cloned();
        }
    }

    /// The authentication in force: the API key if any, else basic with a user name, else none.
    pub fn auth(&self) -> Auth {
        match (&self.api_key, &self.username) {
            (Some(key), _) if !key.expose().is_empty() => Auth::ApiKey(key.clone()),
            (_, Some(user)) if !user.is_empty() => Auth::Basic { username: user.clone(), password: self.password.clone() },
            _ => Auth::None,
        }
    }

    /// The index URL as shown: `base/index`, never with credentials.
    pub fn target(&self) -> String {
        format!("{}/{}", self.base, self.index)
    }

    /// Every form a secret of this configuration could take in text (as given, percent-encoded,
    /// inside a basic-auth header), longest first.
    pub(super) fn secrets(&self) -> Vec<String> {
        let mut out = Vec::new();
        for s in [&self.api_key, &self.password].into_iter().flatten() {
            let v = s.expose().trim();
            if !v.is_empty() {
                out.push(v.to_string());
                out.push(percent_encode(v));
            }
        }
        if let (Some(user), Some(pw)) = (&self.username, &self.password) {
            out.push(base64_of(format!("{user}:{}", pw.expose()).as_bytes()));
        }
        out.sort_by_key(|s| std::cmp::Reverse(s.len()));
        out.dedup();
        out
    }
}

/// The index must be one concrete name: the URL path is built from it.
pub(super) fn check_index(index: &str) -> Result<(), EsError> {
    let ok = !index.is_empty()
        && !index.starts_with(['_', '-', '+', '.'])
        && index.chars().all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(EsError::NoIndex {
            name: index.to_string(),
            hint: "one concrete index or alias name (no lists, patterns or _all, no leading _ - + .)".into(),
        })
    }
}

fn bad_url(url: &str, why: &str) -> EsError {
    EsError::NoIndex { name: redact_url(url), hint: why.to_string() }
}

/// A URL with any userinfo (`user:password@`) removed, for messages; text that is not a URL is
/// returned with everything up to the last `@` of its authority removed.
pub fn redact_url(url: &str) -> String {
    let Some(scheme_end) = url.find("://") else { return url.to_string() };
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{}{}", &url[..scheme_end + 3], &rest[at + 1..]),
        None => url.to_string(),
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: &u8| (*b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(hex), bytes.get(i + 2).and_then(hex))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| if b.is_ascii_alphanumeric() || b"-._~".contains(&b) { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

/// Standard base64 with padding (what a basic-auth header carries).
pub(super) fn base64_of(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_index_prefix_and_credentials_from_the_url() {
        let c = RemoteConfig::from_url("https://elastic:p%40ss%3Aw0rd@search.example.com:9243/proxy/es/invoices").unwrap();
        assert_eq!((c.base.as_str(), c.index.as_str()), ("https://search.example.com:9243/proxy/es", "invoices"));
        assert_eq!(c.username.as_deref(), Some("elastic"));
        assert_eq!(c.password.as_ref().map(Secret::expose), Some("p@ss:w0rd"));
        assert_eq!(c.target(), "https://search.example.com:9243/proxy/es/invoices");
        assert!(!format!("{c:?}").contains("p@ss"), "Debug hides the password");
        assert!(matches!(c.auth(), Auth::Basic { ref username, .. } if username == "elastic"));
        let plain = RemoteConfig::from_url("http://localhost:9200/movies/").unwrap();
        assert_eq!((plain.base.as_str(), plain.index.as_str(), plain.auth()), ("http://localhost:9200", "movies", Auth::None));
    }

    #[test]
    fn an_api_key_wins_over_basic() {
        let mut c = RemoteConfig::from_url("https://u:pw@h/idx").unwrap();
        c.api_key = Some(Secret::new("a2V5"));
        assert_eq!(c.auth(), Auth::ApiKey(Secret::new("a2V5")));
    }

    #[test]
    fn refuses_urls_without_a_single_index() {
        for url in ["https://h:9200", "https://h:9200/", "https://h/a,b", "https://h/_all", "https://h/logs-*", "ftp://h/idx", "https://h/idx?q=1", "not a url"] {
            let err = RemoteConfig::from_url(url).unwrap_err();
            assert!(matches!(err, EsError::NoIndex { .. }), "{url}: {err}");
        }
        let err = RemoteConfig::from_url("https://u:hunter2@h:9200/").unwrap_err().to_string();
        assert!(!err.contains("hunter2"), "{err}");
    }

    #[test]
    fn secrets_cover_every_form() {
        let mut c = RemoteConfig::from_url("https://user:p%20w@h/idx").unwrap();
        c.api_key = Some(Secret::new("k3y"));
        let s = c.secrets();
        assert!(s.contains(&"p w".to_string()) && s.contains(&"p%20w".to_string()) && s.contains(&"k3y".to_string()));
        assert!(s.contains(&base64_of(b"user:p w")));
        assert_eq!(base64_of(b"Aladdin:open sesame"), "QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        assert_eq!(base64_of(b"ab"), "YWI=");
        assert_eq!(redact_url("https://u:p@h:1/x@y"), "https://h:1/x@y");
        assert_eq!(percent_decode("%zz%41"), "%zzA");
    }
}
