//! The question as the planner reads it: tokens (words, numbers, ISO dates), their singular
//! forms, and the coverage ledger — every token is a function word, mapped (with what it was
//! mapped to) or left unmapped. The ledger is what `plan_confidence` and "not used: …" are
//! computed from.

use serde::{Deserialize, Serialize};

use super::super::schema::singular;

/// Words that carry no condition of their own: articles, pronouns, auxiliaries, question words
/// and a few domain-free fillers ("records", "currently"). English only, never schema words.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "for", "to", "by", "per", "with", "and", "or", "is", "are", "was", "were", "be",
    "been", "being", "am", "what", "which", "who", "whom", "whose", "where", "when", "how", "do", "does", "did", "done",
    "there", "that", "this", "these", "those", "me", "us", "you", "show", "list", "give", "get", "find", "tell", "display",
    "return", "all", "each", "every", "have", "has", "had", "having", "at", "from", "it", "its", "their", "them", "they",
    "we", "our", "i", "my", "any", "as", "into", "onto", "through", "via", "using", "so", "far", "yet", "still", "ever",
    "currently", "overall", "altogether", "please", "exist", "exists", "existing", "record", "row", "entry",
    "entries", "one", "ones", "value", "data", "database", "table", "made", "make", "makes", "come", "comes",
    "came", "both", "either", "also", "just", "only", "some", "can", "could", "would", "should", "will", "shall", "may",
    "might", "must", "want", "like", "know", "right", "now", "what's", "there's", "whats", "out", "up",
    "about", "than", "then", "if", "whether", "it's", "s", "how", "many", "much",
    "such", "other", "else", "same", "its", "his", "her", "he", "she", "together", "including", "included", "live", "lives",
    "living", "located", "based", "situated", "use", "used", "uses",
];

pub fn is_function_word(w: &str) -> bool {
    FUNCTION_WORDS.contains(&w)
}

/// One token of the question.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// Lower-case text (`2024-03-01` stays whole; `1,000` and `2.5` are numbers).
    pub text: String,
    /// Singular form (for words), the text otherwise.
    pub norm: String,
    pub number: Option<f64>,
    /// An ISO date `YYYY-MM-DD`.
    pub date: Option<String>,
}

/// What a mapped token became, for the coverage report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mapped {
    pub phrase: String,
    #[serde(rename = "as")]
    pub role: String,
}

/// The coverage of the question by the plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Coverage {
    pub mapped: Vec<Mapped>,
    /// Content words nothing in the plan stands for.
    pub unmapped: Vec<String>,
    /// Mapped content tokens / all content tokens.
    pub ratio: f64,
    /// Multipliers below 1 with their reason (a fuzzy match, a default column choice, …).
    pub penalties: Vec<(String, f64)>,
}

/// An unmapped content word weighs this many mapped ones: one dropped qualifier changes the
/// answer, while one more recognised word does not make it right.
pub const UNMAPPED_WEIGHT: f64 = 3.0;

impl Coverage {
    /// Confidence from coverage and the penalties: `mapped / (mapped + 3·unmapped) · Π penalty`.
    pub fn confidence(mapped: usize, unmapped: usize, penalties: &[(String, f64)]) -> f64 {
        let base = if mapped + unmapped == 0 { 1.0 } else { mapped as f64 / (mapped as f64 + UNMAPPED_WEIGHT * unmapped as f64) };
        let p: f64 = penalties.iter().map(|(_, f)| *f).product();
        ((base * p) * 1000.0).round() / 1000.0
    }
}

#[derive(Debug, Clone)]
pub struct Question {
    pub toks: Vec<Token>,
    /// Per token: what it was mapped to (None: not yet / unmapped).
    roles: Vec<Option<String>>,
}

