//! Where the ES path's index is and how to reach it: an embedded index under the data folder, or
//! a server URL with credentials from the environment. Opening the engine, the hints a failure
//! gets, and the scrubbing of every credential from text that is shown.

use std::path::PathBuf;

use qa_core::secret::Secret;

use crate::remote::{RemoteConfig, RemoteEngine, redact_url};
use crate::embedded::EmbeddedIndex;
use crate::{EsError, SearchEngine};

/// Where the index lives (the `es` setting).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EsTarget {
    /// An index built by `qa es index` under `<data_dir>/es_indexes/<name>/`.
    Embedded(String),
    /// A server URL `http(s)://host:port/INDEX` (as configured; may carry user info, never shown
    /// without [`redact_url`]).
    Remote(String),
}

impl EsTarget {
    /// A URL (`http://`, `https://`) is a server; anything else names an embedded index.
    pub fn parse(raw: &str) -> EsTarget {
        let raw = raw.trim();
        let lower = raw.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") { EsTarget::Remote(raw.to_string()) } else { EsTarget::Embedded(raw.to_string()) }
    }
}

/// Index names `qa es index --name` accepts: a folder name that is safe on every platform.
pub fn valid_index_name(name: &str) -> bool {
    name.len() <= 100 && name.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Everything needed to open the configured index.
#[derive(Debug, Clone)]
pub struct EsConnection {
    /// The index.
    pub target: EsTarget,
    /// The data folder (embedded indexes, checkpoints).
    pub data_dir: PathBuf,
    /// API key (wins over user info in the URL).
    pub api_key: Option<Secret>,
    /// Basic-auth user name.
    pub username: Option<Secret>,
    /// Basic-auth password.
    pub password: Option<Secret>,
    /// A private CA for TLS.
    pub ca_cert: Option<PathBuf>,
    /// Per-request timeout.
    pub timeout_ms: u64,
    /// Retries of a 429 or 5xx.
    pub retries: u32,
    /// Bucket cap of the embedded engine's aggregations.
    pub max_buckets: usize,
}

impl EsConnection {
    /// The remote engine's configuration (the environment's credentials win over a
    /// user:password in the URL).
    pub fn remote_config(&self, url: &str) -> Result<RemoteConfig, EsError> {
        let mut config = RemoteConfig::from_url(url)?;
        config.set_credentials(self.api_key.as_ref(), self.username.as_ref(), self.password.as_ref());
        config.ca_cert = self.ca_cert.clone();
        config.timeout_ms = self.timeout_ms;
        config.retries = self.retries;
        Ok(config)
    }

    /// Open the engine: the embedded index by name, or the remote server.
    pub fn open(&self) -> Result<Box<dyn SearchEngine>, EsError> {
        match &self.target {
            EsTarget::Embedded(name) => {
                let mut index = EmbeddedIndex::open(&self.data_dir, name)?;
                index.set_max_buckets(self.max_buckets);
                Ok(Box::new(index))
            }
            EsTarget::Remote(url) => Ok(Box::new(RemoteEngine::new(self.remote_config(url)?)?)),
        }
    }

    /// `text` without any configured credential (the URL's user info included).
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_string();
        for s in [&self.api_key, &self.password].into_iter().flatten() {
            out = s.scrub(&out);
        }
        if let EsTarget::Remote(url) = &self.target {
            out = out.replace(url.as_str(), &redact_url(url));
        }
        out
    }

    /// What the user can do about `e`: how to create a missing index, what to check on a server.
    pub fn hints(&self, e: &EsError) -> Vec<String> {
        match e {
            EsError::NoIndex { .. } => match &self.target {
                EsTarget::Embedded(name) => {
                    vec![format!("build it: qa es index FILE --name {name}"), format!("the embedded indexes in {}: qa es list", self.data_dir.display())]
                }
                EsTarget::Remote(_) => vec!["check the index name at the end of the URL (http(s)://host:port/INDEX)".into()],
            },
            EsError::Unreachable { .. } => vec![
                "check that the server is up and the URL is right (QA_ES / --es)".into(),
                "for TLS with a private CA pass --ca-cert FILE (QA_ES_CA_CERT)".into(),
            ],
            EsError::Http { status: 401 | 403, .. } => vec!["check the credentials: QA_ES_API_KEY, or QA_ES_USERNAME + QA_ES_PASSWORD (environment or .env)".into()],
            EsError::Refused(_) => vec!["see why with: qa es check 'BODY'".into()],
            _ => Vec::new(),
        }
    }
}
