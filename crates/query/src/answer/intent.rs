//! What a question asks for, read from its form, and whether a sentence delivers that kind of
//! thing: a "why" question wants a sentence that gives a reason, "what happens when" one that
//! states a consequence, "how many" one with a number. The extractive writer uses it so that a
//! sentence answering the question's focus outranks one that only shares its words. Generic
//! English connectives and question forms, the same for any corpus.

use qa_core::text::{content_words, is_base_verb, singular};

/// The kind of answer a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Intent {
    /// "What is X?", "Explain X": a sentence that says what X is.
    Definition,
    /// "Why …?": a reason.
    Cause,
    /// "What happens when …?", "What does it mean when …?": a consequence.
    Effect,
    /// "How many / how much / which value …?": a number.
    Quantity,
    /// "When does / when should …?": a condition or a moment.
    Condition,
    /// "How do I …?", "How can I …?": a step to take.
    Procedure,
    /// "How does X relate to Y?", "difference between X and Y": a sentence naming both.
    Relation,
    /// Anything else.
    Other,
}

/// The question's intent, from its opening words and relation words.
pub(crate) fn intent(question: &str) -> Intent {
    let q = question.trim().to_lowercase();
    let has = |ps: &[&str]| ps.iter().any(|p| q.contains(p));
    let starts = |ps: &[&str]| ps.iter().any(|p| q.starts_with(p));
    if has(&[" relate to ", " relates to ", " related to ", "relationship between", "difference between", "differences between", " differ from ", " compare to ", " compared to ", " compare with ", " versus ", " vs "]) {
        return Intent::Relation;
    }
    if starts(&["why", "what is the reason", "what's the reason"]) {
        return Intent::Cause;
    }
    if has(&["what happens", "what would happen", "what will happen", "what does it mean", "what if "]) {
        return Intent::Effect;
    }
    if starts(&["how many", "how much", "how long", "how often", "how far", "how big", "how large", "how small", "how high", "how low", "what value", "which value", "at what", "what size", "what voltage", "what temperature"]) {
        return Intent::Quantity;
    }
    if starts(&["when does", "when do", "when should", "when is", "when are", "when will", "when can"]) {
        return Intent::Condition;
    }
    if starts(&["how do i", "how can i", "how should i", "how would i", "how do you", "how can you", "how to", "how do we", "how can we"]) {
        return Intent::Procedure;
    }
    if starts(&["what is", "what are", "what's", "define", "explain", "describe"]) {
        return Intent::Definition;
    }
    Intent::Other
}

/// The two things a relation question relates, as content words (singular): "How does deep
/// sleep relate to battery life?" → (deep, sleep), (battery, life); "the difference between A and
/// B" → A, B. None when the question is not a relation question or a side has no content word.
pub(crate) fn relation_sides(question: &str) -> Option<(Vec<String>, Vec<String>)> {
    let q = question.trim().trim_end_matches('?').to_lowercase();
    // The toolkit's content words already leave out stop words and relation words ("relate").
    let content = |t: &str| -> Vec<String> { content_words(t).iter().map(|w| singular(w)).collect() };
    let split = |at: &str| q.split_once(at).map(|(a, b)| (content(a), content(b)));
    let sides = if let Some((_, rest)) = q.split_once(" between ") {
        rest.split_once(" and ").map(|(a, b)| (content(a), content(b)))
    } else {
        [" relate to ", " relates to ", " related to ", " differ from ", " compare to ", " compared to ", " compare with ", " versus ", " vs "].iter().find_map(|at| split(at))
    }?;
    (!sides.0.is_empty() && !sides.1.is_empty()).then_some(sides)
}

