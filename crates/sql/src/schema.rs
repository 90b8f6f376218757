//! Schema context: what the database says about itself (introspection, in [`super::db`]) merged
//! with an optional semantic schema file (descriptions, synonyms, value aliases) into one
//! context: what the question reader links words onto (`plan::source`), and a text the LLM is
//! prompted with.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{ColumnKind, DbSchema, SqlError, TableInfo};

/// The semantic schema file (TOML, or JSON by extension), e.g. `samples/sql/audit_semantic.toml`:
/// descriptions and synonyms for tables and columns, and value aliases.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticSchema {
    /// Per table (by its database name).
    pub(crate) tables: BTreeMap<String, SemanticTable>,
    /// Phrases that stand for values of a column.
    pub(crate) value_aliases: Vec<ValueAlias>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SemanticTable {
    pub description: Option<String>,
    pub synonyms: Vec<String>,
    /// The column that names a row (shown when grouping by this table), e.g. `name`.
    pub label: Option<String>,
    /// The date column "in 2024" or "per month" refers to.
    pub default_date: Option<String>,
    pub columns: BTreeMap<String, SemanticColumn>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct SemanticColumn {
    pub description: Option<String>,
    pub synonyms: Vec<String>,
}

/// "urgent" → findings.severity IN ('Critical').
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct ValueAlias {
    pub phrase: String,
    pub table: String,
    pub column: String,
    pub values: Vec<String>,
}

impl SemanticSchema {
    /// Read and parse the file at `path`: JSON when it ends in `.json`, else TOML.
    pub fn load(path: &Path) -> Result<SemanticSchema, SqlError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| SqlError::Io { action: "cannot read the semantic schema", path: path.to_path_buf(), source })?;
        let parsed: SemanticSchema = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).map_err(|e| SqlError::SemanticSchema { path: path.to_path_buf(), reason: e.to_string() })?
        } else {
            toml::from_str(&text).map_err(|e| SqlError::SemanticSchema { path: path.to_path_buf(), reason: e.message().to_string() })?
        };
        Ok(parsed)
    }

    /// Entries that name tables or columns the database does not have (they are ignored).
    pub(crate) fn check_against(&self, db: &DbSchema) -> Vec<String> {
        let mut out = Vec::new();
        for (t, st) in &self.tables {
            let Some(table) = db.table(t) else {
                out.push(format!("semantic schema: table '{t}' is not in the database"));
                continue;
            };
            for c in st.columns.keys().chain(st.label.iter()).chain(st.default_date.iter()) {
                if table.column(c).is_none() {
                    out.push(format!("semantic schema: column '{t}.{c}' is not in the database"));
                }
            }
        }
        for a in &self.value_aliases {
            if db.table(&a.table).and_then(|t| t.column(&a.column)).is_none() {
                out.push(format!("semantic schema: value alias '{}' names '{}.{}', which is not in the database", a.phrase, a.table, a.column));
            }
        }
        out
    }
}

/// What a phrase in a question can stand for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Term {
    Table { table: String },
    Column { table: String, column: String },
    Value { table: String, column: String, values: Vec<String> },
}

/// The merged schema context.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SchemaContext {
    /// What the database reported (the validator checks statements against it).
    pub db: DbSchema,
    /// The semantic schema, when one was given.
    pub semantic: Option<SemanticSchema>,
    /// Semantic-schema entries that name tables or columns the database lacks (ignored).
    pub warnings: Vec<String>,
    /// Foreign keys the database does not declare but its names imply (a column named like
    /// another table's single-column primary key: `singer_id` → `singer(singer_id)`, or
    /// `<table>_id` → `<table>(id)`), child → parent.
    #[serde(skip)]
    pub(crate) inferred: Vec<JoinStep>,
    /// Word families of the question being planned ([`SchemaContext::for_question`]): of two
    /// foreign keys between the same tables, the one whose column says one of them is followed
    /// ("where students currently live" → `current_address_id`, not `permanent_address_id`).
    #[serde(skip)]
    pub(crate) key_words: Vec<String>,
    /// The words of the database's own name ("parking" and "enforcement" of
    /// `parking_enforcement.db`): the domain every question is in, never a condition nothing
    /// placed ([`SchemaContext::with_database_name`]).
    #[serde(skip)]
    pub domain_words: Vec<String>,
}

