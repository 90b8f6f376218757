//! Coverage accounting: every content word of the question is either used by the query (with
//! what it became) or listed as not used. The confidence of a reading follows from it: an
//! unused content word weighs three used ones, since one dropped qualifier changes the answer
//! while one more recognised word does not make it right.

use serde::{Deserialize, Serialize};

use crate::tokens::{Token, TokenKind};

/// Words that carry no condition of their own: articles, pronouns, auxiliaries, question and
/// request words, and domain-free fillers. English only; never a schema's words.
const FUNCTION_WORDS: &[&str] = &[
    // (Reflexives — "themselves" — stay content: "… not Norwegian themselves" says which rows
    // compare, a reading the planner does not build.)
    "among", "amongst",
    "a", "an", "the", "of", "in", "on", "at", "for", "to", "by", "with", "and", "or", "is", "are", "was", "were", "be", "been", "being", "am", "what",
    "which", "who", "whom", "whose", "where", "when", "how", "do", "does", "did", "done", "there", "that", "this", "these", "those", "me", "us",
    "you", "show", "list", "give", "get", "find", "tell", "display", "return", "all", "have", "has", "had", "having", "from", "it", "its",
    "their", "them", "they", "we", "our", "i", "my", "any", "as", "into", "onto", "through", "via", "so", "far", "yet", "still", "ever", "currently",
    "overall", "please", "exist", "exists", "existing", "record", "records", "row", "rows", "entry", "entries", "one", "ones", "value", "values",
    "data", "database", "table", "both", "either", "also", "just", "only", "some", "can", "could", "would", "should", "will", "shall", "may",
    "might", "must", "want", "like", "know", "now", "what's", "there's", "whats", "out", "up", "about", "than", "then", "if", "whether", "it's",
    "s", "many", "much", "such", "other", "else", "same", "his", "her", "he", "she", "together", "including", "included", "along", "well", "provide",
    "print", "output", "report", "fetch", "retrieve", "identify", "select", "name", "names", "detail", "details", "information", "info", "info",
    "everything", "anything", "thing", "things", "kind", "type", "types", "sort", "whole", "each", "every",
    "per", "different", "distinct", "unique", "various", "respective", "respectively", "corresponding", "given", "certain", "specific", "particular",
    "let", "see", "need", "using", "use", "used", "ones", "any", "already", "yet", "again", "also", "too", "very", "really", "just", "exactly",
    "available", "existing", "known", "listed", "shown", "recorded", "stored", "registered", "current", "currently", "present", "presently",
    // (A date's preposition, and the collection a shop's items are listed in.)
    "during", "catalogue", "catalog",
    "here", "there", "world", "everyone", "anyone", "dr", "mr", "mrs", "ms", "prof", "sir", "across", "together", "please", "but", "however", "around", "whereas", "someone", "somebody", "anybody", "everybody", "who's", "give", "gives", "go", "going", "ok", "okay",
];

/// A function word (lower-case).
pub fn is_function_word(word: &str) -> bool {
    FUNCTION_WORDS.contains(&word)
}

/// A token that counts for coverage: a word that is not a function word, a number, a date or
/// a quoted literal. Symbols never count.
pub fn is_content(t: &Token) -> bool {
    match t.kind {
        TokenKind::Symbol => false,
        // A word in capitals is a code or a name ("US", "IT"), never a pronoun.
        TokenKind::Word => (!is_function_word(&t.lower) || t.all_caps()) && !t.lower.chars().all(|c| !c.is_alphanumeric()),
        _ => true,
    }
}

/// Idioms of time and record-keeping that say nothing a query could use: "right now", "at the
/// moment", "at present", "for now", "as of now", "anymore", "on file" (at the end of a
/// clause), and the "longer" of "no longer" (the "no" stays: it negates what follows).
/// English only; never a schema's words.
fn idiom_fillers(tokens: &[Token]) -> Vec<usize> {
    let w = |i: usize| tokens.get(i).filter(|t| t.kind == TokenKind::Word).map(|t| t.lower.as_str()).unwrap_or("");
    let clause_end = |i: usize| tokens.get(i).is_none_or(|t| t.kind == TokenKind::Symbol);
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        match (w(i), w(i + 1), w(i + 2)) {
            ("right", "now", _) | ("for", "now", _) | ("at", "present", _) => out.extend([i, i + 1]),
            ("at", "the", "moment") | ("as", "of", "now") => out.extend([i, i + 1, i + 2]),
            ("anymore", _, _) => out.push(i),
            ("on", "file", _) if clause_end(i + 2) => out.extend([i, i + 1]),
            ("no", "longer", _) => out.push(i + 1),
            _ => {}
        }
    }
    out
}

