//! Reiterate (F01): each message restated as an actionable goal, with a pasted query (an
//! Elasticsearch body or console line, or a SQL statement) and "just run it" detected. Rules
//! always run ([`rules`]); with an LLM, [`refine`] asks for the same fields as structured output
//! (validated against the schema, with the last turns of the session as context) and falls back
//! to the rules when the reply is unusable. `qa es` uses it without history; sessions add the
//! history-dependent readings of [`crate::follow_up`] on top.

pub mod pasted;
pub mod prompt;

use serde::{Deserialize, Serialize};

use qa_llm::{LlmRun, Prompt};

pub use pasted::{PastedKind, PastedQuery};
pub use prompt::{ContextTurn, LlmReading, ReiteratePrompt};

/// The reiterate node's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reiteration {
    /// The question without filler, force phrases or pasted query.
    pub main_goal: String,
    /// Which rules fired, or the LLM's reasoning.
    pub reasoning: String,
    /// A pasted query, to be checked and run as is.
    pub user_query_text: Option<String>,
    /// What the pasted query is (Elasticsearch or SQL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pasted_kind: Option<PastedKind>,
    /// Run the best guess instead of asking.
    pub force_execute: bool,
    /// The message refers to earlier results.
    #[serde(default)]
    pub references_prior_results: bool,
    /// Who restated the message.
    #[serde(default)]
    pub by: ReiteratedBy,
}

/// Who restated a message.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReiteratedBy {
    /// The deterministic rules.
    #[default]
    Rules,
    /// The LLM, its reply validated.
    Llm,
}

/// Phrases asking to run without clarifying questions, longest first where one contains another.
pub const FORCE: &[&str] = &[
    "don't ask me anything", "dont ask me anything", "use your best guess", "whatever you think", "run it anyway", "just run it",
    "just do it", "stop asking", "no questions", "best guess", "any is fine", "run it now", "just run", "don't ask", "dont ask",
    "do not ask", "go ahead",
];

const FILLER: &[&str] = &[
    "please", "can you", "could you", "would you", "show me", "i want to see", "i'd like to see", "give me", "run this:", "run this", "execute this:",
    "execute this", "execute:", "run:",
];

/// Whether the message asks to run without clarifying questions.
pub fn is_force(message: &str) -> bool {
    let m = normalized(message);
    FORCE.iter().any(|p| contains_phrase(&m, p))
}

/// Restate `message` by rules: the pasted query split off, force phrases and filler removed.
pub fn rules(message: &str) -> Reiteration {
    let mut reasons = Vec::new();
    let pasted = pasted::find(message);
    let rest = pasted.as_ref().map_or(message, |p| &message[..p.start]);
    if let Some(p) = &pasted {
        reasons.push(format!("a pasted {} query", p.kind.label()));
    }
    let mut force_execute = false;
    // ASCII lower case keeps byte offsets, so a phrase found in it is cut from the original.
    let mut goal = rest.replace('’', "'");
    for f in FORCE {
        while let Some(i) = find_phrase(&goal.to_ascii_lowercase(), f) {
            if !force_execute {
                reasons.push(format!("\"{f}\": run the best guess"));
            }
            force_execute = true;
            goal = format!("{}{}", &goal[..i], &goal[i + f.len()..]);
        }
    }
    let mut goal = tidy(&goal);
    for f in FILLER {
        if goal.to_ascii_lowercase().starts_with(f) && goal[f.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric()) {
            goal = goal[f.len()..].trim_start_matches([',', ':']).trim().to_string();
        }
    }
    if goal.is_empty() {
        goal = match &pasted {
            Some(_) => "run the pasted query".to_string(),
            None if force_execute => String::new(),
            None => message.trim().to_string(),
        };
    }
    if reasons.is_empty() {
        reasons.push("the question as asked".to_string());
    }
    Reiteration {
        main_goal: goal,
        reasoning: reasons.join("; "),
        user_query_text: pasted.as_ref().map(|p| p.text.clone()),
        pasted_kind: pasted.map(|p| p.kind),
        force_execute,
        references_prior_results: false,
        by: ReiteratedBy::Rules,
    }
}

/// The rules' reading refined by the LLM, and what went wrong when its reply was not used.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Refined {
    /// The reading that stands.
    #[serde(flatten)]
    pub reiteration: Reiteration,
    /// Why the LLM's reading was not used (the rules' stands), for the trace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub llm_error: Option<String>,
}

/// Ask the LLM to restate `message` with `history` (the last turns, oldest first; at most
/// [`prompt::HISTORY_TURNS`] are sent) as context. A reply that fails the schema, an empty
/// goal, a "pasted query" that is not in the message, or a failed call leaves `rules` standing.
/// What the rules saw for certain (a pasted query, a force phrase) is never dropped.
pub fn refine(llm: &mut LlmRun, message: &str, history: &[ContextTurn], rules: Reiteration) -> Refined {
    let prompt = ReiteratePrompt { message, history };
    let reply = llm.call(&prompt.request()).map_err(|e| e.to_string()).and_then(|r| prompt.parse(&r.text).map_err(|e| e.to_string()));
    let read = match reply {
        Ok(r) => r,
        Err(e) => {
            llm.set_outcome(format!("fallback to the rules: {e}"));
            return Refined { reiteration: rules, llm_error: Some(e) };
        }
    };
    llm.set_outcome("used");
    let pasted = rules.user_query_text.clone().map(|t| (t, rules.pasted_kind)).or_else(|| {
        let t = read.user_query_text.clone()?;
        let kind = pasted::kind_of(&t)?;
        Some((t, Some(kind)))
    });
    let (user_query_text, pasted_kind) = match pasted {
        Some((t, k)) => (Some(t), k),
        None => (None, None),
    };
    Refined {
        reiteration: Reiteration {
            main_goal: read.main_goal,
            reasoning: format!("LLM: {}", read.reasoning),
            user_query_text,
            pasted_kind,
            force_execute: rules.force_execute || read.force_execute,
            references_prior_results: rules.references_prior_results || read.references_prior_results,
            by: ReiteratedBy::Llm,
        },
        llm_error: None,
    }
}

/// Lower case, one space between words, typographic apostrophes straightened, end punctuation
/// dropped.
pub(crate) fn normalized(message: &str) -> String {
    message.trim().trim_end_matches(['?', '.', '!']).trim().to_lowercase().split_whitespace().collect::<Vec<_>>().join(" ").replace('’', "'")
}

/// Whether `phrase` occurs in `haystack` as whole words.
pub(crate) fn contains_phrase(haystack: &str, phrase: &str) -> bool {
    find_phrase(haystack, phrase).is_some()
}

/// Where `phrase` occurs in `haystack` as whole words.
fn find_phrase(haystack: &str, phrase: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = haystack[from..].find(phrase).map(|i| i + from) {
        let before = haystack[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric());
        let after = haystack[i + phrase.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before && after {
            return Some(i);
        }
        from = i + phrase.len();
    }
    None
}

/// Trimmed of the separators force phrases leave behind (", ,", a trailing comma).
fn tidy(goal: &str) -> String {
    let goal = goal.replace(" ,", "").replace(", ,", ",");
    goal.trim().trim_matches(|c: char| c == ',' || c == ';' || c == '.' || c.is_whitespace()).trim_end_matches([',', ' ']).to_string()
}

#[cfg(test)]
mod tests;
