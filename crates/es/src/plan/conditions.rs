//! Conditions: text the question asks to be searched ("mentioning the VPN", "whose notes mention
//! mould", a quoted literal), numbers compared to the field they measure (named before the cue,
//! after the number, by a measure adjective, or by the unit, converted: "more than 1 km" on
//! `distance_m` is 1000), "no violations" on a count field, dates on the field they date
//! (`plan/dates.rs`), flags ("verified", "unresolved", "not resolved", "with a photo") and stored values (negated
//! after "not"; values of one field said together are one `terms`).

use std::collections::BTreeMap;

use chrono::Datelike;
use serde_json::{json, Value};

use qa_question::cues::{measure_hint, measure_of, Comparison, Op};
use qa_question::link::{How, Link, Target};
use qa_question::names;
use qa_question::numbers::{convert, field_unit, Dimension, Quantity, Unit};
use qa_question::tokens::TokenKind;
use qa_question::FieldKind;

use super::read::Reader;
use super::{BucketOrder, Filter, Group};
use crate::Ambiguity;

/// Words that ask for documents containing text; what follows is the text.
pub(super) fn is_text_cue(w: &str) -> bool {
    matches!(w, "mention" | "mentions" | "mentioning" | "mentioned" | "contain" | "contains" | "containing" | "contained")
}

/// Words that end the text of a text cue.
const TEXT_END: &[&str] = &[
    "in", "on", "at", "since", "before", "after", "from", "with", "without", "that", "which", "who", "whose", "where", "when", "and", "or", "but", "for", "by",
    "during", "than", "per", "between", "to", "is", "are", "was", "were", "be", "been", "has", "have", "had", "do", "does", "did", "not", "of", "their", "its",
];

/// Words that name money (a money unit compares with a field named so when no field carries a
/// currency in its name).
const MONEY_WORDS: &[&str] = &["price", "cost", "amount", "fee", "fine", "total", "budget", "salary", "earning", "revenue", "charge", "balance", "income", "wage", "spend", "value", "worth", "bill", "invoice", "payment", "fare", "tax", "tip", "refund", "penalty"];

/// The dimension a measure noun names.
fn noun_dimension(noun: &str) -> Option<Dimension> {
    Some(match noun {
        "length" | "height" | "depth" | "distance" | "width" | "far" | "near" | "tall" | "deep" | "elevation" | "altitude" => Dimension::Length,
        "duration" | "time" | "hour" | "minute" | "day" | "long" | "short" => Dimension::Time,
        "weight" | "mass" => Dimension::Mass,
        "temperature" | "temp" => Dimension::Temperature,
        "price" | "cost" | "amount" | "fee" | "fare" | "charge" | "fine" | "rate" | "total" | "worth" | "wealth" | "income" | "earning" | "salary" => Dimension::Money,
        "volume" => Dimension::Volume,
        "area" | "surface" | "size" | "floorspace" => Dimension::Area,
        _ => return None,
    })
}

fn number(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e15 { json!(v as i64) } else { json!(v) }
}

