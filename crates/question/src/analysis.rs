//! The schema-free reading of a question: tokens, quantities, dates, comparisons, negations,
//! superlatives, aggregates, groupings, orderings, distinctness, a projection list and the
//! literals (quoted text, capitalised names) worth looking up as values.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::coverage::Ledger;
use crate::cues::{self, Aggregate, Comparison, Grouping, Ordering, Superlative};
use crate::dates::{self, DateMention, Grain};
use crate::numbers::{self, Quantity};
use crate::tokens::{self, Token, TokenKind};

/// One item of a projection list ("the VIN, model and list price of …").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Token range.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// A head word shared with the next item ("first" of "first and last name" is "first
    /// name"): its token index.
    pub head: Option<usize>,
}

/// What the question asks to be shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Projection {
    /// The listed items, in order.
    pub items: Vec<Item>,
    /// Token range of the whole list with its lead words ("show me the").
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
}

/// Text the question gives as a value: quoted, or a run of capitalised words (a name, a code).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Literal {
    /// Token range.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// The text as written.
    pub text: String,
    /// Between quotes.
    pub quoted: bool,
}

/// The question, read without a schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// As asked.
    pub question: String,
    /// Its tokens.
    pub tokens: Vec<Token>,
    /// Numbers with units.
    pub quantities: Vec<Quantity>,
    /// Dates.
    pub dates: Vec<DateMention>,
    /// Numeric comparisons (numbers that are not dates).
    pub comparisons: Vec<Comparison>,
    /// Token positions of negation words.
    pub negations: Vec<usize>,
    /// Rankings.
    pub superlatives: Vec<Superlative>,
    /// Aggregate words.
    pub aggregates: Vec<Aggregate>,
    /// Grouping cues.
    pub groupings: Vec<Grouping>,
    /// Ordering cues.
    pub orderings: Vec<Ordering>,
    /// Positions of "distinct"/"different"/"unique".
    pub distinct: Vec<usize>,
    /// The projection list, if the question has one.
    pub projection: Option<Projection>,
    /// Without a projection list: what a coordinated clause asks for beside the rows ("Which
    /// hotels are five-star, and in which cities?", "and what are their roles"). Each item is
    /// shown next to what the question shows anyway.
    pub also: Vec<Item>,
    /// Quoted text and capitalised names.
    pub literals: Vec<Literal>,
    /// Token ranges of the sentences.
    pub sentences: Vec<(usize, usize)>,
}

impl Analysis {
    fn word(&self, i: usize) -> &str {
        self.tokens.get(i).map(|t| t.lower.as_str()).unwrap_or("")
    }

    /// The words after the copula of a "which/what X are Y" sentence — "Which items are
    /// **still out**?", "Which Belgian customers are **companies**?" — that say which rows (up
    /// to a comma, "and", ";" or ":"). None when more than the subject's noun phrase precedes
    /// the copula ("which X did …", "what is the …"), or when nothing but articles follows.
    pub fn copula_predicates(&self) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for &(s, e) in &self.sentences {
            if !matches!(self.word(s), "which" | "what") {
                continue;
            }
            let Some(cop) = (s + 2..e).find(|&k| matches!(self.word(k), "are" | "is" | "were" | "was")) else { continue };
            // (The copula of the subject itself: nothing but its noun phrase before it.)
            if (s + 1..cop).any(|k| matches!(self.word(k), "," | "and" | "did" | "do" | "does" | "has" | "have" | "had" | "when" | "where" | "who")) {
                continue;
            }
            let end = (cop + 1..e).find(|&k| matches!(self.word(k), "," | "and" | ";" | ":")).unwrap_or(e);
            let words: Vec<usize> = (cop + 1..end).filter(|&k| self.tokens[k].is_word() && !matches!(self.word(k), "a" | "an" | "the" | "all")).collect();
            if !words.is_empty() {
                out.push(words);
            }
        }
        out
    }

    /// The negation word a condition at `pos` sits under, for every route: "not", "no",
    /// "never", "non", "excluding", "except", "besides", "outside", "other than", "leaving
    /// out", with auxiliaries, articles, prepositions, determiners and one unused verb allowed
    /// between ("do not own cats", "not assigned to any route", "no longer active").
    pub fn negation_before(&self, ledger: &Ledger, pos: usize) -> Option<usize> {
        let mut p = pos;
        let mut steps = 0;
        let mut verbs = 0;
        while p > 0 && steps < 6 {
            p -= 1;
            steps += 1;
            let w = self.word(p);
            let after_negation = p > 0 && self.negations.contains(&(p - 1)) && ledger.is_content(p);
            if verbs == 0 && !ledger.is_used(p) && !self.negations.contains(&p) && (cues::is_light_verb(w) || after_negation) {
                verbs += 1;
                continue;
            }
            if self.negations.contains(&p) || matches!(w, "non" | "excluding" | "except" | "besides" | "outside" | "ignoring" | "omitting") || (w == "other" && self.word(p + 1) == "than") {
                return Some(p);
            }
            // "leaving out refunded tickets".
            if w == "out" && p > 0 && matches!(self.word(p - 1), "leaving" | "leave" | "left" | "leaves") {
                return Some(p);
            }
            // "no longer active": the negation is "no".
            if w == "longer" && p > 0 && self.word(p - 1) == "no" {
                continue;
            }
            if !NEGATION_GAP.contains(&w) {
                return None;
            }
        }
        None
    }
}