/// Words that give a reason or a purpose.
const REASON: &[&str] = &["because", "since", "therefore", "thus", "hence", "so", "reason", "otherwise", "avoid", "avoids", "prevent", "prevents", "ensure", "ensures", "guarantee", "guarantees", "cause", "causes", "caused", "order"];
/// Words that state a consequence.
const CONSEQUENCE: &[&str] = &["will", "would", "causes", "cause", "results", "result", "leads", "means", "then", "likely", "becomes", "become", "stops", "fails", "instead"];
/// Words that state a condition or a moment.
const CONDITION: &[&str] = &["if", "when", "once", "after", "before", "until", "whenever", "unless", "above", "below", "only"];

/// Whether the sentence (lower-case words) carries what `intent` asks for.
pub(crate) fn delivers(intent: Intent, sentence: &[String]) -> bool {
    let any = |set: &[&str]| sentence.iter().any(|w| set.contains(&w.as_str()));
    let number = sentence.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()));
    match intent {
        Intent::Cause => any(REASON),
        Intent::Effect => any(CONSEQUENCE),
        Intent::Quantity => number,
        Intent::Condition => any(CONDITION) || number,
        // A step: the sentence opens with a verb ("Run …") or tells the reader what to do.
        Intent::Procedure => sentence.first().is_some_and(|w| is_base_verb(w)) || sentence.windows(2).any(|w| w[0] == "you" && matches!(w[1].as_str(), "can" | "must" | "should" | "need" | "use" | "call" | "add" | "run")),
        Intent::Definition | Intent::Relation | Intent::Other => false,
    }
}

/// A sentence that sends the reader elsewhere ("… is explained on the I2C bus page", "see
/// Listing 10-20", "in Chapter 14") rather than saying the thing itself.
pub(crate) fn points_elsewhere(sentence: &[String]) -> bool {
    let part = |w: &str| matches!(w, "page" | "pages" | "chapter" | "chapters" | "section" | "sections" | "appendix");
    sentence.windows(2).any(|w| {
        let numbered = part(&w[0]) || matches!(w[0].as_str(), "listing" | "figure");
        // "Chapter 14", "Listing 10" (the numbering's first part), or "the wiring page."
        numbered && w[1].chars().next().is_some_and(|c| c.is_ascii_digit())
    }) || sentence.last().is_some_and(|w| part(w))
        || sentence.windows(3).any(|w| part(&w[1]) && matches!(w[2].as_str(), "and" | "the" | "for" | "see"))
}

/// "For bonfire days, see Bonfires and Waste", "See also the lint list": a sentence that is
/// mostly a pointer — "see" said to the reader at the opening of the sentence or of a clause, or
/// after a short lead-in ("For diseases, see …"). Not a statement that adds one ("Sheds need a
/// water butt (see Water)", ", see … " after a whole clause), nor "gardens see six sun hours",
/// "you can see", "see what happens".
pub(crate) fn sends_to_see(sentence: &str) -> bool {
    const SEEN: &[&str] = &["what", "how", "why", "if", "that", "whether", "which", "who", "it", "them", "this", "these", "those", "you", "me", "us", "him", "her", "an", "a"];
    const LEAD_IN_WORDS: usize = 4;
    sentence.match_indices("see ").chain(sentence.match_indices("See ")).any(|(at, _)| {
        let before = sentence[..at].trim_end();
        let clause = before.rfind([';', ':']).map_or(before, |i| before[i + 1..].trim());
        let lead_in = clause.ends_with(',') && clause.split_whitespace().count() <= LEAD_IN_WORDS;
        let next = sentence[at + 4..].split(|c: char| !c.is_alphanumeric()).next().unwrap_or("").to_lowercase();
        (clause.is_empty() || lead_in) && !next.is_empty() && !SEEN.contains(&next.as_str())
    })
}