/// Spans that may name the organisation whose data this is, the asker's own: "how many hives
/// does **the cooperative** have", "members of **the cooperative**", "joined **the club** in
/// 2024", "bought anything from **the cooperative**", "how many part-time staff do we
/// **employ**". One or two lower-case nouns after "the"/"our" in those frames (a capitalised
/// word is a name, never dropped), or the verb after "we"/"you". Schema-free: a route drops such
/// a span only when no table, column or value links to it.
pub fn owner_phrases(tokens: &[Token]) -> Vec<std::ops::Range<usize>> {
    let w = |i: usize| tokens.get(i).filter(|t| t.kind == TokenKind::Word).map(|t| t.lower.as_str()).unwrap_or("");
    let noun = |i: usize| tokens.get(i).is_some_and(|t| t.kind == TokenKind::Word && !t.capitalized() && !t.all_caps() && !is_function_word(&t.lower) && !crate::cues::is_negation(&t.lower));
    let clause_end = |i: usize| tokens.get(i).is_none_or(|t| t.kind == TokenKind::Symbol) || matches!(w(i), "in" | "since" | "during" | "before" | "after" | "and");
    const HAVE: &[&str] = &["have", "employ", "run", "operate", "own", "keep", "stock"];
    let mut out = Vec::new();
    for i in 0..tokens.len() {
        if matches!(w(i), "we" | "you") && i > 0 && matches!(w(i - 1), "do" | "did" | "does") && HAVE.contains(&w(i + 1)) && w(i + 1) != "have" {
            out.push(i + 1..i + 2);
            continue;
        }
        if !matches!(w(i), "the" | "our") || i == 0 {
            continue;
        }
        let n = (1..=2).take_while(|&k| noun(i + k)).last().unwrap_or(0);
        if n == 0 {
            continue;
        }
        let (s, e) = (i + 1, i + 1 + n);
        let owning = matches!(w(i - 1), "does" | "do" | "did") && HAVE.contains(&w(e));
        // ("of the cooperative?" ends a clause; "of the people in their team" does not.)
        let sentence_end = tokens.get(e).is_none_or(|t| t.kind == TokenKind::Symbol);
        let of_it = matches!(w(i - 1), "of" | "from" | "with" | "by") && sentence_end || matches!(w(i - 1), "joined" | "join" | "joining" | "left") && clause_end(e);
        if owning || of_it {
            out.push(s..e);
        }
    }
    out
}

/// What a run of tokens became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mapped {
    /// The words.
    pub phrase: String,
    /// What they became ("table loans", "loans.genre = 'crime'", "aggregate COUNT").
    #[serde(rename = "as")]
    pub role: String,
}

/// The coverage of a question by a query.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Coverage {
    /// Used words and what they became.
    pub mapped: Vec<Mapped>,
    /// Content words nothing in the query stands for.
    pub unmapped: Vec<String>,
    /// Used content words / all content words.
    pub ratio: f64,
    /// Multipliers below 1 with their reason (a guessed reading, a spelling fix, …).
    pub penalties: Vec<(String, f64)>,
}

/// An unused content word weighs this many used ones.
pub const UNMAPPED_WEIGHT: f64 = 3.0;

impl Coverage {
    /// `used / (used + 3·unused) · Π penalty`, to three decimals.
    pub fn confidence(used: usize, unused: usize, penalties: &[(String, f64)]) -> f64 {
        let base = if used + unused == 0 { 1.0 } else { used as f64 / (used as f64 + UNMAPPED_WEIGHT * unused as f64) };
        let p: f64 = penalties.iter().map(|(_, f)| *f).product();
        ((base * p) * 1000.0).round() / 1000.0
    }
}

/// Per token: what it was used for.
#[derive(Debug, Clone, PartialEq)]
pub struct Ledger {
    roles: Vec<Option<String>>,
    content: Vec<bool>,
    texts: Vec<String>,
}

impl Ledger {
    /// A ledger over `tokens`, nothing used yet.
    pub fn new(tokens: &[Token]) -> Ledger {
        let mut content: Vec<bool> = tokens.iter().map(is_content).collect();
        for i in idiom_fillers(tokens) {
            content[i] = false;
        }
        Ledger { roles: vec![None; tokens.len()], content, texts: tokens.iter().map(|t| t.text.clone()).collect() }
    }

    /// Record that tokens `range` stand for `role` (the first use of a token wins).
    pub fn mark(&mut self, range: std::ops::Range<usize>, role: impl Into<String>) {
        let role = role.into();
        for i in range {
            if let Some(slot) = self.roles.get_mut(i)
                && slot.is_none()
            {
                *slot = Some(role.clone());
            }
        }
    }

