//! The last pass over the question's words: fields named again, the noun a value describes
//! ("Korean restaurants"), units and "time" of a used measure ("resolution time in hours"), text
//! asked for with a weak cue ("about toner", "that found cockroaches", "where fresh tracks were
//! found"), grammar words, and verbs that only relate what the query already uses ("came in
//! through chat", "carried out in Toronto", "inspected"). What is left matches nothing in the
//! index: the run asks (closest fields by link score), or — after "run it without …" or under
//! force — runs and says first what it ignored.

use qa_question::link::{How, Target};
use qa_question::numbers::{field_unit, unit_of};
use qa_question::{names, FieldKind};
use serde_json::{json, Value};
use std::collections::BTreeMap;

use super::read::Reader;
use super::{Filter, Group, RUN_WITHOUT};
use crate::Ambiguity;

/// Verbs that say a record exists, happened, was made or was handled — never a condition of
/// their own. Generic English (base forms).
const LIGHT_VERBS: &[&str] = &[
    "be", "have", "do", "make", "carry", "conduct", "perform", "take", "happen", "occur", "come", "go", "get", "record", "log", "report", "note", "register",
    "enter", "file", "submit", "raise", "open", "create", "see", "spot", "sight", "observe", "find", "handle", "process", "issue", "hold", "run", "involve",
    "concern", "exist", "last", "end", "result", "lead", "belong", "work", "deal", "list", "show", "write", "place", "put", "do", "produce", "build",
    "manufacture", "depart", "arrive", "leave", "land", "fly", "travel", "correspond", "originate", "base", "locate", "send", "ship", "dispatch", "need", "require", "keep", "bring",
    "receive", "give", "gave",
];

/// Particles of a light verb ("carried out", "took place", "came in").
const PARTICLES: &[&str] = &["out", "place", "up", "in", "on", "off", "about"];

/// Prepositions and adverbs that relate the parts of a question and carry no condition.
const GRAMMAR: &[&str] = &["during", "across", "among", "amongst", "throughout", "within", "ever", "yet", "still", "altogether", "currently", "already", "total", "overall"];


