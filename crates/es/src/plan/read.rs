//! The reader's state: the question's analysis, its links and chosen mentions, the coverage
//! ledger, and the plan being built — with the helpers the stages share (mentions around a
//! position, the fields a mention names, negation, settling an ambiguity).

use std::collections::BTreeMap;
use qa_question::link::{cover, How, Link, Mention, Target};
use qa_question::{analyse, Analysis, FieldKind, KeyRole, Ledger, Linker, SourceSchema, ValueLookup};
use serde_json::{json, Value};

use super::{Choices, EsPlan, PlanInput};
use crate::lookup::Metadata;
use crate::{Ambiguity, Intent, Mapping};

/// Words skipped between a cue and what it applies to ("the number of the …").
pub(super) const FILLER: &[&str] = &["the", "a", "an", "all", "of", "their", "its", "his", "her", "that", "those", "these", "any", "each", "every", "whole", "entire", "overall"];

pub(super) struct Reader<'a> {
    pub mapping: &'a Mapping,
    pub meta: &'a Metadata,
    pub input: &'a PlanInput<'a>,
    pub schema: &'a SourceSchema,
    pub linker: Linker<'a>,
    pub a: Analysis,
    /// Every link found (the chosen mentions show the best reading per span).
    pub links: Vec<Link>,
    /// The chosen, non-overlapping mentions.
    pub ms: Vec<Mention>,
    /// Per mention: some part of the plan uses it.
    pub used: Vec<bool>,
    pub ledger: Ledger,
    pub penalties: Vec<(String, f64)>,
    pub notes: Vec<String>,
    /// The words ignored by the user's leave ("run it without …") or under force.
    pub ignored: Vec<String>,
    pub plan: EsPlan,
    /// "how many", "number of": a count is asked for.
    pub count: bool,
    /// Aggregate cues already placed (their start).
    pub aggs_done: Vec<usize>,
    /// "The 5 tickets …": a number of hits asked for, and where it is.
    pub top_n: Option<(usize, usize)>,
    /// The field the last number was compared with ("either 32 or 33").
    pub last_compared: Option<String>,
    /// Fields the question asks to be shown.
    pub shown: Vec<String>,
    /// The tokens each filter of the plan stands for (parallel to `plan.filters`).
    pub filter_spans: Vec<(usize, usize)>,
    /// Words no name or value links that the index's prose holds: `(start, end, field,
    /// records)`, asked of the index before planning.
    pub text_hits: Vec<(usize, usize, String, u64)>,
}

/// Most searches the prose probe may send for one question.
const TEXT_PROBES: usize = 6;

/// Ask the index's prose about the question's words that link to nothing: each run of one or
/// two content words (the pair first), so that "listings with a sauna" can read "sauna" in the
/// descriptions instead of dropping it.
fn probe_text(a: &qa_question::Analysis, links: &[qa_question::Link], schema: &SourceSchema, lookup: &mut dyn ValueLookup) -> Vec<(usize, usize, String, u64)> {
    let t = &a.tokens;
    // A word of a field's family ("delayed" of `delayMinutes`) is read against that field, not
    // searched in the prose.
    let field_words: Vec<String> = schema.collections.iter().flat_map(|c| c.fields.iter()).flat_map(|f| qa_question::names::name_words(&f.name)).filter(|w| w.len() >= 4).collect();
    let free = |i: usize| {
        let tok = &t[i];
        tok.is_word()
            && tok.lower.len() >= 3
            && tok.lower.chars().all(char::is_alphabetic)
            && !qa_core::text::is_stop(&tok.lower)
            && !qa_question::coverage::is_function_word(&tok.lower)
            && qa_question::numbers::number_word(&tok.lower).is_none()
            && qa_question::cues::measure_of(&tok.lower).is_none()
            && !links.iter().any(|l| l.start <= i && i < l.end)
            && !field_words.iter().any(|w| qa_core::text::same_family(w, &tok.lower))
            && !a.dates.iter().any(|d| d.start <= i && i < d.end)
            && !a.quantities.iter().any(|q| q.start <= i && i < q.end)
    };
    let mut out = Vec::new();
    let mut probes = 0;
    let mut i = 0;
    while i < t.len() && probes < TEXT_PROBES {
        // ("de-icing": a word joined by a hyphen is searched with its other half.)
        let joined = t[i].hyphen_next && t[i].is_word() && i + 1 < t.len() && t[i + 1].is_word() && !links.iter().any(|l| l.start <= i + 1 && i < l.end);
        if !free(i) && !joined {
            i += 1;
            continue;
        }
        if i + 1 < t.len() && (free(i + 1) || joined) {
            probes += 1;
            let pair = format!("{} {}", t[i].lower, t[i + 1].lower);
            let hits = lookup.text_hits(&pair);
            if let Some((f, n)) = hits.into_iter().max_by_key(|h| h.1) {
                out.push((i, i + 2, f, n));
                i += 2;
                continue;
            }
        }
        probes += 1;
        if let Some((f, n)) = lookup.text_hits(&t[i].lower).into_iter().max_by_key(|h| h.1) {
            out.push((i, i + 1, f, n));
        }
        i += 1;
    }
    out
}

