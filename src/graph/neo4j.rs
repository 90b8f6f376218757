//! Neo4j graph store over Bolt, through the `neo4rs` driver.
//!
//! The driver is async; this store is a synchronous facade that owns a current-thread tokio
//! runtime and `block_on`s each call. Time limits:
//! - `connect`, `read`, `schema`, `search_entities` and `counts` are each bounded as a whole by
//!   `Neo4jOptions::timeout`; reads also send it to the server as the Bolt `tx_timeout` (ms).
//! - `ingest` bounds each statement (each batch, the schema statements, the commit) by the timeout
//!   rather than the whole load, so a large graph is not cut off by a timeout meant for queries.
//!
//! Reads run as auto-commit transactions in READ access mode (`mode: "r"`), so the server refuses
//! writes. Ingest runs our own fixed statements (labels and types are validated identifiers,
//! everything else is a parameter) in one write transaction, after the schema statements.
//!
//! Value mapping (server → JSON), the same shapes as the embedded store:
//! - node: `{"id": <its "id" property if a string, else "#<internal id>">, "labels", "properties"}`
//! - relationship: `{"source", "type", "target", "properties"}`; source/target are the endpoint
//!   nodes' ids when those nodes appear anywhere in the same row (always the case inside a path),
//!   else `"#<internal id>"`; an unbound relationship outside a path has `null` endpoints.
//! - path: `{"nodes": [...in path order...], "edges": [...in path order, with direction...]}`
//! - temporal values: ISO-8601 strings (`2024-05-01`, `12:30:00+02:00`, `12:30:00`,
//!   `2024-05-01T12:30:00+02:00`, `2024-05-01T12:30:00`, `2024-05-01T12:30:00+02:00[Europe/Paris]`);
//!   durations: ISO-8601 durations (`P1Y2M3DT4H5M6.5S`); points: `{"srid", "x", "y"[, "z"]}`;
//!   byte arrays: arrays of numbers; non-finite floats: the strings `NaN`, `Infinity`, `-Infinity`.
//!
//! Property values on ingest (JSON → Neo4j): null, booleans, numbers and strings as they are;
//! lists of strings, of booleans or of numbers (integers and floats mixed become floats) as
//! lists; any other value (an object, a nested or mixed list, a list holding null) is stored as
//! its JSON text, because Neo4j properties hold only primitives and homogeneous primitive lists.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::time::Duration;

use neo4rs::{BoltList, BoltMap, BoltNode, BoltString, BoltType, ConfigBuilder, Graph, Query};
use serde_json::{Value, json};

use super::{EntityHit, GraphCounts, GraphSchema, GraphStore, IngestStats, ReadRows, Row};
use crate::config::Secret;
use crate::error::{QaError, Result};
use crate::kg::GraphDocument;

/// Rows per `UNWIND` batch on ingest.
const BATCH: usize = 500;

/// The entity full-text index that `search_entities` queries.
const ENTITY_INDEX_STATEMENT: &str =
    "CREATE FULLTEXT INDEX entityIndex IF NOT EXISTS FOR (n:Concept|Document|Image) ON EACH [n.id, n.name]";

const SEARCH_STATEMENT: &str = "CALL db.index.fulltext.queryNodes(\"entityIndex\", $query) YIELD node, score \
     RETURN coalesce(node.id, node.text, node.name) AS name, labels(node) AS labels, score LIMIT $limit";

/// How to reach a Neo4j server.
#[derive(Clone)]
pub struct Neo4jOptions {
    /// `bolt://host:7687`, `neo4j://host`, `bolt+s://…`, `neo4j+s://…`.
    pub uri: String,
    pub username: String,
    pub password: Option<Secret>,
    /// Database name; `None` is the server's default database.
    pub database: Option<String>,
    /// Limit for connecting and for each query (also the server-side transaction timeout).
    pub timeout: Duration,
    /// Most rows `read` returns; the driver stops pulling there.
    pub row_cap: usize,
}

impl fmt::Debug for Neo4jOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Neo4jOptions")
            .field("uri", &redact_uri(&self.uri))
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .field("database", &self.database)
            .field("timeout", &self.timeout)
            .field("row_cap", &self.row_cap)
            .finish()
    }
}

/// A connected Neo4j store. Field order matters: the driver (and its pooled connections) is
/// dropped before the runtime it was created on.
pub struct Neo4jGraph {
    graph: Graph,
    rt: tokio::runtime::Runtime,
    /// The URI as shown in messages (without any password in it).
    uri: String,
    username: String,
    database: Option<String>,
    /// Kept only to scrub it from driver messages before they reach the user.
    password: Option<Secret>,
    timeout: Duration,
    row_cap: usize,
}

impl fmt::Debug for Neo4jGraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Neo4jGraph")
            .field("uri", &self.uri)
            .field("username", &self.username)
            .field("database", &self.database)
            .field("timeout", &self.timeout)
            .field("row_cap", &self.row_cap)
            .finish_non_exhaustive()
    }
}

/// Why a driver call did not produce its result.
enum Fail {
    Timeout,
    Driver(neo4rs::Error),
}

impl From<neo4rs::Error> for Fail {
    fn from(e: neo4rs::Error) -> Self {
        Fail::Driver(e)
    }
}

async fn within<T>(limit: Duration, fut: impl Future<Output = std::result::Result<T, neo4rs::Error>>) -> std::result::Result<T, Fail> {
    match tokio::time::timeout(limit, fut).await {
        Ok(r) => r.map_err(Fail::Driver),
        Err(_) => Err(Fail::Timeout),
    }
}

fn is_auth_error(e: &neo4rs::Error) -> bool {
    match e {
        neo4rs::Error::AuthenticationError(_) => true,
        neo4rs::Error::Neo4j(n) => n.code().starts_with("Neo.ClientError.Security."),
        _ => false,
    }
}

fn driver_detail(e: &neo4rs::Error) -> String {
    match e {
        neo4rs::Error::Neo4j(n) => format!("{}: {}", n.code(), n.message()),
        other => other.to_string(),
    }
}