fn bounds(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

impl Reader<'_> {
    /// Add a filter said by tokens `span`.
    pub fn push_filter(&mut self, span: (usize, usize), f: Filter) {
        self.plan.filters.push(f);
        self.filter_spans.push(span);
    }

    pub fn conditions(&mut self) -> Result<(), Ambiguity> {
        self.index_words();
        self.top_n_count();
        self.strong_text();
        self.comparisons()?;
        self.comparison_tails();
        self.zero_counts();
        self.dates()?;
        self.flags_and_values()?;
        self.event_states();
        self.optional_fields();
        Ok(())
    }

    /// "applications submitted without an architect", "listings with an agent": a keyword
    /// field some documents lack (`architectFirm`), named after "with", "without", "no" or
    /// "has", is whether the document holds one.
    fn optional_fields(&mut self) {
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let mut p = self.ms[mi].start;
            while p > 0 && matches!(self.word(p - 1), "a" | "an" | "any") {
                p -= 1;
            }
            if p == 0 || !matches!(self.word(p - 1), "with" | "without" | "no" | "has" | "have" | "had") {
                continue;
            }
            let optional = |f: &str| self.schema.collections.first().and_then(|c| c.field(f)).is_some_and(|x| x.nullable && matches!(x.kind, FieldKind::Keyword | FieldKind::Text));
            let Some(field) = self
                .readings(mi)
                .iter()
                .filter(|l| matches!(l.how, How::Name | How::Core | How::Head | How::Part | How::Synonym))
                .filter_map(|l| l.target.field().map(str::to_string))
                .find(|f| optional(f))
            else {
                continue;
            };
            let negated = matches!(self.word(p - 1), "without" | "no") || self.negation_before(p - 1).is_some();
            let role = if negated { format!("{field} missing") } else { format!("{field} present") };
            self.mark(p - 1..p, role.clone());
            self.consume(mi, role);
            self.push_filter((p - 1, self.ms[mi].end), Filter::Exists { field, negated });
        }
    }

    /// The index named ("tickets", "inspection"): the documents themselves — also when a
    /// field's shortened name reads the same ("teachers" in an index of teachers with a
    /// `teacher_id`); a field said by its whole name stays a field.
    fn index_words(&mut self) {
        for mi in 0..self.ms.len() {
            let field_named = self.readings(mi).iter().any(|l| matches!(l.target, Target::Field { .. }) && matches!(l.how, How::Name | How::Synonym));
            // ("per warehouse" in an index `warehouse_picks`: the group's field, read later.)
            // ("which warehouse had the most …": the group too.)
            let start = self.ms[mi].start;
            // ("which three courses …": past a count of groups.)
            let counted = start > 1 && (qa_question::numbers::number_word(self.word(start - 1)).is_some() || self.word(start - 1).chars().all(|c| c.is_ascii_digit()));
            let which_at = if counted { start - 1 } else { start };
            let which = which_at > 0 && matches!(self.word(which_at - 1), "which" | "what") && !(self.a.superlatives.is_empty() && self.a.aggregates.is_empty());
            let grouped = (which || self.a.groupings.iter().any(|g| self.skip_filler(g.target) == start)) && self.modifier_of_index(mi);
            if !grouped && (self.names_index(mi) || (self.may_name_index(mi) && !field_named && self.value_readings(mi).is_empty())) {
                let role = format!("index {}", self.mapping.index);
                self.consume(mi, role);
            }
        }
    }

    /// "The 5 tickets …", "the first 10 documents": how many hits are asked for.
    fn top_n_count(&mut self) {
        for q in self.a.quantities.clone() {
            let whole = q.unit.is_none() && !q.year_like && q.value.fract() == 0.0 && (1.0..=1000.0).contains(&q.value);
            if !whole || self.a.superlatives.iter().any(|s| s.start <= q.at && q.at < s.end) {
                continue;
            }
            let before = if q.start == 0 { String::new() } else { self.word(q.start - 1).to_string() };
            let lead = q.start == 0 || matches!(before.as_str(), "the" | "top" | "first" | "show" | "list" | "give" | "find" | "which" | "what");
            // "the three farmers who delivered the most": a count of the groups a ranking after
            // it orders (the noun names a field, not the records).
            let first = self.ms.iter().position(|m| m.start == q.end);
            let ranked_group = lead && q.value >= 2.0 && self.a.superlatives.iter().any(|s| s.start > q.end) && first.is_some_and(|mi| !self.names_index(mi) && self.fields_of(mi).iter().any(|(f, ..)| self.is_groupable(f)));
            if ranked_group {
                self.top_n = Some((q.value as usize, q.at));
                self.mark(q.start..q.end, format!("limit {}", q.value));
                return;
            }
            // "the four sold listings": past a flag or value said of them.
            let Some(mi) = first.and_then(|mi| {
                if self.names_index(mi) {
                    return Some(mi);
                }
                let next = self.ms.iter().position(|m| m.start == self.ms[mi].end)?;
                (self.names_index(next) && self.readings(mi).iter().any(|l| matches!(l.target, Target::Value { .. }) || l.target.field().is_some_and(|f| self.kind(f) == FieldKind::Flag))).then_some(next)
            }) else {
                continue;
            };
            if lead && self.names_index(mi) {
                self.top_n = Some((q.value as usize, q.at));
                self.mark(q.start..q.end, format!("limit {}", q.value));
                if before == "top" {
                    self.mark(q.start - 1..q.start, format!("limit {}", q.value));
                }
                return;
            }
        }
    }

    /// The prose fields (text searched by words).
    pub fn prose_fields(&self) -> Vec<String> {
        self.schema.collections.first().map(|c| c.fields.iter().filter(|f| f.kind == FieldKind::Text).map(|f| f.name.clone()).collect()).unwrap_or_default()
    }

    /// The text fields a text cue at `cue` searches: one named right before it ("whose notes
    /// mention"), else every prose field; and the mention that named it.
    pub fn text_fields(&self, cue: usize) -> Option<(Vec<String>, Option<usize>)> {
        let mut p = cue;
        while p > 0 && matches!(self.word(p - 1), "whose" | "that" | "which" | "the" | "its" | "their" | "where") {
            p -= 1;
        }
        if let Some(mi) = self.ms.iter().position(|m| m.end == p).filter(|&mi| !self.used[mi]) {
            let named: Vec<String> = self.fields_of(mi).into_iter().map(|(f, ..)| f).filter(|f| self.mapping.field(f).is_some_and(|x| x.kind == crate::FieldKind::Text)).collect();
            if let Some(f) = named.first() {
                return Some((vec![f.clone()], Some(mi)));
            }
        }
        let prose = self.prose_fields();
        (!prose.is_empty()).then_some((prose, None))
    }

    /// The words a text cue asks for, from `from`: a quoted literal, or up to four words until
    /// a word that ends the phrase. `(start, end, text)`.
    pub fn text_after(&self, from: usize) -> Option<(usize, usize, String)> {
        let mut j = from;
        // ("found near an escalator": a place's preposition and article say where, not what
        // the text holds.)
        loop {
            let w = self.word(j);
            if j < self.n() && matches!(w, "the" | "a" | "an" | "any" | "some" | "word" | "words" | "term" | "terms" | "phrase" | "text" | "near" | "nearby" | "beside" | "behind" | "under" | "underneath" | "beneath" | "inside" | "outside" | "around" | "against" | "along") {
                j += 1;
            } else if j + 1 < self.n() && matches!(w, "next" | "close") && self.word(j + 1) == "to" {
                j += 2;
            } else {
                break;
            }
        }
        let t = self.a.tokens.get(j)?;
        if t.kind == TokenKind::Quoted && !self.ledger.is_used(j) {
            return Some((from, j + 1, t.text.clone()));
        }
        let mut k = j;
        while k < self.n() && k < j + 4 {
            let tok = &self.a.tokens[k];
            if !tok.is_word() || self.ledger.is_used(k) || TEXT_END.contains(&tok.lower.as_str()) || self.a.dates.iter().any(|d| d.start == k) {
                break;
            }
            k += 1;
        }
        (k > j).then(|| (from, k, self.phrase(j, k)))
    }

    /// Push a text filter for words `ws..we` of cue `cue` (marking `ms..we`).
    pub fn place_text(&mut self, mark_from: usize, we: usize, text: String, fields: Vec<String>, named: Option<usize>) {
        // Words said in quotes are a phrase; said plainly ("mention neighbours worried about
        // daylight"), each must occur, in any order: a phrase the text words differently would
        // answer a confident 0.
        let quoted = (mark_from..we).any(|k| self.a.tokens.get(k).is_some_and(|t| t.kind == TokenKind::Quoted));
        let phrase = quoted && text.split_whitespace().count() > 1;
        let role = format!("{} matches \"{text}\"", if fields.len() == 1 { fields[0].clone() } else { "text".into() });
        self.mark(mark_from..we, role.clone());
        if let Some(mi) = named {
            self.consume(mi, role);
        }
        self.push_filter((mark_from, we), Filter::Text { fields, text, phrase });
    }

    /// "mentioning the VPN", "whose notes mention mould", "containing 'jam'", "with the word X".
    fn strong_text(&mut self) {
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            let with_word = w == "with" && matches!(self.word(i + 1), "the" | "a") && matches!(self.word(i + 2), "word" | "words" | "term" | "phrase");
            if !(is_text_cue(&w) || with_word) || self.ledger.is_used(i) {
                continue;
            }
            let Some((_, we, text)) = self.text_after(i + 1) else { continue };
            let Some((fields, named)) = self.text_fields(i) else { continue };
            self.place_text(i, we, text, fields, named);
        }
        // A quoted literal no value matched: text to search.
        for k in 0..self.n() {
            if self.a.tokens[k].kind != TokenKind::Quoted || self.ledger.is_used(k) {
                continue;
            }
            let valued = self.mention_covering(k).is_some_and(|mi| !self.value_readings(mi).is_empty());
            if valued {
                continue;
            }
            let Some((fields, named)) = self.text_fields(k) else { continue };
            let text = self.a.tokens[k].text.clone();
            self.place_text(k, k + 1, text, fields, named);
        }
    }

    /// Numeric fields whose name says a measure noun of `adjective`, else whose unit is of the
    /// noun's dimension.
    pub fn adjective_fields(&self, adjective: &str) -> Vec<String> {
        let Some((_, nouns, _)) = measure_of(adjective) else { return Vec::new() };
        let measures: Vec<String> = self.measures();
        let named: Vec<String> = measures.iter().filter(|f| names::name_words(f).iter().any(|w| nouns.contains(&w.as_str()))).cloned().collect();
        if !named.is_empty() {
            return named;
        }
        let dims: Vec<Dimension> = nouns.iter().filter_map(|n| noun_dimension(n)).collect();
        measures.into_iter().filter(|f| field_unit(f).is_some_and(|u| dims.contains(&u.dimension))).collect()
    }

    /// Every measure field (numeric, not a key).
    pub fn measures(&self) -> Vec<String> {
        self.schema.collections.first().map(|c| c.fields.iter().filter(|f| self.is_measure(&f.name)).map(|f| f.name.clone()).collect()).unwrap_or_default()
    }

    /// Measure fields a unit fits: by the unit of their name, or money words for a currency.
    pub fn unit_fields(&self, u: Unit) -> Vec<String> {
        let measures = self.measures();
        let by_unit: Vec<String> = measures.iter().filter(|f| field_unit(f).is_some_and(|fu| fu.dimension == u.dimension)).cloned().collect();
        if !by_unit.is_empty() || u.dimension != Dimension::Money {
            return by_unit;
        }
        measures.into_iter().filter(|f| field_unit(f).is_none() && names::name_words(f).iter().any(|w| MONEY_WORDS.contains(&w.as_str()))).collect()
    }

    /// Among several fields, those whose name words (or their families) the question says
    /// elsewhere; all of them when none or all are.
    pub fn narrow_by_words(&self, cands: Vec<String>) -> Vec<String> {
        let fams: Vec<String> = self.a.tokens.iter().filter(|t| t.is_word() && t.lower.len() >= 4).map(|t| qa_core::text::word_family(&t.lower)).collect();
        let said: Vec<String> = cands
            .iter()
            .filter(|f| names::name_words(f).iter().any(|w| w.len() >= 4 && !names::GENERIC_SUFFIXES.contains(&w.as_str()) && fams.iter().any(|x| *x == qa_core::text::word_family(w))))
            .cloned()
            .collect();
        if said.is_empty() || said.len() == cands.len() { cands } else { said }
    }

    /// A keyword field whose values are all numbers ("age" stored as text): equality only.
    fn numeric_keyword(&self, field: &str) -> bool {
        self.schema.collections.first().and_then(|c| c.field(field)).is_some_and(|f| f.kind == FieldKind::Keyword && !f.values.is_empty() && f.values.iter().all(|v| v.trim().parse::<f64>().is_ok()))
    }

    /// The field mention `mi` names that a number compares with.
    fn compared_of(&self, mi: usize, eq: bool) -> Option<String> {
        self.measure_of(mi).or_else(|| eq.then(|| self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.numeric_keyword(f))).flatten())
    }

    /// The field a comparison measures, and the mention that named it.
    fn measured(&mut self, c: &Comparison, q: &Quantity) -> Result<Option<(String, Option<usize>)>, Ambiguity> {
        let after = c.end.max(q.end);
        let eq = matches!(c.op, Op::Eq | Op::Ne) && c.high.is_none();
        if let Some(mi) = self.mention_at(after).filter(|&mi| !self.used[mi])
            && let Some(f) = self.compared_of(mi, eq)
        {
            return Ok(Some((f, Some(mi))));
        }
        if let Some(mi) = self.mention_before(c.start).filter(|&mi| !self.used[mi])
            && let Some(f) = self.compared_of(mi, eq)
        {
            return Ok(Some((f, Some(mi))));
        }
        // "a greater weight than 10": named inside the cue.
        if let Some(mi) = self.ms.iter().position(|m| m.start >= c.start && m.end <= q.start).filter(|&mi| !self.used[mi])
            && let Some(f) = self.compared_of(mi, eq)
        {
            return Ok(Some((f, Some(mi))));
        }
        // "either 32 or 33", "no less than 3000 and no more than 4000": the field of the number
        // before.
        let joined = if eq && c.cue.is_empty() { q.start } else { c.start };
        if joined > 0 && matches!(self.word(joined - 1), "or" | "and" | ",")
            && let Some(f) = self.last_compared.clone()
        {
            return Ok(Some((f, None)));
        }
        let mut cands: Vec<String> = c.adjective.as_deref().map(|a| self.adjective_fields(a)).unwrap_or_default();
        if let Some(u) = q.unit {
            let by_unit = self.unit_fields(u);
            if cands.is_empty() {
                cands = by_unit;
            } else {
                // "longer than 20 km": the unit says which "long" is meant; "heavier than 3 km"
                // means nothing.
                let both: Vec<String> = cands.iter().filter(|f| by_unit.contains(f)).cloned().collect();
                let dims: Vec<Dimension> = c.adjective.as_deref().and_then(measure_of).map(|(_, nouns, _)| nouns.iter().filter_map(|n| noun_dimension(n)).collect()).unwrap_or_default();
                cands = if !both.is_empty() {
                    both
                } else if dims.contains(&u.dimension) {
                    by_unit
                } else {
                    return Ok(None);
                };
            }
        }
        if cands.len() > 1 {
            let hint = measure_hint(self.word(after));
            let hinted: Vec<String> = cands.iter().filter(|f| names::name_words(f).iter().any(|w| hint.contains(&w.as_str()))).cloned().collect();
            if !hinted.is_empty() {
                if hinted.len() == 1 {
                    self.mark(after..after + 1, format!("{} (measure)", hinted[0]));
                }
                cands = hinted;
            }
        }
        // ("jewellery worth more than 500 euros": the word before the cue.)
        if cands.len() > 1 && c.start > 0 {
            let hint = qa_question::cues::measure_hint_before(self.word(c.start - 1));
            let hinted: Vec<String> = cands.iter().filter(|f| names::name_words(f).iter().any(|w| hint.contains(&w.as_str()))).cloned().collect();
            if hinted.len() == 1 {
                self.mark(c.start - 1..c.start, format!("{} (measure)", hinted[0]));
                cands = hinted;
            }
        }
        if cands.len() > 1 {
            cands = self.narrow_by_words(cands);
        }
        match cands.len() {
            0 => Ok(None),
            1 => Ok(Some((cands.remove(0), None))),
            _ => {
                let phrase = self.phrase(c.start, c.end);
                let f = self.choose(&phrase, format!("Which field does \"{phrase}\" compare?"), cands)?;
                Ok(Some((f, None)))
            }
        }
    }

    /// "13.5% protein or more": the "or more" past the field's noun belongs to the comparison
    /// placed on the number.
    fn comparison_tails(&mut self) {
        for c in self.a.comparisons.clone() {
            if let (Some(t), Some(role)) = (c.tail, self.ledger.role(c.start).map(str::to_string))
                && !self.ledger.is_used(t)
            {
                self.mark(t..t + 2, role);
            }
        }
    }

    fn comparisons(&mut self) -> Result<(), Ambiguity> {
        for c in self.a.comparisons.clone() {
            let q = self.a.quantities[c.quantity].clone();
            if (c.start..c.end).any(|i| self.ledger.is_used(i)) || self.a.superlatives.iter().any(|s| s.start <= q.at && q.at < s.end) {
                continue;
            }
            let bare = c.cue.is_empty();
            let Some((field, mi)) = self.measured(&c, &q)? else { continue };
            // A quantity in a unit of another kind than the field's ("20 km" on minutes) is no
            // condition on it.
            if let (Some(u), Some(fu)) = (q.unit, field_unit(&field))
                && u.dimension != fu.dimension
            {
                continue;
            }
            let joined = bare && q.start > 0 && matches!(self.word(q.start - 1), "or" | "and" | ",") && self.last_compared.as_deref() == Some(field.as_str());
            let after_and = !bare && c.start > 0 && matches!(self.word(c.start - 1), "and" | "or" | ",") && self.last_compared.as_deref() == Some(field.as_str());
            if bare && mi.is_none() && !joined {
                continue;
            }
            if after_and && mi.is_none() {
                self.mark(c.start - 1..c.start, format!("{field} (and)"));
            }
            self.last_compared = Some(field.clone());
            let fu = field_unit(&field);
            let conv = |v: f64| match (q.unit, fu) {
                (Some(qu), Some(fu)) => convert(v, qu, fu),
                _ => v,
            };
            let value = conv(q.value);
            let (filter, role) = match (c.high, c.op) {
                // A number stored as text: its spelling.
                (None, Op::Eq | Op::Ne) if self.numeric_keyword(&field) => {
                    let Some(exact) = self.exact(&field) else { continue };
                    let spelt = if value.fract() == 0.0 { format!("{}", value as i64) } else { value.to_string() };
                    (Filter::Terms { field: exact, values: vec![json!(spelt)], negated: c.op == Op::Ne }, format!("{field} {} {spelt}", c.op.sql()))
                }
                (Some(h), _) => {
                    let hi = conv(self.a.quantities[h].value);
                    (Filter::Range { field: field.clone(), bounds: bounds(&[("gte", number(value)), ("lte", number(hi))]), negated: false }, format!("{field} between {value} and {hi}"))
                }
                (None, Op::Eq | Op::Ne) => {
                    (Filter::Range { field: field.clone(), bounds: bounds(&[("gte", number(value)), ("lte", number(value))]), negated: c.op == Op::Ne }, format!("{field} {} {value}", c.op.sql()))
                }
                (None, op) => {
                    let key = match op {
                        Op::Gt => "gt",
                        Op::Ge => "gte",
                        Op::Lt => "lt",
                        _ => "lte",
                    };
                    (Filter::Range { field: field.clone(), bounds: bounds(&[(key, number(value))]), negated: false }, format!("{field} {} {value}", op.sql()))
                }
            };
            // "cost more than 10 euros", "weighs over 2 kg": the verb of the measure.
            if mi.is_none() && c.start > 0 && !self.ledger.is_used(c.start - 1) {
                let w = self.word(c.start - 1).to_string();
                let dim = match w.trim_end_matches('s') {
                    "cost" | "costed" | "price" | "priced" | "pay" | "paid" | "charge" | "charged" => Some(Dimension::Money),
                    "weigh" | "weighed" | "weighe" => Some(Dimension::Mass),
                    "last" | "lasted" | "take" | "took" => Some(Dimension::Time),
                    _ => None,
                };
                if dim.is_some() && field_unit(&field).map(|u| u.dimension).or(q.unit.map(|u| u.dimension)) == dim {
                    self.mark(c.start - 1..c.start, format!("{field} (measure)"));
                }
            }
            let mut end = c.end;
            // "reopened 3 times": the count's word.
            if matches!(self.word(end), "times" | "time") {
                end += 1;
            }
            self.mark(c.start..end, role.clone());
            if let Some(mi) = mi {
                self.consume(mi, role);
            }
            if q.start > 0 && self.word(q.start - 1) == "either" {
                self.mark(q.start - 1..q.start, "or");
            }
            if joined {
                self.join_or((q.start, end), filter);
            } else {
                self.push_filter((c.start, end), filter);
            }
        }
        Ok(())
    }

    /// "found no violations", "with zero defects": a count field equal to 0.
    fn zero_counts(&mut self) {
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let mut p = self.ms[mi].start;
            while p > 0 && matches!(self.word(p - 1), "any" | "a" | "the") {
                p -= 1;
            }
            if p == 0 || !matches!(self.word(p - 1), "no" | "zero" | "without") {
                continue;
            }
            let Some(f) = self.measure_of(mi).filter(|f| self.kind(f) == FieldKind::Integer) else { continue };
            let e = self.ms[mi].end;
            // "no violations" counts none; "no cleanliness score" (one thing, not a count) is a
            // score never given — missing, or 0 where none is written as 0.
            let last = self.word(e - 1).to_string();
            let counted = names::name_words(&f).iter().any(|w| matches!(w.as_str(), "count" | "num" | "number" | "qty" | "quantity" | "total" | "n"));
            let one_thing = qa_core::text::singular(&last) == last && !counted;
            let role = if one_thing { format!("{f} missing or 0") } else { format!("{f} = 0") };
            self.mark(p - 1..p, role.clone());
            self.consume(mi, role.clone());
            // "at all" after it.
            if self.word(e) == "at" && self.word(e + 1) == "all" {
                self.mark(e..e + 2, role);
            }
            let zero = Filter::Range { field: f.clone(), bounds: bounds(&[("gte", json!(0)), ("lte", json!(0))]), negated: false };
            let filter = if one_thing { Filter::Any { any: vec![Filter::Exists { field: f, negated: true }, zero] } } else { zero };
            self.push_filter((p - 1, e), filter);
        }
    }

    /// "still open", "not closed", "unresolved", "completed": whether the event a date field
    /// is named for happened — the date is there, or missing. (A date said after the word,
    /// "closed in 2025", is the event's date, read by the date pass.)
    fn event_states(&mut self) {
        let fields: Vec<(String, bool)> = self.mapping.fields.iter().map(|f| (f.path.clone(), self.kind(&f.path) == FieldKind::Date)).collect();
        let words: Vec<String> = (0..self.n()).map(|i| self.word(i).to_string()).collect();
        let refs: Vec<&str> = words.iter().map(String::as_str).collect();
        for (i, word) in words.iter().enumerate() {
            if self.ledger.is_used(i) || !self.a.tokens[i].is_word() || qa_question::states::dated_after(&refs, i) {
                continue;
            }
            // ("did … complete": the base verb after an auxiliary; "finished": the same event
            // as `completedDate`.)
            let state = qa_question::states::event_state(word).or_else(|| qa_question::states::past_base_verb(&refs, i).map(|p| (p, true)));
            let field_of = |event: &str| qa_question::states::event_date_field(event, fields.iter().map(|(f, d)| (f.as_str(), *d))).map(str::to_string);
            let by_event = state.and_then(|(event, happened)| field_of(&event).or_else(|| qa_question::states::same_event(&event).and_then(field_of)).map(|f| (f, happened)));
            let ends: Vec<&String> = fields.iter().filter(|(f, d)| *d && qa_question::states::names_an_end(f)).map(|(f, _)| f).collect();
            let (field, happened) = match (by_event, ends.as_slice()) {
                (Some(x), _) => x,
                (None, [one]) if qa_question::states::not_ended(word) => ((*one).clone(), false),
                _ => continue,
            };
            let neg = self.negation_before(i);
            let present = happened == neg.is_none();
            let role = if present { format!("{field} present") } else { format!("{field} missing") };
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            if i > 0 && matches!(self.word(i - 1), "still" | "yet") {
                self.mark(i - 1..i, role.clone());
            }
            if matches!(self.word(i + 1), "yet") {
                self.mark(i + 1..i + 2, role.clone());
            }
            match self.mention_covering(i) {
                Some(mi) if self.ms[mi].end == i + 1 && self.ms[mi].start == i => self.consume(mi, role),
                _ => self.mark(i..i + 1, role),
            }
            self.push_filter((i, i + 1), Filter::Exists { field, negated: !present });
        }
    }

    /// A year field's condition for a date: years compared as numbers, or as four-digit text.
    fn year_filter(&self, field: &str, d: &qa_question::dates::DateMention) -> Option<Filter> {
        let text = self.kind(field) == FieldKind::Keyword;
        let y = |v: i32| if text { json!(v.to_string()) } else { json!(v) };
        let (from, to) = (d.from.map(|f| f.year()), d.to.map(|t| t.year()));
        let exact = self.exact(field)?;
        Some(match (from, to) {
            (Some(a), Some(b)) if a == b => Filter::Terms { field: exact, values: vec![y(a)], negated: false },
            (a, b) if a.is_some() || b.is_some() => {
                let mut bo = Vec::new();
                if let Some(a) = a {
                    bo.push(("gte", y(a)));
                }
                if let Some(b) = b {
                    bo.push(("lte", y(b)));
                }
                Filter::Range { field: exact, bounds: bounds(&bo), negated: false }
            }
            _ => return None,
        })
    }

    /// "in 2014 or 2015", "either 32 or 33": a second condition on the field of the one just
    /// before, joined by "or", widens it.
    fn join_or(&mut self, span: (usize, usize), f: Filter) {
        let start = span.0;
        let or = start > 0 && matches!(self.word(start - 1), "or" | "nor");
        let same = |x: &Filter| match (x, &f) {
            (Filter::Terms { field: a, negated: false, .. } | Filter::Range { field: a, negated: false, .. } | Filter::AnyRange { field: a, .. }, Filter::Terms { field: b, .. } | Filter::Range { field: b, .. } | Filter::AnyRange { field: b, .. }) => a == b,
            _ => false,
        };
        let Some(i) = self.plan.filters.iter().rposition(same).filter(|_| or) else {
            self.push_filter(span, f);
            return;
        };
        let prev = self.plan.filters.remove(i);
        let merged = match (prev, f) {
            (Filter::Terms { field, mut values, .. }, Filter::Terms { values: more, .. }) => {
                values.extend(more);
                Filter::Terms { field, values, negated: false }
            }
            (a, b) => {
                let ranges = |x: Filter| -> Vec<BTreeMap<String, Value>> {
                    match x {
                        Filter::Range { bounds, .. } => vec![bounds],
                        Filter::AnyRange { ranges, .. } => ranges,
                        Filter::Terms { values, .. } => values.into_iter().map(|v| bounds(&[("gte", v.clone()), ("lte", v)])).collect(),
                        Filter::Text { .. } | Filter::Any { .. } | Filter::Exists { .. } => Vec::new(),
                    }
                };
                let field = match &a {
                    Filter::Terms { field, .. } | Filter::Range { field, .. } | Filter::AnyRange { field, .. } => field.clone(),
                    Filter::Text { .. } | Filter::Any { .. } | Filter::Exists { .. } => String::new(),
                };
                let mut all = ranges(a);
                all.extend(ranges(b));
                Filter::AnyRange { field, ranges: all }
            }
        };
        self.plan.filters.insert(i, merged);
        self.filter_spans[i].1 = span.1;
        self.mark(start - 1..start, "or");
    }

    fn dates(&mut self) -> Result<(), Ambiguity> {
        for d in self.a.dates.clone() {
            if (d.start..d.end).any(|i| self.ledger.is_used(i)) {
                continue;
            }
            // "the 2025 harvest" of `harvest_year`: a bare year right before a noun that names a
            // year field is that field's year.
            let after = d.year.filter(|_| d.month_of_year.is_none() && d.end == d.start + 1).and_then(|_| {
                let years = self.year_fields();
                let mi = self.ms.iter().position(|m| m.start == d.end).filter(|&mi| !self.used[mi])?;
                let f = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| years.contains(f))?;
                Some((f, Some(mi)))
            });
            let Some((field, mi)) = (match after {
                Some(x) => Some(x),
                None => self.date_target(d.start, &d.phrase)?,
            }) else {
                continue;
            };
            let day = |x: chrono::NaiveDate| json!(x.format("%Y-%m-%d").to_string());
            let filter = if self.kind(&field) != FieldKind::Date {
                let Some(f) = self.year_filter(&field, &d) else { continue };
                f
            } else if let Some(m) = d.month_of_year {
                // A month of any year: that month in every year the field spans.
                let year = |v: Option<&Value>| v.and_then(Value::as_str).and_then(|s| s.get(..4)).and_then(|y| y.parse::<i32>().ok());
                let (lo, hi) = self.meta.ranges.get(&field).map(|(a, b)| (year(Some(a)), year(Some(b)))).unwrap_or((None, None));
                let (lo, hi) = (lo.unwrap_or(self.input.today.year() - 10), hi.unwrap_or(self.input.today.year()));
                let ranges: Vec<BTreeMap<String, Value>> = (lo..=hi)
                    .filter_map(|y| {
                        let from = chrono::NaiveDate::from_ymd_opt(y, m, 1)?;
                        let to = qa_question::dates::last_day(y, m)? + chrono::Duration::days(1);
                        Some(bounds(&[("gte", day(from)), ("lt", day(to))]))
                    })
                    .collect();
                Filter::AnyRange { field: field.clone(), ranges }
            } else {
                let mut b = Vec::new();
                if let Some(f) = d.from {
                    b.push(("gte", day(f)));
                }
                if let Some(t) = d.to {
                    b.push(("lt", day(t + chrono::Duration::days(1))));
                }
                if b.is_empty() {
                    continue;
                }
                Filter::Range { field: field.clone(), bounds: bounds(&b), negated: false }
            };
            let role = format!("{field} in {}", d.phrase);
            self.mark(d.start..d.end, role.clone());
            if let Some(mi) = mi {
                self.consume(mi, role);
            }
            // "either 2014 or 2015".
            if d.start > 0 && self.word(d.start - 1) == "either" {
                self.mark(d.start - 1..d.start, "or");
            }
            self.join_or((d.start, d.end), filter);
        }
        Ok(())
    }

    /// The flag reading of mention `mi` that may stand for a condition: the flag's name (or
    /// its negation: "inactive", "unverified"), a misspelling, or a word of it after "with" /
    /// "has" / "without" ("with a photo" for `photo_attached`), or a participle that is the
    /// mention's best reading ("breached" for `slaBreached`).
    fn flag_reading(&self, mi: usize) -> Option<Link> {
        let start = self.ms[mi].start;
        let mut p = start;
        while p > 0 && matches!(self.word(p - 1), "a" | "an" | "any" | "the") {
            p -= 1;
        }
        let with = p > 0 && matches!(self.word(p - 1), "with" | "has" | "have" | "had" | "having" | "without");
        let best = self.ms[mi].best().clone();
        // (Not the verb of the records' own noun: "tasks picked by Ann" in an index of picks says
        // nothing of `wasShortPicked`.)
        let index_word = |i: usize| names::name_words(&self.mapping.index).iter().any(|w| qa_core::text::word_family(w) == qa_core::text::word_family(self.word(i)));
        let own_verb = index_word(start) && self.ms[mi].end == start + 1;
        let participle = self.is_verb_mention(mi) && self.word(start).ends_with("ed") && !own_verb;
        // "warranty repairs", "fast-tracked applications": a word of a flag said right before
        // the records' own noun modifies them. ("the short picks" of `wasShortPicked` in an index
        // of picks: the flag's words with the records' own noun last.)
        let end = self.ms[mi].end;
        let before_index = self.ms.iter().position(|m| m.start == end).is_some_and(|n| self.may_name_index(n)) || (end >= start + 2 && index_word(end - 1));
        self.readings(mi)
            .into_iter()
            .filter(|l| matches!(&l.target, Target::Field { field, .. } if self.kind(field) == FieldKind::Flag))
            .filter(|l| match l.how {
                How::Name | How::Core | How::Synonym | How::Joined | How::Fuzzy | How::Acronym => true,
                // "arrived late", "late deliveries" of `delivered_late`: the state word after a
                // participle in the flag's name says the flag.
                How::Head if self.ms[mi].end == start + 1 && l.target.field().is_some_and(|f| matches!(names::name_words(f).as_slice(), [v, s] if v.ends_with("ed") && *s == self.word(start))) => true,
                // "did each airline cancel" of `isCancelled`: a verb of the flag's family.
                // (Only a flag of one word: "charged" says nothing of `is_fast_charger`.)
                How::Family => with || before_index || (self.is_verb_mention(mi) && !own_verb && l.target == best.target && l.target.field().is_some_and(|f| names::name_words(f).iter().filter(|w| !names::FLAG_PREFIXES.contains(&w.as_str())).count() == 1)),
                How::Head | How::Part => with || before_index || (participle && l.target == best.target),
                _ => false,
            })
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .cloned()
    }

    fn flags_and_values(&mut self) -> Result<(), Ambiguity> {
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            let flag = self.flag_reading(mi);
            let mut values: Vec<Link> = self.value_readings(mi).into_iter().cloned().collect();
            // "How many passengers …" of a `passengers` count: the measure, not a value
            // 'passenger' elsewhere (the count's pass sums it).
            let s = self.ms[mi].start;
            if s >= 2 && self.word(s - 2) == "how" && self.word(s - 1) == "many"
                && self.readings(mi).iter().any(|l| l.how == How::Name && l.target.field().is_some_and(|f| self.is_measure(f)))
            {
                continue;
            }
            // "to resolve" is a verb, not the value 'resolved' misspelt.
            let s = self.ms[mi].start;
            if s > 0 && self.word(s - 1) == "to" && self.ms[mi].end == s + 1 {
                // ("to Poland": a country's name said for its code stays a value.)
                values.retain(|l| matches!(l.how, How::Alias | How::FieldValue | How::Lookup) || (!matches!(l.how, How::Fuzzy) && l.score >= 1.0));
            }
            let strong_value = values.iter().any(|l| matches!(l.how, How::FieldValue | How::Alias | How::Lookup));
            let take_flag = match &flag {
                Some(_) if values.is_empty() => true,
                // "not resolved": the flag named by its word, rather than a status of that name.
                Some(f) => matches!(f.how, How::Name | How::Core | How::Synonym) && !strong_value,
                None => false,
            };
            if let (true, Some(l)) = (take_flag, flag) {
                self.place_flag(mi, &l);
            } else if !values.is_empty() && values.iter().any(|l| *l == *self.ms[mi].best()) {
                self.place_value(mi, values)?;
            }
        }
        Ok(())
    }

    pub(super) fn place_flag(&mut self, mi: usize, l: &Link) {
        let Some(field) = l.target.field().map(str::to_string) else { return };
        let start = self.ms[mi].start;
        // "with and without a certificate": both values, one group each.
        let mut p = start;
        while p > 0 && matches!(self.word(p - 1), "a" | "an" | "the" | "any") {
            p -= 1;
        }
        if p >= 3 && self.word(p - 1) == "without" && matches!(self.word(p - 2), "and" | "or") && self.word(p - 3) == "with"
            && let Some(exact) = self.mapping.field(&field).and_then(|f| f.exact_path())
        {
            let role = format!("group by {field}");
            self.mark(p - 3..p, role.clone());
            self.consume(mi, role);
            self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::KeyAsc, min_count: None });
            return;
        }
        // "Did Marta Sánchez get a certificate for …?": a yes-or-no question about a flag shows
        // it for the records named, rather than keeping only those where it holds.
        let first = self.a.sentences.iter().find(|&&(s, e)| s <= start && start < e).map_or(0, |&(s, _)| s);
        if matches!(self.word(first), "did" | "does" | "do" | "is" | "was" | "were" | "are" | "has" | "have" | "had") && !self.plan.filters.is_empty() && self.negation_before(start).is_none() {
            let role = format!("show {field}");
            self.mark(first..first + 1, role.clone());
            self.consume(mi, role);
            self.shown.push(field);
            return;
        }
        let neg = self.negation_before(self.ms[mi].start);
        let value = l.negated == neg.is_some();
        if let Some(j) = neg {
            self.mark(j..j + 1, "negation");
        }
        let Some(f) = self.mapping.field(&field) else { return };
        let stored = crate::lookup::flag_value(f, self.meta, value);
        let Some(exact) = f.exact_path() else { return };
        self.consume(mi, format!("{field} = {value}"));
        let span = (neg.unwrap_or(self.ms[mi].start).min(self.ms[mi].start), self.ms[mi].end);
        self.push_filter(span, Filter::Terms { field: exact, values: vec![stored], negated: false });
    }

    /// Values of a mention: the field they belong to (the only one; the one named with them;
    /// the one a direction word points at; the user's choice; else asked), negated after "not",
    /// joined with the values of the same field said just before ("chat or email").
    fn place_value(&mut self, mi: usize, cands: Vec<Link>) -> Result<(), Ambiguity> {
        let best = cands.iter().map(|l| l.score).fold(0.0, f64::max);
        let top: Vec<&Link> = cands.iter().filter(|l| l.score >= best - 0.05).collect();
        let mut fields: Vec<String> = Vec::new();
        for l in &top {
            if let Some(f) = l.target.field()
                && !fields.iter().any(|x| x == f)
            {
                fields.push(f.to_string());
            }
        }
        let (s, e) = (self.ms[mi].start, self.ms[mi].end);
        let phrase = self.phrase(s, e);
        let field = if fields.len() == 1 {
            fields[0].clone()
        } else if let Some(f) = top.iter().find(|l| l.how == How::FieldValue).and_then(|l| l.target.field()) {
            f.to_string()
        } else if let Some(f) = by_direction(if s > 1 && self.word(s - 1) == "of" && self.word(s - 2) == "out" { "out" } else if s > 0 { self.word(s - 1) } else { "" }, &fields) {
            f
        } else if let Some(f) = self.field_of_the_noun_near(s, e, &fields) {
            f
        } else {
            self.choose(&phrase, format!("\"{phrase}\" is a value of several fields: which one do you mean?"), fields.clone())?
        };
        // The field's best reading; readings as good that name other values (misspellings of
        // several values) ask which.
        let on_field: Vec<&Link> = cands.iter().filter(|l| l.target.field() == Some(field.as_str())).collect();
        let top_score = on_field.iter().map(|l| l.score).fold(0.0, f64::max);
        let tied: Vec<&Link> = on_field.iter().copied().filter(|l| l.score >= top_score - 1e-9).collect();
        let chosen: &Link = if tied.len() > 1 {
            let labels: Vec<String> = tied.iter().map(|l| l.target.label()).collect();
            let pick = self.choose(&format!("{phrase} ({field})"), format!("\"{phrase}\" could be several values of {field}: which one do you mean?"), labels.clone())?;
            tied.iter().copied().find(|l| l.target.label() == pick).unwrap_or(tied[0])
        } else {
            tied[0]
        };
        let mut values: Vec<Value> = Vec::new();
        if let Target::Value { values: vs, .. } = &chosen.target {
            values.extend(vs.iter().map(|v| json!(v)));
        }
        let fuzzy = chosen.how == How::Fuzzy;
        let Some(exact) = self.exact(&field) else { return Ok(()) };
        let neg = self.negation_before(s);
        let listed = s > 0 && matches!(self.word(s - 1), "or" | "and" | "nor" | ",");
        let earlier = self.plan.filters.iter().position(|f| matches!(f, Filter::Terms { field: x, .. } if *x == exact));
        let negated = match (earlier, listed) {
            (Some(i), true) => matches!(&self.plan.filters[i], Filter::Terms { negated: true, .. }),
            _ => neg.is_some(),
        };
        if let Some(j) = neg {
            self.mark(j..j + 1, "negation");
        }
        let shown: Vec<String> = values.iter().map(|v| v.as_str().unwrap_or_default().to_string()).collect();
        let role = format!("{field} {} '{}'", if negated { "<>" } else { "=" }, shown.join("' | '"));
        self.consume(mi, role);
        if fuzzy {
            self.notes.push(format!("\"{phrase}\" read as '{}' (spelling)", shown.join("', '")));
            self.penalties.push((format!("\"{phrase}\" read as '{}'", shown.join("', '")), 0.9));
        }
        match (earlier, listed) {
            (Some(i), true) => {
                self.filter_spans[i].1 = self.filter_spans[i].1.max(e);
                if let Filter::Terms { values: v, .. } = &mut self.plan.filters[i] {
                    for x in values {
                        if !v.contains(&x) {
                            v.push(x);
                        }
                    }
                }
            }
            _ => self.push_filter((neg.unwrap_or(s).min(s), e), Filter::Terms { field: exact, values, negated }),
        }
        Ok(())
    }
}