pub(crate) use qa_core::text::singular;

impl SchemaContext {
    /// Merge `db` with `semantic` (the question reader builds its index of names, values and
    /// aliases from both: `plan::source`).
    pub fn build(db: DbSchema, semantic: Option<SemanticSchema>) -> SchemaContext {
        let warnings = semantic.as_ref().map(|s| s.check_against(&db)).unwrap_or_default();
        let inferred = infer_keys(&db);
        SchemaContext { db, semantic, warnings, inferred, key_words: Vec::new(), domain_words: Vec::new() }
    }

    /// This context with the words of the database's name, taken from its URL or file path
    /// (`sqlite:///data/parking_enforcement.db`, `postgres://host/ferry_ops`): the last path
    /// segment without its extension, split like any name, singular, four letters or more.
    pub fn with_database_name(mut self, url: &str) -> SchemaContext {
        let path = url.split(['?', '#']).next().unwrap_or(url);
        let last = path.rsplit(['/', '\\']).next().unwrap_or(path);
        let stem = last.split('.').next().unwrap_or(last);
        self.domain_words = qa_question::names::name_words(stem).into_iter().filter(|w| w.len() >= 4 && w.chars().all(|c| c.is_ascii_alphabetic())).collect();
        self
    }

    /// This context for planning `question`: joins prefer the foreign keys its words name.
    pub(crate) fn for_question(&self, question: &str) -> SchemaContext {
        let words = qa_core::text::words(question);
        // Words of four letters or more count, and "now".
        let mut key_words: Vec<String> = words.iter().filter(|w| w.len() >= 4 || *w == "now").map(|w| key_family(w)).collect();
        // Where someone lives, in the present tense, is where they live now.
        if words.iter().any(|w| matches!(w.as_str(), "live" | "lives" | "living" | "reside" | "resides" | "residing")) {
            key_words.push("current".to_string());
        }
        SchemaContext { key_words, ..self.clone() }
    }

    /// A join step's column (on either side) is named by a word of the question, other than
    /// the words it shares with the tables' names and generic suffixes.
    pub(crate) fn step_named(&self, e: &JoinStep) -> bool {
        !self.key_words.is_empty() && step_key_families(e).iter().any(|f| self.key_words.contains(f))
    }

    /// `step` (either direction) follows an inferred, not a declared, foreign key.
    pub(crate) fn inferred(&self, step: &JoinStep) -> bool {
        self.inferred.iter().any(|e| {
            (e.from_table.eq_ignore_ascii_case(&step.from_table) && e.from_column.eq_ignore_ascii_case(&step.from_column) && e.to_table.eq_ignore_ascii_case(&step.to_table))
                || (e.to_table.eq_ignore_ascii_case(&step.from_table) && e.from_table.eq_ignore_ascii_case(&step.to_table) && e.from_column.eq_ignore_ascii_case(&step.to_column))
        })
    }

    fn semantic_table(&self, table: &str) -> Option<&SemanticTable> {
        self.semantic.as_ref()?.tables.iter().find(|(k, _)| k.eq_ignore_ascii_case(table)).map(|(_, v)| v)
    }

    /// The date column "in 2024" refers to, when the semantic file names one (`default_date`).
    pub(crate) fn default_date(&self, table: &str) -> Option<String> {
        let t = self.db.table(table)?;
        self.semantic_table(table).and_then(|s| s.default_date.clone()).filter(|d| t.column(d).is_some())
    }