fn split(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // An ISO date stays one token.
        if c.is_ascii_digit() && cur.is_empty() && i + 10 <= chars.len() {
            let s: String = chars[i..i + 10].iter().collect();
            let b = s.as_bytes();
            if b[4] == b'-' && b[7] == b'-' && s.chars().enumerate().all(|(k, ch)| k == 4 || k == 7 || ch.is_ascii_digit()) && chars.get(i + 10).is_none_or(|n| !n.is_alphanumeric()) {
                out.push(s);
                i += 10;
                continue;
            }
        }
        let keep = c.is_alphanumeric()
            || c == '\''
            || ((c == '.' || c == ',') && !cur.is_empty() && cur.chars().all(|d| d.is_ascii_digit() || d == '.' || d == ',') && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit()));
        if keep {
            cur.extend(c.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        i += 1;
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter().map(|w| w.trim_matches('\'').to_string()).filter(|w| !w.is_empty()).collect()
}

const SMALL_NUMBERS: &[&str] = &["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

impl Question {
    pub fn new(text: &str) -> Question {
        let toks: Vec<Token> = split(text)
            .into_iter()
            .map(|t| {
                let date = (t.len() == 10 && t.as_bytes()[4] == b'-').then(|| t.clone());
                let number = if date.is_some() { None } else { t.replace(',', "").parse::<f64>().ok().filter(|n| n.is_finite()) };
                let norm = if number.is_some() || date.is_some() { t.clone() } else { singular(&t) };
                Token { text: t, norm, number, date }
            })
            .collect();
        let roles = vec![None; toks.len()];
        Question { toks, roles }
    }

    pub fn len(&self) -> usize {
        self.toks.len()
    }

    pub fn word(&self, i: usize) -> &str {
        self.toks.get(i).map(|t| t.text.as_str()).unwrap_or("")
    }

    #[cfg(test)]
    pub fn norm(&self, i: usize) -> &str {
        self.toks.get(i).map(|t| t.norm.as_str()).unwrap_or("")
    }

    /// A number token; small number words ("three") count when `words` is set.
    pub fn number(&self, i: usize) -> Option<f64> {
        let t = self.toks.get(i)?;
        t.number.or_else(|| SMALL_NUMBERS.iter().position(|w| *w == t.text).map(|n| n as f64))
    }

    pub fn has(&self, w: &str) -> bool {
        self.toks.iter().any(|t| t.text == w)
    }

    pub fn pos(&self, w: &str) -> Option<usize> {
        self.toks.iter().position(|t| t.text == w)
    }

    pub fn seq(&self, seq: &[&str]) -> Option<usize> {
        (0..self.toks.len()).find(|&i| seq.iter().enumerate().all(|(k, s)| self.word(i + k) == *s))
    }

    /// A content token: not a function word (numbers and dates are content).
    pub fn is_content(&self, i: usize) -> bool {
        !is_function_word(self.word(i))
    }

    pub fn role(&self, i: usize) -> Option<&str> {
        self.roles.get(i).and_then(|r| r.as_deref())
    }

    pub fn is_mapped(&self, i: usize) -> bool {
        self.role(i).is_some()
    }

    /// Record that tokens `range` stand for `role` (the first mapping of a token wins).
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

    pub fn unmark(&mut self, range: std::ops::Range<usize>) {
        for i in range {
            if let Some(slot) = self.roles.get_mut(i) {
                *slot = None;
            }
        }
    }

    /// Previous token index, skipping function words (but not negations or mapped tokens).
    pub fn prev_content(&self, i: usize) -> Option<usize> {
        (0..i).rev().find(|&j| self.is_content(j) || self.is_mapped(j))
    }

    pub fn next_content(&self, i: usize) -> Option<usize> {
        (i + 1..self.toks.len()).find(|&j| self.is_content(j) || self.is_mapped(j))
    }

    /// The coverage ledger: mapped phrases (consecutive tokens with the same role merged) and
    /// unmapped content words.
    pub fn coverage(&self, penalties: Vec<(String, f64)>) -> (Coverage, f64) {
        let mut mapped: Vec<Mapped> = Vec::new();
        let mut unmapped = Vec::new();
        let (mut n_mapped, mut n_unmapped) = (0usize, 0usize);
        let mut last: Option<(usize, String)> = None;
        for (i, t) in self.toks.iter().enumerate() {
            match &self.roles[i] {
                Some(role) => {
                    if self.is_content(i) {
                        n_mapped += 1;
                    }
                    match (&last, mapped.last_mut()) {
                        (Some((j, r)), Some(m)) if *j + 1 == i && r == role => {
                            m.phrase.push(' ');
                            m.phrase.push_str(&t.text);
                        }
                        _ => mapped.push(Mapped { phrase: t.text.clone(), role: role.clone() }),
                    }
                    last = Some((i, role.clone()));
                }
                None => {
                    if self.is_content(i) {
                        n_unmapped += 1;
                        unmapped.push(t.text.clone());
                    }
                }
            }
        }
        let ratio = if n_mapped + n_unmapped == 0 { 1.0 } else { n_mapped as f64 / (n_mapped + n_unmapped) as f64 };
        let confidence = Coverage::confidence(n_mapped, n_unmapped, &penalties);
        (Coverage { mapped, unmapped, ratio: (ratio * 1000.0).round() / 1000.0, penalties }, confidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_dates_and_decimals() {
        let q = Question::new("Loans due before 2024-02-01 with a fee over 2.5 and 1,000 pages?");
        let texts: Vec<&str> = q.toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, ["loans", "due", "before", "2024-02-01", "with", "a", "fee", "over", "2.5", "and", "1,000", "pages"]);
        assert_eq!(q.toks[3].date.as_deref(), Some("2024-02-01"));
        assert_eq!(q.number(8), Some(2.5));
        assert_eq!(q.number(10), Some(1000.0));
        assert_eq!(q.norm(0), "loan");
        assert_eq!(Question::new("young-adult e-books").toks.len(), 4);
    }

    #[test]
    fn coverage_merges_phrases_and_weighs_unmapped_words() {
        let mut q = Question::new("How many archived accounts in the outdoor category");
        q.mark(3..4, "table accounts");
        q.mark(2..3, "accounts.archived = true");
        q.mark(0..2, "aggregate COUNT");
        let (c, conf) = q.coverage(vec![]);
        assert_eq!(c.unmapped, ["outdoor", "category"]);
        assert_eq!(c.mapped[0], Mapped { phrase: "how many".into(), role: "aggregate COUNT".into() });
        // 2 content words mapped (archived, accounts), 2 not: 2 / (2 + 3·2).
        assert_eq!(conf, 0.25);
        assert_eq!(Coverage::confidence(4, 0, &[("fuzzy".into(), 0.9)]), 0.9);
    }
}
