//! The query's shape: counts ("how many", "number of"; "how many different X" counts values;
//! "the number of affected users" sums a count field), groupings ("per team", "by city", "for
//! each grade", "per month"), metrics ("the average score", "total fines"), "which X …" with a
//! ranking or an aggregate (X is the group), rankings ("the most", "the 5 deepest", "the lowest
//! average rating", "most often"), ordering ("sorted by X", "cheapest first") and the fields shown.

use qa_question::cues::{measure_of, AggWord};
use qa_question::link::Target;
use qa_question::FieldKind;

use super::read::Reader;
use super::{BucketOrder, Group};
use crate::Ambiguity;

/// Calendar intervals a grouping may name.
fn calendar(word: &str) -> Option<&'static str> {
    Some(match qa_core::text::singular(word).as_str() {
        "day" | "date" => "day",
        "week" => "week",
        "month" => "month",
        "quarter" => "quarter",
        "year" => "year",
        _ => return None,
    })
}

/// Last words of the names of fields that count things (`individual_count`, `itemQty`).
const COUNT_WORDS: &[&str] = &["count", "qty", "quantity", "number", "num"];

/// Words that end a phrase named after a cue.
const PHRASE_END: &[&str] = &["in", "on", "at", "since", "before", "after", "from", "with", "that", "which", "who", "where", "when", "and", "or", "for", "by", "per", "of", "is", "are", "was", "were", "did", "do", "does", "has", "have", "had", "than", "to", "during", "across"];