    /// The schema as prompt text: one block per table with typed columns, keys, sample values
    /// and the semantic descriptions, then the value aliases.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for t in &self.db.tables {
            let sem = self.semantic_table(&t.name);
            out.push_str(&format!("TABLE {}", t.name));
            if let Some(n) = t.row_count {
                out.push_str(&format!(" ({n} rows)"));
            }
            if let Some(d) = sem.and_then(|s| s.description.as_deref()) {
                out.push_str(&format!(" -- {d}"));
            }
            out.push('\n');
            for c in &t.columns {
                out.push_str(&format!("  {} {}", c.name, c.data_type));
                if t.primary_key.iter().any(|p| p.eq_ignore_ascii_case(&c.name)) {
                    out.push_str(" PRIMARY KEY");
                }
                if let Some(fk) = t.foreign_keys.iter().find(|f| f.columns.iter().any(|fc| fc.eq_ignore_ascii_case(&c.name))) {
                    out.push_str(&format!(" REFERENCES {}({})", fk.ref_table, fk.ref_columns.join(", ")));
                }
                let desc = sem.and_then(|s| s.columns.iter().find(|(k, _)| k.eq_ignore_ascii_case(&c.name))).and_then(|(_, v)| v.description.as_deref());
                let mut notes = Vec::new();
                if let Some(d) = desc {
                    notes.push(d.to_string());
                }
                if !c.samples.is_empty() {
                    notes.push(format!("values: {}", c.samples.iter().map(|v| format!("'{}'", v.replace('\'', "''"))).collect::<Vec<_>>().join(", ")));
                }
                if !notes.is_empty() {
                    out.push_str(&format!(" -- {}", notes.join("; ")));
                }
                out.push('\n');
            }
        }
        if let Some(sem) = &self.semantic
            && !sem.value_aliases.is_empty()
        {
            out.push_str("VALUE ALIASES\n");
            for a in &sem.value_aliases {
                let vals = a.values.iter().map(|v| format!("'{}'", v.replace('\'', "''"))).collect::<Vec<_>>().join(", ");
                out.push_str(&format!("  \"{}\" means {}.{} IN ({vals})\n", a.phrase, a.table, a.column));
            }
        }
        out
    }

    /// Path of foreign-key joins from `from` to `to` (breadth-first over FKs in both
    /// directions): each step is (table, column, other table, other column).
    pub(crate) fn join_path(&self, from: &str, to: &str) -> Option<Vec<JoinStep>> {
        if from.eq_ignore_ascii_case(to) {
            return Some(Vec::new());
        }
        let edges = self.fk_edges();
        let mut prev: BTreeMap<String, (String, JoinStep)> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([from.to_ascii_lowercase()]);
        let mut seen = std::collections::BTreeSet::from([from.to_ascii_lowercase()]);
        while let Some(cur) = queue.pop_front() {
            for e in edges.iter().filter(|e| e.from_table.eq_ignore_ascii_case(&cur)) {
                let next = e.to_table.to_ascii_lowercase();
                if seen.insert(next.clone()) {
                    prev.insert(next.clone(), (cur.clone(), e.clone()));
                    if next == to.to_ascii_lowercase() {
                        let mut path = Vec::new();
                        let mut at = next;
                        while let Some((p, step)) = prev.get(&at) {
                            path.push(step.clone());
                            at = p.clone();
                        }
                        path.reverse();
                        return Some(path);
                    }
                    queue.push_back(next);
                }
            }
        }
        None
    }

    /// Every foreign key as two join steps (child → parent and parent → child).
    pub(crate) fn fk_steps(&self) -> Vec<JoinStep> {
        self.fk_edges()
    }

    /// The tables `table`'s own foreign keys point to (declared or inferred), each once.
    pub(crate) fn parent_tables(&self, table: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let declared = self.db.table(table).map(|t| t.foreign_keys.iter().filter_map(|fk| self.db.table(&fk.ref_table).map(|r| r.name.clone())).collect::<Vec<_>>()).unwrap_or_default();
        let inferred = self.inferred.iter().filter(|e| e.from_table.eq_ignore_ascii_case(table)).map(|e| e.to_table.clone());
        for t in declared.into_iter().chain(inferred) {
            if !t.eq_ignore_ascii_case(table) && !out.iter().any(|x| x.eq_ignore_ascii_case(&t)) {
                out.push(t);
            }
        }
        out
    }

    fn fk_edges(&self) -> Vec<JoinStep> {
        let mut edges = Vec::new();
        for e in &self.inferred {
            edges.push(e.clone());
            edges.push(JoinStep { from_table: e.to_table.clone(), from_column: e.to_column.clone(), to_table: e.from_table.clone(), to_column: e.from_column.clone() });
        }
        for t in &self.db.tables {
            for fk in &t.foreign_keys {
                let (Some(c), Some(rc)) = (fk.columns.first(), fk.ref_columns.first()) else { continue };
                let Some(rt) = self.db.table(&fk.ref_table) else { continue };
                edges.push(JoinStep { from_table: t.name.clone(), from_column: c.clone(), to_table: rt.name.clone(), to_column: rc.clone() });
                edges.push(JoinStep { from_table: rt.name.clone(), from_column: rc.clone(), to_table: t.name.clone(), to_column: c.clone() });
            }
        }
        // Keys the question names first, then plain keys (`guest_id` before
        // `referred_by_guest_id`), then the key declared first in its table (`pi_id` before
        // `reviewer_id`: the main role comes first; SQLite lists its keys last first): the
        // search takes the first edge between two tables.
        let position = |e: &JoinStep| {
            let (t, c) = if self.db.table(&e.from_table).is_some_and(|t| t.foreign_keys.iter().any(|fk| fk.columns.first().is_some_and(|x| x.eq_ignore_ascii_case(&e.from_column)))) { (&e.from_table, &e.from_column) } else { (&e.to_table, &e.to_column) };
            self.db.table(t).and_then(|t| t.columns.iter().position(|x| x.name.eq_ignore_ascii_case(c))).unwrap_or(usize::MAX)
        };
        edges.sort_by_cached_key(|e| (!self.step_named(e), !is_plain_key(e), position(e)));
        edges
    }

    /// The foreign key between two tables (either direction), as a join step from `a` to `b`.
    pub(crate) fn fk_between(&self, a: &str, b: &str) -> Option<JoinStep> {
        self.fk_edges().into_iter().find(|e| e.from_table.eq_ignore_ascii_case(a) && e.to_table.eq_ignore_ascii_case(b))
    }

    pub(crate) fn table(&self, name: &str) -> Option<&TableInfo> {
        self.db.table(name)
    }
}