    /// Forget what tokens `range` were used for.
    pub fn unmark(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            if let Some(slot) = self.roles.get_mut(i) {
                *slot = None;
            }
        }
    }

    /// What token `i` was used for.
    pub fn role(&self, i: usize) -> Option<&str> {
        self.roles.get(i).and_then(|r| r.as_deref())
    }

    /// Token `i` is used.
    pub fn is_used(&self, i: usize) -> bool {
        self.role(i).is_some()
    }

    /// Token `i` must be accounted for even when it is a function word ("much" of "how
    /// much": an amount asked for that no field answers is not dropped silently).
    pub fn require(&mut self, i: usize) {
        if let Some(c) = self.content.get_mut(i) {
            *c = true;
        }
    }

    /// Token `i` counts for coverage.
    pub fn is_content(&self, i: usize) -> bool {
        self.content.get(i).copied().unwrap_or(false)
    }

    /// Content tokens not used yet.
    pub fn unused(&self) -> Vec<usize> {
        (0..self.roles.len()).filter(|&i| self.content[i] && self.roles[i].is_none()).collect()
    }

    /// The report and the confidence, with `penalties`.
    pub fn coverage(&self, penalties: Vec<(String, f64)>) -> (Coverage, f64) {
        let mut mapped: Vec<Mapped> = Vec::new();
        let mut unmapped = Vec::new();
        let (mut used, mut unused) = (0usize, 0usize);
        let mut last: Option<(usize, &str)> = None;
        for (i, role) in self.roles.iter().enumerate() {
            match role {
                Some(r) => {
                    if self.content[i] {
                        used += 1;
                    }
                    match (last, mapped.last_mut()) {
                        (Some((j, lr)), Some(m)) if j + 1 == i && lr == r => {
                            m.phrase.push(' ');
                            m.phrase.push_str(&self.texts[i]);
                        }
                        _ => mapped.push(Mapped { phrase: self.texts[i].clone(), role: r.clone() }),
                    }
                    last = Some((i, r.as_str()));
                }
                None => {
                    if self.content[i] {
                        unused += 1;
                        unmapped.push(self.texts[i].to_lowercase());
                    }
                }
            }
        }
        let ratio = if used + unused == 0 { 1.0 } else { used as f64 / (used + unused) as f64 };
        let confidence = Coverage::confidence(used, unused, &penalties);
        (Coverage { mapped, unmapped, ratio: (ratio * 1000.0).round() / 1000.0, penalties }, confidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tokenize;

    #[test]
    fn ledger_merges_phrases_and_weighs_unused_words() {
        let t = tokenize("How many archived accounts in the outdoor category");
        let mut l = Ledger::new(&t);
        l.mark(3..4, "table accounts");
        l.mark(2..3, "accounts.archived = true");
        l.mark(0..2, "aggregate COUNT");
        let (c, conf) = l.coverage(vec![]);
        assert_eq!(c.unmapped, ["outdoor", "category"]);
        assert_eq!(c.mapped[0], Mapped { phrase: "How many".into(), role: "aggregate COUNT".into() });
        // 2 content words used (archived, accounts), 2 not: 2 / (2 + 3·2).
        assert_eq!(conf, 0.25);
        assert_eq!(Coverage::confidence(4, 0, &[("fuzzy".into(), 0.9)]), 0.9);
        assert_eq!(l.unused(), [6, 7]);
    }

    #[test]
    fn idioms_of_time_and_files_carry_nothing() {
        let unused = |q: &str| {
            let t = tokenize(q);
            let l = Ledger::new(&t);
            l.unused().into_iter().map(|i| t[i].lower.clone()).collect::<Vec<_>>()
        };
        assert_eq!(unused("Which machines are broken right now?"), ["machines", "broken"]);
        assert_eq!(unused("Which lifts are closed at the moment?"), ["lifts", "closed"]);
        assert_eq!(unused("Which guests have no email on file?"), ["guests", "no", "email"]);
        assert_eq!(unused("Which agents are no longer active?"), ["agents", "no", "active"]);
        // Not idioms: a file named as a thing, "longer" compared.
        assert_eq!(unused("Which file is longer than the moment?"), ["file", "longer", "moment"]);
    }

    #[test]
    fn the_organisation_of_the_data_is_found_in_its_frames() {
        let spans = |q: &str| {
            let t = tokenize(q);
            owner_phrases(&t).into_iter().map(|r| t[r].iter().map(|x| x.lower.clone()).collect::<Vec<_>>().join(" ")).collect::<Vec<_>>()
        };
        assert_eq!(spans("How many hives does the cooperative have?"), ["cooperative"]);
        assert_eq!(spans("How many beekeepers joined the cooperative in 2024?"), ["cooperative"]);
        assert_eq!(spans("Which buyers never bought anything from the catering service?"), ["catering service"]);
        assert_eq!(spans("How many part-time staff do we employ?"), ["employ"]);
        // A capitalised name, a noun followed by more, or no frame: nothing.
        assert!(spans("How many hives does the Green Valley Union have?").is_empty());
        assert!(spans("How many hives are in the apiary with shelter?").is_empty());
        assert!(spans("Which hives have the most frames?").is_empty());
        assert!(spans("How many of the people in their team still work?").is_empty());
    }
}