/// Words that may sit between a negation and what it negates.
const NEGATION_GAP: &[&str] = &[
    "be", "is", "are", "was", "were", "been", "a", "an", "any", "the", "yet", "ever", "have", "has", "had", "do", "does", "did", "in", "of", "from", "than", "by", "with", "currently",
    "still", "through", "via", "to", "on", "at", "for", "into", "single", "one", "our", "my", "your", "their", "these", "those",
];

/// Words after which a four-digit number is a count, not a year.
const NUMERIC_CUES: &[&str] = &["than", "over", "under", "above", "below", "least", "most", "exactly", "equals", "top", "first", "of", "to", "with", "has", "have", "had"];

/// Words that open a request for a list.
const LEADS: &[&str] = &["show", "list", "give", "return", "find", "get", "display", "name", "provide", "print", "output", "report", "tell", "fetch", "retrieve", "identify", "include", "select"];

/// Words that end a projection item list.
/// Question words whose misspellings are read as them.
const QUESTION_WORDS: &[&str] = &["which", "where"];

const BOUNDARY: &[&str] = &[
    "of", "for", "from", "in", "on", "at", "whose", "that", "who", "which", "where", "with", "by", "ordered", "sorted", "having", "than", "to", "when",
    "among", "across", "per", "before", "after", "since", "between", "if", "is", "are", "was", "were", "do", "does", "did", "has", "have", "had",
    "along", "together", "grouped", "under", "over", "within", "without", "except", "only", "please", "too", "as",
];