/// A word's family, adverbs by their adjective ("currently" → current).
pub(crate) fn key_family(word: &str) -> String {
    let w = word.to_lowercase();
    // "now", "at the moment", "presently" say current.
    if matches!(w.as_str(), "now" | "moment" | "presently" | "nowadays") {
        return "current".to_string();
    }
    // The two ends of a trip (`origin_port_id` / `destination_port_id`, `source_airport`,
    // `departure_station`): "leaving Oslo", "departing from", "arriving in", "bound for".
    if matches!(w.as_str(), "origin" | "source" | "departure" | "depart" | "departs" | "departing" | "departed" | "leaving" | "leave" | "leaves" | "from" | "start" | "starting") {
        return "origin".to_string();
    }
    if matches!(w.as_str(), "destination" | "dest" | "arrival" | "arrive" | "arrives" | "arriving" | "arrived" | "bound" | "heading" | "going" | "target" | "ending" | "into") {
        return "destination".to_string();
    }
    let w = match w.strip_suffix("ly") {
        Some(a) if a.len() >= 5 => a.to_string(),
        _ => w,
    };
    qa_core::text::word_family(&w)
}

/// The words of `columns`' names that can tell keys apart — not the words of `tables`' names,
/// not generic suffixes, four letters or more — as key families ([`key_family`]).
pub(crate) fn key_families(tables: &[&str], columns: &[&str]) -> Vec<String> {
    let table_words: Vec<String> = tables.iter().flat_map(|t| qa_question::names::name_words(t)).collect();
    columns
        .iter()
        .flat_map(|c| qa_question::names::name_words(c))
        .filter(|w| w.len() >= 4 && !table_words.contains(w) && !qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str()))
        .map(|w| key_family(&w))
        .collect()
}

/// [`key_families`] of a join step's two columns, beside its two tables.
pub(crate) fn step_key_families(e: &JoinStep) -> Vec<String> {
    key_families(&[&e.from_table, &e.to_table], &[&e.from_column, &e.to_column])
}

/// A step along a key named for the table it refers to and nothing more (`guest_id` of
/// `guests`, `customer` of `customers`), not a qualified one (`referred_by_guest_id`).
pub(crate) fn is_plain_key(e: &JoinStep) -> bool {
    let core = |c: &str| -> Vec<String> { qa_question::names::name_words(c).into_iter().filter(|w| !qa_question::names::GENERIC_SUFFIXES.contains(&w.as_str())).collect() };
    let table = |t: &str| qa_question::names::name_words(t);
    core(&e.to_column) == table(&e.from_table) || core(&e.from_column) == table(&e.to_table)
}