impl Reader<'_> {
    pub fn account(&mut self) -> Result<(), Ambiguity> {
        self.never_per_group()?;
        self.weak_text();
        self.fields_named_again();
        self.nouns_after_values();
        self.units_and_time_words();
        self.entity_nouns();
        self.key_words();
        self.measure_verbs();
        // (Prose conditions first, so that "the box or carton" is one condition either of
        // whose words holds.)
        self.prose_words();
        self.or_between_filters();
        self.grammar_words();
        self.relation_verbs();
        self.verbs_of_a_measure();
        self.who_by_the_verb_of_their_role();
        self.records_said_otherwise();
        self.on_average();
        self.a_single_document();
        self.money_verbs();
        self.actor_nouns();
        self.state_unplaced()?;
        self.leftovers()
    }

    /// "loans made by borrowers who are not members", "Which borrowers wrote …": the plural of
    /// a noun two or more fields are named after (`borrower_first_name`, `borrowerLastName`, …)
    /// is the person each document is about — after a preposition no condition of its own,
    /// after "which" a request for that person's name. (Not counted: "how many borrowers"
    /// asks for people, not documents, and stays unplaced.)
    fn actor_nouns(&mut self) {
        for i in 1..self.n() {
            if self.ledger.is_used(i) || !self.ledger.is_content(i) || !self.a.tokens[i].is_word() {
                continue;
            }
            let w = qa_core::text::singular(self.word(i));
            let fields: Vec<String> = self.mapping.fields.iter().map(|f| f.path.clone()).filter(|p| {
                let ws = names::name_words(p);
                ws.len() >= 2 && ws[0] == w
            }).collect();
            if fields.len() < 2 {
                continue;
            }
            let prev = self.word(i - 1).to_string();
            if matches!(prev.as_str(), "which" | "what") {
                let Some((f, other)) = fields.iter().find_map(|f| self.name_sibling(f).map(|o| (f.clone(), o))) else { continue };
                self.mark(i..i + 1, format!("show {f} and {other}"));
                for x in [f, other] {
                    if !self.plan.source.is_empty() && !self.plan.source.contains(&x) {
                        self.plan.source.push(x);
                    }
                }
            } else if matches!(prev.as_str(), "by" | "from" | "to" | "for" | "of" | "with") {
                self.mark(i..i + 1, format!("the {w} of each document"));
            }
        }
    }

    /// "Which items are still out?" run as every document: a state said after "are" in words
    /// the coverage does not count ("out", "back", "off") is a condition nothing placed — the
    /// run asks, or under force says first that it ignored it.
    fn state_unplaced(&mut self) -> Result<(), Ambiguity> {
        for words in self.a.copula_predicates() {
            let placed = words.iter().any(|&k| self.ledger.role(k).is_some_and(|r| r != "grammar"));
            if placed || !words.last().is_some_and(|&k| qa_question::cues::is_state_particle(self.word(k))) {
                continue;
            }
            let phrase = words.iter().map(|&k| self.a.tokens[k].text.as_str()).collect::<Vec<_>>().join(" ");
            if self.input.force || self.choices().values().any(|v| v.starts_with(RUN_WITHOUT)) {
                for &k in &words {
                    if !self.ledger.is_used(k) {
                        self.mark(k..k + 1, "ignored");
                    }
                }
                self.ignored.push(phrase);
                continue;
            }
            return Err(Ambiguity {
                field: phrase.clone(),
                message: format!("Nothing in index \"{}\" says which documents are \"{phrase}\": the index may not hold this. Answer 1 to run the query without it, or name the field that says it.", self.mapping.index),
                alternatives: vec![format!("{RUN_WITHOUT} \"{phrase}\"")],
            });
        }
        Ok(())
    }

    /// "the highest price anyone paid", "what did it cost": a verb of paying beside a money
    /// field the query already uses is that field's verb; "How much did drivers pay" with no
    /// measure yet is the sum of the index's one money field.
    fn money_verbs(&mut self) {
        let Some(usd) = qa_question::numbers::unit_of("usd") else { return };
        let money = self.unit_fields(usd);
        let used = self.used_fields();
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !qa_question::cues::is_paying_verb(self.word(i)) || self.mention_covering(i).is_some() {
                continue;
            }
            if let Some(f) = money.iter().find(|f| used.contains(f)) {
                let f = f.clone();
                self.mark(i..i + 1, format!("{f} (its verb)"));
                continue;
            }
            let how_much = (1..i).any(|k| self.word(k) == "much" && self.word(k - 1) == "how");
            if how_much
                && self.plan.metric.is_none()
                && !self.count
                && let [f] = money.as_slice()
            {
                let f = f.clone();
                self.plan.metric = Some(("sum".into(), f.clone()));
                let k = (1..i).find(|&k| self.word(k) == "much" && self.word(k - 1) == "how").unwrap_or(i);
                self.mark(k - 1..k + 1, format!("sum of {f}"));
                self.mark(i..i + 1, format!("sum of {f}"));
            }
        }
    }

    /// "the highest fare paid for a single trip": beside a largest or smallest value of the
    /// documents, "single" only stresses that one document holds it.
    fn a_single_document(&mut self) {
        let extreme = self.plan.metric.as_ref().is_some_and(|(op, _)| matches!(op.as_str(), "max" | "min")) || self.plan.sort.is_some();
        if !extreme || !self.plan.groups.is_empty() && self.plan.metric.is_none() {
            return;
        }
        for i in 1..self.n() {
            if self.word(i) == "single" && matches!(self.word(i - 1), "a" | "one" | "any") && !self.ledger.is_used(i) {
                self.mark(i..i + 1, "one document (emphasis)");
            }
        }
    }

    /// "On average, how many packages are on a declaration?": "how many" of a count kept per
    /// document made a sum; "on average" said apart from it asks for the mean instead.
    fn on_average(&mut self) {
        let Some(i) = (1..self.n()).find(|&i| self.word(i) == "average" && self.word(i - 1) == "on" && !self.ledger.is_used(i) && !self.ledger.is_used(i - 1)) else { return };
        let Some((op, field)) = self.plan.metric.clone() else { return };
        if op != "sum" || !self.plan.more_metrics.is_empty() {
            return;
        }
        self.plan.metric = Some(("avg".to_string(), field.clone()));
        self.mark(i - 1..i + 1, format!("avg of {field}"));
    }

    /// "How many tobacco consignments were seized?" over an index of declarations: the noun
    /// that opens the question's subject — everything before it already read or a function
    /// word — and that names nothing in the index, not even loosely, is the documents said in
    /// the asker's word. Noted in the answer; a noun that a field or value comes near still asks.
    fn records_said_otherwise(&mut self) {
        const OPENERS: &[&str] = &["how", "many", "which", "every", "each", "and", "for", "what", "what's", "whats", "list", "show", "give", "me", "the", "a", "an", "all", "our", "any", "of", "single", "top", "number", "count", "there", "were", "are", "is", "was"];
        let unused = self.ledger.unused();
        let Some(&i) = unused.first() else { return };
        let tok = &self.a.tokens[i];
        if !tok.is_word() || tok.lower.len() < 4 || qa_core::text::is_verb_form(&tok.lower) {
            return;
        }
        let plural = tok.lower != tok.norm;
        // ("every rejected load": past the conditions said of it.)
        let mut a = i;
        while a > 0 && self.ledger.is_used(a - 1) && self.a.tokens[a - 1].is_word() {
            a -= 1;
        }
        let one_of = a > 0 && matches!(self.word(a - 1), "a" | "an" | "single" | "every" | "each");
        // (The subject's head: what follows is a verb, a preposition or the end, not another
        // noun of the same phrase.)
        let next = self.a.tokens.get(i + 1).map(|t| t.lower.as_str()).unwrap_or("");
        let head = next.is_empty() || !self.a.tokens[i + 1].is_word() || self.ledger.is_used(i + 1) || qa_core::text::is_verb_form(next) || next.ends_with("ed") || matches!(next, "in" | "at" | "from" | "to" | "with" | "by" | "for" | "on" | "that" | "which" | "who" | "where" | "whose" | "have" | "has" | "had" | "are" | "were" | "is" | "was" | "did" | "do" | "does");
        let opens = (0..i).all(|k| self.ledger.is_used(k) || !self.a.tokens[k].is_word() || OPENERS.contains(&self.word(k)) || matches!(self.a.tokens[k].kind, qa_question::tokens::TokenKind::Number { .. }));
        if !(plural || one_of) || !head || !opens || self.mention_covering(i).is_some() || !self.closest(&tok.lower, |_| true, 1).is_empty() {
            return;
        }
        // Not the object of a verb ("accidents had fatalities", "did each reviewer verify"),
        // not the things a total adds up ("total number of units").
        // (A participle already read as a condition, "accepted loads", is no such verb.)
        let verb_before = (0..i).any(|k| matches!(self.word(k), "did" | "does" | "do" | "had" | "has" | "have" | "total") || (qa_core::text::is_verb_form(self.word(k)) && !self.ledger.is_used(k) && !matches!(self.word(k), "are" | "were" | "is" | "was")));
        // Not something one named record has ("How many viewings did listing LST-20150 get?").
        let one_record = (0..self.n()).any(|k| self.ledger.role(k).is_some_and(|r| self.mapping.fields.iter().any(|f| self.unique_per_document(&f.path) && r.starts_with(&format!("{} = ", f.path)))));
        // Not a stored value said as a noun ("approvals" of the status `approved`).
        let family = qa_core::text::word_family(&tok.norm);
        let a_value = self.schema.collections.first().is_some_and(|c| c.fields.iter().any(|f| f.values.iter().any(|v| qa_core::text::words(v).iter().any(|x| qa_core::text::word_family(x) == family))));
        if verb_before || one_record || a_value {
            return;
        }
        let w = tok.text.clone();
        self.mark(i..i + 1, format!("the documents of {} (said as \"{w}\")", self.mapping.index));
        self.notes.push(format!("\"{w}\" read as the documents of index \"{}\"", self.mapping.index));
    }

    /// A word the schema does not name but the index's prose holds, said as what the records
    /// have ("listings with a sauna", "which houses have a fireplace") or as their adjective
    /// ("renovated listings"): a text condition on that field, shown in the query's summary.
    /// Not after a negation (a text condition cannot say "without") nor as the object of a
    /// measure, a group or a ranking ("the average rating", "per agent").
    fn prose_words(&mut self) {
        for (s, e, field, _) in self.text_hits.clone() {
            if (s..e).any(|i| self.ledger.is_used(i)) {
                continue;
            }
            let mut b = s;
            while b > 0 && matches!(self.word(b - 1), "a" | "an" | "any" | "some" | "the") {
                b -= 1;
            }
            let before = if b > 0 { self.word(b - 1).to_string() } else { String::new() };
            let had = matches!(before.as_str(), "have" | "has" | "had" | "having" | "with" | "feature" | "features" | "featuring" | "include" | "includes" | "including" | "offer" | "offers" | "offering" | "need" | "needs" | "needed" | "require" | "requires" | "required");
            // ("renovated listings": the word before the records' noun — not before the records'
            // verb, "each maize load delivered at …", where the word is the records themselves.)
            let next = self.word(e);
            let of_records = self.ledger.role(e).is_some_and(|r| r.starts_with("index ")) && !(qa_core::text::is_verb_form(next) || next.ends_with("ed"));
            let negated = (b.saturating_sub(3)..b).any(|i| matches!(self.word(i), "no" | "not" | "without" | "never" | "lack" | "lacking" | "n't"));
            // "notes that mention a barking dog", "the driver noted …", "notes say the box was
            // damaged": a verb of saying before the words, or the prose field named.
            let said = (b.saturating_sub(4)..b).any(|i| {
                qa_core::text::verb_lemmas(self.word(i)).iter().chain(std::iter::once(&self.word(i).to_string())).any(|l| matches!(l.as_str(), "mention" | "say" | "said" | "note" | "noted" | "describe" | "report" | "contain" | "read" | "state"))
            });
            let field_named = self.ms.iter().any(|m| m.best().target.field() == Some(field.as_str()) && matches!(m.best().how, How::Name | How::Core | How::Synonym));
            if !(had || of_records || said || field_named) || negated {
                continue;
            }
            let text = self.phrase(s, e);
            self.place_text(s, e, text, vec![field], None);
        }
    }

    /// "delayed by more than 45 minutes" of `delayMinutes`: a participle of a number field's
    /// word is that comparison's verb; alone ("the delayed flights", "which flights were
    /// delayed"), it says the number is above zero.
    fn measure_verbs(&mut self) {
        // ("How much was invoiced in total": an amount asked for is the field's sum, not a
        // condition on it.)
        let amount_asked = self.plan.metric.is_some() || self.a.aggregates.iter().any(|g| g.func != qa_question::cues::AggWord::Count);
        for i in 0..self.n() {
            let w = self.word(i).to_string();
            if self.ledger.is_used(i) || !self.a.tokens[i].is_word() || w.len() < 5 || !w.ends_with("ed") {
                continue;
            }
            let fields: Vec<String> = self
                .schema
                .collections
                .iter()
                .flat_map(|c| c.fields.iter())
                .filter(|f| f.kind.is_numeric() && f.key == qa_question::KeyRole::None && names::name_words(&f.name).iter().any(|x| x.len() >= 4 && qa_core::text::same_family(x, &w)))
                .map(|f| f.name.clone())
                .collect();
            let [field] = fields.as_slice() else { continue };
            let compared = self.plan.filters.iter().any(|f| matches!(f, Filter::Range { field: x, .. } if x == field));
            if compared {
                self.mark(i..i + 1, format!("{field} (its verb)"));
                continue;
            }
            // Alone: right before the records' noun, or after "was/were" ending the clause.
            let before_records = self.ledger.role(i + 1).is_some_and(|r| r.starts_with("index "));
            let after_be = i > 0 && matches!(self.word(i - 1), "was" | "were" | "is" | "are" | "been" | "got") && !self.a.tokens.get(i + 1).is_some_and(|t| t.is_word() && !self.ledger.is_used(i + 1) && self.ledger.is_content(i + 1));
            if !(before_records || after_be) || amount_asked || self.negation_before(i).is_some() {
                continue;
            }
            self.mark(i..i + 1, format!("{field} > 0"));
            let bounds: BTreeMap<String, Value> = [("gt".to_string(), json!(0))].into_iter().collect();
            self.push_filter((i, i + 1), Filter::Range { field: field.clone(), bounds, negated: false });
        }
    }

    /// "8 cylinders or produced before 1980": an "or" between the words of two conditions on
    /// different fields makes them one condition, either of which holds.
    fn or_between_filters(&mut self) {
        for i in 0..self.n() {
            if self.ledger.is_used(i) || self.word(i) != "or" {
                continue;
            }
            let spans = &self.filter_spans;
            let a = (0..spans.len()).filter(|&k| spans[k].1 <= i).max_by_key(|&k| spans[k].1);
            let b = (0..spans.len()).filter(|&k| spans[k].0 > i).min_by_key(|&k| spans[k].0);
            let (Some(a), Some(b)) = (a, b) else { continue };
            // Only function words between the two conditions and the "or".
            let verb = |k: usize| {
                let w = self.word(k);
                (w.len() > 3 && w.ends_with("ed")) || qa_core::text::is_verb_form(w) || qa_core::text::verb_lemmas(w).iter().any(|l| LIGHT_VERBS.contains(&l.as_str()))
            };
            let gap_ok = (spans[a].1..i).chain(i + 1..spans[b].0).all(|k| !self.ledger.is_content(k) || self.ledger.is_used(k) || verb(k));
            if !gap_ok || a == b {
                continue;
            }
            let (fa, fb) = (self.plan.filters[a].clone(), self.plan.filters[b].clone());
            let (lo, hi) = (a.min(b), a.max(b));
            self.plan.filters.remove(hi);
            self.plan.filters.remove(lo);
            let span = (spans[lo].0.min(spans[hi].0), spans[lo].1.max(spans[hi].1));
            self.filter_spans.remove(hi);
            self.filter_spans.remove(lo);
            self.plan.filters.insert(lo, Filter::Any { any: vec![fa, fb] });
            self.filter_spans.insert(lo, span);
            self.mark(i..i + 1, "or");
        }
    }

    /// "the ids of …", "document id": the index's own key field (its primary key, or the one
    /// `*_id` field named after the index).
    fn key_words(&mut self) {
        let Some(c) = self.schema.collections.first() else { return };
        let index_words: Vec<String> = names::name_words(&c.name).iter().map(|w| qa_core::text::word_family(w)).collect();
        let keys: Vec<String> = c
            .fields
            .iter()
            .filter(|f| {
                let w = names::name_words(&f.name);
                w.last().is_some_and(|l| l == "id") && (f.key == qa_question::KeyRole::Primary || w[..w.len() - 1].iter().any(|x| index_words.contains(&qa_core::text::word_family(x))))
            })
            .map(|f| f.name.clone())
            .collect();
        let [key] = keys.as_slice() else { return };
        let key = key.clone();
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !matches!(self.a.tokens[i].norm.as_str(), "id" | "identifier") {
                continue;
            }
            self.mark(i..i + 1, format!("show {key}"));
            if !self.shown.contains(&key) {
                self.shown.push(key.clone());
            }
        }
    }

    /// Every field the plan uses (its own path, not the exact one).
    fn used_fields(&self) -> Vec<String> {
        let base = |p: &str| self.mapping.field(p).map_or_else(|| p.to_string(), |f| f.path.clone());
        let mut out: Vec<String> = Vec::new();
        for f in &self.plan.filters {
            let mut stack = vec![f];
            while let Some(f) = stack.pop() {
                match f {
                    Filter::Terms { field, .. } | Filter::Range { field, .. } | Filter::AnyRange { field, .. } | Filter::Exists { field, .. } => out.push(base(field)),
                    Filter::Text { fields, .. } => out.extend(fields.iter().map(|x| base(x))),
                    Filter::Any { any } => stack.extend(any.iter()),
                }
            }
        }
        out.extend(self.plan.groups.iter().map(|g| base(g.field())));
        out.extend(self.plan.metric.iter().map(|(_, f)| base(f)));
        out.extend(self.plan.sort.iter().map(|(f, _)| base(f)));
        out.extend(self.plan.source.iter().map(|f| base(f)));
        out
    }

    /// "about toner", "regarding X", "that found cockroaches", "where fresh tracks were found".
    fn weak_text(&mut self) {
        for i in 0..self.n() {
            if self.ledger.is_used(i) {
                continue;
            }
            let w = self.word(i).to_string();
            match w.as_str() {
                "about" | "regarding" | "concerning" | "found" | "find" | "finding" | "noting" | "reporting" | "describing" | "say" | "says" | "saying" => {
                    // After the cue.
                    if let Some((_, we, text)) = self.text_after(i + 1)
                        && let Some((fields, named)) = self.text_fields(i)
                    {
                        self.place_text(i, we, text, fields, named);
                        continue;
                    }
                    // "where fresh tracks were found": before it.
                    if w == "found" {
                        let mut j = i;
                        while j > 0 && matches!(self.word(j - 1), "was" | "were" | "been" | "be" | "is" | "are") {
                            j -= 1;
                        }
                        let end = j;
                        while j > 0 && end - j < 4 && self.a.tokens[j - 1].is_word() && !self.ledger.is_used(j - 1) && !matches!(self.word(j - 1), "where" | "that" | "which" | "with" | "when" | "the" | "a" | "an" | "and" | "or") {
                            j -= 1;
                        }
                        if j < end
                            && let Some((fields, named)) = self.text_fields(j)
                        {
                            let text = self.phrase(j, end);
                            self.place_text(j, i + 1, text, fields, named);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// A field the plan uses, named again ("the tickets affected more than 100 users").
    fn fields_named_again(&mut self) {
        let used = self.used_fields();
        for mi in 0..self.ms.len() {
            if self.used[mi] {
                continue;
            }
            if let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| used.contains(f)) {
                self.consume(mi, format!("{f} (named again)"));
            }
        }
    }

    /// "endangered species", "Korean restaurants": the noun a value or flag describes.
    fn nouns_after_values(&mut self) {
        for mi in 1..self.ms.len() {
            if self.used[mi] || !self.used[mi - 1] || self.ms[mi - 1].end != self.ms[mi].start {
                continue;
            }
            let prev_is_value = self.ledger.role(self.ms[mi - 1].start).is_some_and(|r| r.contains(" = ") || r.contains(" <> "));
            if prev_is_value && matches!(self.ms[mi].best().target, Target::Field { .. }) {
                let f = self.field(mi).unwrap_or_default();
                self.consume(mi, format!("{f} (described by the value before)"));
            }
        }
    }

    /// "resolution time in hours", "fines in CAD", "distance in metres": the unit and the word
    /// "time" of a measure the plan uses.
    fn units_and_time_words(&mut self) {
        let fields: Vec<String> = self.used_fields().into_iter().filter(|f| self.is_measure(f)).collect();
        for f in &fields {
            let Some(u) = field_unit(f) else { continue };
            for i in 0..self.n() {
                if self.ledger.is_used(i) {
                    continue;
                }
                let w = self.word(i).to_string();
                let same_dim = unit_of(&w).is_some_and(|x| x.dimension == u.dimension) || (self.a.tokens[i].kind == qa_question::tokens::TokenKind::Symbol && unit_of(&self.a.tokens[i].text).is_some_and(|x| x.dimension == u.dimension));
                if same_dim {
                    let from = if i > 0 && self.word(i - 1) == "in" { i - 1 } else { i };
                    self.mark(from..i + 1, format!("unit of {f}"));
                }
                // "resolution time", "inspection duration": the measure's own word.
                let time_word = u.dimension == qa_question::numbers::Dimension::Time && matches!(w.as_str(), "time" | "times" | "duration" | "length");
                // "protein content", "moisture level" of `protein_pct`: the share's own noun.
                let share_word = u.dimension == qa_question::numbers::Dimension::Percent && matches!(w.as_str(), "content" | "level" | "levels" | "percentage" | "share" | "rate");
                if (time_word || share_word) && i > 0 && self.ledger.role(i - 1).is_some_and(|r| r.contains(f.as_str())) {
                    self.mark(i..i + 1, f.to_string());
                }
            }
        }
    }

    /// "of restaurants", "for customers": a label field named as what the documents are about
    /// (no value, no group), after "of", "at", "for" or "from".
    fn entity_nouns(&mut self) {
        for mi in 0..self.ms.len() {
            let s = self.ms[mi].start;
            if self.used[mi] || s == 0 || !matches!(self.word(s - 1), "of" | "at" | "for" | "from") {
                continue;
            }
            let b = self.ms[mi].best().clone();
            let Target::Field { field, .. } = &b.target else { continue };
            let label = qa_question::names::name_words(field).last().is_some_and(|w| matches!(w.as_str(), "name" | "title" | "label"));
            let plural = self.a.tokens[s..self.ms[mi].end].last().is_some_and(|t| t.lower != t.norm);
            if label && plural && matches!(b.how, How::Core | How::Head) && self.kind(field) == FieldKind::Keyword {
                let f = field.clone();
                self.consume(mi, format!("{f} (what the documents are about)"));
            }
        }
    }

    fn grammar_words(&mut self) {
        let grouped = !self.plan.groups.is_empty();
        for i in 0..self.n() {
            if self.ledger.is_used(i) {
                continue;
            }
            let w = self.word(i);
            // ("passengers on board", "right now": idioms that say nothing.)
            let idiom = (w == "board" && i > 0 && self.word(i - 1) == "on") || (w == "right" && self.word(i + 1) == "now");
            // ("in total", "overall" say nothing only beside a sum or a count; beside one
            // ranked document they ask for a sum the plan does not make.)
            let totalled = self.count || self.plan.metric.as_ref().is_some_and(|(op, _)| op == "sum") || self.plan.more_metrics.iter().any(|(op, _)| op == "sum");
            let total_word = matches!(w, "total" | "overall");
            if (GRAMMAR.contains(&w) && (!total_word || totalled || self.plan.sort.is_none())) || idiom || (w == "all" && i > 0 && self.word(i - 1) == "at") || (grouped && matches!(w, "break" | "breakdown" | "broken" | "split")) {
                self.mark(i..i + 1, "grammar");
            }
        }
    }

    /// A used token, or one of the index's mentions.
    fn near_used(&self, i: usize, dir: isize) -> bool {
        let mut j = i as isize + dir;
        while j >= 0 && (j as usize) < self.n() {
            let k = j as usize;
            if self.ledger.is_used(k) {
                return true;
            }
            if self.ledger.is_content(k) || self.a.tokens[k].kind == qa_question::tokens::TokenKind::Symbol && !self.a.tokens[k].is_symbol(',') {
                return false;
            }
            j += dir;
        }
        false
    }

    /// Verbs that only relate what the query uses: light verbs ("came", "carried out", "took
    /// place", "handled", "issued") and verbs of the index's own name ("inspected" in an index of
    /// inspections), next to a used word.
    fn relation_verbs(&mut self) {
        // (Each word of the name: "picked" in an index `warehouse_picks`.)
        let mut index_families: Vec<String> = qa_question::names::name_words(&self.mapping.index).iter().filter(|w| w.len() >= 4).map(|w| qa_core::text::word_family(w)).collect();
        index_families.push(qa_core::text::word_family(&qa_core::text::singular(&self.mapping.index.to_lowercase())));
        let dated = self.plan.filters.iter().any(|f| matches!(f, Filter::Range { field, .. } | Filter::AnyRange { field, .. } if self.kind(field) == FieldKind::Date)) || self.plan.groups.iter().any(|g| matches!(g, Group::Calendar { .. }));
        for i in 0..self.n() {
            if self.ledger.is_used(i) || !self.a.tokens[i].is_word() {
                continue;
            }
            let w = self.word(i).to_string();
            let light = qa_core::text::verb_lemmas(&w).iter().any(|l| LIGHT_VERBS.contains(&l.as_str()));
            // (An irregular participle after "be": "meters were read" of `meter_readings`.)
            let after_be = i > 0 && matches!(self.word(i - 1), "was" | "were" | "been" | "be" | "is" | "are");
            // (Or of its actor: "borrowed" where fields are named after the borrower — except
            // right after "who", which asks for that person.)
            let of_index = w.len() >= 4 && (index_families.contains(&qa_core::text::word_family(&w)) || self.actor_verb(&w) && !(i > 0 && self.word(i - 1) == "who")) && (w.ends_with("ed") || w.ends_with("ing") || after_be || qa_core::text::verb_lemmas(&w).iter().any(|l| *l != w));
            // A verb whose only reading is a date field the plan does not filter on names that
            // event: not a relation ("opened" is no `createdAt`).
            let dates_event = !of_index && self.mention_covering(i).is_some_and(|mi| self.fields_of(mi).iter().any(|(f, ..)| self.kind(f) == FieldKind::Date)) && !dated;
            // ("on hold", "in process": a noun after a preposition, a state the plan must
            // place, not a verb.)
            let after_preposition = i > 0 && matches!(self.word(i - 1), "on" | "in" | "under" | "at");
            if !(light || of_index) || dates_event || after_preposition && !after_be {
                continue;
            }
            if !(self.near_used(i, -1) || self.near_used(i, 1)) {
                continue;
            }
            self.mark(i..i + 1, "relation");
            if PARTICLES.contains(&self.word(i + 1)) && !self.ledger.is_used(i + 1) {
                self.mark(i + 1..i + 2, "relation");
            }
        }
    }

    /// "the energy delivered", "kWh delivered", "trips that covered more than 10 km": a verb
    /// right after a measure the query uses, or right before a comparison it made, says how
    /// the amount came about — no condition of its own. (A verb that links to something, such
    /// as a date field of its family, is not taken.)
    fn verbs_of_a_measure(&mut self) {
        let numeric: Vec<String> = self.mapping.fields.iter().filter(|f| self.kind(&f.path).is_numeric()).map(|f| f.path.clone()).collect();
        for i in 1..self.n() {
            let w = self.word(i).to_string();
            // (A verb linked only loosely — "paid" to `paymentMethod` by its family — is still
            // the measure's verb.)
            let linked = self.mention_covering(i).is_some_and(|mi| self.readings(mi).iter().any(|l| !matches!(l.how, How::Family | How::Fuzzy | How::Part)));
            if self.ledger.is_used(i) || !self.a.tokens[i].is_word() || linked {
                continue;
            }
            if !(qa_core::text::is_verb_form(&w) || (w.len() >= 5 && w.ends_with("ed"))) || self.negation_before(i).is_some() {
                continue;
            }
            // ("energy was delivered": past the verb "be".)
            let mut prev = i - 1;
            while prev > 0 && matches!(self.word(prev), "was" | "were" | "is" | "are" | "been" | "be") {
                prev -= 1;
            }
            let after_measure = self.ledger.is_used(prev) && self.ledger.role(prev).is_some_and(|r| numeric.iter().any(|f| r.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.')).any(|x| x == f)));
            let before_comparison = self.ledger.is_used(i + 1) && self.a.comparisons.iter().any(|c| c.start == i + 1) && self.filter_spans.iter().any(|&(a, b)| a <= i + 1 && i + 1 < b);
            if after_measure || before_comparison {
                for k in prev + 1..=i {
                    if !self.ledger.is_used(k) {
                        self.mark(k..k + 1, "the measure's verb");
                    }
                }
            }
        }
    }

    /// "Who owns plate CM-935?" over `owner_first_name`/`ownerLastName`: the verb of a person's
    /// role (an agent noun names its verb, "owner" → "owns") right after "who" asks for that
    /// person, both halves of the name — shown with the documents.
    fn who_by_the_verb_of_their_role(&mut self) {
        for &(st, _) in &self.a.sentences.clone() {
            let v = st + 1;
            if self.word(st) != "who" || v >= self.n() || self.ledger.is_used(v) || !self.a.tokens[v].is_word() {
                continue;
            }
            let Some(mi) = self.mention_covering(v) else { continue };
            let person = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.name_sibling(f).is_some());
            let Some(f) = person else { continue };
            let Some(other) = self.name_sibling(&f) else { continue };
            self.consume(mi, format!("show {f} and {other}"));
            for x in [f, other] {
                if !self.plan.source.is_empty() && !self.plan.source.contains(&x) {
                    self.plan.source.push(x);
                }
            }
        }
    }

    /// "Which senders never had a delayed shipment?": "never" over groups asks for the groups
    /// with no such document, which a filter cannot say (it would keep the senders with one
    /// document that is not delayed). Asked, unless forced — then the note says it.
    fn never_per_group(&mut self) -> Result<(), Ambiguity> {
        if self.plan.groups.is_empty() {
            return Ok(());
        }
        if !(0..self.n()).any(|i| self.word(i) == "never" && self.ledger.role(i).is_some_and(|r| r == "negation")) {
            return Ok(());
        }
        if self.input.force || self.choices().values().any(|v| v.starts_with(RUN_WITHOUT)) {
            self.notes.push("\"never\" read per document: the groups shown have at least one document without it, not none with it".into());
            return Ok(());
        }
        Err(Ambiguity {
            field: "never".into(),
            message: format!("\"never\" asks for the groups with no such document, which index \"{}\" cannot answer with a filter: the answer would hold every group with one document without it. Answer 1 to run it per document anyway, or ask for the count per group instead.", self.mapping.index),
            alternatives: vec![format!("{RUN_WITHOUT} \"never\" (per document)")],
        })
    }

    /// What is left matches nothing the query uses: ask, or run without it (after the user
    /// said so, or under force) with a first note naming it.
    fn leftovers(&mut self) -> Result<(), Ambiguity> {
        let unused = self.ledger.unused();
        if unused.is_empty() {
            return Ok(());
        }
        // Runs of neighbouring unused words.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &i in &unused {
            match runs.last_mut() {
                Some((_, e)) if *e == i => *e = i + 1,
                _ => runs.push((i, i + 1)),
            }
        }
        let phrases: Vec<String> = runs.iter().map(|&(s, e)| self.phrase(s, e)).collect();
        let quoted = phrases.iter().map(|p| format!("\"{p}\"")).collect::<Vec<_>>().join(", ");
        let run_without = self.choices().values().any(|v| v.starts_with(RUN_WITHOUT));
        if run_without || self.input.force {
            for (&(s, e), p) in runs.iter().zip(&phrases) {
                self.mark(s..e, "ignored");
                self.ignored.push(p.clone());
            }
            return Ok(());
        }
        let first = phrases[0].clone();
        let mut alternatives = vec![format!("{RUN_WITHOUT} {quoted}")];
        let closest = self.closest(&first, |_| true, 4);
        let message = if closest.is_empty() {
            format!("Nothing in index \"{}\" matches {quoted}: the index may not hold this. Answer 1 to run the query without it, or rephrase.", self.mapping.index)
        } else {
            format!("No field of index \"{}\" matches {quoted}: the index may not hold this. Answer 1 to run the query without it, or the field \"{first}\" means (closest: {}).", self.mapping.index, closest.join(", "))
        };
        alternatives.extend(closest);
        Err(Ambiguity { field: first, message, alternatives })
    }
}