/// "Listing 15-2: The first attempt …", "Figure 3: …": a caption, not a sentence of the text.
pub(crate) fn is_caption(sentence: &str) -> bool {
    let mut it = sentence.split_whitespace();
    let (Some(label), Some(number)) = (it.next(), it.next()) else { return false };
    label.chars().next().is_some_and(char::is_uppercase)
        && label.chars().all(char::is_alphabetic)
        && number.ends_with(':')
        && number.trim_end_matches(':').split(['-', '.']).all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use qa_core::text::words;

    #[test]
    fn question_forms_give_their_intent() {
        assert_eq!(intent("Why does Cargo write a lock file?"), Intent::Cause);
        assert_eq!(intent("What happens if I break the borrowing rules at run time?"), Intent::Effect);
        assert_eq!(intent("How many samples are averaged?"), Intent::Quantity);
        assert_eq!(intent("When does the heat index switch formulas?"), Intent::Condition);
        assert_eq!(intent("How do I update the toolchain?"), Intent::Procedure);
        assert_eq!(intent("How does deep sleep relate to battery life?"), Intent::Relation);
        assert_eq!(intent("What is clock stretching?"), Intent::Definition);
        assert_eq!(intent("Which crate parses the config?"), Intent::Other);
    }

    #[test]
    fn sentences_deliver_what_the_intent_asks() {
        let w = |s: &str| words(s);
        assert!(delivers(Intent::Cause, &w("It is written so that builds are reproducible.")));
        assert!(delivers(Intent::Cause, &w("Cargo writes the file because versions must not drift.")));
        assert!(!delivers(Intent::Cause, &w("Cargo writes the lock file at the top level.")));
        assert!(delivers(Intent::Quantity, &w("Averaging 16 samples reduces the noise.")));
        assert!(!delivers(Intent::Quantity, &w("Averaging reduces the noise.")));
        assert!(delivers(Intent::Effect, &w("The program will panic and exit.")));
        assert!(delivers(Intent::Procedure, &w("Run rustup update to get the newest release.")));
        assert!(delivers(Intent::Procedure, &w("To remove it, you can run the uninstall command.")));
        assert!(!delivers(Intent::Definition, &w("Anything at all.")));
    }

    #[test]
    fn relation_questions_have_two_sides() {
        let (a, b) = relation_sides("How does deep sleep relate to battery life?").unwrap();
        assert_eq!((a, b), (vec!["deep".to_string(), "sleep".into()], vec!["battery".to_string(), "life".into()]));
        let (a, b) = relation_sides("What is the difference between Rc and Arc?").unwrap();
        assert_eq!((a, b), (vec!["rc".to_string()], vec!["arc".to_string()]));
        assert!(relation_sides("Why is the sky blue?").is_none());
    }

    #[test]
    fn pointers_and_captions_are_recognised() {
        let w = |s: &str| words(s);
        assert!(points_elsewhere(&w("The bus details are on the I2C bus page; the sensor is covered elsewhere.")));
        assert!(points_elsewhere(&w("We will look at it again in Chapter 14.")));
        assert!(points_elsewhere(&w("The code in Listing 10-20 does not compile.")));
        assert!(!points_elsewhere(&w("Each page of memory holds 4 KiB.")));
        assert!(points_elsewhere(&w("The dates of skip days are explained on their own pages; the office keeps them.")));
        assert!(sends_to_see("For diseases, see Pests, Diseases and Plant Health; for bonfire days, see Bonfires."));
        assert!(sends_to_see("See also the lint configuration.") && sends_to_see("The flag is unstable; see the tracking issue."));
        assert!(!sends_to_see("Sheds must have guttering and a water butt (see Water and Irrigation)."));
        assert!(!sends_to_see("The supply is metered and paid from the levy in your annual charges, see Fees."));
        assert!(!sends_to_see("As you can see, the value moves into the function."));
        assert!(!sends_to_see("Run the program and see what happens.") && !sends_to_see("In summer, gardens see four to six peak sun hours."));
        assert!(!sends_to_see("We'll see how traits make this generic.") && !sends_to_see("See that the output now shows the new value."));
        assert!(is_caption("Listing 15-2: The first attempt at defining a cons list"));
        assert!(is_caption("Figure 3: The wiring"));
        assert!(!is_caption("Listing the files is easy: run ls."));
        assert!(!is_caption("In Listing 15-2: we define it."));
    }
}
