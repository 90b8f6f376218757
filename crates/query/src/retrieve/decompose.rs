//! Question decomposition: the question itself, then complete sub-questions when it asks
//! several things. "Are A and B both X?" → "Is A X?", "Is B X?"; "Were A and B of the same
//! nationality?" → "What was the nationality of A?", …; "What is A and how does B work?" →
//! "What is A?", "How does B work?"; "Explain A and B" → "Explain A.", "Explain B.". A
//! sub-question is emitted only when the rule that builds it yields a whole sentence; otherwise
//! the question stays whole (a fragment such as "How do the borrow checker?" would only pull
//! unrelated passages). With an LLM configured, its subqueries are added (validated).

use qa_llm::{ChatMessage, ChatRequest, OutputFormat, Prompt, PromptError};
use qa_core::text;

/// Leads that take a noun phrase and can be distributed over "A and B".
const NP_LEADS: &[&str] = &["what is", "what are", "who is", "who are", "explain", "describe", "define", "tell me about", "what's"];
const CLAUSE_STARTS: &[&str] = &[
    "what", "how", "why", "where", "when", "which", "who", "find", "show", "list", "explain", "describe", "tell", "give",
    "is", "are", "does", "do", "can", "should", "was", "were", "did",
];
/// Auxiliaries that open a yes/no question, with their singular form.
const AUX: &[(&str, &str)] = &[
    ("are", "is"), ("were", "was"), ("do", "does"), ("did", "did"), ("have", "has"), ("had", "had"), ("can", "can"),
    ("could", "could"), ("will", "will"), ("would", "would"), ("is", "is"), ("was", "was"), ("does", "does"), ("has", "has"),
];

/// The question itself, then its complete sub-questions (at most four).
pub(crate) fn subqueries(question: &str) -> Vec<String> {
    let q = question.trim();
    let mut out = vec![q.to_string()];
    let mut parts: Vec<String> = Vec::new();
    let mut context: Vec<&str> = Vec::new();
    for sentence in question_sentences(q) {
        let sentence = sentence.trim().trim_end_matches(';').trim();
        // "I want to build offline from a vendored folder." sets the scene: it goes with every
        // part asked after it ("How do I produce that directory?" alone names nothing).
        if sentence.is_empty() || is_statement(sentence) {
            if !sentence.is_empty() {
                context.push(sentence);
            }
            continue;
        }
        let scene = context.join(" ");
        let with_scene = |p: String| if scene.is_empty() { p } else { format!("{scene} {}", finish_sentence(&p)) };
        match split_comparison(sentence) {
            Some(subs) => parts.extend(subs.into_iter().map(with_scene)),
            None => parts.extend(split_on_commas(sentence).iter().flat_map(|c| split_on_and(c)).map(with_scene)),
        }
    }
    if parts.len() > 1 {
        for p in parts {
            let p = finish_sentence(&p);
            if is_complete(&p) && !out.iter().any(|o| o.eq_ignore_ascii_case(&p)) {
                out.push(p);
            }
        }
    }
    out.truncate(5);
    out
}

/// The sentences of a question: split after `?`, `;`, `!`, and after `.` when the next word
/// starts with a capital (so "Cargo.toml", "e.g. this" and "v1.2" stay inside their sentence),
/// never inside a code span ("`let x = 1; x + 1`" is one piece of code, not two sentences).
fn question_sentences(q: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = q.as_bytes();
    let code = text::code_spans(q);
    for (i, c) in q.char_indices() {
        let end = i + c.len_utf8();
        let in_code = code.iter().any(|r| r.contains(&i));
        let boundary = !in_code && match c {
            '?' | ';' | '!' => true,
            '.' => bytes.get(end) == Some(&b' ') && q[end..].trim_start().chars().next().is_some_and(char::is_uppercase),
            _ => false,
        };
        if boundary {
            out.push(&q[start..end]);
            start = end;
        }
    }
    if start < q.len() {
        out.push(&q[start..]);
    }
    out
}

