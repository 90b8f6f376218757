//! The read path: read queries in READ mode, schema, entity search, counts; the `GraphStore`
//! facade (its `ingest` runs [`super::ingest`]).

use super::*;

impl Neo4jGraph {
    /// Run a read query (READ access mode, server-side `tx_timeout`) and collect at most `cap`
    /// rows (all when `None`), the whole call bounded by the timeout.
    pub(super) fn fetch_rows(&self, cypher: &str, params: BoltMap, cap: Option<usize>) -> std::result::Result<Vec<neo4rs::Row>, Fail> {
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

    pub(super) fn read_rows(&self, what: &str, cypher: &str, params: BoltMap) -> Result<Vec<neo4rs::Row>> {
        self.fetch_rows(cypher, params, None).map_err(|f| self.query_error(what, f))
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