/// Of two keys between the same tables, whether `a` is the one said without a qualifier:
/// its words are all in `b`'s, which has more (`carer_id` beside `second_carer_id`,
/// `tenant_id` beside `co_tenant_id`). A relation named without a qualifier means that one.
pub(crate) fn less_qualified(a: &JoinStep, b: &JoinStep) -> bool {
    let words = |e: &JoinStep| -> Vec<String> {
        // (Key words only: "second" of `second_carer_id` is no unit here.)
        let mut w: Vec<String> = [&e.from_column, &e.to_column].iter().flat_map(|c| qa_question::names::name_words(c)).filter(|w| !matches!(w.as_str(), "id" | "ids" | "key" | "ref" | "no" | "nr" | "num" | "fk")).collect();
        w.sort();
        w.dedup();
        w
    };
    let (wa, wb) = (words(a), words(b));
    !wa.is_empty() && wa.len() < wb.len() && wa.iter().all(|w| wb.contains(w))
}

/// Foreign keys implied by names where none is declared (see [`SchemaContext::inferred`]).
fn infer_keys(db: &DbSchema) -> Vec<JoinStep> {
    let mut out = Vec::new();
    for a in &db.tables {
        for c in &a.columns {
            let declared = a.foreign_keys.iter().any(|fk| fk.columns.iter().any(|x| x.eq_ignore_ascii_case(&c.name)));
            let own_key = a.primary_key.len() == 1 && a.primary_key[0].eq_ignore_ascii_case(&c.name);
            if declared || own_key {
                continue;
            }
            let lower = c.name.to_ascii_lowercase();
            for b in db.tables.iter().filter(|b| !b.name.eq_ignore_ascii_case(&a.name) && b.primary_key.len() == 1) {
                let p = b.primary_key[0].to_ascii_lowercase();
                let Some(pc) = b.column(&p) else { continue };
                let bname = b.name.to_ascii_lowercase();
                let named = (p != "id" && lower == p) || (p == "id" && (lower == format!("{}_id", singular(&bname)) || lower == format!("{bname}_id"))) || lower == singular(&bname) || lower == bname;
                let same_kind = pc.kind() == c.kind() || (pc.kind() == ColumnKind::Integer && c.kind() == ColumnKind::Integer);
                if named && same_kind {
                    out.push(JoinStep { from_table: a.name.clone(), from_column: c.name.clone(), to_table: b.name.clone(), to_column: pc.name.clone() });
                }
            }
        }
    }
    out
}