/// A sentence that states rather than asks: it ends with a full stop and opens with neither a
/// question word nor an instruction ("My builds are slow.", "I defined a custom profile.").
fn is_statement(sentence: &str) -> bool {
    let first = sentence.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    sentence.ends_with('.') && !CLAUSE_STARTS.contains(&first.as_str())
}

/// "Where does X put Y, how can I change it, and …": a comma before a question word starts
/// another question when the text before it is one.
fn split_on_commas(sentence: &str) -> Vec<String> {
    const WH: &[&str] = &["what", "how", "why", "where", "when", "which", "who"];
    let lower = sentence.to_ascii_lowercase();
    let mut search = 0;
    while let Some(i) = lower[search..].find(", ") {
        let at = search + i;
        let next = lower[at + 2..].split_whitespace().next().unwrap_or("");
        let left = sentence[..at].trim();
        if WH.contains(&next) && is_clause(left) && left.split_whitespace().count() >= 3 {
            let mut v = vec![left.to_string()];
            v.extend(split_on_commas(sentence[at + 2..].trim()));
            return v;
        }
        search = at + 2;
    }
    vec![sentence.to_string()]
}

/// Capital first letter, and the closing mark of a question or an instruction.
fn finish_sentence(p: &str) -> String {
    let p = p.trim().trim_end_matches([',', ';']).trim();
    let mut chars = p.chars();
    let mut out = match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect::<String>(),
        None => return String::new(),
    };
    if !out.ends_with(['?', '.', '!']) {
        let first = out.split_whitespace().next().unwrap_or("").to_lowercase();
        let imperative = ["explain", "describe", "define", "tell", "list", "show", "find", "give", "compare"].contains(&first.as_str());
        out.push(if imperative { '.' } else { '?' });
    }
    out
}

/// A sub-question worth searching: a lead and a subject (two words at least), one of them a
/// content word.
fn is_complete(p: &str) -> bool {
    p.split_whitespace().count() >= 2 && !text::content_words(p).is_empty()
}

/// Yes/no and "the same" comparisons over two subjects: "Are A and B both X?",
/// "Were A and B of the same nationality?", "Do A and B have the same Y?".
fn split_comparison(sentence: &str) -> Option<Vec<String>> {
    let body = sentence.trim_end_matches(['?', '.']).trim();
    let words: Vec<&str> = body.split_whitespace().collect();
    let aux_word = words.first()?.to_lowercase();
    let &(_, singular_aux) = AUX.iter().find(|(a, _)| *a == aux_word)?;
    let and_at = words.iter().position(|w| w.eq_ignore_ascii_case("and"))?;
    if and_at < 2 {
        return None;
    }
    let a = words[1..and_at].join(" ");
    // The second subject runs until "both"/"either", or until the predicate starts.
    let mut end = and_at + 1;
    let capitalised = words.get(and_at + 1).is_some_and(|w| text::is_capitalized(w));
    while end < words.len() {
        let w = words[end];
        let lw = w.to_lowercase();
        let lw = lw.trim_matches(|c: char| !c.is_alphanumeric());
        if ["both", "either", "each"].contains(&lw) {
            break;
        }
        let name_goes_on = capitalised && (text::is_capitalized(w) || ["of", "the", "de", "von", "van"].contains(&lw) && words.get(end + 1).is_some_and(|n| text::is_capitalized(n)));
        let noun_goes_on = !capitalised && end == and_at + 1;
        if !(name_goes_on || noun_goes_on) {
            break;
        }
        end += 1;
    }
    let b = words[and_at + 1..end].join(" ");
    let rest_start = if words.get(end).is_some_and(|w| ["both", "either", "each"].contains(&w.to_lowercase().as_str())) { end + 1 } else { end };
    let rest: Vec<&str> = words[rest_start..].to_vec();
    let (a_words, b_words) = (a.split_whitespace().count(), b.split_whitespace().count());
    if rest.is_empty() || !(1..=6).contains(&a_words) || !(1..=6).contains(&b_words) || !is_subject(&a) || !is_subject(&b) {
        return None;
    }
    let past = ["were", "was", "did", "had"].contains(&aux_word.as_str());
    // "Are lions and tigers mammals?" keeps its plural: "Are lions mammals?".
    let plural_subject = |x: &str| {
        let last = x.split_whitespace().last().unwrap_or("");
        !text::is_capitalized(x) && text::singular(&last.to_lowercase()) != last.to_lowercase()
    };
    let subs = [a, b].map(|x| {
        // "… the same nationality" → "What was the nationality of X?"
        if let Some(i) = rest.windows(2).position(|w| w[0].eq_ignore_ascii_case("the") && w[1].eq_ignore_ascii_case("same")) {
            let noun: Vec<&str> = rest[i + 2..].iter().copied().take_while(|w| !["as", "than"].contains(&w.to_lowercase().as_str())).collect();
            if !noun.is_empty() {
                return format!("What {} the {} of {x}?", if past { "was" } else { "is" }, noun.join(" "));
            }
        }
        if plural_subject(&x) {
            return format!("{} {x} {}?", capitalise(&aux_word), rest.join(" "));
        }
        format!("{} {x} {}?", capitalise(singular_aux), singular_predicate(&rest, &aux_word))
    });
    Some(subs.to_vec())
}

