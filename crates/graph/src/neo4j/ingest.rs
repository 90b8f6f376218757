//! Ingest: the plan (nodes and relationships grouped by label and type), the fixed statements,
//! their parameters and the one write transaction.

use super::*;

impl Neo4jGraph {
    pub(super) async fn ingest_async(&self, plan: &IngestPlan, stats: &mut IngestStats) -> std::result::Result<(), Fail> {
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
pub(super) fn quote_name(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
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

pub(super) fn node_rows_param(rows: &[NodeRow]) -> BoltType {
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

pub(super) fn rel_rows_param(rows: &[RelRow]) -> BoltType {
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
pub(super) fn changed_properties(old: &Value, new: &serde_json::Map<String, Value>) -> usize {
    let old = old.as_object();
    new.iter()
        .filter(|(k, v)| {
            let before = old.and_then(|o| o.get(*k));
            if v.is_null() { before.is_some_and(|b| !b.is_null()) } else { before != Some(*v) }
        })
        .count()
}
