//! The sources the settings name, opened behind the one `Source` seam: the indexed documents,
//! the SQL database and the Elasticsearch index. A source that cannot be opened is left out
//! with a note (the others still answer).

use qa_core::error::QaError;
use qa_route::{RouteError, Source, Target};

use crate::Settings;

/// The configured sources, open.
pub struct Sources {
    /// Every source that opened.
    pub list: Vec<Box<dyn Source>>,
    /// What could not be opened, and why (credentials scrubbed).
    pub warnings: Vec<String>,
    /// Why the documents could not be opened (a missing index is not a warning: the user may
    /// only have a database).
    pub documents_error: Option<QaError>,
    /// Why the SQL source could not be opened, when one is configured.
    pub sql_error: Option<String>,
}

impl Sources {
    /// Open the documents, and the SQL and ES sources that are configured.
    pub fn open(settings: &Settings) -> Sources {
        let mut s = Sources { list: Vec::new(), warnings: Vec::new(), documents_error: None, sql_error: None };
        match documents(settings) {
            Ok(d) => s.list.push(Box::new(d)),
            Err(e @ QaError::IndexMissing { .. }) => s.documents_error = Some(e),
            Err(e) => {
                s.warnings.push(format!("documents not used: {e}"));
                s.documents_error = Some(e);
            }
        }
        if let Some(raw) = settings.sql_url.as_deref() {
            let opened = qa_sql::SqlUrl::parse(raw).map_err(|e| e.to_string()).and_then(|url| {
                qa_sql::source::SqlSource::open(url, settings.sql_agent_options(), settings.data_dir.clone(), settings.sql_llm()).map_err(|e| e.to_string())
            });
            match opened {
                Ok((source, note)) => {
                    s.warnings.extend(note);
                    s.list.push(Box::new(source));
                }
                Err(e) => {
                    s.warnings.push(format!("SQL source not used: {e}"));
                    s.sql_error = Some(e);
                }
            }
        }
        if let Some(conn) = settings.es_connection() {
            let scrub = conn.clone();
            match qa_es::source::EsSource::open(conn, settings.es_options(), settings.es_llm()) {
                Ok(source) => s.list.push(Box::new(source)),
                Err(e) => s.warnings.push(format!("Elasticsearch index not used: {}", scrub.scrub(&e.to_string()))),
            }
        }
        s
    }

    /// The source of `target`.
    pub fn get(&mut self, target: qa_route::Target) -> Option<&mut (dyn Source + 'static)> {
        qa_route::session::find(&mut self.list, target)
    }

    /// Every source's profile, for the router.
    pub fn profiles(&self) -> Vec<&qa_route::SourceProfile> {
        self.list.iter().map(|s| s.profile()).collect()
    }
}

/// The documents source of the settings' corpus.
pub fn documents(settings: &Settings) -> qa_core::error::Result<qa_query::source::DocumentsSource> {
    let owned = settings.clone();
    let load: qa_query::source::EmbedderLoader = Box::new(move || owned.load_embedder());
    qa_query::source::DocumentsSource::open(settings.engine_settings(), load)
}

/// Open the one source a turn needs (paging an earlier result, resuming a clarification, a
/// pasted query): nothing is sent to the others. `Ok(None)`: not configured.
pub fn open_one(settings: &Settings, target: Target) -> Result<Option<Box<dyn Source>>, RouteError> {
    let failed = |e: String| RouteError::database(e, "`qa sources` and `qa doctor` say what is configured");
    match target {
        Target::Sql => {
            let Some(raw) = settings.sql_url.as_deref() else { return Ok(None) };
            let url = qa_sql::SqlUrl::parse(raw).map_err(|e| failed(e.to_string()))?;
            let (source, _) = qa_sql::source::SqlSource::open(url, settings.sql_agent_options(), settings.data_dir.clone(), settings.sql_llm()).map_err(|e| failed(e.to_string()))?;
            Ok(Some(Box::new(source)))
        }
        Target::Es => {
            let Some(conn) = settings.es_connection() else { return Ok(None) };
            let scrub = conn.clone();
            match qa_es::source::EsSource::connect(conn, settings.es_options(), settings.es_llm()) {
                Ok(s) => Ok(Some(Box::new(s))),
                Err(e) => Err(RouteError { suggestion: scrub.hints(&e).join("; "), ..failed(scrub.scrub(&e.to_string())) }),
            }
        }
        Target::Documents => documents(settings).map(|d| Some(Box::new(d) as Box<dyn Source>)).map_err(|e| failed(e.to_string())),
    }
}