/// A reading by a word that is only a weak part of a field's name ("deliveries" of
/// `delivery_attempts`): no quantity to add, count or rank by.
pub(super) fn weak_part(how: How, score: f64) -> bool {
    matches!(how, How::Part | How::Family) && score < 0.6
}

impl<'a> Reader<'a> {
    pub fn new(question: &str, input: &'a PlanInput<'a>, schema: &'a SourceSchema, lookup: Option<&mut dyn ValueLookup>) -> Reader<'a> {
        let mut a = analyse(question, input.today);
        // (Before linking: the linker reads no field inside a superlative.)
        let words: Vec<String> = a.tokens.iter().map(|t| t.lower.clone()).collect();
        qa_question::analysis::release_flag_adjectives(&mut a, |i| words.get(i).is_some_and(|w| schema.is_flag_word(w)));
        let linker = Linker::new(schema);
        let mut lookup = lookup;
        let mut links = linker.link(&a, match lookup {
            Some(ref mut l) => Some(&mut **l as &mut dyn ValueLookup),
            None => None,
        });
        let scattered = linker.scattered_names(&a, &links);
        links.extend(scattered);
        let families = linker.value_families(&a, &links);
        links.extend(families);
        links.sort_by(|x, y| x.start.cmp(&y.start).then(y.len().cmp(&x.len())).then(y.score.total_cmp(&x.score)));
        let text_hits = match lookup {
            Some(l) if schema.collections.iter().any(|c| c.fields.iter().any(|f| f.kind == qa_question::FieldKind::Text)) => probe_text(&a, &links, schema, l),
            _ => Vec::new(),
        };
        let ms = cover(&links, a.tokens.len());
        let mut ledger = Ledger::new(&a.tokens);
        // An amount, average or extreme asked for ("how much", "the average") must be placed,
        // or named as not used.
        for g in a.aggregates.iter().filter(|g| g.func != qa_question::cues::AggWord::Count) {
            for i in (g.start..g.end).filter(|&i| !matches!(a.tokens[i].lower.as_str(), "how" | "of" | "in" | "the")) {
                ledger.require(i);
            }
        }
        let used = vec![false; ms.len()];
        let plan = EsPlan { intent: Intent::Search, filters: Vec::new(), groups: Vec::new(), metric: None, more_metrics: Vec::new(), sort: None, size: None, source: Vec::new(), notes: Vec::new(), coverage: Default::default(), pairs: None };
        Reader { mapping: input.mapping, meta: input.meta, input, schema, linker, a, links, ms, used, ledger, penalties: Vec::new(), notes: Vec::new(), ignored: Vec::new(), plan, count: false, aggs_done: Vec::new(), top_n: None, last_compared: None, shown: Vec::new(), filter_spans: Vec::new(), text_hits }
    }

    pub fn choices(&self) -> &Choices {
        self.input.choices
    }

    pub fn word(&self, i: usize) -> &str {
        self.a.tokens.get(i).map(|t| t.lower.as_str()).unwrap_or("")
    }

    pub fn n(&self) -> usize {
        self.a.tokens.len()
    }

    /// The question's words `s..e` as written.
    pub fn phrase(&self, s: usize, e: usize) -> String {
        self.a.tokens[s.min(self.n())..e.min(self.n())].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ")
    }

    /// Skip filler words from `pos`.
    pub fn skip_filler(&self, mut pos: usize) -> usize {
        while pos < self.n() && FILLER.contains(&self.word(pos)) {
            pos += 1;
        }
        pos
    }

    /// The mention starting at `pos` after filler words.
    pub fn mention_at(&self, pos: usize) -> Option<usize> {
        let p = self.skip_filler(pos);
        self.ms.iter().position(|m| m.start == p)
    }

    /// The mention ending right before `pos` (filler and linking words skipped).
    pub fn mention_before(&self, pos: usize) -> Option<usize> {
        let mut p = pos;
        while p > 0 && matches!(self.word(p - 1), "the" | "a" | "an" | "of" | "is" | "are" | "was" | "were" | "be" | "been" | "has" | "have" | "had" | "with" | "whose" | "that" | "which" | "its" | "their" | "at" | "in" | "on" | "got" | "get" | "gets") {
            p -= 1;
        }
        self.ms.iter().position(|m| m.end == p)
    }

    /// Consume mention `mi` for `role`.
    pub fn consume(&mut self, mi: usize, role: impl Into<String>) {
        self.used[mi] = true;
        let (s, e) = (self.ms[mi].start, self.ms[mi].end);
        self.ledger.mark(s..e, role);
    }

    pub fn mark(&mut self, range: std::ops::Range<usize>, role: impl Into<String>) {
        self.ledger.mark(range, role);
    }

    /// The reader's kind of a field path.
    pub fn kind(&self, field: &str) -> FieldKind {
        self.schema.collections.first().and_then(|c| c.field(field)).map(|f| f.kind).unwrap_or(FieldKind::Other)
    }

    /// A number that measures something: numeric and not a key.
    pub fn is_measure(&self, field: &str) -> bool {
        self.schema.collections.first().and_then(|c| c.field(field)).is_some_and(|f| f.kind.is_numeric() && f.key == KeyRole::None)
    }

    /// A field whose values make groups: keywords, name-like text, flags, whole numbers.
    pub fn is_groupable(&self, field: &str) -> bool {
        matches!(self.kind(field), FieldKind::Keyword | FieldKind::Flag | FieldKind::Integer) && self.exact(field).is_some()
    }

    /// The path for exact values and aggregations of a field.
    pub fn exact(&self, field: &str) -> Option<String> {
        self.mapping.field(field).and_then(|f| f.exact_path())
    }

    /// Of `dates`, the one named after the records themselves (`job_date` of an index of jobs,
    /// `reviewDate` of reviews): when each record happened.
    pub fn own_date(&self, dates: &[String]) -> Option<String> {
        let nouns: Vec<String> = self.schema.collections.first().map(|c| qa_question::names::name_words(&c.name).iter().map(|w| qa_core::text::singular(w)).chain(c.synonyms.iter().cloned()).collect()).unwrap_or_default();
        let own: Vec<&String> = dates
            .iter()
            .filter(|f| {
                let w = qa_question::names::name_words(f);
                // (The noun itself, or its verb: `shippedDate` of an index of shipments.)
                let own_word = nouns.contains(&qa_core::text::singular(&w[0])) || (w[0].len() >= 4 && nouns.iter().any(|n| n.len() >= 4 && qa_core::text::same_family(n, &w[0])));
                w.len() == 2 && own_word && matches!(w[1].as_str(), "date" | "day" | "on" | "at" | "time" | "datetime")
            })
            .collect();
        match own.as_slice() {
            [f] => Some((*f).clone()),
            _ => None,
        }
    }

    /// A verb of the records' actor: "borrowed" where two or more fields are named after the
    /// borrower (`borrower_first_name`, `borrowerLastName`, …), "inspected" of `inspector_*`
    /// — the event each record is.
    pub fn actor_verb(&self, w: &str) -> bool {
        let mut prefixes: BTreeMap<String, usize> = BTreeMap::new();
        for f in &self.mapping.fields {
            let words = qa_question::names::name_words(&f.path);
            if words.len() >= 2 {
                *prefixes.entry(words[0].clone()).or_default() += 1;
            }
        }
        prefixes.iter().any(|(p, &n)| n >= 2 && qa_question::names::is_agent_of(w, p))
    }

    /// The mention's best reading names the index.
    pub fn names_index(&self, mi: usize) -> bool {
        matches!(self.ms[mi].best().target, Target::Collection { .. })
    }

    /// Some reading of the mention names the index ("flights" is the index `flights`, whatever
    /// `flight_no` it may also say).
    pub fn may_name_index(&self, mi: usize) -> bool {
        self.readings(mi).iter().any(|l| matches!(l.target, Target::Collection { .. }))
    }

    /// Field `f` holds a value of its own on every document (the sampled values all count one):
    /// a reference, an id.
    pub fn unique_per_document(&self, f: &str) -> bool {
        let top = self.meta.values.get(f).or_else(|| self.meta.values.get(&format!("{f}.keyword")));
        top.is_some_and(|v| v.len() >= 10 && v.iter().all(|(_, n)| *n == 1))
    }

    /// Mention `mi` is one word of the index's name that is not its head and also names a
    /// field ("warehouse" of an index `warehouse_picks` with a `warehouse_code`).
    pub fn modifier_of_index(&self, mi: usize) -> bool {
        let words = qa_question::names::name_words(&self.mapping.index);
        let m = &self.ms[mi];
        let family = qa_core::text::word_family(self.word(m.start));
        let modifier = words.len() >= 2 && words[..words.len() - 1].iter().any(|w| qa_core::text::word_family(w) == family) && qa_core::text::word_family(&words[words.len() - 1]) != family;
        // (A compound goes on after it: "per course level" is the level.)
        let compound = self.ms.iter().any(|x| x.start == m.end);
        m.end == m.start + 1 && modifier && !compound && !self.fields_of(mi).is_empty()
    }

    /// The question says one half of a person's name ("first", "last", "surname"…): the two
    /// name fields are then not read as one person.
    pub fn names_a_half(&self) -> bool {
        (0..self.n()).any(|i| matches!(self.word(i), "first" | "last" | "surname" | "surnames" | "forename" | "forenames" | "given" | "family"))
    }

    /// Token `i` is inside a field's whole name of two words or more ("best finish", "total
    /// amount"): not a cue.
    pub fn inside_name(&self, i: usize) -> bool {
        self.ms.iter().any(|m| m.start <= i && i < m.end && m.end - m.start >= 2 && matches!(&m.best().target, Target::Field { .. }) && matches!(m.best().how, How::Name | How::Synonym | How::Core))
    }

    /// Every link over exactly the span of mention `mi`.
    pub fn readings(&self, mi: usize) -> Vec<&Link> {
        let m = &self.ms[mi];
        self.links.iter().filter(|l| l.start == m.start && l.end == m.end).collect()
    }

    /// The fields mention `mi` can name, best first.
    pub fn fields_of(&self, mi: usize) -> Vec<(String, f64, How)> {
        let mut out: Vec<(String, f64, How)> = self
            .readings(mi)
            .into_iter()
            .filter_map(|l| match &l.target {
                Target::Field { field, .. } => Some((field.clone(), l.score, l.how)),
                _ => None,
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The best field mention `mi` names.
    pub fn field(&self, mi: usize) -> Option<String> {
        self.fields_of(mi).into_iter().next().map(|(f, ..)| f)
    }

    /// The best measure (numeric, not a key) mention `mi` names.
    pub fn measure_of(&self, mi: usize) -> Option<String> {
        if self.names_index(mi) && self.fields_of(mi).first().is_none_or(|f| f.1 < self.ms[mi].best().score) {
            return None;
        }
        self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_measure(f))
    }

    /// The value readings of mention `mi`.
    pub fn value_readings(&self, mi: usize) -> Vec<&Link> {
        self.readings(mi).into_iter().filter(|l| matches!(l.target, Target::Value { .. })).collect()
    }

    /// The mention covering token `i`.
    pub fn mention_covering(&self, i: usize) -> Option<usize> {
        self.ms.iter().position(|m| m.start <= i && i < m.end)
    }

    /// The negation a condition at `pos` sits under (`Analysis::negation_before`).
    pub fn negation_before(&self, pos: usize) -> Option<usize> {
        self.a.negation_before(&self.ledger, pos)
    }

    /// Settle an ambiguity: the user's earlier choice, the best guess under force (named in a
    /// note), or a clarifying question.
    pub fn choose(&mut self, key: &str, message: String, alternatives: Vec<String>) -> Result<String, Ambiguity> {
        if let Some(c) = self.choices().get(key) {
            return Ok(c.clone());
        }
        match (self.input.force, alternatives.first()) {
            (true, Some(best)) => {
                let others = if alternatives.len() > 1 { format!(" (other choices: {})", alternatives[1..].join(", ")) } else { String::new() };
                self.notes.push(format!("best guess: \"{key}\" taken as `{best}`{others}"));
                Ok(best.clone())
            }
            _ => Err(Ambiguity { field: key.to_string(), message, alternatives }),
        }
    }

    /// Fields closest to `phrase` by link score, those that pass `keep` only, best first.
    pub fn closest(&self, phrase: &str, keep: impl Fn(&str) -> bool, n: usize) -> Vec<String> {
        let words = qa_core::text::words(phrase);
        self.linker.closest(&words).into_iter().filter_map(|(t, s)| t.field().map(|f| (f.to_string(), s))).filter(|(f, s)| *s >= 0.2 && keep(f)).map(|(f, _)| f).take(n).collect()
    }

    /// What the plan asks for so far.
    pub fn intent(&self) -> Intent {
        if !self.plan.groups.is_empty() || self.plan.metric.is_some() {
            Intent::Aggregation
        } else if self.count {
            Intent::Count
        } else {
            Intent::Search
        }
    }

    /// The mentions as the trace shows them.
    pub fn reading(&self) -> Value {
        let mentions: Vec<Value> = self
            .ms
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let b = m.best();
                json!({"words": self.phrase(m.start, m.end), "names": b.target.label(), "how": b.how, "score": (b.score * 1000.0).round() / 1000.0, "negated": b.negated, "used": self.used[i], "other_readings": m.links.len() - 1})
            })
            .collect();
        json!({"mentions": mentions, "dates": self.a.dates.iter().map(|d| &d.phrase).collect::<Vec<_>>(), "comparisons": self.a.comparisons.len()})
    }

    /// The plan, with its intent, coverage and notes.
    pub fn finish(mut self) -> EsPlan {
        self.plan.intent = self.intent();
        // Bucket sizes: every group of a complete sample, else the cap.
        let (coverage, _) = self.ledger.coverage(std::mem::take(&mut self.penalties));
        self.plan.coverage = coverage;
        let mut notes = Vec::new();
        if !self.ignored.is_empty() {
            notes.push(format!("ignored (not used by the query): {}", self.ignored.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ")));
        }
        notes.append(&mut self.notes);
        self.plan.notes = notes;
        self.plan
    }
}