impl Reader<'_> {
    pub fn shape(&mut self) -> Result<(), Ambiguity> {
        self.counts();
        self.groupings()?;
        self.metrics()?;
        self.which_group();
        self.superlatives()?;
        self.orderings();
        self.projection();
        self.bucket_sizes();
        Ok(())
    }

    /// The words of the phrase starting at `from` (up to three, until a boundary): `(end, text)`.
    pub fn phrase_from(&self, from: usize) -> (usize, String) {
        let s = self.skip_filler(from);
        let mut e = s;
        while e < self.n() && e < s + 3 && self.a.tokens[e].is_word() && !PHRASE_END.contains(&self.word(e)) && !self.ledger.is_used(e) {
            e += 1;
        }
        (e, self.phrase(s, e))
    }

    /// A field's name said where a field is expected found nothing: ask which field is meant
    /// (closest by link score, those that `fits`), take the best under force, or — with nothing
    /// close — leave the words unused for the coverage question.
    fn field_for(&mut self, s: usize, e: usize, what: &str, fits: impl Fn(&Reader, &str) -> bool) -> Result<Option<String>, Ambiguity> {
        if e <= s {
            return Ok(None);
        }
        let phrase = self.phrase(s, e);
        let alternatives = self.closest(&phrase, |f| fits(self, f), 5);
        if alternatives.is_empty() && !self.choices().contains_key(&phrase) {
            return Ok(None);
        }
        let f = self.choose(&phrase, format!("No field matches \"{phrase}\": which field should {what}?"), alternatives)?;
        if self.mapping.field(&f).is_none() {
            return Ok(None);
        }
        self.mark(s..e, format!("{f} (chosen)"));
        Ok(Some(f))
    }

    /// "how many", "number of", "count": a count; "how many different X" counts X's values;
    /// "the number of affected users" sums a count field; "the total number of X counted" sums
    /// the index's only count field.
    fn counts(&mut self) {
        for g in self.a.aggregates.clone() {
            if g.func != AggWord::Count || self.aggs_done.contains(&g.start) || self.ledger.is_used(g.start) {
                continue;
            }
            let mut end = g.end;
            if matches!(self.word(end), "times" | "time") {
                end += 1;
            }
            let mut p = end;
            let mut distinct = false;
            while matches!(self.word(p), "different" | "distinct" | "unique" | "the" | "of" | "all") {
                distinct |= matches!(self.word(p), "different" | "distinct" | "unique");
                p += 1;
            }
            self.aggs_done.push(g.start);
            if let Some(mi) = self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi] && !self.names_index(mi) && matches!(self.ms[mi].best().target, Target::Field { .. })) {
                if let Some(f) = self.measure_of(mi).filter(|_| !distinct) {
                    let role = format!("sum of {f}");
                    self.mark(g.start..p, role.clone());
                    self.consume(mi, role);
                    self.plan.metric = Some(("sum".into(), f));
                    continue;
                }
                if let Some(f) = self.field(mi).filter(|f| self.is_groupable(f))
                    && let Some(exact) = self.exact(&f)
                {
                    let role = format!("number of distinct {f}");
                    self.mark(g.start..p, role.clone());
                    self.consume(mi, role);
                    self.plan.metric = Some(("cardinality".into(), exact));
                    continue;
                }
            }
            // "the total number of caribou counted": the index's count field, summed.
            if let Some(c) = (0..self.n()).find(|&i| self.word(i) == "counted" && !self.ledger.is_used(i)) {
                let fields: Vec<String> = self.measures().into_iter().filter(|f| qa_question::names::name_words(f).last().is_some_and(|w| COUNT_WORDS.contains(&w.as_str()))).collect();
                if let [f] = fields.as_slice() {
                    let role = format!("sum of {f}");
                    self.mark(g.start..end, role.clone());
                    self.mark(c..c + 1, role);
                    self.plan.metric = Some(("sum".into(), f.clone()));
                    continue;
                }
            }
            self.count = true;
            self.mark(g.start..end, "count");
        }
    }

    /// "per team", "by city", "for each grade", "per month", "broken down by status".
    fn groupings(&mut self) -> Result<(), Ambiguity> {
        for g in self.a.groupings.clone() {
            if (g.start..g.end).any(|i| self.ledger.is_used(i)) {
                continue;
            }
            let t = self.skip_filler(g.target);
            // "top 3 teams by number of breaches": "by" names the ranking, not a group.
            if self.word(g.end - 1) == "by" && self.a.aggregates.iter().any(|x| x.start == t) {
                self.mark(g.start..g.end, "ranking");
                continue;
            }
            if let Some(interval) = calendar(self.word(t)).filter(|_| self.ms.iter().all(|m| m.start != t || m.best().target.field().is_none_or(|f| self.kind(f) != FieldKind::Date))) {
                let phrase = self.phrase(g.start, t + 1);
                if let Some((field, mi)) = self.date_target(t, &phrase)? {
                    let role = format!("per {interval} of {field}");
                    self.mark(g.start..t + 1, role.clone());
                    if let Some(mi) = mi {
                        self.consume(mi, role);
                    }
                    self.plan.groups.push(Group::Calendar { field, interval: interval.into() });
                }
                continue;
            }
            let field = match self.ms.iter().position(|m| m.start == t).filter(|&mi| !self.used[mi] && !self.names_index(mi)) {
                Some(mi) => match self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f)) {
                    Some(f) => {
                        self.consume(mi, format!("group by {f}"));
                        Some(f)
                    }
                    None => None,
                },
                None => None,
            };
            let field = match field {
                Some(f) => Some(f),
                None => {
                    let (e, _) = self.phrase_from(t);
                    self.field_for(t, e, "the results be grouped by", |r, f| r.is_groupable(f))?
                }
            };
            let Some(field) = field else { continue };
            self.mark(g.start..g.end, format!("group by {field}"));
            // "break down … by", "broken down by", "split by".
            for i in 0..g.start {
                if matches!(self.word(i), "break" | "breakdown" | "broken" | "split" | "group" | "grouped") && !self.ledger.is_used(i) {
                    self.mark(i..i + 1, format!("group by {field}"));
                    if self.word(i + 1) == "down" {
                        self.mark(i + 1..i + 2, format!("group by {field}"));
                    }
                }
            }
            if let Some(exact) = self.exact(&field) {
                self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc });
            }
        }
        Ok(())
    }

    /// "the average score", "total fines", "maximum depth", "how much".
    fn metrics(&mut self) -> Result<(), Ambiguity> {
        for g in self.a.aggregates.clone() {
            if g.func == AggWord::Count || self.aggs_done.contains(&g.start) || self.ledger.is_used(g.start) {
                continue;
            }
            let op = match g.func {
                AggWord::Avg => "avg",
                AggWord::Sum => "sum",
                AggWord::Max => "max",
                AggWord::Min => "min",
                AggWord::Count => continue,
            };
            // The field: after the cue, past filler and the index's own name ("average
            // inspection score").
            let mut p = self.skip_filler(g.target);
            while let Some(mi) = self.ms.iter().position(|m| m.start == p).filter(|&mi| self.names_index(mi)) {
                p = self.skip_filler(self.ms[mi].end);
            }
            let ok = |r: &Reader, f: &str| r.is_measure(f) || (matches!(op, "max" | "min") && r.kind(f) == FieldKind::Date);
            let named = self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi]).and_then(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| ok(self, f)).map(|f| (f, mi)));
            let field = match named {
                Some((f, mi)) => {
                    self.consume(mi, format!("{op} of {f}"));
                    Some(f)
                }
                None => {
                    let (e, _) = self.phrase_from(p);
                    if e == p {
                        continue;
                    }
                    self.field_for(p, e, &format!("give the {op}"), ok)?
                }
            };
            let Some(field) = field else { continue };
            if self.plan.metric.is_some() {
                // A second metric is not built: its words stay unused.
                continue;
            }
            self.aggs_done.push(g.start);
            self.mark(g.start..g.end, format!("{op} of {field}"));
            self.plan.metric = Some((op.into(), field));
        }
        Ok(())
    }

    /// "Which X …" (or "what X") with a ranking, a count or a metric: X is the group.
    fn which_group(&mut self) {
        let ranked = !self.a.superlatives.is_empty() || self.plan.metric.is_some() || self.count;
        if !self.plan.groups.is_empty() || !ranked {
            return;
        }
        for (s, e) in self.a.sentences.clone() {
            for i in s..(s + 2).min(e) {
                if !matches!(self.word(i), "which" | "what") {
                    continue;
                }
                let Some(mi) = self.ms.iter().position(|m| m.start == i + 1).filter(|&mi| !self.used[mi] && !self.names_index(mi)) else { continue };
                if !matches!(self.ms[mi].best().target, Target::Field { .. }) {
                    continue;
                }
                let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f)) else { continue };
                let Some(exact) = self.exact(&f) else { continue };
                self.consume(mi, format!("group by {f}"));
                self.mark(i..i + 1, format!("group by {f}"));
                self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc });
                return;
            }
        }
    }

    /// The first unused mention from `from` within `span` tokens (filler, the index's name and
    /// used words skipped).
    fn next_mention(&self, from: usize, span: usize) -> Option<usize> {
        let mut p = from;
        while p < self.n() && p < from + span {
            if FILLER_AFTER.contains(&self.word(p)) || self.ledger.is_used(p) {
                p += 1;
                continue;
            }
            return self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi]);
        }
        None
    }

    /// The rows of the question are documents: a number of them, the index named after the
    /// ranking, or a request for a list.
    fn ranks_documents(&self, end: usize, n: Option<usize>) -> bool {
        if n.is_some() {
            return true;
        }
        let after = self.skip_filler(end);
        if self.ms.iter().any(|m| (m.start == after || m.start == after + 1) && matches!(m.best().target, Target::Collection { .. })) {
            return true;
        }
        let first = self.a.sentences.first().map_or(0, |s| s.0);
        matches!(self.word(first), "show" | "list" | "find" | "give" | "display" | "get" | "return") || (self.word(first) == "which" && self.ms.iter().any(|m| m.start == first + 1 && matches!(m.best().target, Target::Collection { .. })))
    }

    fn set_order(&mut self, order: BucketOrder, n: usize) {
        if let Some(Group::Terms { order: o, size, .. }) = self.plan.groups.first_mut() {
            *o = order;
            *size = n;
        }
    }

    /// Rankings: "the most …" (a count or a sum per group), "the most common X" (the mode),
    /// "the 5 deepest" (sorted hits), "the lowest average rating" (groups by their metric),
    /// "the highest fine" (the value).
    fn superlatives(&mut self) -> Result<(), Ambiguity> {
        for s in self.a.superlatives.clone() {
            if (s.start..s.end).any(|i| self.aggs_done.contains(&i)) || (s.start..s.end).all(|i| self.ledger.is_used(i)) {
                continue;
            }
            let n = s.n.or(self.top_n.map(|t| t.0));
            let role = |what: &str| format!("ranking: {what}");
            if s.mode {
                let mi = (s.target..(s.target + 3).min(self.n())).find_map(|k| self.ms.iter().position(|m| m.start == k).filter(|&mi| !self.used[mi] && !self.names_index(mi)));
                if let Some(mi) = mi
                    && self.plan.groups.is_empty()
                    && let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f))
                    && let Some(exact) = self.exact(&f)
                {
                    self.consume(mi, format!("group by {f}"));
                    self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc });
                }
                if self.plan.groups.is_empty() {
                    continue;
                }
                self.set_order(if s.desc { BucketOrder::CountDesc } else { BucketOrder::CountAsc }, n.unwrap_or(1));
                self.mark(s.start..s.end, role("most documents"));
                continue;
            }
            if s.adjective.is_none() {
                let after = self.next_mention(s.target, 4);
                if !self.plan.groups.is_empty() {
                    let measure = after.and_then(|mi| self.measure_of(mi).map(|f| (f, mi)));
                    match measure {
                        Some((f, mi)) if self.plan.metric.is_none() => {
                            self.consume(mi, format!("sum of {f}"));
                            self.plan.metric = Some(("sum".into(), f));
                            self.set_order(if s.desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                        }
                        _ if self.plan.metric.is_some() => self.set_order(if s.desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1)),
                        _ => self.set_order(if s.desc { BucketOrder::CountDesc } else { BucketOrder::CountAsc }, n.unwrap_or(1)),
                    }
                    self.mark(s.start..s.end, role("top groups"));
                    // "in fines": the preposition of the ranked measure.
                    if self.word(s.target) == "in" {
                        self.mark(s.target..s.target + 1, role("top groups"));
                    }
                    continue;
                }
                let Some(mi) = after else { continue };
                if matches!(self.ms[mi].best().target, Target::Field { .. })
                    && let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f) && !self.is_measure(f))
                    && let Some(exact) = self.exact(&f)
                {
                    // "top 3 teams …": the teams with the most documents.
                    self.consume(mi, format!("group by {f}"));
                    self.plan.groups.push(Group::Terms { field: exact, size: n.unwrap_or(1), order: if s.desc { BucketOrder::CountDesc } else { BucketOrder::CountAsc } });
                    self.mark(s.start..s.end, role("top groups"));
                    continue;
                }
                if let Some(f) = self.measure_of(mi) {
                    self.consume(mi, format!("sort by {f}"));
                    self.plan.sort = Some((f, s.desc));
                    self.plan.size = Some(n.unwrap_or(1));
                    self.mark(s.start..s.end, role("sorted"));
                }
                continue;
            }
            let adj = s.adjective.clone().unwrap_or_default();
            // "the lowest average score": the groups by their metric.
            if self.plan.metric.is_some() && self.a.aggregates.iter().any(|g| (g.start == s.end || g.start == s.end + 1) && self.aggs_done.contains(&g.start)) {
                if !self.plan.groups.is_empty() {
                    self.set_order(if s.desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                }
                self.mark(s.start..s.end, role("by the metric"));
                continue;
            }
            let named = self.next_mention(s.end, 3);
            let named_fields: Vec<String> = named.map(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).filter(|f| self.is_measure(f) || self.kind(f) == FieldKind::Date).collect()).unwrap_or_default();
            let has_nouns = measure_of(&adj).is_some_and(|(_, nouns, _)| !nouns.is_empty());
            let adj_fields = if has_nouns { self.adjective_fields(&adj) } else { Vec::new() };
            let both: Vec<String> = named_fields.iter().filter(|f| adj_fields.contains(f)).cloned().collect();
            let field = if let Some(f) = both.first() {
                Some(f.clone())
            } else if let Some(f) = named_fields.iter().find(|f| self.is_measure(f)).or(named_fields.first()) {
                Some(f.clone())
            } else if adj_fields.len() == 1 {
                Some(adj_fields[0].clone())
            } else if adj_fields.len() > 1 && self.narrow_by_words(adj_fields.clone()).len() == 1 {
                Some(self.narrow_by_words(adj_fields.clone())[0].clone())
            } else if matches!(adj.as_str(), "new" | "early" | "old" | "young") && self.date_fields().len() == 1 {
                Some(self.date_fields()[0].clone())
            } else if adj_fields.len() > 1 {
                let phrase = self.phrase(s.start, s.end);
                Some(self.choose(&phrase, format!("Which field does \"{phrase}\" rank by?"), adj_fields.clone())?)
            } else {
                None
            };
            let Some(field) = field else { continue };
            if let Some(mi) = named
                && self.fields_of(mi).iter().any(|(f, ..)| *f == field)
            {
                self.consume(mi, format!("ranked by {field}"));
            }
            let is_date = self.kind(&field) == FieldKind::Date;
            let desc = if is_date && matches!(adj.as_str(), "old" | "young") { !s.desc } else { s.desc };
            let op = if desc { "max" } else { "min" };
            if !self.plan.groups.is_empty() {
                if self.plan.metric.is_none() {
                    self.plan.metric = Some((op.into(), field.clone()));
                }
                self.set_order(if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                self.mark(s.start..s.end, role(&format!("{op} of {field}")));
            } else if !self.ranks_documents(s.end, n) && self.plan.metric.is_none() {
                self.plan.metric = Some((op.into(), field.clone()));
                self.mark(s.start..s.end, format!("{op} of {field}"));
            } else {
                let sort = self.sort_path(&field);
                self.plan.sort = Some((sort, desc));
                self.plan.size = Some(n.unwrap_or(1));
                self.mark(s.start..s.end, role(&format!("sorted by {field}")));
            }
        }
        Ok(())
    }

    /// The path to sort on (a text field's exact form).
    fn sort_path(&self, field: &str) -> String {
        self.exact(field).unwrap_or_else(|| field.to_string())
    }

    /// "sorted by X", "in descending order of X", "cheapest first", "alphabetically".
    fn orderings(&mut self) {
        for o in self.a.orderings.clone() {
            if self.ledger.is_used(o.start) {
                continue;
            }
            let field = match o.target {
                Some(t) => match self.mention_at(t).filter(|&mi| !self.names_index(mi)) {
                    Some(mi) => {
                        let f = self.field(mi);
                        if let Some(f) = &f {
                            self.consume(mi, format!("sort by {f}"));
                        }
                        f
                    }
                    None => None,
                },
                None => match &o.adjective {
                    Some(adj) => {
                        let fields = self.adjective_fields(adj);
                        if fields.len() == 1 {
                            Some(fields[0].clone())
                        } else if matches!(adj.as_str(), "new" | "early" | "old" | "young") && self.date_fields().len() == 1 {
                            Some(self.date_fields()[0].clone())
                        } else {
                            None
                        }
                    }
                    None if o.alphabetical => self.plan.source.iter().find(|f| self.kind(f) == FieldKind::Keyword).cloned(),
                    None => None,
                },
            };
            let Some(field) = field else { continue };
            let is_date = self.kind(&field) == FieldKind::Date;
            let desc = match (&o.adjective, o.desc) {
                (Some(adj), Some(d)) if is_date && matches!(measure_of(adj).map(|m| m.0), Some("old" | "young")) => !d,
                (_, Some(d)) => d,
                (_, None) => false,
            };
            self.mark(o.start..o.end, format!("sort by {field}"));
            if self.plan.groups.is_empty() && self.plan.sort.is_none() {
                let sort = self.sort_path(&field);
                self.plan.sort = Some((sort, desc));
            }
        }
    }

    /// "the id, title and status of …": the fields shown; next to a count or metric without a
    /// group, they are the group.
    fn projection(&mut self) {
        let Some(p) = self.a.projection.clone() else { return };
        let mut shown: Vec<String> = Vec::new();
        for it in &p.items {
            for mi in 0..self.ms.len() {
                let m = &self.ms[mi];
                if self.used[mi] || m.start < it.start || m.end > it.end || !matches!(m.best().target, Target::Field { .. }) {
                    continue;
                }
                if let Some(f) = self.field(mi) {
                    self.consume(mi, format!("show {f}"));
                    shown.push(f);
                }
            }
        }
        let aggregated = self.count || self.plan.metric.is_some();
        if aggregated && self.plan.groups.is_empty() {
            if let Some(f) = shown.iter().find(|f| self.is_groupable(f)).cloned()
                && let Some(exact) = self.exact(&f)
            {
                self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc });
            }
            return;
        }
        if !aggregated {
            for f in shown {
                if !self.plan.source.contains(&f) {
                    self.plan.source.push(f);
                }
            }
        }
    }

    /// Groups of unset size hold every value: the sampled count when the sample is complete,
    /// else the bucket cap.
    fn bucket_sizes(&mut self) {
        let cap = self.input.max_buckets.max(1);
        let sample = self.input.sample_size;
        let sizes: Vec<usize> = self
            .plan
            .groups
            .iter()
            .map(|g| match g {
                Group::Terms { field, size: 0, .. } => {
                    let n = self.mapping.field(field).map(|f| crate::lookup::sampled(f, self.meta).len()).unwrap_or(0);
                    if n > 0 && n < sample { n.max(10).min(cap) } else { cap }
                }
                Group::Terms { size, .. } => *size,
                Group::Calendar { .. } => 0,
            })
            .collect();
        for (g, n) in self.plan.groups.iter_mut().zip(sizes) {
            if let Group::Terms { size, .. } = g {
                *size = n;
            }
        }
    }
}

/// Words skipped when looking for what a ranking applies to.
const FILLER_AFTER: &[&str] = &["the", "a", "an", "of", "in", "to", "all", "their", "its", "any"];
