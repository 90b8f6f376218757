//! Which date field a date in the question is about: the field named right before, a verb of
//! its family, a noun that starts its name, the index's only date, the semantic default, the
//! records' own date, the date every document holds beside dates set later, or the one the user
//! picks.

use qa_question::link::Target;
use qa_question::names;
use qa_question::FieldKind;

use super::read::Reader;
use super::DATE_CHOICE;
use crate::Ambiguity;

impl Reader<'_> {
    /// The date fields of the index.
    pub fn date_fields(&self) -> Vec<String> {
        self.schema.collections.first().map(|c| c.fields.iter().filter(|f| f.kind == FieldKind::Date).map(|f| f.name.clone()).collect()).unwrap_or_default()
    }

    /// A mention's word is a verb form ("created", "resolved", "arriving").
    pub fn is_verb_mention(&self, mi: usize) -> bool {
        let m = &self.ms[mi];
        m.end == m.start + 1 && {
            let w = self.word(m.start);
            // (An irregular past, "found", "sent", is a verb too.)
            w.ends_with("ed") || w.ends_with("ing") || qa_core::text::is_verb_form(w) || qa_core::text::is_base_verb(w) || qa_core::text::is_irregular_verb_form(w)
        }
    }

    /// Fields that hold a year as a number or as four digits (`year`, `birth_year`).
    pub fn year_fields(&self) -> Vec<String> {
        let Some(c) = self.schema.collections.first() else { return Vec::new() };
        c.fields
            .iter()
            .filter(|f| names::name_words(&f.name).iter().any(|w| matches!(w.as_str(), "year" | "yr")))
            .filter(|f| matches!(f.kind, FieldKind::Integer | FieldKind::Number) || (f.kind == FieldKind::Keyword && !f.values.is_empty() && f.values.iter().all(|v| v.len() == 4 && v.chars().all(|c| c.is_ascii_digit()))))
            .map(|f| f.name.clone())
            .collect()
    }

    /// The date field of a date at token `start` (or a year field), and the mention that
    /// named it.
    pub fn date_target(&mut self, start: usize, phrase: &str) -> Result<Option<(String, Option<usize>)>, Ambiguity> {
        let dates = self.date_fields();
        let years = self.year_fields();
        if dates.is_empty() && years.is_empty() {
            return Ok(None);
        }
        let date_of = |r: &Reader, mi: usize| r.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| r.kind(f) == FieldKind::Date || years.contains(f));
        // Named right before ("created in 2025", "the inspection date in March", "birth year
        // 1948").
        let mut p = start;
        while p > 0 && matches!(self.word(p - 1), "in" | "on" | "during" | "of" | "was" | "were" | "is" | "are" | "the" | "year" | "since" | "before" | "after" | "from" | "between" | "until" | "by" | "been" | "either") {
            p -= 1;
        }
        if let Some(mi) = self.ms.iter().position(|m| m.end == p).filter(|&mi| !self.used[mi])
            && let Some(f) = date_of(self, mi)
        {
            return Ok(Some((f, Some(mi))));
        }
        // The word right before is a word of a year field's name that links to nothing alone
        // ("bikes made after 2020" of `yearMade`, where "made" is too common a word to name it).
        if p > 0 {
            let w = self.word(p - 1).to_string();
            let fam = qa_core::text::word_family(&w);
            let named: Vec<&String> = years.iter().filter(|f| names::name_words(f).iter().any(|x| x.len() >= 4 && (*x == w || qa_core::text::word_family(x) == fam))).collect();
            if let [one] = named.as_slice() {
                let f = (*one).clone();
                self.mark(p - 1..p, format!("{f} (its verb)"));
                return Ok(Some((f, None)));
            }
        }
        // A phrasal verb before it that a date field's name writes as one word ("picked up in
        // March" of `pickup_date`).
        for i in 0..start.saturating_sub(1) {
            let forms = names::phrasal_forms(self.word(i), self.word(i + 1));
            let named: Vec<&String> = dates.iter().filter(|f| names::name_words(f).iter().any(|x| forms.contains(x))).collect();
            if let [one] = named.as_slice() {
                let f = (*one).clone();
                self.mark(i..i + 2, format!("{f} (its verb)"));
                return Ok(Some((f, None)));
            }
        }
        // A verb of a date field's family elsewhere ("tickets resolved … in 2024").
        // (Not a negated one: "deliveries from 2025 that have not been paid" dates the
        // deliveries; the payment is absent.)
        let verbs: Vec<(String, usize)> = (0..self.ms.len()).filter(|&mi| !self.used[mi] && self.is_verb_mention(mi) && self.negation_before(self.ms[mi].start).is_none()).filter_map(|mi| date_of(self, mi).map(|f| (f, mi))).collect();
        if let Some((f, mi)) = verbs.first().filter(|(f, _)| verbs.iter().all(|(g, _)| g == f)) {
            return Ok(Some((f.clone(), Some(*mi))));
        }
        // A common verb the linker leaves alone that a date field's name holds ("items found at
        // Groenplaats in 2025" of `found_date`).
        let said: Vec<(String, usize)> = dates
            .iter()
            .filter_map(|f| match names::name_words(f).as_slice() {
                [verb, d] if matches!(d.as_str(), "date" | "on" | "at") && verb.len() >= 4 => {
                    (0..start).find(|&i| !self.ledger.is_used(i) && self.word(i) == verb && self.ms.iter().all(|m| !(m.start <= i && i < m.end)) && self.negation_before(i).is_none()).map(|i| (f.clone(), i))
                }
                _ => None,
            })
            .collect();
        if let [(f, i)] = said.as_slice() {
            self.mark(*i..*i + 1, format!("{f} (its verb)"));
            return Ok(Some((f.clone(), None)));
        }
        // Without date fields, the only year field.
        let dates = if dates.is_empty() { years } else { dates };
        if dates.len() == 1 {
            // "flights scheduled in March", "flown in 2025": the verb before says that date.
            // (Only verbs that say a record's own event; "born before 1800" of an
            // acquisition date is another date, absent.)
            if p > 0 && !self.ledger.is_used(p - 1) && matches!(self.word(p - 1), "scheduled" | "planned" | "held" | "recorded" | "logged" | "registered" | "filed" | "submitted" | "placed" | "created" | "operated" | "flown" | "run") {
                let f = dates[0].clone();
                self.mark(p - 1..p, format!("{f} (its verb)"));
            }
            return Ok(Some((dates[0].clone(), None)));
        }
        if let Some(d) = self.input.semantic.default_date.clone().filter(|d| dates.contains(d)) {
            return Ok(Some((d, None)));
        }
        // No word names one: the date named after the records themselves (`job_date` of an
        // index of jobs, `reviewDate` of reviews) is when each record happened.
        // "calls in 2025" with `receivedDate` and `closed_date`: a record is dated by when it
        // began, not by the date of its ending (closed, resolved, decided, due, paid, …).
        let ending = |f: &String| {
            names::name_words(f).iter().any(|w| {
                ["closed", "resolved", "completed", "decided", "ended", "finished", "cancelled", "expired", "terminated", "settled", "due", "paid", "returned"].iter().any(|e| qa_core::text::same_family(w, e))
            })
        };
        // (Not after another verb: "approved in 2025" is dated by the decision.)
        let begun: Vec<&String> = dates.iter().filter(|f| !ending(f)).collect();
        let verb = (p > 0).then(|| self.word(p - 1).to_string()).filter(|w| w.len() > 3 && (w.ends_with("ed") || qa_core::text::is_verb_form(w)));
        let beginning = |w: &str| qa_core::text::verb_lemmas(w).iter().any(|l| matches!(l.as_str(), "open" | "receive" | "come" | "file" | "submit" | "raise" | "create" | "make" | "log" | "register" | "report" | "place" | "start" | "begin" | "book" | "phone" | "call" | "lodge" | "enter" | "date")) || self.actor_verb(w);
        // (A verb of beginning before it, "started in 2025", says the same date.)
        if let Some(f) = self.own_date(&dates)
            && verb.as_deref().is_none_or(beginning)
        {
            if verb.is_some() {
                self.mark(p - 1..p, format!("{f} (its verb)"));
                if let Some(mi) = self.ms.iter().position(|m| m.start == p - 1 && m.end == p) {
                    self.used[mi] = true;
                }
            }
            return Ok(Some((f, None)));
        }
        if dates.len() >= 2
            && let [one] = begun.as_slice()
            && verb.as_deref().is_none_or(beginning)
        {
            let f = (*one).clone();
            if verb.is_some() {
                self.mark(p - 1..p, format!("{f} (its verb)"));
                if let Some(mi) = self.ms.iter().position(|m| m.start == p - 1 && m.end == p) {
                    self.used[mi] = true;
                }
            }
            self.notes.push(format!("\"{phrase}\" read as {f} (when each record began; the other dates end it)"));
            return Ok(Some((f, None)));
        }
        // A noun just before that starts a date field's name: "classes in March" of
        // `classDate`, "classes held in 2024".
        if let Some((f, verb_at)) = self.date_of_the_noun_before(p, &dates) {
            if let Some(v) = verb_at {
                self.mark(v..v + 1, format!("{f} (its verb)"));
            }
            return Ok(Some((f, None)));
        }
        // Every document holds one date and some lack each other one: the one all hold is when
        // each record began; the others are filled when something later happens to it (cleared,
        // decided, paid). A verb that names nothing else says the first ("declared in 2025").
        if dates.len() >= 2 {
            let nullable = |f: &String| self.schema.collections.first().and_then(|c| c.field(f)).map(|x| x.nullable);
            let full: Vec<&String> = dates.iter().filter(|f| nullable(f) == Some(false)).collect();
            let verb_free = verb.as_deref().is_none_or(|w| {
                // (A verb that a measure's name shares, "declared" of `declared_value_eur`,
                // names no date and no value.)
                // (Any other verb, "handled in March", may be either date: ask.)
                beginning(w)
                    || self.mention_covering(p - 1).is_some_and(|mi| {
                        let r = self.readings(mi);
                        !r.is_empty()
                            && r.iter().all(|l| match &l.target {
                                Target::Field { field, .. } => self.is_measure(field),
                                _ => false,
                            })
                    })
            });
            if let [one] = full.as_slice()
                && dates.iter().all(|f| f == *one || nullable(f) == Some(true))
                && verb_free
            {
                let f = (*one).clone();
                if verb.is_some() {
                    self.mark(p - 1..p, format!("{f} (its verb)"));
                }
                self.notes.push(format!("\"{phrase}\" read as {f} (every record has it; the other dates are set later)"));
                return Ok(Some((f, None)));
            }
        }
        // "applications approved in 2025": a state said by its participle and read as a stored
        // value (`status` 'approved') is reached on the one date set later (`decisionDate`), not
        // on the date every record holds.
        if let Some(v) = verb.as_deref()
            && v.ends_with("ed")
            && self.mention_covering(p - 1).is_some_and(|mi| matches!(self.ms[mi].best().target, Target::Value { .. }))
        {
            let set_later: Vec<&String> = dates.iter().filter(|f| self.schema.collections.first().and_then(|c| c.field(f)).is_some_and(|x| x.nullable)).collect();
            if let [one] = set_later.as_slice() {
                let f = (*one).clone();
                self.notes.push(format!("\"{phrase}\" after \"{v}\" read as {f} (the date set when a record reaches that state)"));
                return Ok(Some((f, None)));
            }
        }
        let f = self.choose(DATE_CHOICE, format!("Which date does \"{phrase}\" refer to?"), dates)?;
        Ok(Some((f, None)))
    }

    /// The date field whose name starts with the noun at `p - 1` (or at `p - 2` behind a
    /// participle, "classes held").
    /// A noun that names the records by their own code ("bookings" of `booking_id`) says which
    /// records, not which of their dates. Returns the field and the participle's position.
    fn date_of_the_noun_before(&self, p: usize, dates: &[String]) -> Option<(String, Option<usize>)> {
        let mut k = p.checked_sub(1)?;
        let mut verb_at = None;
        if k > 0 && !self.ledger.is_used(k) && (self.word(k).ends_with("ed") || matches!(self.word(k), "held" | "run" | "taken" | "given" | "done" | "made" | "seen" | "shot" | "sold" | "built")) {
            verb_at = Some(k);
            k -= 1;
        }
        // (A noun taken as the records' name may still say their date: "classes" of an index
        // `fitness_classes` with a `classDate`.)
        let records_only = self.mention_covering(k).is_some_and(|mi| self.readings(mi).iter().any(|l| matches!(l.target, Target::Collection { .. })));
        let tok = self.a.tokens.get(k).filter(|t| t.is_word() && t.lower.len() >= 3 && (!self.ledger.is_used(k) || records_only))?;
        let noun = qa_core::text::singular(&tok.lower);
        let own_code = self.mapping.fields.iter().any(|f| {
            let w = names::name_words(&f.path);
            w.len() == 2 && w[0] == noun && matches!(w[1].as_str(), "id" | "code" | "no" | "number" | "ref") && self.unique_per_document(&f.path)
        });
        if own_code {
            return None;
        }
        let named: Vec<&String> = dates
            .iter()
            .filter(|f| {
                let w = names::name_words(f);
                w.len() == 2 && w[0].len() >= 3 && qa_core::text::same_family(&qa_core::text::singular(&w[0]), &noun) && matches!(w[1].as_str(), "date" | "day" | "on" | "at" | "time" | "datetime")
            })
            .collect();
        match named.as_slice() {
            [one] => Some(((*one).clone(), verb_at)),
            _ => None,
        }
    }
}
