//! A query pasted into a message: an Elasticsearch request (console text such as
//! `GET /idx/_search {…}`, or a bare JSON object) or a SQL statement (`SELECT …`, and every
//! other statement verb, so that a pasted `DROP TABLE` is found and refused rather than read as
//! a question). Detection only: the route's validator decides whether it may run.

use serde::{Deserialize, Serialize};

/// Which engine a pasted query is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PastedKind {
    /// An Elasticsearch request body or console request.
    Es,
    /// A SQL statement.
    Sql,
}

impl PastedKind {
    /// `Elasticsearch` or `SQL`.
    pub fn label(self) -> &'static str {
        match self {
            PastedKind::Es => "Elasticsearch",
            PastedKind::Sql => "SQL",
        }
    }
}

/// A pasted query and where it starts in the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastedQuery {
    /// What it is.
    pub kind: PastedKind,
    /// The query as pasted (trimmed; a SQL statement without surrounding backticks).
    pub text: String,
    /// Byte offset of the query in the message.
    pub start: usize,
}

const HTTP_METHODS: &[&str] = &["GET ", "POST ", "PUT ", "DELETE ", "HEAD ", "PATCH "];

/// SQL statement verbs and the word that must follow somewhere for the text to be a statement
/// rather than an English sentence that starts with the same verb.
const SQL_VERBS: &[(&str, &[&str])] = &[
    ("SELECT", &["FROM", "*", "(", ","]),
    ("WITH", &["AS (", "AS("]),
    ("INSERT", &["INTO"]),
    ("UPDATE", &["SET"]),
    ("DELETE", &["FROM"]),
    ("DROP", &["TABLE", "VIEW", "INDEX", "DATABASE", "SCHEMA"]),
    ("CREATE", &["TABLE", "VIEW", "INDEX", "DATABASE", "SCHEMA"]),
    ("ALTER", &["TABLE", "VIEW", "INDEX", "DATABASE", "SCHEMA"]),
    ("TRUNCATE", &["TABLE", ";"]),
    ("GRANT", &["ON", "TO"]),
    ("REVOKE", &["ON", "FROM"]),
    ("MERGE", &["INTO", "USING"]),
    ("REPLACE", &["INTO"]),
    ("COPY", &["FROM", "TO"]),
    ("ATTACH", &["DATABASE", "AS"]),
    ("PRAGMA", &["="]),
    ("EXPLAIN", &["SELECT", "UPDATE", "DELETE", "INSERT"]),
];

/// Leads that announce a pasted query ("run this: …"); after one, a lower-case statement counts.
const LEADS: &[&str] = &["run this", "execute this", "run the query", "run query", "execute", "run", "query"];

/// The query pasted into `message`, if any.
pub fn find(message: &str) -> Option<PastedQuery> {
    es_console(message).or_else(|| sql(message)).or_else(|| es_body(message))
}

/// What `text`, said to be a query (by the LLM), is written for: a JSON object or console
/// request is Elasticsearch, a text starting with a statement verb SQL; anything else is no query.
pub fn kind_of(text: &str) -> Option<PastedKind> {
    let t = text.trim();
    let first = t.split_whitespace().next().unwrap_or_default().to_ascii_uppercase();
    if t.starts_with('{') && serde_json::from_str::<serde_json::Value>(t).is_ok_and(|v| v.is_object()) || es_console(t).is_some_and(|p| p.start == 0) {
        Some(PastedKind::Es)
    } else if SQL_VERBS.iter().any(|(v, _)| first == *v || first.starts_with(&format!("{v}("))) {
        Some(PastedKind::Sql)
    } else {
        None
    }
}

/// `GET /idx/_search {…}` and the like: a method, then a path.
fn es_console(message: &str) -> Option<PastedQuery> {
    let upper = message.to_ascii_uppercase();
    let start = HTTP_METHODS
        .iter()
        .flat_map(|m| upper.match_indices(m).map(|(i, _)| i).collect::<Vec<_>>())
        .filter(|&i| i == 0 || !message.as_bytes()[i - 1].is_ascii_alphanumeric())
        .filter(|&i| message[i..].split_whitespace().nth(1).is_some_and(|p| p.starts_with('/') || p.starts_with('_') || p.contains("/_")))
        .min()?;
    Some(PastedQuery { kind: PastedKind::Es, text: message[start..].trim().to_string(), start })
}