/// A noun phrase that can be the subject of a sub-question: a name, or words that are neither
/// function words (articles aside) nor verbs ("the ESP32 sleep" in "Does the ESP32 sleep and wake
/// …?" is a clause, not a subject).
fn is_subject(x: &str) -> bool {
    x.split_whitespace().all(|w| {
        let l = w.to_lowercase();
        let l = l.trim_matches(|c: char| !c.is_alphanumeric());
        if ["the", "a", "an", "of"].contains(&l) || text::is_capitalized(w) {
            return true;
        }
        !l.is_empty() && !text::is_stop(l) && !text::is_verb_form(l) && !text::is_base_verb(l)
    })
}

/// "film directors" → "a film director" after a plural auxiliary; other predicates unchanged.
fn singular_predicate(rest: &[&str], aux: &str) -> String {
    let plural_aux = ["are", "were"].contains(&aux);
    let head_end = rest.iter().position(|w| ["of", "in", "from", "for", "with", "at", "on", "by"].contains(&w.to_lowercase().as_str())).unwrap_or(rest.len());
    if plural_aux && head_end > 0 && head_end <= 3 {
        let last = rest[head_end - 1];
        let lower = last.to_lowercase();
        let single = text::singular(&lower);
        let noun_like = single != lower && rest[..head_end].iter().all(|w| !text::is_stop(&w.to_lowercase()) && !text::is_verb_form(&w.to_lowercase()));
        if noun_like {
            let mut head: Vec<String> = rest[..head_end - 1].iter().map(|w| w.to_string()).collect();
            head.push(single);
            let article = if head[0].starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) { "an" } else { "a" };
            let tail = rest[head_end..].join(" ");
            return format!("{article} {}{}{}", head.join(" "), if tail.is_empty() { "" } else { " " }, tail);
        }
    }
    rest.join(" ")
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

fn split_on_and(sentence: &str) -> Vec<String> {
    // ASCII lower-casing keeps byte offsets valid in `sentence` (full Unicode lower-casing can
    // change lengths, e.g. 'İ').
    let lower = sentence.to_ascii_lowercase();
    let Some(pos) = find_word(&lower, "and") else { return vec![sentence.to_string()] };
    let (left, right) = (sentence[..pos].trim().trim_end_matches(','), sentence[pos + 3..].trim());
    let right_lower = right.to_ascii_lowercase();
    let right_first = right_lower.split_whitespace().next().unwrap_or("");
    if CLAUSE_STARTS.contains(&right_first) && left.split_whitespace().count() >= 2 && is_clause(left) {
        // Two clauses: "what is A and how does B work".
        let mut v = vec![left.to_string()];
        v.extend(split_on_and(right));
        return v;
    }
    // "explain A and B": distribute a noun-phrase lead over both noun phrases when both are short.
    let left_lower = left.to_ascii_lowercase();
    // "between A and B" / "both A and B" name one relation, not two questions.
    if [" between ", " both ", "difference", " versus "].iter().any(|w| left_lower.contains(w)) {
        return vec![sentence.to_string()];
    }
    if let Some(lead) = NP_LEADS.iter().find(|l| left_lower.starts_with(&format!("{l} "))) {
        let a = left[lead.len()..].trim();
        let b = right.trim_end_matches(['?', '.']);
        let short = |x: &str| (1..=4).contains(&x.split_whitespace().count());
        // "What is A and B used for?" keeps its shared ending: not distributable.
        let b_is_np = b.split_whitespace().all(|w| !text::is_verb_form(&w.to_lowercase()) && !text::is_stop(&w.to_lowercase()) || ["the", "a", "an"].contains(&w.to_lowercase().as_str()));
        if short(a) && short(b) && b_is_np {
            let lead_text = &left[..lead.len()];
            let tail = if sentence.ends_with('?') { "?" } else { "" };
            return vec![format!("{lead_text} {a}{tail}"), format!("{lead_text} {b}{tail}")];
        }
    }
    vec![sentence.to_string()]
}

