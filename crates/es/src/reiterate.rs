//! Reiterate (F01, the ES part): the question restated as an actionable goal, a pasted query
//! (a JSON body, or console text such as `GET /idx/_search {…}`) and "just run it" detected by
//! rules. Conversations extend this with history (`qa-converse`).

use serde::{Deserialize, Serialize};

/// The reiterate node's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reiteration {
    /// The question without filler, force phrases or pasted query.
    pub main_goal: String,
    /// Which rules fired.
    pub reasoning: String,
    /// A pasted query, to be checked and run as is.
    pub user_query_text: Option<String>,
    /// Run the best guess instead of asking.
    pub force_execute: bool,
}

const FORCE: &[&str] = &[
    "just run it", "just run", "run it anyway", "don't ask me anything", "dont ask me anything", "don't ask", "dont ask",
    "do not ask", "no questions", "best guess", "use your best guess", "whatever you think",
];

const FILLER: &[&str] = &["please", "can you", "could you", "would you", "show me", "i want to see", "i'd like to see", "give me", "run this:", "run this", "execute this:", "execute this", "execute:"];

/// Restate `question` by rules.
pub fn reiterate(question: &str) -> Reiteration {
    let mut reasons = Vec::new();
    let (rest, pasted) = split_pasted(question);
    if pasted.is_some() {
        reasons.push("a pasted query".to_string());
    }
    let mut force_execute = false;
    let mut goal = rest.to_string();
    // Every force phrase goes ("just run it, don't ask me anything"), longest first.
    let mut phrases: Vec<&str> = FORCE.to_vec();
    phrases.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for f in phrases {
        while let Some(i) = goal.to_lowercase().find(f) {
            if !force_execute {
                reasons.push(format!("\"{f}\": run the best guess"));
            }
            force_execute = true;
            goal = format!("{}{}", &goal[..i], &goal[i + f.len()..]);
        }
    }
    let mut goal = goal.trim().trim_matches(|c: char| c == ',' || c == ';' || c == '.' || c.is_whitespace()).to_string();
    goal = goal.replace(" ,", "").replace(", ,", ",");
    let goal_trimmed = goal.trim_end_matches([',', ' ']).to_string();
    goal = goal_trimmed;
    for f in FILLER {
        if goal.to_lowercase().starts_with(f) {
            goal = goal[f.len()..].trim_start_matches([',', ':']).trim().to_string();
        }
    }
    if goal.is_empty() {
        goal = if pasted.is_some() { "run the pasted query".to_string() } else { question.trim().to_string() };
    }
    if reasons.is_empty() {
        reasons.push("the question as asked".to_string());
    }
    Reiteration { main_goal: goal, reasoning: reasons.join("; "), user_query_text: pasted, force_execute }
}

/// The question's text before a pasted query, and the pasted query (console line and body, or
/// a bare JSON object).
fn split_pasted(question: &str) -> (&str, Option<String>) {
    let upper = question.to_ascii_uppercase();
    let console = ["GET ", "POST ", "PUT ", "DELETE ", "HEAD ", "PATCH "]
        .iter()
        .filter_map(|m| upper.find(m).filter(|&i| i == 0 || !question.as_bytes()[i - 1].is_ascii_alphanumeric()))
        .filter(|&i| question[i..].split_whitespace().nth(1).is_some_and(|p| p.starts_with('/') || p.starts_with('_') || p.contains("/_")))
        .min();
    if let Some(i) = console {
        return (&question[..i], Some(question[i..].trim().to_string()));
    }
    if let (Some(start), Some(end)) = (question.find('{'), question.rfind('}'))
        && start < end
        && serde_json::from_str::<serde_json::Value>(&question[start..=end]).is_ok_and(|v| v.is_object())
    {
        return (&question[..start], Some(question[start..=end].to_string()));
    }
    (question, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_bodies_and_console_text_are_found() {
        let r = reiterate(r#"run this: {"query": {"term": {"city": "Lyon"}}}"#);
        assert_eq!(r.user_query_text.as_deref(), Some(r#"{"query": {"term": {"city": "Lyon"}}}"#));
        assert_eq!(r.main_goal, "run the pasted query");
        let r = reiterate("please run POST /books/_delete_by_query {\"query\": {\"match_all\": {}}}");
        assert!(r.user_query_text.unwrap().starts_with("POST /books/_delete_by_query"));
        assert!(reiterate("How many posts were written in May?").user_query_text.is_none());
        assert!(reiterate("tickets with {braces} in the title").user_query_text.is_none());
    }

    #[test]
    fn force_phrases_are_removed_from_the_goal() {
        let r = reiterate("How many loans on 2025-03-14? Just run it, don't ask me anything");
        assert!(r.force_execute);
        assert_eq!(r.main_goal, "How many loans on 2025-03-14?");
        let r = reiterate("Show me the open tickets");
        assert!(!r.force_execute);
        assert_eq!(r.main_goal, "the open tickets");
    }
}