/// Bytes `start..end` of `question` lie inside one whitespace-free word that joins letters and
/// digits with hyphens (a code such as "B-2025-031").
fn in_code(question: &str, start: usize, end: usize) -> bool {
    let from = question[..start].rfind(char::is_whitespace).map_or(0, |k| k + 1);
    let to = question[end..].find(char::is_whitespace).map_or(question.len(), |k| end + k);
    let word = question[from..to].trim_end_matches(['.', ',', '?', '!', ';', ':', ')']).trim_start_matches(['(', '"', '\'']);
    word.len() > end - start && word.contains('-') && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// Read `question`; relative dates are relative to `today`.
pub fn analyse(question: &str, today: NaiveDate) -> Analysis {
    let mut tokens = tokens::tokenize(question);
    // "Whcih dogs …": a mistyped question word is read as the word (the text stays as written).
    for t in tokens.iter_mut().filter(|t| t.kind == TokenKind::Word) {
        if let Some(w) = QUESTION_WORDS.iter().find(|w| crate::edit::is_typo_of(&t.lower, w) && t.lower.len() >= 5) {
            t.lower = w.to_string();
            t.norm = w.to_string();
        }
    }
    let quantities = numbers::quantities(&tokens);
    let mut dates = dates::find_dates(&tokens, today);
    // "batch B-2025-031", "POL-2024-0012": a year inside a code is part of the code.
    dates.retain(|d| !in_code(question, tokens[d.start].start, tokens[d.end - 1].end));
    // "more than 2000 participants": a count, not the year 2000.
    dates.retain(|d| !(d.grain == Grain::Year && d.end == d.start + 1 && d.start > 0 && NUMERIC_CUES.contains(&tokens[d.start - 1].lower.as_str()) && !tokens[d.start - 1].lower.eq("of")));
    let mut date_tokens = vec![false; tokens.len()];
    for d in &dates {
        for flag in date_tokens.iter_mut().take(d.end).skip(d.start) {
            *flag = true;
        }
    }
    // A ranking's count ("the five largest") is no comparison.
    let mut taken = date_tokens.clone();
    for s in cues::superlatives(&tokens, &quantities) {
        if s.n.is_some() {
            for flag in taken.iter_mut().take(s.end).skip(s.start) {
                *flag = true;
            }
        }
    }
    let comparisons = cues::comparisons(&tokens, &quantities, &taken);
    // "the serial no of …", "invoice no, date and amount": "no" after a noun and before "of",
    // a list's comma or "and", or the end, is the abbreviation of "number", not a negation.
    let number_no = |i: usize| {
        tokens[i].lower == "no"
            && i > 0
            && tokens[i - 1].is_word()
            && !qa_core::text::is_stop(&tokens[i - 1].lower)
            && tokens.get(i + 1).is_none_or(|n| matches!(n.lower.as_str(), "of" | "and" | "for" | "," | "?" | "." | ":"))
    };
    let negations = (0..tokens.len()).filter(|&i| cues::is_negation(&tokens[i].lower) && !number_no(i)).collect();
    let aggregates = cues::aggregates(&tokens);
    let groupings = cues::groupings(&tokens);
    let orderings = cues::orderings(&tokens);
    // "from the oldest to the youngest", "cheapest first": the words order, they do not rank.
    let mut superlatives = cues::superlatives(&tokens, &quantities);
    superlatives.retain(|s| !orderings.iter().any(|o| o.start < s.end && s.start < o.end));
    let distinct = cues::distinct_words(&tokens);
    let sentences = sentences(&tokens);
    let mut cue = taken;
    for c in &comparisons {
        cue.iter_mut().take(c.end).skip(c.start).for_each(|f| *f = true);
    }
    for s in &superlatives {
        cue.iter_mut().take(s.end).skip(s.start).for_each(|f| *f = true);
    }
    for &n in &negations {
        cue[n] = true;
    }
    let mut projection = projection(&tokens, &sentences, &cue);
    for g in &aggregates {
        cue.iter_mut().take(g.end).skip(g.start).for_each(|f| *f = true);
    }
    let mut also: Vec<Item> = sentences.iter().flat_map(|&(s, e)| also_asked(&tokens, s + 1, e, &cue)).collect();
    if let Some(p) = projection.as_mut() {
        also.retain(|it| !p.items.iter().any(|x| x.start < it.end && it.start < x.end));
        p.items.append(&mut also);
    }
    let literals = literals(&tokens, &sentences);
    Analysis { question: question.to_string(), tokens, quantities, dates, comparisons, negations, superlatives, aggregates, groupings, orderings, distinct, projection, also, literals, sentences }
}

fn sentences(t: &[Token]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = 0;
    for (i, tok) in t.iter().enumerate() {
        let ends = tok.is_symbol('?') || tok.is_symbol(';') || (tok.kind == TokenKind::Symbol && tok.text == ".");
        if ends {
            if i > s {
                out.push((s, i));
            }
            s = i + 1;
        }
    }
    // A period between sentences is not a token: a capitalised lead word after a word that
    // ended with '.' in the text starts a sentence too ("… 2022. Drug names please.").
    if s < t.len() {
        out.push((s, t.len()));
    }
    out
}

/// The sentence `s..e` opens with a list of things asked "of" some rows: its first word is a
/// content word (no question word, verb, preposition, number or aggregate) and "of" follows
/// within a few words.
fn bare_list(t: &[Token], s: usize, e: usize) -> bool {
    let Some(first) = t.get(s).filter(|x| x.is_word()) else { return false };
    let opener = matches!(
        first.lower.as_str(),
        "what" | "which" | "who" | "whom" | "whose" | "how" | "when" | "where" | "why" | "is" | "are" | "was" | "were" | "do" | "does" | "did" | "can" | "could" | "has"
            | "have" | "had" | "will" | "would" | "should" | "there" | "in" | "on" | "for" | "at" | "from" | "during" | "between" | "of" | "by" | "per" | "each" | "every"
            | "all" | "any" | "number" | "count" | "total" | "average" | "avg" | "mean" | "sum" | "max" | "maximum" | "min" | "minimum" | "most" | "least" | "top"
            | "i" | "we" | "please"
    );
    // "the title, city and maximum salary of …": past an article.
    let article = matches!(first.lower.as_str(), "the" | "a" | "an");
    if article {
        return t.get(s + 1).is_some_and(|n| n.is_word() && !qa_core::text::is_stop(&n.lower)) && bare_list(t, s + 1, e);
    }
    !opener && !qa_core::text::is_verb_form(&first.lower) && first.number().is_none() && (s + 1..e.min(s + 7)).any(|k| t[k].lower == "of")
}

/// From `from`: up to eight plain words joined by "and" or commas, then "did"/"does"/"do"/
/// "has"/"have"/"had" ("What moisture and grade did … have?").
fn listed_before_aux(t: &[Token], from: usize, e: usize) -> bool {
    let mut joined = false;
    for (k, tok) in t.iter().enumerate().take(e.min(from + 9)).skip(from) {
        let x = tok.lower.as_str();
        if matches!(x, "did" | "does" | "do" | "has" | "have" | "had") {
            return joined && k > from + 2;
        }
        if x == "and" || tok.is_symbol(',') {
            joined = true;
            continue;
        }
        if !tok.is_word() || BOUNDARY.contains(&x) || tok.number().is_some() {
            return false;
        }
    }
    false
}

/// The projection list: after a lead ("show", "list the", "what are the", "give me"), or a short
/// trailing sentence that is only a list ("Names only.", "First and last name please.").
///
/// `cue` marks the tokens of dates, comparisons, superlatives and negations (a list after
/// "with" holds none of them).
fn projection(t: &[Token], sentences: &[(usize, usize)], cue: &[bool]) -> Option<Projection> {
    let w = |i: usize| t.get(i).map(|x| x.lower.as_str()).unwrap_or("");
    let mut best: Option<Projection> = None;
    // A clause after a comma may be a request of its own ("For each continent, list its id").
    let mut clauses: Vec<(usize, usize)> = Vec::new();
    let mut listed: Vec<usize> = Vec::new();
    for &(s, e) in sentences {
        clauses.push((s, e));
        for k in s..e {
            // ", list …", ", and return …".
            let lead_at = if t.get(k + 1).is_some_and(|x| matches!(x.lower.as_str(), "and" | "then")) { k + 2 } else { k + 1 };
            if t[k].is_symbol(',') && lead_at < e && LEADS.contains(&t[lead_at].lower.as_str()) && t[lead_at].lower != "name" {
                clauses.push((lead_at, e));
            }
            // "the still-open faults: turbine id, fault code and …", "contracts in pounds -
            // buyer and start date": a short list after a colon or a dash.
            if (t[k].is_symbol(':') || t[k].is_symbol('-') || t[k].is_symbol('–')) && k + 1 < e && e - k <= 12 && k > s {
                listed.push(clauses.len());
                clauses.push((k + 1, e));
            }
        }
    }
    for (si, &(s, e)) in clauses.iter().enumerate() {
        let mut i = s;
        // Lead words.
        let mut led = false;
        while i < e {
            let x = w(i);
            // "Name the sites …" asks; "Name and email." lists a name.
            let noun_name = x == "name" && (matches!(w(i + 1), "and" | "&" | "plus" | "only" | "") || t.get(i + 1).is_some_and(|n| n.kind == TokenKind::Symbol));
            let lead = LEADS.contains(&x) && (x != "name" || i == s) && !noun_name;
            if lead || matches!(x, "me" | "us" | "please" | "just" | "only" | "also" | "can" | "could" | "you" | "i" | "want" | "need" | "to" | "know") {
                led |= lead;
                i += 1;
            } else if matches!(x, "what" | "which" | "who") && matches!(w(i + 1), "is" | "are" | "was" | "were" | "s") {
                led = true;
                i += 2;
            } else if x == "what" && i == s && listed_before_aux(t, i + 1, e) {
                // "What moisture and grade did GD-17 have?": a list of two or more items
                // between "what" and an auxiliary that opens the rest of the question.
                led = true;
                i += 1;
            } else if matches!(x, "what" | "who") && t[i].possessive {
                // "What's the status of …": the tokenizer took the "'s" off.
                led = true;
                i += 1;
            } else {
                break;
            }
        }
        // A later short sentence is a list on its own ("Drug names please.").
        let trailing = si > 0 && e - s <= 12 && sentences.iter().any(|x| x.0 == s);
        // A question typed as a noun phrase, the way a search box is used: "serial numbers of
        // the curtailed turbines", "first and last names of the technicians who …".
        let bare = si == 0 && i == s && bare_list(t, s, e);
        if !led && !trailing && !bare && !listed.contains(&si) {
            continue;
        }
        // "all of the": "of" is skipped only after "all".
        while matches!(w(i), "the" | "all" | "their" | "its" | "his" | "her" | "each" | "every" | "a" | "an") || (w(i) == "of" && w(i.wrapping_sub(1)) == "all") {
            i += 1;
        }
        let start = i;
        let mut items: Vec<Item> = Vec::new();
        let mut cur = i;
        let mut k = i;
        while k < e {
            let x = w(k);
            let sep = t[k].is_symbol(',') || matches!(x, "and" | "&" | "plus") || (x == "as" && w(k + 1) == "well" && w(k + 2) == "as");
            // "titles of songs and names of singers": "of" inside items that each have one.
            let inner_of = x == "of" && of_in_each_item(t, k, e);
            // "the vessels built before 2005": a participle that opens a clause ends the item.
            // (Any regular participle: "the patients admitted in December" — not "speed".)
            let regular = x.len() > 4 && x.ends_with("ed") && !x.ends_with("eed");
            let clause = k > cur && (qa_core::text::is_participle(x) || regular || matches!(x, "built" | "made" | "sold" | "held" | "bought" | "paid" | "sent" | "run" | "taken" | "given")) && BOUNDARY.contains(&w(k + 1));
            if !inner_of && (sep || clause || BOUNDARY.contains(&x) || t[k].kind == TokenKind::Symbol || t[k].number().is_some() && !trailing) {
                if k > cur {
                    items.push(Item { start: cur, end: k, head: None });
                }
                if !sep {
                    break;
                }
                k += if x == "as" { 3 } else { 1 };
                while matches!(w(k), "the" | "their" | "its" | "and" | "a" | "an") || t.get(k).is_some_and(|x| x.is_symbol(',')) {
                    k += 1;
                }
                cur = k;
                continue;
            }
            if k - cur >= if (cur..k).any(|i| w(i) == "of") { 6 } else { 4 } {
                break;
            }
            k += 1;
        }
        if k >= e && k > cur && k - cur <= 4 {
            items.push(Item { start: cur, end: k, head: None });
        }
        if items.is_empty() {
            continue;
        }
        let end = items.last().map(|it| it.end).unwrap_or(start);
        // "List the crew of the MS Havorn with their roles": what is listed "with their" each.
        // (Also after a comma: "List the disputed claims reported in 2025, with the claim
        // number and the policy number"; and without either when what follows "with" is a
        // list of two or more plain items that ends the clause: "Show the ten most expensive
        // sessions with the session ID, city and cost" — not "with the highest cost", whose
        // words rank, nor "with more than 3 rooms".)
        // ("Name the sites commissioned after 2015 and their grid operator": "and their" as
        // "with their".)
        for k in (end..e.saturating_sub(2)).filter(|&k| w(k) == "with" || w(k) == "and" && matches!(w(k + 1), "their" | "its")) {
            // ("with the patient's name": a possessive says whose field is listed.)
            let marked = matches!(w(k + 1), "their" | "its") || (k > 0 && t[k - 1].is_symbol(',') && w(k + 1) == "the") || (w(k + 1) == "the" && t.get(k + 2).is_some_and(|x| x.possessive));
            let mut extra: Vec<Item> = Vec::new();
            let mut cur = k + 1;
            while matches!(w(cur), "the" | "their" | "its") {
                cur += 1;
            }
            let mut j = cur;
            while j <= e {
                // ("with their number of seats": one "of" inside a short item.)
                let inner_of = j < e && w(j) == "of" && j > cur && j - cur <= 2 && !(cur..j).any(|i| w(i) == "of") && t.get(j + 1).is_some_and(|x| x.is_word() && !qa_core::text::is_stop(&x.lower));
                let stop = j == e || (BOUNDARY.contains(&w(j)) && !inner_of) || t[j].kind == TokenKind::Symbol || matches!(w(j), "and" | "&");
                if stop {
                    if j > cur && j - cur <= 3 + usize::from((cur..j).any(|i| w(i) == "of")) && (cur..j).all(|i| t[i].is_word()) {
                        extra.push(Item { start: cur, end: j, head: None });
                    }
                    if j < e && (matches!(w(j), "and" | "&") || t[j].is_symbol(',')) {
                        cur = j + 1;
                        while matches!(w(cur), "the" | "their" | "its") {
                            cur += 1;
                        }
                        j = cur;
                        continue;
                    }
                    break;
                }
                j += 1;
            }
            let ends_clause = (j..e).all(|i| t[i].kind == TokenKind::Symbol || matches!(w(i), "please" | "too" | "also"));
            let plain = extra.len() >= 2 && ends_clause && extra.iter().all(|it| (it.start..it.end).all(|i| !cue[i] && t[i].number().is_none()));
            if marked || plain {
                items.extend(extra);
                break;
            }
        }
        // "first and last name", "first, middle, and last names": the head of the next longer
        // item may be shared (the linker tries the word alone first).
        for j in (0..items.len().saturating_sub(1)).rev() {
            // (Only within one list: "vessels …, with their year built" shares nothing.)
            if items[j].end - items[j].start == 1 && items[j + 1].start <= items[j].end + 3 {
                let next = &items[j + 1];
                items[j].head = if next.end - next.start >= 2 { Some(next.end - 1) } else { next.head };
            }
        }
        // "the name of each teacher and what course they teach": a question word after "and"
        // asks for one more thing of the same rows.
        for k in end..e.saturating_sub(2) {
            // ("… and when the job started": the date its verb names.)
            if w(k) == "and" && matches!(w(k + 1), "what" | "which" | "when") {
                let from = k + 2;
                let to = (from..(from + 4).min(e)).find(|&i| matches!(w(i), "they" | "he" | "she" | "it" | "is" | "are" | "was" | "were" | "do" | "does" | "did" | "each") || t[i].kind == TokenKind::Symbol).unwrap_or(e.min(from + 3));
                if to > from && (from..to).all(|i| t[i].is_word()) {
                    items.push(Item { start: from, end: to, head: None });
                }
                break;
            }
        }
        let p = Projection { items, start: if led { s } else { start }, end };
        // The longest list wins (a lead's list over a trailing sentence's of one item).
        if best.as_ref().is_none_or(|b| p.items.len() > b.items.len()) {
            best = Some(p);
        }
    }
    best
}

/// "…, and in which city?", "and which flight was it for", "and what are their roles": a
/// coordinated clause that asks for one more thing of the rows the question is about. Its noun
/// (one to three words, no cue word) is an item; a clause without one ("and what did it come
/// to") asks for nothing this reader can name.
fn also_asked(t: &[Token], from: usize, e: usize, cue: &[bool]) -> Vec<Item> {
    let w = |i: usize| t.get(i).map(|x| x.lower.as_str()).unwrap_or("");
    let ends = |i: usize| i >= e || t[i].kind == TokenKind::Symbol || matches!(w(i), "is" | "are" | "was" | "were" | "did" | "does" | "do" | "has" | "have" | "had" | "it" | "they" | "each" | "he" | "she" | "and");
    let mut out = Vec::new();
    for k in from..e {
        if w(k) != "and" {
            continue;
        }
        let mut j = k + 1;
        if matches!(w(j), "in" | "on" | "at" | "for" | "from" | "to" | "by" | "with" | "of" | "into") {
            j += 1;
        }
        if !matches!(w(j), "which" | "what") {
            continue;
        }
        j += 1;
        if matches!(w(j), "is" | "are" | "was" | "were") {
            j += 1;
        }
        while matches!(w(j), "the" | "their" | "its" | "his" | "her") {
            j += 1;
        }
        let start = j;
        while j < e && j - start < 3 && t[j].is_word() && !cue[j] && !qa_core::text::is_stop(w(j)) {
            j += 1;
        }
        if j > start && ends(j) {
            out.push(Item { start, end: j, head: None });
        }
    }
    // "shipments in transit with their courier and weight": what each row is listed with.
    for k in from..e.saturating_sub(2) {
        if !(w(k) == "with" && matches!(w(k + 1), "their" | "its")) {
            continue;
        }
        let mut j = k + 2;
        loop {
            let start = j;
            while j < e && j - start < 3 && t[j].is_word() && !cue[j] && !qa_core::text::is_stop(w(j)) {
                j += 1;
            }
            if j == start {
                break;
            }
            out.push(Item { start, end: j, head: None });
            // (", and", "and", "," go on to the next item; "and their" too.)
            while j < e && (t[j].is_symbol(',') || matches!(w(j), "and" | "their" | "its" | "the")) {
                j += 1;
            }
        }
        break;
    }
    out
}

/// At `k` an "of" that is inside a list item: a separator follows within four words, and the
/// next item has an "of" of its own ("titles of songs and names of singers").
fn of_in_each_item(t: &[Token], k: usize, e: usize) -> bool {
    let w = |i: usize| t.get(i).map(|x| x.lower.as_str()).unwrap_or("");
    let Some(sep) = (k + 1..(k + 5).min(e)).find(|&i| matches!(w(i), "and" | "&") || t[i].is_symbol(',')) else { return false };
    (sep + 1..(sep + 5).min(e)).any(|i| w(i) == "of")
}

/// Quoted text, and runs of capitalised words that are not a sentence's first word (unless
/// it is not a common word either).
fn literals(t: &[Token], sentences: &[(usize, usize)]) -> Vec<Literal> {
    let starts: Vec<usize> = sentences.iter().map(|s| s.0).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].kind == TokenKind::Quoted {
            out.push(Literal { start: i, end: i + 1, text: t[i].text.clone(), quoted: true });
            i += 1;
            continue;
        }
        let name_like = |k: usize| t[k].is_word() && (t[k].capitalized() || t[k].text.chars().any(|c| c.is_ascii_digit()) && t[k].text.chars().any(char::is_alphabetic)) && !(starts.contains(&k) && qa_core::text::is_stop(&t[k].lower)) && !(starts.contains(&k) && (LEADS.contains(&t[k].lower.as_str()) || matches!(t[k].lower.as_str(), "how" | "what" | "which" | "who" | "count" | "find")));
        if name_like(i) {
            let mut j = i + 1;
            // A code glued by a hyphen ("SHP-001751", "TKT-10050"): one literal.
            let glued = |k: usize| k > 0 && t[k - 1].hyphen_next && t[k - 1].end + 1 == t[k].start && (t[k].is_word() || t[k].number().is_some());
            // "Port of Spain", "Bank of America": one lower-case "of"/"de"/"la" inside a name.
            while j < t.len() && (name_like(j) || glued(j) || (matches!(t[j].lower.as_str(), "of" | "de" | "la" | "del" | "da" | "van" | "von" | "&") && j + 1 < t.len() && name_like(j + 1))) {
                j += 1;
            }
            let mut text = String::new();
            for (k, tok) in t.iter().enumerate().take(j).skip(i) {
                if k > i {
                    text.push(if glued(k) { '-' } else { ' ' });
                }
                text.push_str(&tok.text);
            }
            out.push(Literal { start: i, end: j, text, quoted: false });
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// "the most late deliveries", "the most disputed claims": a superlative's adjective that is
/// a flag's word (`delivered_late`, `was_disputed`) is the rows' condition, and "most" counts
/// them. `is_flag_word(i)` says whether token `i` reads as a flag.
pub fn release_flag_adjectives(a: &mut Analysis, is_flag_word: impl Fn(usize) -> bool) {
    for s in a.superlatives.iter_mut() {
        let last = s.end.saturating_sub(1);
        let most = last > s.start && matches!(a.tokens[last - 1].lower.as_str(), "most" | "least" | "fewest");
        if s.adjective.is_some() && !s.mode && most && is_flag_word(last) {
            // ("the most short picks": most of them, whatever "short" would rank.)
            s.desc = a.tokens[last - 1].lower == "most";
            s.adjective = None;
            s.end = last;
            s.target = last;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(q: &str) -> Analysis {
        analyse(q, NaiveDate::from_ymd_opt(2026, 11, 26).unwrap())
    }

    fn items(q: &str) -> Vec<String> {
        let a = a(q);
        a.projection
            .map(|p| {
                p.items
                    .iter()
                    .map(|it| {
                        let s: Vec<&str> = a.tokens[it.start..it.end].iter().map(|t| t.lower.as_str()).collect();
                        format!("{}{}", s.join(" "), if it.head.is_some() { "+" } else { "" })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn years_in_codes_starting_in_and_flag_adjectives() {
        // A year inside a code is part of the code; one said alone is a date.
        assert!(a("What did batch B-2025-031 cost?").dates.is_empty());
        assert_eq!(a("Batches of 2025").dates.len(), 1);
        // "starting in 2025" is within 2025, "starting 2025" opens a range.
        let d = &a("policies starting in 2025").dates[0];
        assert_eq!((d.from, d.to), (NaiveDate::from_ymd_opt(2025, 1, 1), NaiveDate::from_ymd_opt(2025, 12, 31)));
        assert!(a("policies starting 2025").dates[0].to.is_none());
        // "the most late parcels": "late" leaves the ranking when it reads as a flag.
        let mut x = a("Which country had the most late parcels?");
        assert_eq!(x.superlatives[0].adjective.as_deref(), Some("new"));
        release_flag_adjectives(&mut x, |i| i == 5);
        assert_eq!((x.superlatives[0].adjective.as_deref(), x.superlatives[0].end), (None, 5));
    }

    #[test]
    fn lists_after_a_comma_and_clauses_in_items() {
        assert_eq!(items("List the disputed claims, with the claim number and the policy number."), ["disputed claims", "claim number", "policy number"]);
        assert_eq!(items("List the vessels built before 2005, with their year built."), ["vessels", "year built"]);
    }

    #[test]
    fn projection_lists() {
        assert_eq!(items("List the VIN, model and list price of electric vehicles that cost more than 40000"), ["vin+", "model+", "list price"]);
        assert_eq!(items("Show name, country, age for all singers ordered by age"), ["name", "country", "age"]);
        assert_eq!(items("Which candidates live in Spain? Name and email."), ["name", "email"]);
        assert_eq!(items("serial numbers of the curtailed turbines"), ["serial numbers"]);
        assert_eq!(items("first and last names of the riders who paid"), ["first+", "last names"]);
        assert!(items("number of contracts per buyer").is_empty());
        assert_eq!(items("the title, city and top fare of remote routes"), ["title+", "city+", "top fare"]);
        assert_eq!(items("contracts priced in pounds - buyer and start date"), ["buyer+", "start date"]);
        assert_eq!(items("Show the open faults: turbine id, fault code and severity."), ["turbine id", "fault code", "severity"]);
        assert_eq!(items("What are the names and ages of the teachers?"), ["names", "ages"]);
        assert_eq!(items("Which owners registered in 2025? Give their first and last names."), ["first+", "last names"]);
        assert_eq!(items("Which trials ended in 2022? Drug names please."), ["drug names"]);
        assert!(items("How many singers are there?").is_empty());
        // A plain list after "with" that ends the clause lists; a ranking or a number after it does not.
        assert_eq!(items("Show the ten most expensive sessions with the session ID, city and cost."), ["ten most expensive sessions", "session id", "city", "cost"]);
        assert_eq!(items("List the batches brewed in 2025 with batch code and brew date."), ["batches", "batch code", "brew date"]);
        assert_eq!(items("Show the sessions with the highest cost and the longest duration"), ["sessions"]);
        assert_eq!(items("List the hotels with more than 3 suites and a spa"), ["hotels"]);
        assert_eq!(items("List the members with the session ID, city and cost who live in Oslo"), ["members"]);
        // "and their" after a clause lists as "with their" does; an item may hold one "of".
        assert_eq!(items("Name the sites commissioned after 2015 and their grid operator."), ["sites", "grid operator"]);
        assert_eq!(items("Show the van models with their number of seats and daily rate in euros."), ["van models", "number of seats", "daily rate"]);
    }

    fn also(q: &str) -> Vec<String> {
        let a = a(q);
        a.also.iter().map(|it| a.tokens[it.start..it.end].iter().map(|t| t.lower.as_str()).collect::<Vec<_>>().join(" ")).collect()
    }

    #[test]
    fn a_coordinated_clause_asks_for_one_more_thing_of_the_rows() {
        assert_eq!(also("Which hotels are five-star, and in which cities?"), ["cities"]);
        assert_eq!(also("Which staff at MAD were hired before 2018, and what are their roles?"), ["roles"]);
        assert_eq!(also("Which bookings were cancelled, and which flight was each for?"), ["flight"]);
        assert_eq!(also("Which works by Louis Moreau are on display, and in which gallery?"), ["gallery"]);
        assert_eq!(also("shipments in transit with their courier and weight"), ["courier", "weight"]);
        // Nothing this reader can name ("what did it come to"), or a cue word ("the average").
        assert!(also("Who was invoice INV-2025-0215 for, and what did it come to?").is_empty());
        assert!(also("For each type, how many lifts are there and what is their average capacity?").is_empty());
        // With a projection list, the items join it instead.
        let x = a("Show the hotels in Porto, and in which cities?");
        assert!(x.also.is_empty() && x.projection.is_some_and(|p| p.items.len() == 2));
    }

    #[test]
    fn the_predicate_after_the_copula_of_which() {
        let words = |q: &str| {
            let a = a(q);
            a.copula_predicates().into_iter().map(|ws| ws.iter().map(|&k| a.tokens[k].lower.clone()).collect::<Vec<_>>().join(" ")).collect::<Vec<_>>()
        };
        assert_eq!(words("Which items are still out? Give the title."), ["still out"]);
        assert_eq!(words("Which Belgian customers are companies?"), ["companies"]);
        // Not the copula of the subject: more than its noun phrase before it.
        assert!(words("Which hives did Anna inspect, and which are weak?").is_empty());
        assert!(words("How many items are out?").is_empty());
    }

    #[test]
    fn years_after_comparators_are_counts_and_literals_are_found() {
        let x = a("trials with more than 2000 participants in 2024");
        assert_eq!(x.dates.len(), 1);
        assert_eq!(x.dates[0].year, Some(2024));
        assert_eq!(x.comparisons.len(), 1);
        let x = a("How many appointments did Dr. Santos have at 'Main Street Clinic' in Port of Spain?");
        let lits: Vec<&str> = x.literals.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(lits, ["Dr Santos", "Main Street Clinic", "Port of Spain"]);
        let x = a("show shipment SHP-001751 and ticket tkt-7");
        let lits: Vec<&str> = x.literals.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(lits, ["SHP-001751"]);
        // A code with two numeric parts stays one literal.
        let x = a("What's the status of BP-2024-00406?");
        let lits: Vec<&str> = x.literals.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(lits, ["BP-2024-00406"]);
        // "What's …" leads a projection as "What is …" does.
        assert_eq!(items("What's the status of BP-2024-00406?"), items("What is the status of BP-2024-00406?"));
        assert!(!items("What's the status of BP-2024-00406?").is_empty());
    }
}