/// The left side of a clause split is itself a question or an instruction.
fn is_clause(left: &str) -> bool {
    let first = left.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    CLAUSE_STARTS.contains(&first.as_str())
}

fn find_word(hay: &str, word: &str) -> Option<usize> {
    let mut start = 0;
    while let Some(i) = hay[start..].find(word) {
        let at = start + i;
        let before = hay[..at].chars().last().is_none_or(|c| !c.is_alphanumeric());
        let after = hay[at + word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric());
        if before && after && at > 0 {
            return Some(at);
        }
        start = at + word.len();
    }
    None
}

/// JSON schema of the LLM's subquery answer.
fn subquery_schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"subqueries": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_LLM_SUBQUERIES}},
        "required": ["subqueries"],
        "additionalProperties": false
    })
}

/// LLM subqueries kept at most (the question and the deterministic split come on top).
const MAX_LLM_SUBQUERIES: usize = 4;

/// The prompt that asks the LLM for short search queries covering `question`. The local model's
/// answer is forced to open with `{"subqueries": ["` and constrained to JSON, which a 135M model
/// reliably completes; free generation by such a model rarely parses. The reply parses into the
/// usable queries (see [`Prompt::parse`]).
#[derive(Debug, Clone, Copy)]
pub struct SubqueryPrompt<'a> {
    /// The user's question.
    pub question: &'a str,
}

impl Prompt for SubqueryPrompt<'_> {
    /// The usable subqueries: 1 to 4 of them, whitespace collapsed, none a repeat of the question
    /// or of another.
    type Reply = Vec<String>;

    fn request(&self) -> ChatRequest {
        let question = self.question;
        ChatRequest {
            messages: vec![
                ChatMessage::system("You turn a question into short search queries for a document search engine. Reply with JSON only."),
                ChatMessage::user(format!(
                    "Question: {question}\n\nWrite 1 to {MAX_LLM_SUBQUERIES} short search queries (a few words each) that together cover what the question asks. \
                     Reply as {{\"subqueries\": [\"...\"]}}."
                )),
            ],
            // Four short queries fit in 48 tokens; a small model that loops stops here, not later.
            max_tokens: 48,
            format: OutputFormat::Json { name: "subqueries".into(), schema: subquery_schema(), prefix: "{\"subqueries\": [\"".into() },
            stop: vec![],
            temperature: 0.0,
            purpose: "subqueries",
        }
    }

    fn parse(&self, reply: &str) -> Result<Vec<String>, PromptError> {
        Ok(validate_subqueries(reply, self.question)?)
    }
}

/// Why the LLM's subquery reply is unusable.
#[derive(Debug, thiserror::Error)]
enum SubqueryReplyError {
    /// The reply is not a JSON value.
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    /// The JSON has no `subqueries` array.
    #[error("no \"subqueries\" list")]
    NoList,
    /// An item of the list is not a string.
    #[error("a subquery is not a string")]
    NotAString,
    /// Every item was too short, too long, wordless or a repeat.
    #[error("no usable subquery in the list")]
    NoneUsable,
}