impl Reader<'_> {
    /// "our hotels in Spain" (`hotelCountry`, not `guestNationality`), "Spain hotels": a noun
    /// next to a value, across a preposition, that is a word of exactly one of the fields the
    /// value could be in.
    fn field_of_the_noun_near(&self, s: usize, e: usize, fields: &[String]) -> Option<String> {
        let mut near: Vec<usize> = Vec::new();
        let mut k = s;
        while k > 0 && s - k < 4 {
            k -= 1;
            if matches!(self.word(k), "in" | "at" | "from" | "of" | "the" | "our" | "their" | "for" | "on") {
                continue;
            }
            near.push(k);
            break;
        }
        near.push(e);
        for i in near {
            let Some(tok) = self.a.tokens.get(i).filter(|t| t.is_word() && t.lower.len() >= 3) else { continue };
            let word = qa_core::text::singular(&tok.lower);
            let named: Vec<&String> = fields.iter().filter(|f| names::name_words(f).iter().any(|x| x.len() >= 3 && qa_core::text::same_family(x, &word))).collect();
            if let [one] = named.as_slice() {
                return Some((*one).clone());
            }
        }
        None
    }
}

/// "to X" / "from X" when X is a value of both an origin-like and a destination-like field:
/// the field whose name says the direction (generic English direction words).
fn by_direction(preposition: &str, fields: &[String]) -> Option<String> {
    const TO: &[&str] = &["destination", "dest", "to", "target", "recipient", "receiver", "arrival", "inbound"];
    const FROM: &[&str] = &["origin", "from", "source", "sender", "departure", "outbound"];
    let wanted = match preposition {
        "to" | "into" | "toward" | "towards" | "destination" | "arriving" | "arrive" | "arrives" => TO,
        "from" | "out" | "origin" | "source" | "departing" | "depart" | "departs" | "leaving" => FROM,
        _ => return None,
    };
    let hits: Vec<&String> = fields.iter().filter(|f| names::name_words(f).iter().any(|w| wanted.contains(&w.as_str()))).collect();
    (hits.len() == 1).then(|| hits[0].clone())
}