/// The URI without the password of any `user:password@` part.
fn redact_uri(uri: &str) -> String {
    let Some(scheme_end) = uri.find("://") else { return uri.to_string() };
    let rest = &uri[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else { return uri.to_string() };
    let user = rest[..at].split(':').next().unwrap_or("");
    format!("{}{}:<redacted>{}", &uri[..scheme_end + 3], user, &rest[at..])
}

impl Neo4jGraph {
    /// Connect and verify (a `RETURN 1` read) within `opts.timeout`. The error names the URI and
    /// what to check (server running? credentials? `QA_NEO4J_*`), never the password.
    pub fn connect(opts: &Neo4jOptions) -> Result<Neo4jGraph> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| QaError::Graph(format!("cannot start the Neo4j client runtime: {e}")))?;
        let timeout = opts.timeout.max(Duration::from_millis(1));
        let mut config = ConfigBuilder::default()
            .uri(opts.uri.as_str())
            .user(opts.username.as_str())
            .password(opts.password.as_ref().map(Secret::expose).unwrap_or(""))
            // One row past the cap, so a single PULL tells a full result from a cut one.
            .fetch_size(opts.row_cap.saturating_add(1).max(1))
            .max_connections(2)
            .connection_timeout(timeout);
        if let Some(db) = &opts.database {
            config = config.db(db.as_str());
        }
        let shown = redact_uri(&opts.uri);
        let scrubbed = |msg: String| QaError::Graph(scrub(msg, opts.password.as_ref()));
        let config = config.build().map_err(|e| scrubbed(format!("invalid Neo4j settings for {shown}: {e}")))?;
        let graph = {
            let _runtime = rt.enter();
            Graph::connect(config)
        };
        let graph = graph.map_err(|e| {
            scrubbed(format!(
                "cannot use Neo4j URI {shown}: {}\n  check QA_NEO4J_URI (e.g. bolt://localhost:7687 or neo4j+s://host)",
                driver_detail(&e)
            ))
        })?;
        let store = Neo4jGraph {
            graph,
            rt,
            uri: shown,
            username: opts.username.clone(),
            database: opts.database.clone(),
            password: opts.password.clone(),
            timeout,
            row_cap: opts.row_cap,
        };
        store.fetch_rows("RETURN 1 AS ok", BoltMap::new(), None).map_err(|f| store.connect_error(f))?;
        Ok(store)
    }

    fn connect_error(&self, f: Fail) -> QaError {
        let uri = &self.uri;
        let secs = self.timeout.as_secs_f64();
        let msg = match f {
            Fail::Timeout | Fail::Driver(neo4rs::Error::ConnectionTimedOut) => format!(
                "no answer from Neo4j at {uri} within {secs:.1}s\n  check: is the server running, and is {uri} its Bolt \
                 port (QA_NEO4J_URI, usually bolt://host:7687)? A slow server needs a larger graph_timeout_secs"
            ),
            Fail::Driver(e) if is_auth_error(&e) => format!(
                "Neo4j at {uri} rejected the credentials of user '{}': {}\n  check the credentials: QA_NEO4J_USERNAME \
                 and QA_NEO4J_PASSWORD",
                self.username,
                driver_detail(&e)
            ),
            Fail::Driver(neo4rs::Error::Neo4j(e)) if e.code().contains("DatabaseNotFound") => format!(
                "Neo4j at {uri} has no database {:?}: {}\n  check QA_NEO4J_DATABASE",
                self.database.as_deref().unwrap_or("(default)"),
                e.message()
            ),
            // Nothing answered at the socket level: credentials cannot be the cause.
            Fail::Driver(e @ (neo4rs::Error::IOError { .. } | neo4rs::Error::ConnectionError)) => format!(
                "cannot connect to Neo4j at {uri}: {}\n  check: is the server running and reachable at QA_NEO4J_URI \
                 (e.g. bolt://localhost:7687)?",
                driver_detail(&e)
            ),
            Fail::Driver(e) => format!(
                "cannot connect to Neo4j at {uri}: {}\n  check: is the server running and reachable at QA_NEO4J_URI \
                 (e.g. bolt://localhost:7687)? Are the credentials right (QA_NEO4J_USERNAME, QA_NEO4J_PASSWORD)?",
                driver_detail(&e)
            ),
        };
        QaError::Graph(self.scrub(msg))
    }

    fn query_error(&self, what: &str, f: Fail) -> QaError {
        let msg = match f {
            Fail::Timeout | Fail::Driver(neo4rs::Error::ConnectionTimedOut) => {
                format!("Neo4j {what} timed out after {:.1}s (graph_timeout_secs)", self.timeout.as_secs_f64())
            }
            Fail::Driver(e) if is_auth_error(&e) => format!(
                "Neo4j at {} refused {what}: {}\n  check the credentials: QA_NEO4J_USERNAME and QA_NEO4J_PASSWORD",
                self.uri,
                driver_detail(&e)
            ),
            Fail::Driver(e @ neo4rs::Error::Neo4j(_)) => format!("Neo4j {what} failed: {}", driver_detail(&e)),
            Fail::Driver(e) => format!("Neo4j {what} failed ({}): {}", self.uri, driver_detail(&e)),
        };
        QaError::Graph(self.scrub(msg))
    }

    fn scrub(&self, msg: String) -> String {
        scrub(msg, self.password.as_ref())
    }

    fn tx_timeout_ms(&self) -> i64 {
        i64::try_from(self.timeout.as_millis()).unwrap_or(i64::MAX).max(1)
    }

    /// Run a read query (READ access mode, server-side `tx_timeout`) and collect at most `cap`
    /// rows (all when `None`), the whole call bounded by the timeout.
    fn fetch_rows(&self, cypher: &str, params: BoltMap, cap: Option<usize>) -> std::result::Result<Vec<neo4rs::Row>, Fail> {
        let query = Query::new(cypher.to_string()).with_params(params).extra("tx_timeout", self.tx_timeout_ms());
        let cap = cap.unwrap_or(usize::MAX);
        self.rt.block_on(within(self.timeout, async {
            let mut rows = Vec::new();
            if cap == 0 {
                return Ok(rows);
            }
            let mut stream = self.graph.execute_read(query).await?;
            // The fetch size is the row cap + 1, so the first PULL asks for no more than that; once
            // it is reached, nothing more is pulled (the pool resets the connection before reuse).
            while let Some(row) = stream.next().await? {
                rows.push(row);
                if rows.len() >= cap {
                    break;
                }
            }
            Ok(rows)
        }))
    }

    fn read_rows(&self, what: &str, cypher: &str, params: BoltMap) -> Result<Vec<neo4rs::Row>> {
        self.fetch_rows(cypher, params, None).map_err(|f| self.query_error(what, f))
    }

    async fn ingest_async(&self, plan: &IngestPlan, stats: &mut IngestStats) -> std::result::Result<(), Fail> {
        let t = self.timeout;
        // Schema statements cannot share a transaction with data writes.
        for label in &plan.labels {
            within(t, self.graph.run(Query::new(constraint_statement(label)))).await?;
        }
        within(t, self.graph.run(Query::new(ENTITY_INDEX_STATEMENT.to_string()))).await?;

        let mut txn = within(t, self.graph.start_txn()).await?;
        for (label, rows) in &plan.nodes {
            for batch in rows.chunks(BATCH) {
                let ids: Vec<BoltType> = batch.iter().map(|r| BoltType::from(r.id.as_str())).collect();
                let check = Query::new(node_check_statement(label)).param("ids", BoltType::List(BoltList::from(ids)));
                let mut existing: HashMap<String, Value> = HashMap::new();
                within(t, async {
                    let mut stream = txn.execute(check).await?;
                    while let Some(row) = stream.next(&mut txn).await? {
                        if let (Ok(id), Ok(props)) = (row.get::<String>("id"), row.get::<BoltType>("props")) {
                            existing.insert(id, bolt_to_json(&props, &HashMap::new()));
                        }
                    }
                    Ok(())
                })
                .await?;
                let merge = Query::new(node_merge_statement(label)).param("rows", node_rows_param(batch));
                within(t, txn.run(merge)).await?;
                for row in batch {
                    match existing.get(&row.id) {
                        None => {
                            stats.nodes += 1;
                            *stats.by_label.entry(label.clone()).or_default() += 1;
                        }
                        Some(old) => stats.properties_set += changed_properties(old, &row.props),
                    }
                }
            }
        }
        for ((rel_type, source_label, target_label), rows) in &plan.relationships {
            for batch in rows.chunks(BATCH) {
                let param = rel_rows_param(batch);
                let check = Query::new(rel_check_statement(rel_type, source_label, target_label)).param("rows", param.clone());
                let mut existing: HashSet<(String, String)> = HashSet::new();
                within(t, async {
                    let mut stream = txn.execute(check).await?;
                    while let Some(row) = stream.next(&mut txn).await? {
                        if let (Ok(s), Ok(d)) = (row.get::<String>("source"), row.get::<String>("target")) {
                            existing.insert((s, d));
                        }
                    }
                    Ok(())
                })
                .await?;
                let merge = Query::new(rel_merge_statement(rel_type, source_label, target_label)).param("rows", param);
                within(t, txn.run(merge)).await?;
                let created = batch.iter().filter(|r| !existing.contains(&(r.source.clone(), r.target.clone()))).count();
                stats.relationships += created;
                if created > 0 {
                    *stats.by_type.entry(rel_type.clone()).or_default() += created;
                }
            }
        }
        within(t, txn.commit()).await?;
        Ok(())
    }
}

