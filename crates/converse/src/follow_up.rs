//! The conversation part of the reiterate node (F01): how a message relates to the turns
//! before it. Deterministic rules; a configured LLM may refine the goal upstream, and what was
//! rewritten is always shown and traced (`main_goal`), never silent.
//!
//! Three readings, checked in order:
//! 1. the answer to a pending clarifying question (a number, one of the offered choices, or a
//!    force phrase such as "just run it");
//! 2. a request for more of the previous result ("show me more", "next page") or the previous
//!    query with a change ("the same but for 2024");
//! 3. a follow-up that leans on the previous turn's subject ("and what about its battery?"),
//!    rewritten into a standalone question with that subject.

use qa_core::text;

use crate::reiterate::normalized as normalize;

use crate::turn::Turn;

/// How a message relates to the session's history.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// A new question, standing on its own.
    Standalone,
    /// The answer to the last turn's clarifying question: the chosen alternative (when one was
    /// recognised) or the reply as typed; `force` when the user asked to run the best guess.
    ClarificationReply {
        /// The reply to pass to the resume.
        reply: String,
        /// Run the best guess instead of choosing.
        force: bool,
    },
    /// The next page of the most recent query that has one.
    NextPage,
    /// The previous goal with a change ("the same but for 2024"), rewritten.
    Rewritten {
        /// The standalone question.
        goal: String,
        /// The rule that rewrote it.
        reason: String,
        /// Whether it re-runs an earlier query with a change (vs. a follow-up on its subject).
        prior_results: bool,
    },
}

const NEXT_PAGE: &[&str] = &[
    "show me more", "show more", "more please", "more results", "more", "next page", "next", "next one", "continue",
    "keep going", "the rest", "show the rest", "show me the rest", "give me more", "load more", "more of them",
];


pub use crate::reiterate::is_force;

/// Whether the message asks for the next page of the previous result.
pub fn is_next_page(message: &str) -> bool {
    let m = normalize(message);
    let m = strip_politeness(&m);
    NEXT_PAGE.contains(&m) || m.starts_with("show me more ") || m.starts_with("more ") && m.split(' ').count() <= 3
}

/// Whether the message is nothing but a request for more ("show me more", "next page"), with no
/// question of its own ("show me more about X" is a question).
pub fn is_bare_next_page(message: &str) -> bool {
    let m = normalize(message);
    NEXT_PAGE.contains(&strip_politeness(&m))
}

/// Read `message` against the turns before it (oldest first).
pub fn read(message: &str, history: &[Turn]) -> Reading {
    let Some(last) = history.last() else { return Reading::Standalone };
    if let Some(pending) = &last.clarification
        && let Some(reading) = clarification_reply(message, &pending.alternatives)
    {
        return reading;
    }
    if is_next_page(message) && history.iter().any(|t| t.artifact.is_some()) {
        return Reading::NextPage;
    }
    if let Some(r) = same_but(message, last) {
        return r;
    }
    if let Some(r) = subject_follow_up(message, history) {
        return r;
    }
    Reading::Standalone
}

fn clarification_reply(message: &str, alternatives: &[String]) -> Option<Reading> {
    let m = normalize(message);
    if is_force(message) {
        return Some(Reading::ClarificationReply { reply: message.trim().to_string(), force: true });
    }
    // An option's number or words ("2", "option 2", "the created date" → `created_date`): the
    // one rule every route reads choices with.
    let labels: Vec<&str> = alternatives.iter().map(String::as_str).collect();
    if let Some(i) = qa_question::choice::pick(strip_politeness(&m), &labels) {
        return Some(Reading::ClarificationReply { reply: alternatives[i].clone(), force: false });
    }
    let words: Vec<String> = text::normalized_words(message);
    // A short reply right after a question is an answer even when it matches no choice
    // exactly: the route's resume matches it fuzzily or asks again.
    (words.len() <= 4 && !m.ends_with('?')).then(|| Reading::ClarificationReply { reply: message.trim().to_string(), force: false })
}

/// "the same but for 2024", "same for Rotterdam", "what about 2023?" after a query: the last
/// goal with the new value replacing one of the same shape (a year for a year), else added.
fn same_but(message: &str, last: &Turn) -> Option<Reading> {
    let m = normalize(message);
    let rest = ["the same but for ", "same but for ", "the same for ", "same for ", "same thing for ", "same but ", "and for ", "now for ", "how about for ", "what about for "]
        .iter()
        .find_map(|p| m.strip_prefix(p))?;
    let rest = rest.trim_end_matches(['?', '.', '!']).trim();
    if rest.is_empty() {
        return None;
    }
    let original = original_case(message, rest);
    let prior = &last.main_goal;
    let goal = match (as_year(rest), find_year(prior)) {
        (Some(new), Some((start, old))) => format!("{}{new}{}", &prior[..start], &prior[start + old.len()..]),
        _ => format!("{} for {original}", prior.trim_end_matches(['?', '.', '!'])),
    };
    Some(Reading::Rewritten { goal, reason: format!("\"{}\" repeats turn {} with a change", message.trim(), last.turn), prior_results: last.artifact.is_some() })
}

