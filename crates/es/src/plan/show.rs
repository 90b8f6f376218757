//! What the answer shows and in which order: "sorted by X", "in descending order of X",
//! "cheapest first", "alphabetically"; the fields a projection list names ("the ticket id,
//! status and team"); and how many buckets a group holds.

use qa_question::cues::measure_of;
use qa_question::link::{How, Target};
use qa_question::FieldKind;

use super::read::Reader;
use super::shape::skip_direction;
use super::{BucketOrder, Group};

impl Reader<'_> {
    /// The one field that names a document (`name`, `title`, `*_name`), if there is one.
    pub(super) fn label_field(&self) -> Option<String> {
        let c = self.schema.collections.first()?;
        let labels: Vec<String> = c.fields.iter().filter(|f| f.kind == FieldKind::Keyword && qa_question::names::name_words(&f.name).last().is_some_and(|w| matches!(w.as_str(), "name" | "title"))).map(|f| f.name.clone()).collect();
        (labels.len() == 1).then(|| labels[0].clone())
    }

    /// The path to sort on (a text field's exact form).
    pub(super) fn sort_path(&self, field: &str) -> String {
        self.exact(field).unwrap_or_else(|| field.to_string())
    }

    /// "sorted by X", "in descending order of X", "cheapest first", "alphabetically".
    pub(super) fn orderings(&mut self) {
        for o in self.a.orderings.clone() {
            if self.ledger.is_used(o.start) {
                continue;
            }
            let field = match o.target {
                Some(t) => match self.mention_at(skip_direction(self, t)).filter(|&mi| !self.names_index(mi)) {
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
                    None if o.alphabetical => self.shown.iter().find(|f| self.kind(f) == FieldKind::Keyword).cloned().or_else(|| self.label_field()),
                    // "in descending order": of what is sorted or shown already.
                    None => self.plan.sort.as_ref().map(|(f, _)| f.clone()).or_else(|| self.shown.first().cloned()).or_else(|| self.plan.groups.first().map(|g| g.field().to_string())),
                },
            };
            let Some(field) = field else { continue };
            let field = self.mapping.field(&field).map_or(field, |f| f.path.clone());
            let is_date = self.kind(&field) == FieldKind::Date;
            let desc = match (&o.adjective, o.desc) {
                (Some(adj), Some(d)) if is_date && matches!(measure_of(adj).map(|m| m.0), Some("old" | "young")) => !d,
                (_, Some(d)) => d,
                (_, None) => false,
            };
            self.mark(o.start..o.end, format!("sort by {field}"));
            let sort = self.sort_path(&field);
            // "… per document. Order by document id": the groups in their key's order;
            // "ordered by the average": by the metric.
            if let Some(Group::Terms { field: g, order, .. }) = self.plan.groups.first_mut() {
                if *g == sort {
                    *order = if desc { BucketOrder::KeyDesc } else { BucketOrder::KeyAsc };
                } else if self.plan.metric.as_ref().is_some_and(|(_, m)| *m == field) {
                    *order = if desc { BucketOrder::MetricDesc } else { BucketOrder::MetricAsc };
                }
                continue;
            }
            match &mut self.plan.sort {
                // "ordered by age from the oldest to the youngest": one key, the later direction.
                Some((f, d)) if *f == sort && o.desc.is_some() => *d = desc,
                Some((f, _)) if *f == sort => {}
                None if self.plan.groups.is_empty() => self.plan.sort = Some((sort, desc)),
                _ => {}
            }
        }
    }

    /// The field "date" alone means — the index's only date field, else the one a condition
    /// tests, else the records' own (`trip_date`) — and the date fields conditions test.
    fn date_asked(&self) -> (Option<String>, Vec<String>) {
        let dates = self.date_fields();
        let tested: Vec<String> = dates.iter().filter(|d| self.plan.filters.iter().any(|f| matches!(f, super::Filter::Range { field, .. } | super::Filter::AnyRange { field, .. } if field == *d))).cloned().collect();
        // (A tested time stamp, `started_at`, is no "date" when the records keep one by that
        // word, `trip_date`.)
        let dated = |f: &str| qa_question::names::name_words(f).iter().any(|w| matches!(w.as_str(), "date" | "day"));
        let own = self.own_date(&dates);
        let date = match (dates.as_slice(), tested.as_slice()) {
            ([one], _) => Some(one.clone()),
            (_, [one]) if !dated(one) && own.as_deref().is_some_and(dated) => own,
            (_, [one]) => Some(one.clone()),
            _ => own,
        };
        (date, tested)
    }

    /// "Which works are on display, and in which gallery?": a field a coordinated clause asks
    /// for beside the documents. Documents are shown whole unless a list restricts them, so the
    /// field is there; in a restricted list it is added. (Not beside a count, a metric or
    /// groups: there it would be a group nobody asked for.)
    pub(super) fn also_asked(&mut self) {
        if self.a.also.is_empty() || self.count || self.plan.metric.is_some() || !self.plan.groups.is_empty() {
            return;
        }
        for it in self.a.also.clone() {
            for mi in 0..self.ms.len() {
                let m = &self.ms[mi];
                if self.used[mi] || m.start < it.start || m.start >= it.end || !matches!(m.best().target, Target::Field { .. }) {
                    continue;
                }
                if let Some(f) = self.field(mi) {
                    self.consume(mi, format!("show {f}"));
                    if !self.plan.source.is_empty() && !self.plan.source.contains(&f) {
                        self.plan.source.push(f);
                    }
                }
            }
            // "…, and on which date?"
            if it.end == it.start + 1
                && matches!(self.word(it.start), "date" | "day")
                && !self.ledger.is_used(it.start)
                && let (Some(d), _) = self.date_asked()
            {
                self.mark(it.start..it.end, format!("show {d}"));
                if !self.plan.source.is_empty() && !self.plan.source.contains(&d) {
                    self.plan.source.push(d);
                }
            }
        }
    }

    /// "What is the total amount for the sunflower deliveries?" over `total_amount_eur`: a
    /// measure whose shown name says "total" (in the question), asked with "what is/was the"
    /// of records said in the plural, is the total over them — not each document's value.
    pub(super) fn total_said_of_many(&mut self) {
        if self.count || self.plan.metric.is_some() || !self.plan.groups.is_empty() || self.plan.source.len() != 1 {
            return;
        }
        let f = self.plan.source[0].clone();
        let first = self.a.sentences.first().map_or(0, |s| s.0);
        let asks_value = self.word(first) == "what" && matches!(self.word(first + 1), "is" | "was" | "s") && self.word(first + 2) == "the";
        let total_said = (0..self.n()).any(|i| matches!(self.word(i), "total" | "combined" | "overall") && self.ledger.role(i).is_some_and(|r| r.contains(f.as_str())));
        let plural_records = (0..self.n()).any(|i| self.ledger.role(i).is_some_and(|r| r.starts_with("index ") || r.starts_with("the documents of")) && self.a.tokens[i].lower != self.a.tokens[i].norm);
        if asks_value && total_said && plural_records && self.is_measure(&f) && self.top_n.is_none() && self.a.superlatives.is_empty() {
            self.plan.source.clear();
            self.plan.metric = Some(("sum".into(), f.clone()));
            self.notes.push(format!("\"the total\" of many documents read as the sum of {f}"));
        }
    }

    /// "When was GD-17 paid, and for how much?": beside documents (no count, figure or
    /// groups), "how much" asks for the index's one amount of money, shown with them.
    pub(super) fn how_much_shown(&mut self) {
        if self.count || self.plan.metric.is_some() || !self.plan.groups.is_empty() {
            return;
        }
        // (Only in a clause of its own after the record's, ", and for how much?" — a question
        // that opens with "how much" asks for an amount of its own, placed elsewhere or asked.)
        let after_clause = |i: usize| (i.saturating_sub(3)..i).any(|k| self.word(k) == "and" || self.a.tokens[k].is_symbol(','));
        let Some(m) = (2..self.n()).find(|&i| self.word(i) == "much" && self.word(i - 1) == "how" && after_clause(i - 1) && !self.ledger.is_used(i) && !self.ledger.is_used(i - 1)) else { return };
        let Some(f) = self.main_money_field() else { return };
        self.mark(m - 1..m + 1, format!("show {f}"));
        if !self.plan.source.is_empty() && !self.plan.source.contains(&f) {
            self.plan.source.push(f);
        }
    }

    /// The index's one money field, else the one whose name is a generic money word (with a
    /// unit or "total"), if exactly one.
    fn main_money_field(&self) -> Option<String> {
        let money: Vec<String> = self
            .mapping
            .fields
            .iter()
            .filter(|f| self.kind(&f.path).is_numeric() && qa_question::numbers::field_unit(&f.path).is_some_and(|u| u.dimension == qa_question::numbers::Dimension::Money))
            .map(|f| f.path.clone())
            .collect();
        if let [one] = money.as_slice() {
            return Some(one.clone());
        }
        let generic: Vec<&String> = money.iter().filter(|f| qa_question::names::is_generic_money_name(f)).collect();
        match generic.as_slice() {
            [one] => Some((*one).clone()),
            _ => None,
        }
    }

    /// "the id, title and status of …": the fields shown (all of a document's fields unless
    /// every item is a field said by its name); next to a count or metric without a group,
    /// they are the group; "the distinct codes": the codes, once each.
    pub(super) fn projection(&mut self) {
        let Some(p) = self.a.projection.clone() else { return };
        let mut shown: Vec<String> = Vec::new();
        let mut all_strong = true;
        for it in &p.items {
            let mut found = false;
            for mi in 0..self.ms.len() {
                let m = &self.ms[mi];
                // A mention that starts in the item ("descriptions of all the sections").
                if m.start < it.start || m.start >= it.end {
                    continue;
                }
                if self.used[mi] {
                    found |= matches!(m.best().target, Target::Field { .. });
                    // (Shown by an earlier rule: still one of the listed fields.)
                    if let Some(f) = self.ledger.role(m.start).and_then(|r| r.strip_prefix("show ")).filter(|f| self.mapping.field(f).is_some()) {
                        shown.push(f.to_string());
                    }
                    continue;
                }
                let named = self.readings(mi).iter().any(|l| matches!(l.target, Target::Field { .. }) && matches!(l.how, How::Name | How::Synonym));
                if !matches!(m.best().target, Target::Field { .. }) || (self.may_name_index(mi) && !named) {
                    continue;
                }
                // "the warranty repairs of ovens": a flag said right before the records' own noun
                // says which records, a condition read later, not a field to show.
                let end = m.end;
                let before_index = self.ms.iter().position(|x| x.start == end).is_some_and(|n| self.may_name_index(n));
                if before_index && self.field(mi).is_some_and(|f| self.kind(&f) == FieldKind::Flag) {
                    continue;
                }
                // "list the short picks" of `wasShortPicked`: a flag that is the whole of the one
                // item asked for says which records, not a field to show.
                let whole_item = p.items.len() == 1 && (it.start..it.end).all(|i| (m.start..m.end).contains(&i) || matches!(self.word(i), "the" | "a" | "an" | "all" | "our"));
                if whole_item && self.field(mi).is_some_and(|f| self.kind(&f) == FieldKind::Flag) {
                    continue;
                }
                if let Some(f) = self.field(mi) {
                    all_strong &= matches!(m.best().how, How::Name | How::Core | How::Synonym | How::Acronym | How::Joined | How::Fuzzy);
                    found = true;
                    self.consume(mi, format!("show {f}"));
                    shown.push(f);
                }
            }
            // "flight number and date": "date" alone is the index's only date field, else the
            // one a condition already tests, else the records' own (`trip_date`).
            let words: Vec<usize> = (it.start..it.end).filter(|&i| !matches!(self.word(i), "the" | "a" | "its" | "their")).collect();
            let (date, tested) = self.date_asked();
            // ("completion date" after "jobs completed in April": the item's other words went
            // to that condition, "date" is left.)
            let left: Vec<usize> = words.iter().copied().filter(|&i| !self.ledger.is_used(i)).collect();
            let date_left = left.len() == 1 && !tested.is_empty() && matches!(self.word(left[0]), "date" | "day" | "dates");
            let words = if date_left { left } else { words };
            if (!found || date_left)
                && let [i] = words.as_slice()
                && matches!(self.word(*i), "date" | "day" | "dates")
                && !self.ledger.is_used(*i)
                && let Some(d) = date
            {
                self.mark(*i..*i + 1, format!("show {d}"));
                shown.push(d);
                found = true;
            }
            // "the ship date" of `shippedDate`: its event's word named the date field, and
            // "date" says the same field again.
            if let [v, d] = words.as_slice()
                && matches!(self.word(*d), "date" | "day")
                && !self.ledger.is_used(*d)
                && let Some(f) = self.ledger.role(*v).and_then(|r| r.strip_prefix("show ")).map(str::to_string)
                && self.kind(&f) == FieldKind::Date
            {
                self.mark(*d..*d + 1, format!("show {f}"));
            }
            // "kWh delivered": a unit that ends the name of exactly one numeric field.
            if !found {
                let by_unit: Vec<(usize, String)> = (it.start..it.end)
                    .filter(|&i| !self.ledger.is_used(i))
                    .filter_map(|i| qa_question::numbers::unit_of(self.word(i)).map(|u| (i, u)))
                    .filter_map(|(i, u)| {
                        let fields: Vec<String> = self.mapping.fields.iter().filter(|f| self.kind(&f.path).is_numeric() && qa_question::numbers::field_unit(&f.path).is_some_and(|x| x.name == u.name)).map(|f| f.path.clone()).collect();
                        match fields.as_slice() {
                            [one] => Some((i, one.clone())),
                            _ => None,
                        }
                    })
                    .collect();
                if let [(i, f)] = by_unit.as_slice() {
                    self.mark(*i..*i + 1, format!("show {f}"));
                    shown.push(f.clone());
                    found = true;
                }
            }
            all_strong &= found;
        }
        self.shown.extend(shown.iter().cloned());
        // "What was the shortest e-bike trip by distance? Give the trip id, city and distance.":
        // the smallest value of a ranking, asked with fields of its record, is that record —
        // sorted hits, not a group per listed value.
        let ranked_value = !self.count
            && self.plan.groups.is_empty()
            && !self.a.superlatives.is_empty()
            && self.plan.more_metrics.is_empty()
            && self.plan.metric.as_ref().is_some_and(|(op, _)| op == "min" || op == "max")
            && shown.iter().any(|f| !self.is_measure(f));
        if ranked_value && let Some((op, field)) = self.plan.metric.take() {
            let n = self.a.superlatives.first().and_then(|s| s.n).unwrap_or(1);
            self.plan.sort = Some((self.sort_path(&field), op == "max"));
            self.plan.size = Some(n);
            for f in shown.into_iter().chain(std::iter::once(field)) {
                if !self.plan.source.contains(&f) {
                    self.plan.source.push(f);
                }
            }
            return;
        }
        let aggregated = self.count || self.plan.metric.is_some();
        // "Which riders complained about the saddle? Give the trip id and the rider's name.": a
        // field of each record asked for lists the records, not the riders once each.
        if !aggregated && !self.plan.groups.is_empty() && self.a.superlatives.is_empty() && shown.iter().any(|f| self.unique_per_document(f)) {
            self.plan.groups.clear();
            // (A person's name is both halves unless one is asked for.)
            let halves = self.names_a_half();
            let siblings: Vec<String> = if halves { Vec::new() } else { shown.iter().filter_map(|f| self.name_sibling(f.strip_suffix(".keyword").unwrap_or(f))).collect() };
            for f in siblings.into_iter().chain(shown) {
                if !self.plan.source.contains(&f) {
                    self.plan.source.push(f);
                }
            }
            return;
        }
        if aggregated {
            if self.plan.groups.is_empty()
                && let Some(f) = shown.iter().find(|f| self.is_groupable(f) && !self.is_measure(f)).cloned()
                && let Some(exact) = self.exact(&f)
            {
                self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            }
            return;
        }
        if !self.a.distinct.is_empty()
            && self.plan.groups.is_empty()
            && self.plan.sort.is_none()
            && self.plan.size.is_none()
            && let Some(f) = shown.iter().find(|f| self.is_groupable(f)).cloned()
            && let Some(exact) = self.exact(&f)
        {
            for d in self.a.distinct.clone() {
                self.mark(d..d + 1, format!("distinct {f}"));
            }
            self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            return;
        }
        // "Who are the pickers at HAM2?": the people, each once (grouped by both halves of
        // their name later), not every record they appear on.
        let who = self.a.sentences.iter().any(|&(st, _)| self.word(st) == "who");
        let plural_person = shown.iter().find(|f| self.name_sibling(f.strip_suffix(".keyword").unwrap_or(f)).is_some()).cloned().filter(|f| {
            self.ms.iter().any(|m| self.ledger.role(m.start).is_some_and(|r| r == format!("show {f}")) && (m.start..m.end).any(|i| self.a.tokens[i].lower != self.a.tokens[i].norm))
        });
        if who
            && self.plan.groups.is_empty()
            && self.plan.sort.is_none()
            && self.plan.size.is_none()
            && let Some(f) = plural_person
            && let Some(exact) = self.exact(&f)
        {
            self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            return;
        }
        if all_strong && self.plan.groups.is_empty() {
            for f in shown {
                if !self.plan.source.contains(&f) {
                    self.plan.source.push(f);
                }
            }
        }
    }

    /// Groups of unset size hold every value: the sampled count when the sample is complete,
    /// else the bucket cap.
    pub(super) fn bucket_sizes(&mut self) {
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