fn scrub(msg: String, password: Option<&Secret>) -> String {
    match password.map(Secret::expose).filter(|p| !p.is_empty()) {
        Some(p) if msg.contains(p) => msg.replace(p, "<redacted>"),
        _ => msg,
    }
}

impl GraphStore for Neo4jGraph {
    fn backend(&self) -> &'static str {
        "neo4j"
    }

    /// Merge the documents' nodes (by label and `id`) and relationships (by endpoints and type).
    /// The statistics are exact: each batch first looks up which of its nodes and relationships
    /// exist (the driver's default build does not expose the server's update counters).
    fn ingest(&mut self, docs: &[GraphDocument]) -> Result<IngestStats> {
        let plan = IngestPlan::build(docs)?;
        let mut stats = IngestStats { skipped_relationships: plan.skipped_relationships, ..IngestStats::default() };
        self.rt.block_on(self.ingest_async(&plan, &mut stats)).map_err(|f| self.query_error("ingest", f))?;
        Ok(stats)
    }

    fn read(&mut self, cypher: &str, params: &serde_json::Map<String, Value>) -> Result<ReadRows> {
        // One row past the cap tells a full result from a cut one.
        let rows = self.fetch_rows(cypher, params_to_bolt(params), Some(self.row_cap.saturating_add(1))).map_err(|f| self.query_error("query", f))?;
        let rows: Vec<Row> = rows.iter().map(row_to_json).collect::<std::result::Result<_, _>>().map_err(|e| self.query_error("query", Fail::Driver(e)))?;
        Ok(ReadRows::capped(rows, self.row_cap))
    }

    fn schema(&mut self) -> Result<GraphSchema> {
        let column = |cypher: &str, col: &str| -> Result<Vec<String>> {
            let mut names: Vec<String> =
                self.read_rows("schema lookup", cypher, BoltMap::new())?.iter().filter_map(|r| r.get::<String>(col).ok()).collect();
            names.sort();
            names.dedup();
            Ok(names)
        };
        Ok(GraphSchema {
            labels: column("CALL db.labels()", "label")?,
            relationship_types: column("CALL db.relationshipTypes()", "relationshipType")?,
            property_keys: column("CALL db.propertyKeys()", "propertyKey")?,
        })
    }

    fn search_entities(&mut self, text: &str, limit: usize) -> Result<Vec<EntityHit>> {
        if limit == 0 || !text.chars().any(char::is_alphanumeric) {
            return Ok(Vec::new());
        }
        let mut params = BoltMap::new();
        params.put("query".into(), escape_lucene(text).into());
        params.put("limit".into(), BoltType::from(i64::try_from(limit).unwrap_or(i64::MAX)));
        let rows = match self.fetch_rows(SEARCH_STATEMENT, params, None) {
            Ok(rows) => rows,
            // A store loaded before the entity index existed (or never loaded) has no index.
            Err(Fail::Driver(neo4rs::Error::Neo4j(e)))
                if e.code() == "Neo.ClientError.Procedure.ProcedureCallFailed" && e.message().contains("entityIndex") =>
            {
                tracing::warn!(message = e.message(), "Neo4j has no entityIndex yet: no entity hits");
                return Ok(Vec::new());
            }
            Err(f) => return Err(self.query_error("entity search", f)),
        };
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        for row in rows {
            let Ok(BoltType::String(name)) = row.get::<BoltType>("name") else { continue };
            if name.value.trim().is_empty() || !seen.insert(name.value.clone()) {
                continue;
            }
            let labels = row.get::<Vec<String>>("labels").unwrap_or_default();
            let score = match row.get::<BoltType>("score") {
                Ok(BoltType::Float(f)) => f.value,
                Ok(BoltType::Integer(i)) => i.value as f64,
                _ => 0.0,
            };
            hits.push(EntityHit { name: name.value, labels, score });
        }
        Ok(hits)
    }

    fn counts(&mut self) -> Result<GraphCounts> {
        let names = |cypher: &str, col: &str| -> Result<Vec<String>> {
            Ok(self.read_rows("count", cypher, BoltMap::new())?.iter().filter_map(|r| r.get::<String>(col).ok()).collect())
        };
        let count = |cypher: String| -> Result<u64> {
            let rows = self.read_rows("count", &cypher, BoltMap::new())?;
            Ok(rows.first().and_then(|r| r.get::<i64>("n").ok()).unwrap_or(0).max(0) as u64)
        };
        let mut counts = GraphCounts::default();
        for label in names("CALL db.labels()", "label")? {
            let n = count(format!("MATCH (n:{}) RETURN count(n) AS n", quote_name(&label)))?;
            if n > 0 {
                counts.nodes += n;
                counts.by_label.insert(label, n);
            }
        }
        for rel_type in names("CALL db.relationshipTypes()", "relationshipType")? {
            let n = count(format!("MATCH ()-[r:{}]->() RETURN count(r) AS n", quote_name(&rel_type)))?;
            if n > 0 {
                counts.relationships += n;
                counts.by_type.insert(rel_type, n);
            }
        }
        Ok(counts)
    }

    fn extra_procedures(&self) -> &'static [&'static str] {
        &[]
    }
}

