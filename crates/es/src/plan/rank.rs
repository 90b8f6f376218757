//! Rankings of the ES plan: "the most …" (a count or a sum per group), "the most common X"
//! (the mode), "the 5 deepest" (sorted hits), "the lowest average rating" (groups by their
//! metric), "the highest fine" (the value).

use qa_question::cues::measure_of;
use qa_question::link::Target;
use qa_question::FieldKind;

use super::read::Reader;
use super::{BucketOrder, Group};
use crate::Ambiguity;

impl Reader<'_> {
    /// Rankings: "the most …" (a count or a sum per group), "the most common X" (the mode),
    /// "the 5 deepest" (sorted hits), "the lowest average rating" (groups by their metric),
    /// "the highest fine" (the value).
    pub(super) fn superlatives(&mut self) -> Result<(), Ambiguity> {
        for s in self.a.superlatives.clone() {
            if (s.start..s.end).any(|i| self.aggs_done.contains(&i)) || (s.start..s.end).all(|i| self.ledger.is_used(i)) || self.inside_name(s.end - 1) {
                continue;
            }
            let n = s.n.or(self.top_n.map(|t| t.0));
            let role = |what: &str| format!("ranking: {what}");
            if s.mode {
                // "the nationality that is most common": the field before; "the most common
                // citizenship": the field after.
                let mut b = s.start;
                while b > 0 && matches!(self.word(b - 1), "is" | "are" | "was" | "were" | "the") {
                    b -= 1;
                }
                let predicative = b < s.start && b > 0 && matches!(self.word(b - 1), "that" | "which" | "who");
                let before = predicative.then(|| self.mention_before(b - 1)).flatten().filter(|&mi| !self.used[mi] && !self.may_name_index(mi));
                let mi = before.or_else(|| (s.target..(s.target + 3).min(self.n())).find_map(|k| self.ms.iter().position(|m| m.start == k).filter(|&mi| !self.used[mi] && !self.may_name_index(mi))));
                if let Some(mi) = mi
                    && self.plan.groups.is_empty()
                    && let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f))
                    && let Some(exact) = self.exact(&f)
                {
                    self.consume(mi, format!("group by {f}"));
                    self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
                }
                if self.plan.groups.is_empty() {
                    continue;
                }
                self.set_order(if s.desc { BucketOrder::CountDesc } else { BucketOrder::CountAsc }, n.unwrap_or(1));
                self.mark(s.start..s.end, role("most documents"));
                continue;
            }
            // "the maximum mpg" that the metrics could not place: no ranking of groups either.
            if (s.start..s.end).any(|i| matches!(self.word(i), "maximum" | "minimum" | "max" | "min")) {
                continue;
            }
            if s.adjective.is_none() {
                // "the fewest people": a noun after the cue that names nothing of the index —
                // the ranking cannot be placed.
                let next = s.end;
                let unlinked_noun = self.a.tokens.get(next).is_some_and(|t| t.is_word() && !self.ledger.is_used(next) && self.mention_covering(next).is_none() && !qa_core::text::is_stop(&t.lower));
                if unlinked_noun {
                    continue;
                }
                let after = self.next_mention(s.target, 4);
                if !self.plan.groups.is_empty() {
                    let mut measure = after.filter(|&mi| !self.may_name_index(mi)).and_then(|mi| self.measure_of(mi).map(|f| (f, mi)));
                    // "Which customer spent the most": the money the verb says, summed.
                    if measure.is_none() && self.plan.metric.is_none()
                        && let Some(v) = (0..s.start).rev().take(3).find(|&i| matches!(self.word(i), "spent" | "spend" | "spends" | "paid" | "pay" | "pays" | "earned" | "earn" | "earns" | "cost" | "costs") && !self.ledger.is_used(i))
                        && let Some(money) = qa_question::numbers::unit_of("usd")
                        && let [f] = self.unit_fields(money).as_slice()
                    {
                        let f = f.clone();
                        self.mark(v..v + 1, format!("sum of {f}"));
                        self.plan.metric = Some(("sum".into(), f));
                    }
                    if self.plan.metric.is_some() && self.word(s.end) == "in" && self.word(s.end + 1) == "total" {
                        self.mark(s.end..s.end + 2, "in total");
                    }
                    match measure.take() {
                        Some((f, mi)) if self.plan.metric.is_none() => {
                            self.consume(mi, format!("sum of {f}"));
                            let desc = self.desc_for(&s, &f);
                            self.plan.metric = Some(("sum".into(), f));
                            self.set_order(if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                        }
                        _ if self.plan.metric.is_some() => {
                            let f = self.plan.metric.as_ref().map(|m| m.1.clone()).unwrap_or_default();
                            let desc = self.desc_for(&s, &f);
                            self.set_order(if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1))
                        }
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
                if self.may_name_index(mi) {
                    // "the document with the fewest paragraphs": the field named before is the
                    // group; without one, nothing to place.
                    let mut b = s.start;
                    while b > 0 && matches!(self.word(b - 1), "the" | "with" | "has" | "have" | "had" | "that" | "which" | "who") {
                        b -= 1;
                    }
                    let before = (b < s.start).then(|| self.ms.iter().position(|m| m.end == b)).flatten().filter(|&m| !self.used[m] && !self.names_index(m));
                    if let Some(bm) = before
                        && let Some(f) = self.fields_of(bm).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f) && !self.is_measure(f))
                        && let Some(exact) = self.exact(&f)
                    {
                        self.consume(bm, format!("group by {f}"));
                        let index_role = format!("index {}", self.mapping.index);
                        if !self.used[mi] {
                            self.consume(mi, index_role);
                        }
                        self.plan.groups.push(Group::Terms { field: exact, size: n.unwrap_or(1), order: if s.desc { BucketOrder::CountDesc } else { BucketOrder::CountAsc }, min_count: None });
                        self.mark(s.start..s.end, role("top groups"));
                    }
                    continue;
                }
                if matches!(self.ms[mi].best().target, Target::Field { .. })
                    && let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f) && !self.is_measure(f))
                    && let Some(exact) = self.exact(&f)
                {
                    // "top 3 teams …": the teams with the most documents (or the highest metric:
                    // "top 5 carriers by total weight").
                    self.consume(mi, format!("group by {f}"));
                    let order = match (self.plan.metric.is_some(), s.desc) {
                        (true, true) => BucketOrder::MetricDesc,
                        (true, false) => BucketOrder::MetricAsc,
                        (false, true) => BucketOrder::CountDesc,
                        (false, false) => BucketOrder::CountAsc,
                    };
                    self.plan.groups.push(Group::Terms { field: exact, size: n.unwrap_or(1), order, min_count: None });
                    self.mark(s.start..s.end, role("top groups"));
                    continue;
                }
                if let Some(f) = self.measure_of(mi) {
                    self.consume(mi, format!("sort by {f}"));
                    let desc = self.desc_for(&s, &f);
                    self.plan.sort = Some((f, desc));
                    self.plan.size = Some(n.unwrap_or(1));
                    self.mark(s.start..s.end, role("sorted"));
                }
                continue;
            }
            let adj = s.adjective.clone().unwrap_or_default();
            // "the lowest average score": the groups by their metric.
            if self.plan.metric.is_some() && self.a.aggregates.iter().any(|g| (g.start == s.end || g.start == s.end + 1) && self.aggs_done.contains(&g.start)) {
                if !self.plan.groups.is_empty() {
                    let f = self.plan.metric.as_ref().map(|m| m.1.clone()).unwrap_or_default();
                    let desc = self.desc_for(&s, &f);
                    self.set_order(if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                }
                self.mark(s.start..s.end, role("by the metric"));
                continue;
            }
            let named = self.next_mention(s.end, 3);
            // A date adjective ranks by a date; any other ("the longest stays") never does: a
            // date field the noun names (`stay_date`) is not how long something is.
            let of_dates = matches!(adj.as_str(), "new" | "early" | "old" | "young" | "late" | "recent");
            let named_fields: Vec<String> = named
                .map(|mi| self.fields_of(mi).into_iter().filter(|(_, score, how)| !super::read::weak_part(*how, *score)).map(|(f, ..)| f).filter(|f| self.is_measure(f) || self.kind(f) == FieldKind::Date && of_dates).collect())
                .unwrap_or_default();
            // "the five most recent acquisitions": the one date the noun names, even by its
            // word family (`acquired_on`), before the date a thing is made.
            let named_weakly: Vec<String> = if of_dates {
                named.map(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).filter(|f| self.kind(f) == FieldKind::Date).collect()).unwrap_or_default()
            } else {
                // "the 3 longest stays": the one number the noun names, even by its word family
                // (`nights_stayed`).
                named.map(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).filter(|f| self.is_measure(f)).collect()).unwrap_or_default()
            };
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
            } else if let [f] = named_weakly.as_slice() {
                Some(f.clone())
            } else if let Some(f) = matches!(adj.as_str(), "new" | "old" | "young").then(|| self.creation_field()).flatten() {
                // "the oldest painting": a thing's age runs from when it was made.
                Some(f)
            } else if matches!(adj.as_str(), "new" | "early" | "old" | "young") && !self.date_fields().is_empty() {
                // "the latest tickets": the only date, or the one the user picks.
                let phrase = self.phrase(s.start, s.end);
                self.date_target(s.start, &phrase)?.map(|(f, _)| f)
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
            let is_date = self.kind(&field) == FieldKind::Date || self.year_fields().contains(&field);
            let desc = if is_date && matches!(adj.as_str(), "old" | "young") { !s.desc } else { self.desc_for(&s, &field) };
            let op = if desc { "max" } else { "min" };
            if !self.plan.groups.is_empty() {
                // "Which carrier charged the highest fees in total?": groups ranked by the sum a
                // "total" asks for, not by their largest single value.
                let total = self.a.aggregates.iter().find(|g| g.func == qa_question::cues::AggWord::Sum && (g.start..g.end).all(|i| !self.ledger.is_used(i))).map(|g| (g.start, g.end));
                if self.plan.metric.is_none() {
                    let op = if total.is_some() && self.is_measure(&field) { "sum" } else { op };
                    self.plan.metric = Some((op.into(), field.clone()));
                    if let Some((a, b)) = total.filter(|_| op == "sum") {
                        self.mark(a..b, format!("sum of {field}"));
                    }
                }
                // "the largest quantity in a single pick for each product category": the
                // value per group, every group; "which category has the largest …" ranks them.
                let per_group = n.is_none() && (0..self.n()).any(|i| matches!(self.word(i), "each" | "every" | "per")) && !matches!(self.word(0), "which" | "who" | "whose");
                if !per_group {
                    self.set_order(if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc }, n.unwrap_or(1));
                }
                self.mark(s.start..s.end, role(&format!("{op} of {field}")));
            } else if !self.ranks_documents(s.start, s.end, n) && self.plan.metric.is_none() {
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
}
