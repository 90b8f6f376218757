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
use qa_core::secret::Secret;
pub(crate) use crate::store::redact_uri;
pub use crate::store::Neo4jOptions;
use qa_core::error::{QaError, Result};
use crate::kg::GraphDocument;

mod ingest;
mod store;
mod value;

use ingest::*;
#[cfg(test)]
use store::escape_lucene;
use value::*;

/// Rows per `UNWIND` batch on ingest.
const BATCH: usize = 500;

/// The entity full-text index that `search_entities` queries.
const ENTITY_INDEX_STATEMENT: &str =
    "CREATE FULLTEXT INDEX entityIndex IF NOT EXISTS FOR (n:Concept|Document|Image) ON EACH [n.id, n.name]";

const SEARCH_STATEMENT: &str = "CALL db.index.fulltext.queryNodes(\"entityIndex\", $query) YIELD node, score \
     RETURN coalesce(node.id, node.text, node.name) AS name, labels(node) AS labels, score LIMIT $limit";

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
}

fn scrub(msg: String, password: Option<&Secret>) -> String {
    qa_core::secret::scrub_secret(&msg, password.map(Secret::expose))
}

#[cfg(test)]
mod tests;