// ---------------------------------------------------------------------------------------------
// Identifiers and Lucene queries

/// A label or relationship type for a statement we build: it must match
/// `^[A-Za-z_][A-Za-z0-9_]*$`; returned backtick-quoted.
pub(crate) fn identifier(name: &str, what: &str) -> Result<String> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(format!("`{name}`"))
    } else {
        Err(QaError::Graph(format!(
            "cannot load {what} {name:?} into Neo4j: labels and relationship types must be letters, digits and \
             underscores, not starting with a digit"
        )))
    }
}

/// Any name the server reported (a label or type from `db.labels()`), backtick-quoted.
fn quote_name(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// Plain text → a Lucene query that matches its words: every Lucene special character
/// (`+ - && || ! ( ) { } [ ] ^ " ~ * ? : \ /`) is backslash-escaped and the operators `AND`, `OR`
/// and `NOT` are lower-cased (so they are words, not operators). Whitespace is collapsed.
pub fn escape_lucene(text: &str) -> String {
    const SPECIAL: &[char] = &['+', '-', '&', '|', '!', '(', ')', '{', '}', '[', ']', '^', '"', '~', '*', '?', ':', '\\', '/'];
    let mut words = Vec::new();
    for word in text.split_whitespace() {
        if matches!(word, "AND" | "OR" | "NOT") {
            words.push(word.to_lowercase());
            continue;
        }
        let mut escaped = String::with_capacity(word.len());
        for c in word.chars() {
            if SPECIAL.contains(&c) {
                escaped.push('\\');
            }
            escaped.push(c);
        }
        words.push(escaped);
    }
    words.join(" ")
}

// ---------------------------------------------------------------------------------------------
// Ingest plan and statements

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeRow {
    pub id: String,
    pub props: serde_json::Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RelRow {
    pub source: String,
    pub target: String,
    pub props: serde_json::Map<String, Value>,
}

/// What an ingest sends, grouped the way the statements need it.
#[derive(Debug, Default)]
pub(crate) struct IngestPlan {
    /// Every label of the documents' nodes (validated).
    pub labels: BTreeSet<String>,
    /// Label → nodes, deduplicated by id.
    pub nodes: BTreeMap<String, Vec<NodeRow>>,
    /// (type, source label, target label) → relationships, deduplicated by (source, type, target).
    pub relationships: BTreeMap<(String, String, String), Vec<RelRow>>,
    pub skipped_relationships: usize,
}

impl IngestPlan {
    /// Nodes are identified by `id` across labels, as in the embedded store: a node seen again
    /// keeps its first label and takes the later properties. A relationship keeps its first
    /// occurrence; one whose source or target is in none of the documents is skipped (its label,
    /// which the statement needs, is unknown).
    pub(crate) fn build(docs: &[GraphDocument]) -> Result<IngestPlan> {
        let mut plan = IngestPlan::default();
        let mut where_is: HashMap<&str, (String, usize)> = HashMap::new();
        for node in docs.iter().flat_map(|d| std::iter::once(&d.source).chain(&d.nodes)) {
            let props: serde_json::Map<String, Value> =
                node.metadata.iter().filter(|m| m.key != "id").map(|m| (m.key.clone(), property_value(&m.value))).collect();
            if let Some((label, i)) = where_is.get(node.id.as_str()) {
                let row = &mut plan.nodes.get_mut(label).expect("label group exists")[*i];
                row.props.extend(props);
                continue;
            }
            identifier(&node.node_type, "node label")?;
            plan.labels.insert(node.node_type.clone());
            let group = plan.nodes.entry(node.node_type.clone()).or_default();
            where_is.insert(&node.id, (node.node_type.clone(), group.len()));
            group.push(NodeRow { id: node.id.clone(), props });
        }
        let mut seen: HashSet<(&str, &str, &str)> = HashSet::new();
        for rel in docs.iter().flat_map(|d| &d.relationships) {
            identifier(&rel.rel_type, "relationship type")?;
            let (Some((source_label, _)), Some((target_label, _))) = (where_is.get(rel.source.as_str()), where_is.get(rel.target.as_str())) else {
                plan.skipped_relationships += 1;
                tracing::warn!(source = %rel.source, target = %rel.target, "relationship to an unknown node skipped");
                continue;
            };
            if !seen.insert((&rel.source, &rel.rel_type, &rel.target)) {
                continue;
            }
            let props = rel.metadata.iter().map(|m| (m.key.clone(), property_value(&m.value))).collect();
            plan.relationships
                .entry((rel.rel_type.clone(), source_label.clone(), target_label.clone()))
                .or_default()
                .push(RelRow { source: rel.source.clone(), target: rel.target.clone(), props });
        }
        Ok(plan)
    }
}

/// The label must already be a valid identifier (checked when the plan was built).
pub(crate) fn constraint_statement(label: &str) -> String {
    format!("CREATE CONSTRAINT {label}_id IF NOT EXISTS FOR (n:`{label}`) REQUIRE n.id IS UNIQUE")
}

pub(crate) fn node_check_statement(label: &str) -> String {
    format!("UNWIND $ids AS id MATCH (n:`{label}` {{id: id}}) RETURN n.id AS id, properties(n) AS props")
}

pub(crate) fn node_merge_statement(label: &str) -> String {
    format!("UNWIND $rows AS row MERGE (n:`{label}` {{id: row.id}}) SET n += row.props")
}

pub(crate) fn rel_check_statement(rel_type: &str, source_label: &str, target_label: &str) -> String {
    format!(
        "UNWIND $rows AS row MATCH (a:`{source_label}` {{id: row.source}})-[:`{rel_type}`]->(b:`{target_label}` {{id: row.target}}) \
         RETURN DISTINCT row.source AS source, row.target AS target"
    )
}

pub(crate) fn rel_merge_statement(rel_type: &str, source_label: &str, target_label: &str) -> String {
    format!(
        "UNWIND $rows AS row MATCH (a:`{source_label}` {{id: row.source}}) MATCH (b:`{target_label}` {{id: row.target}}) \
         MERGE (a)-[r:`{rel_type}`]->(b) SET r += row.props"
    )
}

fn node_rows_param(rows: &[NodeRow]) -> BoltType {
    let list: Vec<BoltType> = rows
        .iter()
        .map(|r| {
            let mut m = BoltMap::new();
            m.put("id".into(), r.id.as_str().into());
            m.put("props".into(), json_map_to_bolt(&r.props));
            BoltType::Map(m)
        })
        .collect();
    BoltType::List(BoltList::from(list))
}

fn rel_rows_param(rows: &[RelRow]) -> BoltType {
    let list: Vec<BoltType> = rows
        .iter()
        .map(|r| {
            let mut m = BoltMap::new();
            m.put("source".into(), r.source.as_str().into());
            m.put("target".into(), r.target.as_str().into());
            m.put("props".into(), json_map_to_bolt(&r.props));
            BoltType::Map(m)
        })
        .collect();
    BoltType::List(BoltList::from(list))
}

/// A metadata value as a storable property (see the module docs).
pub(crate) fn property_value(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            let all = |f: fn(&Value) -> bool| items.iter().all(f);
            if all(Value::is_string) || all(Value::is_boolean) || all(|x| x.is_i64()) {
                v.clone()
            } else if all(Value::is_number) {
                Value::Array(items.iter().map(|x| json!(x.as_f64().unwrap_or(0.0))).collect())
            } else {
                Value::String(v.to_string())
            }
        }
        Value::Object(_) => Value::String(v.to_string()),
        other => other.clone(),
    }
}

