//! The documents' remote store (`store`): its connection from the settings, and the opener the
//! engine calls for each generation.

use std::sync::Arc;

use qa_core::error::QaError;
use qa_es::EsError;
use qa_es::remote::{RemoteConfig, redact_url};
use qa_index::store::{GenerationInfo, Opened, StoreOpener};
use qa_core::progress::Progress;
use qa_query::generation::{self, GenerationFiles};
use qa_store::StoreError;
use qa_store::check::CheckReport;
use qa_store::client::DocumentStore;
use qa_store::sync::{Generation, SyncOptions, SyncReport};
use qa_store::flavor::StoreMeta;
use qa_store::search::RemoteLanes;

use crate::Settings;

impl Settings {
    /// The store's connection settings for `url` (the environment's credentials win over a
    /// user:password in the URL).
    pub fn store_config(&self, url: &str) -> Result<RemoteConfig, StoreError> {
        let mut config = RemoteConfig::from_url(url)?;
        config.set_credentials(self.store_api_key.as_ref(), self.store_username.as_ref(), self.store_password.as_ref());
        config.ca_cert = self.store_ca_cert.clone();
        config.timeout_ms = self.store_timeout_ms;
        Ok(config)
    }

    /// Connect to the store at `url` (the configured one when `None`).
    pub fn store_connect(&self, url: Option<&str>) -> Result<DocumentStore, StoreError> {
        let url = url.or(self.store.as_deref()).ok_or_else(|| StoreError::Protocol {
            target: "(none)".into(),
            reason: "no store is configured: pass --store URL, set QA_STORE or `store` in qa.toml".into(),
        })?;
        DocumentStore::connect(self.store_config(url)?)
    }

    /// Bring the configured store up to the live generation of `corpus` (`qa index --store`).
    pub fn sync_store(&self, corpus: Option<&str>, progress: &dyn Progress) -> qa_core::error::Result<SyncReport> {
        let files = generation::read_live(&self.vector_dir(), corpus)?;
        let store = self.store_connect(None)?;
        Ok(qa_store::sync::sync(&store, &generation_of(&files), SyncOptions::default(), progress)?)
    }

    /// Compare the configured store with the live generation of `corpus`; the corpus's name and
    /// the report.
    pub fn check_store(&self, corpus: Option<&str>) -> qa_core::error::Result<(String, CheckReport)> {
        let files = generation::read_live(&self.vector_dir(), corpus.or(self.corpus.as_deref()))?;
        let store = self.store_connect(None)?;
        Ok((files.corpus.clone(), qa_store::check::check(&store, &generation_of(&files))?))
    }

    /// Copy the configured store into the index at `to` (`qa store migrate`).
    pub fn migrate_store(&self, to: &str, progress: &dyn Progress) -> qa_core::error::Result<SyncReport> {
        let from = self.store_connect(None)?;
        let target = self.store_connect(Some(to))?;
        Ok(qa_store::migrate::migrate(&from, &target, SyncOptions::default(), progress)?)
    }

    /// The engine's opener of the configured store, if one is configured: a server that cannot
    /// be reached degrades the answers; an index that does not fit the generation is an error.
    pub fn store_opener(&self) -> Option<StoreOpener> {
        let url = self.store.clone()?;
        let settings = self.clone();
        let open = move |g: &GenerationInfo<'_>| -> qa_core::error::Result<Opened> {
            let meta = StoreMeta { model: g.model.to_string(), dimension: g.dimension, corpus: g.corpus.to_string() };
            let opened = settings.store_connect(Some(&url)).and_then(|store| RemoteLanes::open(store, &meta, g.chunks));
            match opened {
                Ok(lanes) => Ok(Opened::Ready(Box::new(lanes))),
                Err(StoreError::Server(e @ (EsError::Unreachable { .. } | EsError::Http { status: 500..=599, .. }))) => Ok(Opened::Unavailable(e.to_string())),
                Err(e) => Err(QaError::from(e)),
            }
        };
        Some(StoreOpener { target: redact_url(self.store.as_deref().unwrap_or_default()), open: Arc::new(open) })
    }
}

fn generation_of(files: &GenerationFiles) -> Generation<'_> {
    Generation { chunks: &files.chunks, vectors: &files.vectors, dimension: files.manifest.dimension, model: &files.manifest.model_id, corpus: &files.corpus, titles: &files.titles }
}