/// `from_table.from_column = to_table.to_column`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct JoinStep {
    pub from_table: String,
    pub from_column: String,
    pub to_table: String,
    pub to_column: String,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::{ColumnInfo, ForeignKey};

    fn col(name: &str, ty: &str, samples: &[&str]) -> ColumnInfo {
        ColumnInfo { name: name.into(), data_type: ty.into(), nullable: false, samples: samples.iter().map(|s| s.to_string()).collect(), distinct: None, values: samples.iter().map(|s| s.to_string()).collect(), values_complete: !samples.is_empty() }
    }

    fn fk(c: &str, t: &str) -> ForeignKey {
        ForeignKey { columns: vec![c.into()], ref_table: t.into(), ref_columns: vec!["id".into()] }
    }

    #[test]
    fn the_key_said_without_a_qualifier() {
        let step = |c: &str| JoinStep { from_table: "visits".into(), from_column: c.into(), to_table: "staff".into(), to_column: "staff_id".into() };
        assert!(less_qualified(&step("carer_id"), &step("second_carer_id")));
        assert!(!less_qualified(&step("second_carer_id"), &step("carer_id")));
        // Two roles of their own: neither is the plain one.
        assert!(!less_qualified(&step("pi_id"), &step("reviewer_id")) && !less_qualified(&step("reviewer_id"), &step("pi_id")));
    }

    /// The sample audit schema (as introspection reports it), for planner and generator tests.
    pub fn audit_schema() -> DbSchema {
        let t = |name: &str, columns: Vec<ColumnInfo>, fks: Vec<ForeignKey>| TableInfo {
            name: name.into(),
            columns,
            primary_key: vec!["id".into()],
            foreign_keys: fks,
            row_count: Some(100),
        };
        DbSchema {
            dialect: None,
            tables: vec![
                t("auditors", vec![col("id", "integer", &[]), col("full_name", "text", &[]), col("department_id", "integer", &[]), col("hired_on", "date", &[])], vec![fk("department_id", "departments")]),
                t(
                    "audits",
                    vec![
                        col("id", "integer", &[]),
                        col("title", "text", &[]),
                        col("department_id", "integer", &[]),
                        col("lead_auditor_id", "integer", &[]),
                        col("audit_type", "text", &["Internal", "External", "Regulatory"]),
                        col("status", "text", &["Closed", "Open", "Planned"]),
                        col("started_on", "date", &[]),
                        col("closed_on", "date", &[]),
                    ],
                    vec![fk("department_id", "departments"), fk("lead_auditor_id", "auditors")],
                ),
                t("departments", vec![col("id", "integer", &[]), col("name", "text", &["Finance", "IT", "Operations", "Human Resources", "Procurement", "Legal"]), col("region", "text", &["North", "South", "East", "West"])], vec![]),
                t(
                    "findings",
                    vec![
                        col("id", "integer", &[]),
                        col("audit_id", "integer", &[]),
                        col("category", "text", &["Access Control", "Data Retention", "Change Management", "Vendor Risk", "Physical Security", "Financial Reporting", "Segregation of Duties"]),
                        col("severity", "text", &["Low", "Medium", "High", "Critical"]),
                        col("status", "text", &["Open", "Closed", "Risk Accepted"]),
                        col("reported_on", "date", &[]),
                        col("due_on", "date", &[]),
                        col("closed_on", "date", &[]),
                        col("estimated_cost", "numeric(10,2)", &[]),
                        col("summary", "text", &[]),
                    ],
                    vec![fk("audit_id", "audits")],
                ),
            ],
        }
    }

    pub fn audit_context() -> SchemaContext {
        let sem: SemanticSchema = toml::from_str(include_str!("../../../samples/sql/audit_semantic.toml")).unwrap();
        SchemaContext::build(audit_schema(), Some(sem))
    }

    #[test]
    fn singular_forms() {
        assert_eq!(singular("audits"), "audit");
        assert_eq!(singular("categories"), "category");
        assert_eq!(singular("statuses"), "status");
        assert_eq!(singular("status"), "status");
        assert_eq!(singular("it"), "it");
    }

    #[test]
    fn sample_semantic_file_matches_the_sample_schema() {
        let ctx = audit_context();
        assert!(ctx.warnings.is_empty(), "{:?}", ctx.warnings);
        let schema = crate::plan::source::source_schema(&ctx);
        assert!(schema.collection("findings").is_some_and(|c| c.synonyms.iter().any(|s| s == "issue")));
        assert!(schema.aliases.iter().any(|a| a.phrase == "urgent" && a.values == ["Critical"]));
        assert_eq!(ctx.default_date("findings").as_deref(), Some("reported_on"));
        let text = ctx.render();
        assert!(text.contains("TABLE findings (100 rows) -- Problems found"), "{text}");
        assert!(text.contains("audit_id integer REFERENCES audits(id)"), "{text}");
        assert!(text.contains("\"urgent\" means findings.severity IN ('Critical')"), "{text}");
    }

    #[test]
    fn semantic_entries_for_missing_tables_are_reported() {
        let sem: SemanticSchema = toml::from_str("[tables.nope]\nsynonyms=['x']\n[[value_aliases]]\nphrase='hot'\ntable='findings'\ncolumn='heat'\nvalues=['x']").unwrap();
        let ctx = SchemaContext::build(audit_schema(), Some(sem));
        assert_eq!(ctx.warnings.len(), 2, "{:?}", ctx.warnings);
    }

    #[test]
    fn join_paths_follow_foreign_keys() {
        let ctx = audit_context();
        let p = ctx.join_path("findings", "departments").unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!((p[0].from_column.as_str(), p[0].to_table.as_str()), ("audit_id", "audits"));
        assert_eq!((p[1].from_column.as_str(), p[1].to_table.as_str()), ("department_id", "departments"));
        assert!(ctx.join_path("findings", "nowhere").is_none());
    }
}