/// How many of `new`'s properties differ from what an existing node holds (`old`, its
/// `properties(n)` as JSON). A null removes a property: a change only if the property exists.
fn changed_properties(old: &Value, new: &serde_json::Map<String, Value>) -> usize {
    let old = old.as_object();
    new.iter()
        .filter(|(k, v)| {
            let before = old.and_then(|o| o.get(*k));
            if v.is_null() { before.is_some_and(|b| !b.is_null()) } else { before != Some(*v) }
        })
        .count()
}

// ---------------------------------------------------------------------------------------------
// JSON → Bolt (parameters)

/// A JSON value as a Bolt parameter: null, bool, integer (i64; larger unsigned numbers become
/// floats), float, string, list and map.
pub(crate) fn json_to_bolt(v: &Value) -> BoltType {
    match v {
        Value::Null => BoltType::Null(neo4rs::BoltNull),
        Value::Bool(b) => BoltType::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => BoltType::from(i),
            None => BoltType::from(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => BoltType::from(s.as_str()),
        Value::Array(items) => BoltType::List(BoltList::from(items.iter().map(json_to_bolt).collect::<Vec<_>>())),
        Value::Object(map) => json_map_to_bolt(map),
    }
}

fn json_map_to_bolt(map: &serde_json::Map<String, Value>) -> BoltType {
    BoltType::Map(params_to_bolt(map))
}

pub(crate) fn params_to_bolt(params: &serde_json::Map<String, Value>) -> BoltMap {
    let mut m = BoltMap::with_capacity(params.len());
    for (k, v) in params {
        m.put(BoltString::from(k.as_str()), json_to_bolt(v));
    }
    m
}

// ---------------------------------------------------------------------------------------------
// Bolt → JSON (results)

fn row_to_json(row: &neo4rs::Row) -> std::result::Result<Row, neo4rs::Error> {
    let mut values = Vec::new();
    for key in row.keys() {
        let value: BoltType = row.get(&key.value).map_err(neo4rs::Error::DeserializationError)?;
        values.push((key.value.clone(), value));
    }
    Ok(values_to_row(values))
}

/// Column values → a JSON row; relationships are resolved against every node in the row.
pub(crate) fn values_to_row(values: Vec<(String, BoltType)>) -> Row {
    let mut names = HashMap::new();
    for (_, v) in &values {
        collect_node_names(v, &mut names);
    }
    values.into_iter().map(|(k, v)| (k, bolt_to_json(&v, &names))).collect()
}

fn node_key(n: &BoltNode) -> String {
    match n.properties.value.get("id") {
        Some(BoltType::String(s)) => s.value.clone(),
        _ => format!("#{}", n.id.value),
    }
}

/// Internal node id → our string id, for every node inside `v`.
fn collect_node_names(v: &BoltType, names: &mut HashMap<i64, String>) {
    match v {
        BoltType::Node(n) => {
            names.insert(n.id.value, node_key(n));
        }
        BoltType::List(l) => l.value.iter().for_each(|x| collect_node_names(x, names)),
        BoltType::Map(m) => m.value.values().for_each(|x| collect_node_names(x, names)),
        BoltType::Path(p) => p.nodes.value.iter().for_each(|x| collect_node_names(x, names)),
        _ => {}
    }
}

fn props_json(props: &BoltMap, names: &HashMap<i64, String>) -> Value {
    Value::Object(props.value.iter().map(|(k, v)| (k.value.clone(), bolt_to_json(v, names))).collect())
}

fn endpoint(id: i64, names: &HashMap<i64, String>) -> Value {
    Value::String(names.get(&id).cloned().unwrap_or_else(|| format!("#{id}")))
}

fn node_json(n: &BoltNode, names: &HashMap<i64, String>) -> Value {
    let labels: Vec<Value> = n.labels.value.iter().map(|l| bolt_to_json(l, names)).collect();
    json!({"id": node_key(n), "labels": labels, "properties": props_json(&n.properties, names)})
}

fn path_json(p: &neo4rs::BoltPath, outer: &HashMap<i64, String>) -> Value {
    let nodes = p.nodes();
    let rels = p.rels();
    let indices: Vec<i64> = p.indices().iter().map(|i| i.value).collect();
    let mut names = outer.clone();
    for n in &nodes {
        names.insert(n.id.value, node_key(n));
    }
    let Some(first) = nodes.first() else { return json!({"nodes": [], "edges": []}) };
    let mut out_nodes = vec![node_json(first, &names)];
    let mut edges = Vec::new();
    let mut prev = first;
    // Indices alternate (relationship, node): relationship indices are 1-based, negative when the
    // relationship points from the next node back to the previous one.
    for pair in indices.chunks_exact(2) {
        let (ri, ni) = (pair[0], pair[1]);
        let (Some(next), Some(rel)) = (usize::try_from(ni).ok().and_then(|i| nodes.get(i)), rels.get((ri.unsigned_abs() as usize).wrapping_sub(1))) else {
            break;
        };
        let (source, target) = if ri > 0 { (prev, next) } else { (next, prev) };
        edges.push(json!({
            "source": node_key(source),
            "type": rel.typ.value,
            "target": node_key(target),
            "properties": props_json(&rel.properties, &names),
        }));
        out_nodes.push(node_json(next, &names));
        prev = next;
    }
    json!({"nodes": out_nodes, "edges": edges})
}

fn float_json(f: f64) -> Value {
    if f.is_finite() {
        json!(f)
    } else if f.is_nan() {
        json!("NaN")
    } else if f > 0.0 {
        json!("Infinity")
    } else {
        json!("-Infinity")
    }
}

/// ISO-8601 duration from Bolt's (months, days, seconds, nanoseconds).
fn duration_iso(months: i64, days: i64, seconds: i64, nanos: i64) -> String {
    let mut s = String::from("P");
    let (years, months) = (months / 12, months % 12);
    for (n, unit) in [(years, 'Y'), (months, 'M'), (days, 'D')] {
        if n != 0 {
            s.push_str(&format!("{n}{unit}"));
        }
    }
    let total_nanos = i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
    if total_nanos != 0 || s.len() == 1 {
        s.push('T');
        let sign = if total_nanos < 0 { "-" } else { "" };
        let abs = total_nanos.unsigned_abs();
        let (h, m) = (abs / 3_600_000_000_000, (abs / 60_000_000_000) % 60);
        let (sec, frac) = ((abs / 1_000_000_000) % 60, abs % 1_000_000_000);
        if h != 0 {
            s.push_str(&format!("{sign}{h}H"));
        }
        if m != 0 {
            s.push_str(&format!("{sign}{m}M"));
        }
        if sec != 0 || frac != 0 || (h == 0 && m == 0) {
            let frac = if frac == 0 { String::new() } else { format!(".{frac:09}").trim_end_matches('0').to_string() };
            s.push_str(&format!("{sign}{sec}{frac}S"));
        }
    }
    s
}

/// Convert a result value to JSON (see the module docs for the shapes); `names` maps internal
/// node ids to our string ids, for relationship endpoints.
pub(crate) fn bolt_to_json(v: &BoltType, names: &HashMap<i64, String>) -> Value {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime};
    let or_debug = |r: std::result::Result<String, ()>| Value::String(r.unwrap_or_else(|_| format!("{v:?}")));
    match v {
        BoltType::Null(_) => Value::Null,
        BoltType::Boolean(b) => json!(b.value),
        BoltType::Integer(i) => json!(i.value),
        BoltType::Float(f) => float_json(f.value),
        BoltType::String(s) => json!(s.value),
        BoltType::Bytes(b) => json!(b.value.to_vec()),
        BoltType::List(l) => Value::Array(l.value.iter().map(|x| bolt_to_json(x, names)).collect()),
        BoltType::Map(m) => props_json(m, names),
        BoltType::Node(n) => node_json(n, names),
        BoltType::Relation(r) => json!({
            "source": endpoint(r.start_node_id.value, names),
            "type": r.typ.value,
            "target": endpoint(r.end_node_id.value, names),
            "properties": props_json(&r.properties, names),
        }),
        BoltType::UnboundedRelation(r) => json!({
            "source": null,
            "type": r.typ.value,
            "target": null,
            "properties": props_json(&r.properties, names),
        }),
        BoltType::Path(p) => path_json(p, names),
        BoltType::Point2D(p) => json!({"srid": p.sr_id.value, "x": float_json(p.x.value), "y": float_json(p.y.value)}),
        BoltType::Point3D(p) => {
            json!({"srid": p.sr_id.value, "x": float_json(p.x.value), "y": float_json(p.y.value), "z": float_json(p.z.value)})
        }
        BoltType::Duration(d) => {
            let mut m = BoltMap::new();
            m.put("d".into(), BoltType::Duration(d.clone()));
            or_debug(m.get::<(i64, i64, i64, i64)>("d").map(|(mo, da, se, na)| duration_iso(mo, da, se, na)).map_err(|_| ()))
        }
        BoltType::Date(d) => or_debug(NaiveDate::try_from(d).map(|d| d.format("%Y-%m-%d").to_string()).map_err(|_| ())),
        // The driver's conversions panic on out-of-range values; a bad value must not.
        BoltType::Time(t) => or_debug(crate::error::catch_panic(|| {
            let (time, offset): (NaiveTime, FixedOffset) = t.into();
            format!("{time}{offset}")
        })
        .map_err(|_| ())),
        BoltType::LocalTime(t) => or_debug(crate::error::catch_panic(|| NaiveTime::from(t).to_string()).map_err(|_| ())),
        BoltType::DateTime(dt) => or_debug(DateTime::<FixedOffset>::try_from(dt).map(|d| d.to_rfc3339()).map_err(|_| ())),
        BoltType::LocalDateTime(dt) => {
            or_debug(NaiveDateTime::try_from(dt).map(|d| d.format("%Y-%m-%dT%H:%M:%S%.f").to_string()).map_err(|_| ()))
        }
        BoltType::DateTimeZoneId(dt) => {
            or_debug(DateTime::<FixedOffset>::try_from(dt).map(|d| format!("{}[{}]", d.to_rfc3339(), dt.tz_id())).map_err(|_| ()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kg::{KgNode, KgRel, Meta};
    use neo4rs::{BoltInteger, BoltPath, BoltRelation, BoltUnboundedRelation};

    const PASSWORD: &str = "Sw0rdf1sh-not-for-logs";

    fn bmap(entries: &[(&str, BoltType)]) -> BoltMap {
        entries.iter().map(|(k, v)| (BoltString::from(*k), v.clone())).collect()
    }
    fn bnode(id: i64, label: &str, props: &[(&str, BoltType)]) -> BoltNode {
        BoltNode::new(BoltInteger::new(id), BoltList::from(vec![BoltType::from(label)]), bmap(props))
    }
    fn urel(id: i64, typ: &str) -> BoltType {
        BoltType::UnboundedRelation(BoltUnboundedRelation::new(BoltInteger::new(id), typ.into(), bmap(&[("w", 2.into())])))
    }

    #[test]
    fn json_params_become_bolt_values() {
        let params = serde_json::json!({
            "null": null, "yes": true, "n": -42, "big": u64::MAX, "x": 0.5, "s": "deep sleep",
            "list": [1, "two", [3]], "map": {"inner": {"k": [true]}},
        });
        let bolt = params_to_bolt(params.as_object().unwrap());
        let get = |k: &str| bolt.value.get(k).unwrap().clone();
        assert_eq!(get("null"), BoltType::Null(neo4rs::BoltNull));
        assert_eq!(get("yes"), BoltType::from(true));
        assert_eq!(get("n"), BoltType::from(-42i64));
        assert_eq!(get("big"), BoltType::from(u64::MAX as f64), "beyond i64: a float");
        assert_eq!(get("x"), BoltType::from(0.5));
        assert_eq!(get("s"), BoltType::from("deep sleep"));
        let BoltType::List(list) = get("list") else { panic!("list") };
        assert_eq!(list.value, vec![BoltType::from(1i64), BoltType::from("two"), BoltType::List(BoltList::from(vec![BoltType::from(3i64)]))]);
        let BoltType::Map(map) = get("map") else { panic!("map") };
        let BoltType::Map(inner) = map.value.get("inner").unwrap() else { panic!("inner map") };
        assert_eq!(inner.value.get("k"), Some(&BoltType::List(BoltList::from(vec![BoltType::from(true)]))));
        // And back: the JSON shapes survive a round trip.
        assert_eq!(bolt_to_json(&json_to_bolt(&params), &HashMap::new())["map"], params["map"]);
    }

    #[test]
    fn rows_with_nodes_relationships_and_paths_become_json() {
        let a = bnode(1, "Concept", &[("id", "battery life".into()), ("df", 3i64.into())]);
        let b = bnode(2, "Concept", &[("id", "deep sleep".into())]);
        let anon = bnode(9, "Thing", &[("name", "no id".into())]);
        let r = BoltRelation {
            id: BoltInteger::new(5),
            start_node_id: BoltInteger::new(1),
            end_node_id: BoltInteger::new(2),
            typ: "RELATED_TO".into(),
            properties: bmap(&[("weight", 2.5.into())]),
        };
        let dangling = BoltRelation { start_node_id: BoltInteger::new(77), end_node_id: BoltInteger::new(78), ..r.clone() };
        // a -[RELATED_TO]-> b <-[MENTIONS]- anon : second hop runs backwards (negative index).
        let p = BoltPath {
            nodes: BoltList::from(vec![BoltType::Node(a.clone()), BoltType::Node(b.clone()), BoltType::Node(anon.clone())]),
            rels: BoltList::from(vec![urel(5, "RELATED_TO"), urel(6, "MENTIONS")]),
            indices: BoltList::from(vec![BoltType::from(1i64), BoltType::from(1i64), BoltType::from(-2i64), BoltType::from(2i64)]),
        };
        let row = values_to_row(vec![
            ("a".into(), BoltType::Node(a)),
            ("b".into(), BoltType::Node(b)),
            ("anon".into(), BoltType::Node(anon)),
            ("r".into(), BoltType::Relation(r)),
            ("dangling".into(), BoltType::Relation(dangling)),
            ("u".into(), urel(6, "MENTIONS")),
            ("p".into(), BoltType::Path(p)),
            ("n".into(), BoltType::Null(neo4rs::BoltNull)),
        ]);
        assert_eq!(row["a"], json!({"id": "battery life", "labels": ["Concept"], "properties": {"id": "battery life", "df": 3}}));
        assert_eq!(row["anon"], json!({"id": "#9", "labels": ["Thing"], "properties": {"name": "no id"}}));
        assert_eq!(row["r"], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {"weight": 2.5}}));
        assert_eq!((&row["dangling"]["source"], &row["dangling"]["target"]), (&json!("#77"), &json!("#78")));
        assert_eq!(row["u"], json!({"source": null, "type": "MENTIONS", "target": null, "properties": {"w": 2}}));
        assert_eq!(row["n"], Value::Null);
        let path = &row["p"];
        let ids: Vec<&Value> = path["nodes"].as_array().unwrap().iter().map(|n| &n["id"]).collect();
        assert_eq!(ids, [&json!("battery life"), &json!("deep sleep"), &json!("#9")]);
        assert_eq!(path["edges"][0], json!({"source": "battery life", "type": "RELATED_TO", "target": "deep sleep", "properties": {"w": 2}}));
        assert_eq!((&path["edges"][1]["source"], &path["edges"][1]["target"]), (&json!("#9"), &json!("deep sleep")));
    }

    #[test]
    fn other_value_kinds_become_json() {
        let date = chrono::NaiveDate::from_ymd_opt(2024, 5, 1).unwrap();
        let datetime = date.and_hms_opt(12, 30, 0).unwrap();
        let offset = chrono::FixedOffset::east_opt(7200).unwrap();
        let cases: Vec<(BoltType, Value)> = vec![
            (BoltType::from(date), json!("2024-05-01")),
            (BoltType::from(datetime), json!("2024-05-01T12:30:00")),
            (BoltType::from(chrono::NaiveTime::from_hms_milli_opt(12, 30, 0, 500).unwrap()), json!("12:30:00.500")),
            (BoltType::from((chrono::NaiveTime::from_hms_opt(12, 30, 0).unwrap(), offset)), json!("12:30:00+02:00")),
            (BoltType::from(datetime.and_local_timezone(offset).unwrap()), json!("2024-05-01T12:30:00+02:00")),
            (BoltType::Duration(neo4rs::BoltDuration::new(14.into(), 3.into(), 3_723.into(), 500_000_000.into())), json!("P1Y2M3DT1H2M3.5S")),
            (BoltType::Duration(neo4rs::BoltDuration::new(0.into(), 0.into(), 0.into(), 0.into())), json!("PT0S")),
            (
                BoltType::Point2D(neo4rs::BoltPoint2D { sr_id: 4326.into(), x: neo4rs::BoltFloat::new(1.5), y: neo4rs::BoltFloat::new(2.0) }),
                json!({"srid": 4326, "x": 1.5, "y": 2.0}),
            ),
            (BoltType::from(vec![1u8, 2, 255]), json!([1, 2, 255])),
            (BoltType::from(f64::NAN), json!("NaN")),
            (BoltType::from(f64::NEG_INFINITY), json!("-Infinity")),
        ];
        for (bolt, expected) in cases {
            assert_eq!(bolt_to_json(&bolt, &HashMap::new()), expected, "{bolt:?}");
        }
    }

    #[test]
    fn identifiers_are_validated_and_quoted() {
        for ok in ["Concept", "HAS_IMAGE", "_x1", "a"] {
            assert_eq!(identifier(ok, "node label").unwrap(), format!("`{ok}`"));
        }
        for bad in ["", "1abc", "has space", "Bad`tick", "x-y", "Ünïcode", "a:b", "a)-[r]-(b"] {
            let e = identifier(bad, "node label").unwrap_err().to_string();
            assert!(e.contains("letters, digits and underscores"), "{bad}: {e}");
        }
        assert_eq!(quote_name("we`ird"), "`we``ird`");
    }

    #[test]
    fn lucene_special_characters_and_operators_are_escaped() {
        assert_eq!(escape_lucene("deep sleep"), "deep sleep");
        assert_eq!(escape_lucene("a+b -c && d || e!"), r"a\+b \-c \&\& d \|\| e\!");
        assert_eq!(escape_lucene(r#"(x) {y} [z] ^2 "q" ~f *w? k:v \ a/b"#), r#"\(x\) \{y\} \[z\] \^2 \"q\" \~f \*w\? k\:v \\ a\/b"#);
        assert_eq!(escape_lucene("sleep AND  battery OR NOT\tpower"), "sleep and battery or not power");
        assert_eq!(escape_lucene("ANDROID ORACLE NOTE and"), "ANDROID ORACLE NOTE and", "only whole operator words change");
        assert_eq!(escape_lucene("   "), "");
    }

    fn kg_node(id: &str, t: &str, meta: &[(&str, Value)]) -> KgNode {
        KgNode { id: id.into(), node_type: t.into(), metadata: meta.iter().map(|(k, v)| Meta { key: k.to_string(), value: v.clone() }).collect() }
    }
    fn kg_rel(s: &str, t: &str, ty: &str) -> KgRel {
        KgRel { source: s.into(), target: t.into(), rel_type: ty.into(), metadata: vec![] }
    }

    #[test]
    fn ingest_plan_groups_dedupes_and_converts_properties() {
        let docs = vec![
            GraphDocument {
                source: kg_node("f::a_0", "Document", &[("heading_path", json!(["A", "B"]))]),
                nodes: vec![
                    kg_node("deep sleep", "Concept", &[("aliases", json!(["nap"])), ("id", json!("ignored"))]),
                    kg_node("fig.png", "Image", &[("box", json!({"w": 1})), ("mixed", json!([1, "a"])), ("nums", json!([1, 2.5]))]),
                ],
                relationships: vec![
                    kg_rel("f::a_0", "deep sleep", "MENTIONS"),
                    kg_rel("f::a_0", "fig.png", "HAS_IMAGE"),
                    kg_rel("f::a_0", "ghost", "MENTIONS"),
                ],
            },
            GraphDocument {
                source: kg_node("f::a_1", "Document", &[]),
                nodes: vec![kg_node("deep sleep", "Concept", &[("kind", json!("phrase"))])],
                relationships: vec![kg_rel("f::a_1", "deep sleep", "MENTIONS"), kg_rel("f::a_0", "deep sleep", "MENTIONS")],
            },
        ];
        let plan = IngestPlan::build(&docs).unwrap();
        assert_eq!(plan.labels.iter().collect::<Vec<_>>(), ["Concept", "Document", "Image"]);
        assert_eq!(plan.nodes["Document"].len(), 2);
        let concept = &plan.nodes["Concept"];
        assert_eq!(concept.len(), 1, "deduplicated by id");
        assert_eq!(Value::Object(concept[0].props.clone()), json!({"aliases": ["nap"], "kind": "phrase"}), "merged; `id` is the key");
        let image = &plan.nodes["Image"][0].props;
        assert_eq!(image["box"], json!(r#"{"w":1}"#));
        assert_eq!(image["mixed"], json!(r#"[1,"a"]"#));
        assert_eq!(image["nums"], json!([1.0, 2.5]));
        let mentions = &plan.relationships[&("MENTIONS".to_string(), "Document".to_string(), "Concept".to_string())];
        assert_eq!(mentions.len(), 2, "deduplicated by (source, type, target)");
        assert_eq!(plan.skipped_relationships, 1);

        let mut bad = docs.clone();
        bad[0].relationships.push(kg_rel("f::a_0", "deep sleep", "MENTIONS}]->(x) DETACH DELETE x //"));
        assert!(IngestPlan::build(&bad).unwrap_err().to_string().contains("relationship type"));
        bad[0].nodes.push(kg_node("x", "Bad Label", &[]));
        assert!(IngestPlan::build(&bad).unwrap_err().to_string().contains("node label \"Bad Label\""));
    }

    #[test]
    fn statements_quote_identifiers() {
        assert_eq!(constraint_statement("Concept"), "CREATE CONSTRAINT Concept_id IF NOT EXISTS FOR (n:`Concept`) REQUIRE n.id IS UNIQUE");
        assert_eq!(node_merge_statement("Concept"), "UNWIND $rows AS row MERGE (n:`Concept` {id: row.id}) SET n += row.props");
        assert_eq!(
            rel_merge_statement("MENTIONS", "Document", "Concept"),
            "UNWIND $rows AS row MATCH (a:`Document` {id: row.source}) MATCH (b:`Concept` {id: row.target}) MERGE (a)-[r:`MENTIONS`]->(b) SET r += row.props"
        );
        let old = json!({"id": "x", "a": 1, "b": "same"});
        let new = json!({"a": 2, "b": "same", "c": null, "d": true});
        assert_eq!(changed_properties(&old, new.as_object().unwrap()), 2, "a changed, d added; null for a missing key is no change");
    }

    fn options(uri: &str) -> Neo4jOptions {
        Neo4jOptions {
            uri: uri.into(),
            username: "neo4j".into(),
            password: Some(Secret::new(PASSWORD)),
            database: None,
            timeout: Duration::from_secs(2),
            row_cap: 10,
        }
    }

    fn closed_port() -> u16 {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    }

    #[test]
    fn debug_output_and_connect_errors_never_show_the_password() {
        let port = closed_port();
        let with_userinfo = format!("bolt://neo4j:{PASSWORD}@127.0.0.1:{port}");
        for opts in [options(&format!("bolt://127.0.0.1:{port}")), options(&with_userinfo), options("http://localhost:7474"), options("not a uri")] {
            let debug = format!("{opts:?}");
            assert!(!debug.contains(PASSWORD), "{debug}");
            let e = Neo4jGraph::connect(&opts).unwrap_err().to_string();
            assert!(!e.contains(PASSWORD), "{e}");
            assert!(e.contains("QA_NEO4J_URI"), "{e}");
        }
        assert_eq!(redact_uri(&with_userinfo), format!("bolt://neo4j:<redacted>@127.0.0.1:{port}"));

        // A store value (built without connecting) does not show it either.
        let opts = options(&format!("bolt://127.0.0.1:{port}"));
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let config = ConfigBuilder::default().uri(opts.uri.as_str()).user("neo4j").password(PASSWORD).build().unwrap();
        let graph = {
            let _rt = rt.enter();
            Graph::connect(config).unwrap()
        };
        let store = Neo4jGraph {
            graph,
            rt,
            uri: opts.uri.clone(),
            username: "neo4j".into(),
            database: None,
            password: opts.password.clone(),
            timeout: opts.timeout,
            row_cap: 10,
        };
        assert!(!format!("{store:?}").contains(PASSWORD));
        // Driver text that happens to echo the password is scrubbed.
        let e = store.query_error("query", Fail::Driver(neo4rs::Error::UnexpectedMessage(format!("bad {PASSWORD}"))));
        assert!(!e.to_string().contains(PASSWORD), "{e}");
    }
}
