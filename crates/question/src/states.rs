//! Words that say whether a dated event has happened: "closed", "completed", "paid" (it has:
//! the event's date is filled in), "open", "unpaid", "unresolved" (it has not: the date is
//! missing). A date field named by the event's participle (`closed_date`, `completedDate`,
//! `resolved_at`) answers them, for SQL (`IS NULL`) and Elasticsearch (`exists`) alike.

use qa_core::text;

use crate::names;

/// Plain-English opposites of an event's participle ("open" is not yet closed).
const NOT_YET: &[(&str, &str)] = &[("open", "closed"), ("outstanding", "paid")];

/// Words after which a date or a time follows ("closed in 2025", "paid on time"): the word
/// is then the event's date, not its state.
const TIME_AFTER: &[&str] = &["in", "on", "before", "after", "between", "since", "during", "by", "from", "until", "till", "at", "within", "last", "this", "late", "early"];

/// Words that say something has not ended yet, whatever its end date is called.
const NOT_ENDED: &[&str] = &["ongoing", "unfinished", "unresolved", "open", "incomplete"];

/// Words of an end date's name (`end_date`, `restored_at`, `returned_on`).
const END_WORDS: &[&str] = &["end", "ended", "finish", "finished", "completed", "complete", "closed", "restored", "resolved", "returned", "stopped", "done", "until"];

/// The word says the thing has not ended yet ("ongoing", "open", "unfinished").
pub fn not_ended(word: &str) -> bool {
    NOT_ENDED.contains(&word)
}

/// The date field's name says an end (`restored_at`, `end_date`).
pub fn names_an_end(field: &str) -> bool {
    names::name_words(field).iter().any(|w| END_WORDS.contains(&w.as_str()))
}

/// Verbs of one event said in other words ("finished" a course is "completed" it).
const SAME_EVENT: &[(&str, &str)] = &[("finished", "completed"), ("ended", "closed")];

/// The other participle of the same event, if any ("finished" → "completed").
pub fn same_event(participle: &str) -> Option<&'static str> {
    SAME_EVENT.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).find(|&(a, _)| a == participle).map(|(_, b)| b)
}

/// "did … complete", "has … finish": a base verb after an auxiliary of the past or perfect,
/// as its participle ("completed", "finished"). `None` for other words.
pub fn past_base_verb(words: &[&str], i: usize) -> Option<String> {
    let w = words.get(i)?;
    let aux = (i.saturating_sub(5)..i).any(|k| matches!(words[k], "did" | "didn't" | "has" | "have" | "had" | "hasn't" | "haven't"));
    if !aux || w.len() < 4 || w.ends_with("ed") || w.ends_with("ing") || w.ends_with('s') {
        return None;
    }
    Some(if w.ends_with('e') { format!("{w}d") } else { format!("{w}ed") })
}

/// The event a state word says, as `(participle, happened)`: ("closed", true) for "closed",
/// ("closed", false) for "open", ("resolved", false) for "unresolved". `None` for any word
/// that is no participle of an event.
pub fn event_state(word: &str) -> Option<(String, bool)> {
    let w = word.to_lowercase();
    if let Some(&(_, p)) = NOT_YET.iter().find(|&&(o, _)| o == w) {
        return Some((p.to_string(), false));
    }
    if let Some(rest) = w.strip_prefix("un").or_else(|| w.strip_prefix("non-")).or_else(|| w.strip_prefix("non"))
        && rest.len() >= 4
        && participle(rest)
    {
        return Some((rest.to_string(), false));
    }
    participle(&w).then_some((w, true))
}

/// A past participle ("closed", "paid", "sent", "written").
fn participle(w: &str) -> bool {
    (w.len() >= 5 && w.ends_with("ed")) || matches!(w, "paid" | "sent" | "done" | "written" | "given" | "taken" | "seen" | "shown" | "held" | "built" | "sold" | "won" | "lost" | "spent" | "made" | "begun" | "run")
}

/// Whether the word at `i` of `words` is followed by a date or time ("closed in 2025"), so
/// that it names when the event happened rather than whether it did.
pub fn dated_after(words: &[&str], i: usize) -> bool {
    words.get(i + 1).is_some_and(|n| TIME_AFTER.contains(n) || n.chars().next().is_some_and(|c| c.is_ascii_digit()))
}

/// The one date field, of `fields` (name, is a date), named by the event's participle:
/// `closed_date` for "closed", `completedDate` for "completed", `paid_on` for "paid".
pub fn event_date_field<'a>(participle: &str, fields: impl IntoIterator<Item = (&'a str, bool)>) -> Option<&'a str> {
    let family = text::word_family(participle);
    let hits: Vec<&str> = fields
        .into_iter()
        .filter(|&(_, is_date)| is_date)
        .map(|(name, _)| name)
        .filter(|name| names::name_words(name).iter().any(|w| w == participle || (w.len() >= 4 && text::word_family(w) == family)))
        .collect();
    match hits.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_say_whether_the_event_happened() {
        assert_eq!(event_state("closed"), Some(("closed".into(), true)));
        assert_eq!(event_state("open"), Some(("closed".into(), false)));
        assert_eq!(event_state("unresolved"), Some(("resolved".into(), false)));
        assert_eq!(event_state("paid"), Some(("paid".into(), true)));
        assert_eq!(event_state("red"), None);
        assert_eq!(event_state("incident"), None);
    }

    #[test]
    fn the_date_field_is_named_by_the_participle() {
        let fields = [("receivedDate", true), ("closed_date", true), ("closing_notes", false), ("cost_eur", false)];
        assert_eq!(event_date_field("closed", fields), Some("closed_date"));
        assert_eq!(event_date_field("completed", [("completedDate", true), ("enrolled_on", true)]), Some("completedDate"));
        assert_eq!(event_date_field("paid", [("paid_on", true)]), Some("paid_on"));
        assert_eq!(event_date_field("shipped", [("closed_date", true)]), None);
        // Two fields of the event: no one answer.
        assert_eq!(event_date_field("closed", [("closed_date", true), ("closed_at", true)]), None);
    }

    #[test]
    fn other_words_and_forms_of_one_event() {
        assert_eq!(same_event("finished"), Some("completed"));
        assert_eq!(past_base_verb(&["which", "courses", "did", "lukas", "complete"], 4).as_deref(), Some("completed"));
        assert_eq!(past_base_verb(&["courses", "to", "complete"], 2), None);
    }

    #[test]
    fn a_time_after_the_word_names_the_date() {
        assert!(dated_after(&["closed", "in", "2025"], 0));
        assert!(!dated_after(&["still", "open", "?"], 1));
    }
}