impl From<SubqueryReplyError> for PromptError {
    fn from(e: SubqueryReplyError) -> Self {
        PromptError(e.to_string())
    }
}

/// Validate the LLM's answer: a JSON object whose `subqueries` is a list of strings; keeps the
/// usable ones (3–200 characters, not repeats of the question or of each other).
fn validate_subqueries(text: &str, question: &str) -> Result<Vec<String>, SubqueryReplyError> {
    let value: serde_json::Value = serde_json::from_str(text.trim()).map_err(SubqueryReplyError::NotJson)?;
    let list = value.get("subqueries").and_then(|v| v.as_array()).ok_or(SubqueryReplyError::NoList)?;
    let mut out: Vec<String> = Vec::new();
    for item in list {
        let s = item.as_str().ok_or(SubqueryReplyError::NotAString)?;
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        let len = s.chars().count();
        let has_word = s.split(|c: char| !c.is_alphanumeric()).any(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2);
        if !(3..=200).contains(&len) || !has_word || s.eq_ignore_ascii_case(question.trim()) || out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            continue;
        }
        out.push(s);
        if out.len() == MAX_LLM_SUBQUERIES {
            break;
        }
    }
    if out.is_empty() {
        return Err(SubqueryReplyError::NoneUsable);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scene_setting_sentences_are_context_and_commas_before_question_words_split() {
        let subs = subqueries("I want to build offline from a vendor/ directory checked into the repo. How do I produce that directory and what configuration makes Cargo read crates from it?");
        let scene = "I want to build offline from a vendor/ directory checked into the repo.";
        assert_eq!(&subs[1..], [format!("{scene} How do I produce that directory?"), format!("{scene} What configuration makes Cargo read crates from it?")], "{subs:?}");
        let subs = subqueries("Where does cargo install put the binaries it builds, how can I change that location, and which bookkeeping files should I leave alone?");
        assert_eq!(&subs[1..], ["Where does cargo install put the binaries it builds?", "How can I change that location?", "Which bookkeeping files should I leave alone?"], "{subs:?}");
        // A file name's dot is not a sentence end; one question stays whole.
        assert_eq!(subqueries("Which keys does Cargo.toml accept for a workspace member?").len(), 1);
        assert_eq!(subqueries("My builds are slow. Why?").len(), 1, "one question after the context");
    }

    #[test]
    fn single_intent_question_is_kept_whole() {
        assert_eq!(subqueries("How does deep sleep relate to battery life?"), vec!["How does deep sleep relate to battery life?"]);
    }

    #[test]
    fn two_clauses_are_split() {
        let s = subqueries("What is an MQTT broker and how does deep sleep work?");
        assert_eq!(s[1..], ["What is an MQTT broker?".to_string(), "How does deep sleep work?".to_string()]);
    }

    #[test]
    fn lead_is_distributed_over_two_noun_phrases() {
        let s = subqueries("Explain dew point and heat index");
        assert_eq!(s[1..], ["Explain dew point.".to_string(), "Explain heat index.".to_string()]);
    }

    #[test]
    fn comparisons_become_complete_sub_questions() {
        let s = subqueries("Are Christopher Nolan and Sathish Kalathil both film directors?");
        assert_eq!(s[1..], ["Is Christopher Nolan a film director?".to_string(), "Is Sathish Kalathil a film director?".to_string()]);
        let s = subqueries("Were Scott Derrickson and Ed Wood of the same nationality?");
        assert_eq!(s[1..], ["What was the nationality of Scott Derrickson?".to_string(), "What was the nationality of Ed Wood?".to_string()]);
        let s = subqueries("Are Nantong and Jingdezhen situated in the same province?");
        assert_eq!(s[1..], ["What is the province of Nantong?".to_string(), "What is the province of Jingdezhen?".to_string()]);
        let s = subqueries("Did Brian Eno and David Bowie both work in Berlin?");
        assert_eq!(s[1..], ["Did Brian Eno work in Berlin?".to_string(), "Did David Bowie work in Berlin?".to_string()]);
        let s = subqueries("Are lions and tigers both mammals?");
        assert_eq!(s[1..], ["Are lions mammals?".to_string(), "Are tigers mammals?".to_string()]);
        // A clause is not a subject: split as two clauses or not at all, never into fragments.
        let s = subqueries("Does the ESP32 sleep and wake on a timer?");
        assert_eq!(s, vec!["Does the ESP32 sleep and wake on a timer?".to_string()]);
    }

    #[test]
    fn no_fragment_is_ever_emitted() {
        for q in [
            "How do the borrow checker and lifetimes work together?",
            "How does deep sleep relate to battery life?",
            "What government position was held by the woman who portrayed Corliss Archer in the film Kiss and Tell?",
            "What is the difference between Rc and Arc?",
            "Which is older, the BME280 or the DHT22?",
        ] {
            assert_eq!(subqueries(q), vec![q.to_string()], "{q}");
        }
        for q in ["What is A and how?", "Explain it and them", "Are and B both X?", "Is the BME280 accurate and is it cheap?"] {
            for sub in subqueries(q).iter().skip(1) {
                assert!(sub.split_whitespace().count() >= 2 && sub.ends_with(['?', '.']), "{q} → {sub}");
            }
        }
    }

    #[test]
    fn several_sentences_become_subqueries() {
        let s = subqueries("What is the I2C address? Which pull-up resistor value is used?");
        assert_eq!(s.len(), 3);
    }

    #[test]
    fn code_spans_hold_no_sentence_boundary() {
        let s = subqueries("My macro does `let async = 1;` internally. Can my crate call it? Which edition allows it?");
        assert_eq!(s[1..], ["My macro does `let async = 1;` internally. Can my crate call it?".to_string(), "My macro does `let async = 1;` internally. Which edition allows it?".to_string()]);
        // A lone backtick opens nothing: the question mark after it still ends a sentence.
        let s = subqueries("Why does ` appear in the output? Which lint prints the symbol?");
        assert_eq!(s.len(), 3, "{s:?}");
    }

    #[test]
    fn non_ascii_questions_are_safe() {
        let s = subqueries("What is İİİ Ölçüm and how does Größe work?");
        assert_eq!(s[1..], ["What is İİİ Ölçüm?".to_string(), "How does Größe work?".to_string()]);
        let s = subqueries("Explain İstanbul and Ünye");
        assert_eq!(s[1..], ["Explain İstanbul.".to_string(), "Explain Ünye.".to_string()]);
    }

    #[test]
    fn llm_subqueries_are_validated() {
        let q = "How do I wire the BME280?";
        let prompt = SubqueryPrompt { question: q };
        let ok = prompt.parse(r#"{"subqueries": ["BME280 wiring", "  I2C   pull-up ", "bme280 WIRING", "How do I wire the BME280?", "x", "...", "1 2 3"]}"#).unwrap();
        assert_eq!(ok, vec!["BME280 wiring", "I2C pull-up"]);
        assert_eq!(prompt.parse(r#"{"subqueries": []}"#).unwrap_err().to_string(), "no usable subquery in the list");
        assert_eq!(prompt.parse(r#"{"queries": ["a b c"]}"#).unwrap_err().to_string(), "no \"subqueries\" list");
        assert_eq!(prompt.parse(r#"{"subqueries": [1, 2]}"#).unwrap_err().to_string(), "a subquery is not a string");
        assert!(prompt.parse("BME280 wiring").unwrap_err().to_string().starts_with("not JSON: "));
    }

    #[test]
    fn subquery_prompt_snapshot() {
        let prompt = SubqueryPrompt { question: "How do I calibrate the BME280 sensor and send its readings over MQTT?" };
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/subquery_prompt.txt");
        qa_llm::prompt::assert_snapshot(std::path::Path::new(path), &qa_llm::prompt::render(&prompt.request()));
        assert_eq!(prompt.reply_schema().unwrap()["properties"]["subqueries"]["maxItems"], MAX_LLM_SUBQUERIES);
    }

    #[test]
    fn and_inside_a_name_does_not_split() {
        assert_eq!(subqueries("What is the difference between wake and sleep").len(), 1);
    }
}