/// A JSON object in the message.
fn es_body(message: &str) -> Option<PastedQuery> {
    let (start, end) = (message.find('{')?, message.rfind('}')?);
    (start < end && serde_json::from_str::<serde_json::Value>(&message[start..=end]).is_ok_and(|v| v.is_object()))
        .then(|| PastedQuery { kind: PastedKind::Es, text: message[start..=end].to_string(), start })
}

/// A SQL statement: a statement verb at the start of the message, after a lead ("run this:"),
/// a colon, a backtick or a line break, followed by the words such a statement needs. A verb
/// not typed in capitals counts only when the statement has SQL punctuation, so "select the
/// delayed orders from Lyon" stays a question.
fn sql(message: &str) -> Option<PastedQuery> {
    let upper = message.to_ascii_uppercase();
    for (verb, needs) in SQL_VERBS {
        for (i, _) in upper.match_indices(verb) {
            let after = i + verb.len();
            if upper[after..].chars().next().is_none_or(|c| !c.is_whitespace() && c != '(') {
                continue;
            }
            let before = message[..i].trim_end();
            let lead = LEADS.iter().any(|l| before.to_ascii_lowercase().trim_end_matches([':', '-']).trim_end().ends_with(l));
            let boundary = before.is_empty() || before.ends_with([':', '`', '\n']) || lead;
            if !boundary {
                continue;
            }
            let rest = &upper[after..];
            if !needs.iter().any(|n| has_word(rest, n)) {
                continue;
            }
            let typed_upper = &message[i..after] == *verb;
            let punctuated = message[after..].contains([',', '*', '=', ';', '(', '\'']);
            if !typed_upper && !punctuated {
                continue;
            }
            let text = message[i..].trim().trim_end_matches('`').trim().to_string();
            return Some(PastedQuery { kind: PastedKind::Sql, text, start: i });
        }
    }
    None
}

/// Whether `word` occurs in `upper` (already upper case) as a word (punctuation matches as is).
fn has_word(upper: &str, word: &str) -> bool {
    if !word.chars().all(|c| c.is_ascii_alphabetic()) {
        return upper.contains(word);
    }
    upper.match_indices(word).any(|(i, _)| {
        let b = upper.as_bytes();
        (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'_') && b.get(i + word.len()).is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(m: &str) -> Option<PastedKind> {
        find(m).map(|p| p.kind)
    }

    #[test]
    fn elasticsearch_bodies_and_console_text() {
        let p = find(r#"run this: {"query": {"term": {"city": "Lyon"}}}"#).unwrap();
        assert_eq!((p.kind, p.text.as_str()), (PastedKind::Es, r#"{"query": {"term": {"city": "Lyon"}}}"#));
        let p = find("please run POST /books/_delete_by_query {\"query\": {\"match_all\": {}}}").unwrap();
        assert!(p.text.starts_with("POST /books/_delete_by_query"));
        assert_eq!(kind("How many posts were written in May?"), None);
        assert_eq!(kind("tickets with {braces} in the title"), None);
    }

    #[test]
    fn sql_statements_of_every_verb() {
        let p = find("run this: SELECT id, title FROM tickets WHERE status = 'open'").unwrap();
        assert_eq!((p.kind, p.text.as_str()), (PastedKind::Sql, "SELECT id, title FROM tickets WHERE status = 'open'"));
        assert_eq!(find("SELECT * FROM t;").map(|p| p.start), Some(0));
        assert_eq!(kind("select name, email from users"), Some(PastedKind::Sql), "lower case at the start, with punctuation");
        assert_eq!(kind("run this: select count(*) from loans"), Some(PastedKind::Sql));
        assert_eq!(kind("please execute `DELETE FROM orders WHERE 1=1`").map(|k| k.label()), Some("SQL"));
        assert_eq!(find("execute: DROP TABLE users").unwrap().text, "DROP TABLE users");
        assert_eq!(kind("WITH x AS (SELECT 1) SELECT * FROM x"), Some(PastedKind::Sql));
        assert_eq!(kind("UPDATE accounts SET balance = 0"), Some(PastedKind::Sql));
    }

    #[test]
    fn sentences_that_start_like_statements_stay_questions() {
        for q in [
            "select the delayed shipments from Port Alvera",
            "Select all orders from 2024",
            "With which carrier did most shipments travel?",
            "update me on the open findings",
            "How do I drop a table in SQLite?",
            "Which findings were created after the audit?",
            "What does SELECT do in SQL?",
        ] {
            assert_eq!(kind(q), None, "{q}");
        }
    }
}