const SUBJECT_PRONOUNS: &[(&str, bool)] = &[("its", true), ("their", true), ("it", false), ("they", false), ("them", false), ("this", false), ("that", false), ("these", false), ("those", false)];

/// "and what about its battery?" after "What is the range of the Voltra X2?": the pronoun
/// replaced by the earlier turn's subject.
fn subject_follow_up(message: &str, history: &[Turn]) -> Option<Reading> {
    let tokens: Vec<&str> = message.split_whitespace().collect();
    let lower: Vec<String> = tokens.iter().map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()).collect();
    let starts_follow_up = matches!(lower.first().map(String::as_str), Some("and" | "also" | "what" | "how" | "so")) && tokens.len() <= 12;
    let pronoun = lower.iter().position(|w| SUBJECT_PRONOUNS.iter().any(|(p, _)| p == w))?;
    if !starts_follow_up && tokens.len() > 8 {
        return None;
    }
    let (turn, subject) = history.iter().rev().take(5).find_map(|t| subject_of(&t.main_goal).map(|s| (t, s)))?;
    let possessive = SUBJECT_PRONOUNS.iter().any(|(p, poss)| *p == lower[pronoun] && *poss);
    let replacement = if possessive { format!("{subject}'s") } else { subject.clone() };
    let mut out: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
    let trailing: String = tokens[pronoun].chars().rev().take_while(|c| !c.is_alphanumeric()).collect::<Vec<_>>().into_iter().rev().collect();
    out[pronoun] = format!("{replacement}{trailing}");
    if lower[0] == "and" || lower[0] == "also" || lower[0] == "so" {
        out.remove(0);
    }
    let mut goal = out.join(" ");
    if let Some(first) = goal.chars().next() {
        goal = first.to_uppercase().collect::<String>() + &goal[first.len_utf8()..];
    }
    Some(Reading::Rewritten { goal, reason: format!("\"{}\" refers to {subject} (turn {})", tokens[pronoun], turn.turn), prior_results: false })
}

/// The subject of a question: its longest run of capitalized words (a name), else the noun
/// phrase after the last "of"/"about"/"for"/"in".
pub fn subject_of(goal: &str) -> Option<String> {
    let tokens: Vec<&str> = goal.split_whitespace().map(|t| t.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')).collect();
    let mut best: Option<(usize, usize)> = None;
    let mut i = 1; // the first word is capitalized anyway
    while i < tokens.len() {
        if is_name_part(tokens[i]) {
            let start = i;
            while i < tokens.len() && is_name_part(tokens[i]) {
                i += 1;
            }
            if best.is_none_or(|(s, e)| i - start > e - s) {
                best = Some((start, i));
            }
        } else {
            i += 1;
        }
    }
    if let Some((s, e)) = best {
        return Some(tokens[s..e].join(" "));
    }
    // No name: the noun phrase after the last preposition, else after the last determiner
    // ("Who maintains the borrow checker?" → "the borrow checker").
    let lower: Vec<String> = tokens.iter().map(|t| t.to_lowercase()).collect();
    let at = lower
        .iter()
        .rposition(|w| matches!(w.as_str(), "of" | "about" | "for" | "in" | "on"))
        .map(|i| i + 1)
        .or_else(|| lower.iter().rposition(|w| matches!(w.as_str(), "the" | "a" | "an")))?;
    let phrase: Vec<&str> = tokens[at..].iter().copied().filter(|w| !w.is_empty()).collect();
    let content = phrase.iter().filter(|w| !matches!(w.to_lowercase().as_str(), "the" | "a" | "an")).count();
    (content > 0 && phrase.len() <= 5).then(|| phrase.join(" "))
}

fn is_name_part(token: &str) -> bool {
    !token.is_empty() && (text::is_capitalized(token) || token.chars().any(|c| c.is_ascii_digit()) && token.chars().any(|c| c.is_alphabetic())) && !text::is_stop(&token.to_lowercase())
}


fn strip_politeness(m: &str) -> &str {
    let m = m.trim_start_matches("ok ").trim_start_matches("okay ").trim_start_matches("please ").trim_start_matches("can you ").trim_start_matches("could you ");
    m.trim_end_matches(" please").trim_end_matches(',')
}


fn as_year(s: &str) -> Option<&str> {
    (s.len() == 4 && s.starts_with("20") && s.chars().all(|c| c.is_ascii_digit())).then_some(s)
}

fn find_year(s: &str) -> Option<(usize, &str)> {
    let b = s.as_bytes();
    (0..b.len().saturating_sub(3)).find_map(|i| {
        let cand = &s.get(i..i + 4)?;
        let boundary_before = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let boundary_after = i + 4 == b.len() || !b[i + 4].is_ascii_alphanumeric();
        (boundary_before && boundary_after && as_year(cand).is_some()).then_some((i, *cand))
    })
}

/// `lowered` (a suffix of the normalized message) in the message's original case.
fn original_case(message: &str, lowered: &str) -> String {
    let m = message.trim().trim_end_matches(['?', '.', '!']).trim();
    match m.to_lowercase().rfind(lowered) {
        Some(i) if m.is_char_boundary(i) && m.is_char_boundary(i + lowered.len()) => m[i..i + lowered.len()].to_string(),
        _ => lowered.to_string(),
    }
}

#[cfg(test)]
mod tests;
