//! The query's shape: counts ("how many", "number of"; "how many different X" counts values;
//! "the number of affected users" sums a count field), groupings ("per team", "by city", "for
//! each grade", "per month"), metrics ("the average score", "total fines"), "which X …" with a
//! ranking or an aggregate (X is the group), rankings ("the most", "the 5 deepest", "the lowest
//! average rating", "most often"), values of one field said side by side (compared groups).
//! Ordering and the fields shown are in `show`.

use qa_question::cues::{AggWord, Op};
use qa_question::link::{How, Target};
use qa_question::FieldKind;

use super::read::Reader;
use super::{BucketOrder, Group};
use crate::Ambiguity;

/// Calendar intervals a grouping may name.
fn calendar(word: &str) -> Option<&'static str> {
    Some(match qa_core::text::singular(word).as_str() {
        "day" | "date" | "daily" => "day",
        "week" | "weekly" => "week",
        "month" | "monthly" => "month",
        "quarter" | "quarterly" => "quarter",
        "year" | "yearly" => "year",
        _ => return None,
    })
}

/// Last words of the names of fields that count things (`individual_count`, `itemQty`).
const COUNT_WORDS: &[&str] = &["count", "qty", "quantity", "number", "num"];

/// Words that end a phrase named after a cue.
const PHRASE_END: &[&str] = &["in", "on", "at", "since", "before", "after", "from", "with", "that", "which", "who", "where", "when", "and", "or", "for", "by", "per", "of", "is", "are", "was", "were", "did", "do", "does", "has", "have", "had", "than", "to", "during", "across"];

impl Reader<'_> {
    pub fn shape(&mut self) -> Result<(), Ambiguity> {
        self.values_compared_side_by_side();
        self.groupings()?;
        self.counts();
        self.metrics()?;
        self.leading_unit_total();
        self.which_group();
        self.superlatives()?;
        self.projection();
        self.also_asked();
        self.how_much_shown();
        self.total_said_of_many();
        self.orderings();
        self.group_counts();
        self.bucket_sizes();
        self.person_groups()?;
        self.no_groups_of_a_fixed_value();
        Ok(())
    }

    /// "Which object has number OBJ-1999-0206?": the values of a field a condition fixes to
    /// one are that one value — the documents that hold it are the answer.
    fn no_groups_of_a_fixed_value(&mut self) {
        if self.plan.metric.is_some() || self.count || self.plan.groups.len() != 1 {
            return;
        }
        let Some(Group::Terms { field, .. }) = self.plan.groups.first().cloned() else { return };
        let fixed = self.plan.filters.iter().any(|f| matches!(f, super::Filter::Terms { field: x, values, negated: false } if *x == field && values.len() == 1));
        // "What kind of incident was EC-2025-0210?": a reference held by one document each
        // picks that document; its fields answer, not a group of one.
        let one_document = self.plan.filters.iter().any(|f| matches!(f, super::Filter::Terms { field: x, values, negated: false } if values.len() == 1 && self.unique_per_document(x)));
        if fixed || one_document {
            self.plan.groups.clear();
            self.plan.notes.push(format!("{field} is fixed to one value: the documents holding it are shown"));
        }
    }

    /// "the average trip duration for members and for non-members", "reviews from Spain and
    /// from Italy": two values of one field said side by side cannot both hold for one
    /// document — the question compares the groups. The filters become one terms group on
    /// that field (over those values only, unless they are all of them).
    fn values_compared_side_by_side(&mut self) {
        if !self.plan.groups.is_empty() {
            return;
        }
        let mut by_field: Vec<(String, Vec<serde_json::Value>, Vec<usize>)> = Vec::new();
        for (i, f) in self.plan.filters.iter().enumerate() {
            if let super::Filter::Terms { field, values, negated: false } = f {
                match by_field.iter_mut().find(|(x, ..)| x == field) {
                    Some((_, vs, at)) => {
                        vs.extend(values.iter().cloned());
                        at.push(i);
                    }
                    None => by_field.push((field.clone(), values.clone(), vec![i])),
                }
            }
        }
        // (Each value once, in the order said.)
        let distinct = |vs: &[serde_json::Value]| vs.iter().enumerate().filter(|(i, v)| !vs[..*i].contains(v)).map(|(_, v)| v.clone()).collect::<Vec<_>>();
        let Some((field, values, at)) = by_field.into_iter().find(|(_, vs, at)| at.len() >= 2 && distinct(vs).len() >= 2) else {
            return;
        };
        let values = distinct(&values);
        for i in at.into_iter().rev() {
            self.plan.filters.remove(i);
        }
        let every = values.iter().all(serde_json::Value::is_boolean) && values.len() == 2;
        if !every {
            self.plan.filters.push(super::Filter::Terms { field: field.clone(), values: values.clone(), negated: false });
        }
        self.plan.groups.push(Group::Terms { field: field.clone(), size: values.len(), order: BucketOrder::KeyAsc, min_count: None });
        self.plan.notes.push(format!("the values of {field} said side by side are compared: one group each"));
    }

    /// The one date or year field named for when a thing came to be (`yearMade`, `built_on`,
    /// `created_at`, `founded_year`), if exactly one is.
    pub(super) fn creation_field(&self) -> Option<String> {
        const MADE: &[&str] = &["made", "built", "created", "creation", "born", "birth", "founded", "produced", "manufactured", "established", "painted", "written", "published", "constructed"];
        let mut all = self.date_fields();
        all.extend(self.year_fields());
        let made: Vec<String> = all.into_iter().filter(|f| qa_question::names::name_words(f).iter().any(|w| MADE.contains(&w.as_str()))).collect();
        match made.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// The other half of a person's name kept in two fields (`agentFirstName` and
    /// `agentLastName`, `first_name` and `last_name`), for the field `path`.
    pub(super) fn name_sibling(&self, path: &str) -> Option<String> {
        let words = qa_question::names::name_words(path);
        let n = words.len();
        if n < 2 || words[n - 1] != "name" {
            return None;
        }
        let other = match words[n - 2].as_str() {
            "first" | "given" | "fore" => ["last", "family", "sur"],
            "last" | "family" | "sur" => ["first", "given", "fore"],
            _ => return None,
        };
        let prefix = &words[..n - 2];
        self.mapping.fields.iter().find(|f| {
            let w = qa_question::names::name_words(&f.path);
            w.len() == n && w[..n - 2] == *prefix && w[n - 1] == "name" && other.contains(&w[n - 2].as_str())
        }).map(|f| f.path.clone())
    }

    /// "each agent" grouped by `agentFirstName` alone would merge two people of one first
    /// name: a person kept in two name fields is grouped by both (nested). A ranking of such
    /// pairs cannot be read off nested buckets, so it asks instead of answering for the wrong
    /// people. A question that says which half ("by first name") keeps its field.
    fn person_groups(&mut self) -> Result<(), Ambiguity> {
        let halves = self.names_a_half();
        // "How many different riders": the values of one half would merge namesakes; the
        // pairs are counted.
        if self.plan.groups.is_empty()
            && !halves
            && let Some((op, field)) = self.plan.metric.clone()
            && op == "cardinality"
            && self.plan.more_metrics.is_empty()
        {
            let base = field.strip_suffix(".keyword").unwrap_or(&field).to_string();
            if let Some((other, other_exact)) = self.name_sibling(&base).and_then(|o| self.exact(&o).map(|e| (o, e))) {
                let (first, second) = if qa_question::names::name_words(&base).iter().any(|w| w == "first" || w == "given" || w == "fore") { (field.clone(), other_exact) } else { (other_exact, field.clone()) };
                let cap = self.input.max_buckets.max(1);
                self.plan.metric = None;
                self.plan.groups = vec![Group::Terms { field: first, size: cap, order: BucketOrder::CountDesc, min_count: None }, Group::Terms { field: second, size: cap, order: BucketOrder::CountDesc, min_count: None }];
                self.plan.pairs = Some(super::Pairs::Count);
                self.plan.notes.push(format!("people are told apart by both {base} and {other}: the pairs are counted"));
                return Ok(());
            }
        }
        let mut k = 0;
        while k < self.plan.groups.len() {
            let (field, size) = match &self.plan.groups[k] {
                Group::Terms { field, size, .. } => (field.clone(), *size),
                _ => {
                    k += 1;
                    continue;
                }
            };
            let base = field.strip_suffix(".keyword").unwrap_or(&field).to_string();
            let sibling = self.name_sibling(&base).filter(|_| !halves);
            let Some(other) = sibling.and_then(|o| self.exact(&o).map(|e| (o, e))) else {
                k += 1;
                continue;
            };
            // A ranking of people ("which rider took the most trips") is read off every pair
            // once the response is back (`EsPlan::settle_pairs`): one level of groups only.
            let ranked = !self.a.superlatives.is_empty() || self.top_n.is_some();
            let (first, second) = if qa_question::names::name_words(&base).iter().any(|w| w == "first" || w == "given" || w == "fore") { (field.clone(), other.1) } else { (other.1, field.clone()) };
            if ranked {
                let Group::Terms { order, .. } = self.plan.groups[k].clone() else { unreachable!("matched above") };
                if k != 0 || self.plan.groups.len() != 1 || matches!(order, BucketOrder::KeyAsc | BucketOrder::KeyDesc) {
                    return Err(Ambiguity {
                        field: base.clone(),
                        message: format!("A person here is named by two fields, {base} and {}: this ranking by both is not something the index can return. Ask for every person with the count (\"how many … per …\"), or name one field.", other.0),
                        alternatives: vec![base, other.0],
                    });
                }
                let cap = self.input.max_buckets.max(1);
                let desc = matches!(order, BucketOrder::CountDesc | BucketOrder::MetricDesc);
                let by_metric = matches!(order, BucketOrder::MetricDesc | BucketOrder::MetricAsc) && self.plan.metric.is_some();
                self.plan.pairs = Some(super::Pairs::Rank { n: size.max(1), desc, by_metric });
                self.plan.groups = vec![Group::Terms { field: first, size: cap, order: BucketOrder::CountDesc, min_count: None }, Group::Terms { field: second, size: cap, order: BucketOrder::CountDesc, min_count: None }];
                self.plan.notes.push(format!("people are told apart by both {base} and {}: every pair is read, then ranked", other.0));
                return Ok(());
            }
            self.plan.groups[k] = Group::Terms { field: first, size, order: BucketOrder::CountDesc, min_count: None };
            self.plan.groups.insert(k + 1, Group::Terms { field: second, size, order: BucketOrder::CountDesc, min_count: None });
            k += 2;
        }
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
            // "number of products" naming a field (`Number_products`) is that field.
            if g.func != AggWord::Count || self.aggs_done.contains(&g.start) || self.ledger.is_used(g.start) || self.inside_name(g.start) {
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
            // "how many different templates": the values of a field, even one whose word also
            // reads as the index.
            if distinct
                && let Some(mi) = self.ms.iter().position(|m| m.start == p)
                && (!self.used[mi] || self.ledger.role(p).is_some_and(|r| r.starts_with("index ")))
                && let Some(f) = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f))
                && let Some(exact) = self.exact(&f)
            {
                let (ms, me) = (self.ms[mi].start, self.ms[mi].end);
                self.ledger.unmark(ms..me);
                let role = format!("number of distinct {f}");
                self.mark(g.start..p, role.clone());
                self.consume(mi, role);
                self.plan.metric = Some(("cardinality".into(), exact));
                continue;
            }
            // (A word that is only part of a field's name — "deliveries" of `delivery_attempts`
            // — names no quantity to add up and no field to count values of.)
            let weak = |r: &Self, mi: usize| super::read::weak_part(r.ms[mi].best().how, r.ms[mi].best().score);
            // "How many passengers did each airline carry?" of a `passengers` count, where a
            // delay cause holds 'passenger': a measure named by its whole name is summed.
            let named_measure = |r: &Self, mi: usize| r.readings(mi).iter().any(|l| l.how == How::Name && l.score >= r.ms[mi].best().score && l.target.field().is_some_and(|f| r.is_measure(f)));
            if let Some(mi) = self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi] && !self.may_name_index(mi) && (matches!(self.ms[mi].best().target, Target::Field { .. }) || named_measure(self, mi)) && !weak(self, mi)) {
                let code = |f: &str| qa_question::names::name_words(f).last().is_some_and(|w| matches!(w.as_str(), "no" | "nr" | "id" | "code" | "key" | "ref"));
                if let Some(f) = self.measure_of(mi).filter(|f| !distinct && !code(f)) {
                    let role = format!("sum of {f}");
                    self.mark(g.start..p, role.clone());
                    self.consume(mi, role);
                    self.plan.metric = Some(("sum".into(), f));
                    continue;
                }
                // (A flag's distinct values are true and false: "how many fast-tracked
                // applications" counts the rows it holds for, a condition read later.)
                if let Some(f) = self.field(mi).filter(|f| self.is_groupable(f) && self.kind(f) != FieldKind::Flag)
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
            // "how many continents": the index's documents, whatever field the word also names.
            if let Some(mi) = self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi] && self.may_name_index(mi)) {
                let role = format!("index {}", self.mapping.index);
                self.consume(mi, role);
            }
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
            // "the three largest houses by floor area": after a ranking, "by" and a measure name
            // what is ranked, not a group.
            if self.word(g.end - 1) == "by"
                && self.a.superlatives.iter().any(|s| s.end <= g.start)
                && self.ms.iter().position(|m| m.start == t).is_some_and(|mi| !self.used[mi] && self.measure_of(mi).is_some())
            {
                self.mark(g.start..g.end, "ranking");
                continue;
            }
            let mut t = t;
            // "for different number of cylinders": the count's word names the group's field.
            if let Some(c) = self.a.aggregates.iter().find(|x| x.start == t && x.func == AggWord::Count && self.word(g.end - 1) != "by").cloned() {
                self.aggs_done.push(c.start);
                self.mark(c.start..c.end, "group");
                t = self.skip_filler(c.end);
            }
            // "for every singer": the documents themselves.
            let target = self.ms.iter().position(|m| m.start == t);
            // (Not a word of the index's name that modifies its head and names a field too:
            // "per warehouse" in an index `warehouse_picks` with a `warehouse_code`.)
            if let Some(mi) = target.filter(|&mi| self.may_name_index(mi) && !self.used[mi] && !self.modifier_of_index(mi)) {
                let role = format!("every document of {}", self.mapping.index);
                self.mark(g.start..g.end, role.clone());
                self.consume(mi, role);
                continue;
            }
            // Without an aggregate or a ranking, "by X" orders and "for each X" names the rows.
            let aggregated = !self.a.aggregates.is_empty()
                || !self.a.superlatives.is_empty()
                || self.word(g.start) == "per"
                || (0..self.n()).any(|i| matches!(self.word(i), "break" | "breakdown" | "broken" | "split" | "group" | "grouped" | "distribution"));
            if !aggregated {
                if let Some(mi) = target.filter(|&mi| !self.used[mi])
                    && let Some(f) = self.field(mi)
                {
                    let by = self.word(g.end - 1) == "by";
                    let role = if by { format!("sort by {f}") } else { format!("every {f}") };
                    self.mark(g.start..g.end, role.clone());
                    self.consume(mi, role);
                    if by && self.plan.sort.is_none() {
                        self.plan.sort = Some((self.sort_path(&f), false));
                    }
                }
                continue;
            }
            if let Some(interval) = calendar(self.word(t)).filter(|_| self.ms.iter().all(|m| m.start != t || m.best().target.field().is_none_or(|f| self.kind(f) != FieldKind::Date))) {
                let phrase = self.phrase(g.start, t + 1);
                // "per month of delivery", "by year of birth": the date named after.
                let named = (self.word(t + 1) == "of")
                    .then(|| self.ms.iter().position(|m| m.start == self.skip_filler(t + 2)))
                    .flatten()
                    .filter(|&mi| !self.used[mi])
                    .and_then(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.kind(f) == FieldKind::Date).map(|f| (f, Some(mi))));
                let target = match named {
                    Some((f, mi)) => {
                        self.mark(t + 1..t + 2, format!("per {interval} of {f}"));
                        Some((f, mi))
                    }
                    None => self.date_target(t, &phrase)?,
                };
                if let Some((field, mi)) = target {
                    let role = format!("per {interval} of {field}");
                    self.mark(g.start..t + 1, role.clone());
                    if let Some(mi) = mi {
                        self.consume(mi, role);
                    }
                    if self.kind(&field) == FieldKind::Date {
                        self.plan.groups.push(Group::Calendar { field, interval: interval.into() });
                    } else if let Some(exact) = self.exact(&field) {
                        // A year field: its values are the years.
                        self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::KeyAsc, min_count: None });
                    }
                }
                continue;
            }
            // "each Dutch artist": past a value or a flag said of the groups (already a
            // condition) to the groups' noun.
            if let Some(mi) = self.ms.iter().position(|m| m.start == t).filter(|&mi| self.used[mi] && (!self.value_readings(mi).is_empty() || self.field(mi).is_some_and(|f| self.kind(&f) == FieldKind::Flag)))
                && let Some(next) = self.ms.iter().position(|m| m.start == self.ms[mi].end)
            {
                // "bookings by premium members": a lone "by" before a condition names who did
                // it; "each" or "per" would group.
                if g.end == g.start + 1 && self.word(g.start) == "by" {
                    self.mark(g.start..g.end, "who or what did it (the condition after it)");
                    continue;
                }
                t = self.ms[next].start;
            }
            // "each 3-star hotel": past the words a condition took ("3-star") to the noun after
            // them, even when that noun was read as what the value describes ("hotel").
            let mut described = None;
            if self.ledger.is_used(t) && self.ms.iter().position(|m| m.start == t).is_none_or(|mi| self.used[mi]) {
                let mut k = t;
                while k < self.n() && k < t + 4 && self.ledger.is_used(k) && !self.ledger.role(k).is_some_and(|r| r.ends_with("(described by the value before)")) {
                    k += 1;
                }
                if let Some(mi) = self.ms.iter().position(|m| m.start == k && k > t) {
                    if self.ledger.role(k).is_some_and(|r| r.ends_with("(described by the value before)")) {
                        described = self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| self.is_groupable(f));
                    } else if !self.used[mi] {
                        t = k;
                    }
                }
            }
            // "in each month of 2025, by job date": the date the calendar buckets already
            // group by, named again.
            if let Some(mi) = self.ms.iter().position(|m| m.start == t).filter(|&mi| !self.used[mi])
                && let Some(f) = self.ms[mi].best().target.field().map(str::to_string).filter(|f| self.kind(f) == FieldKind::Date)
                && self.plan.groups.iter().any(|g| matches!(g, Group::Calendar { field, .. } if *field == f))
            {
                let role = format!("group by {f}");
                self.mark(g.start..g.end, role.clone());
                self.consume(mi, role);
                continue;
            }
            let field = match self.ms.iter().position(|m| m.start == t).filter(|&mi| !self.used[mi] && !self.names_index(mi) && described.is_none()) {
                Some(mi) => {
                    // (Not a measure with a unit reached through a related word: "each
                    // inspector" is no group of `inspection_time_sec` values.)
                    let loose_measure = |f: &str, how: How| qa_question::numbers::field_unit(f).is_some() && matches!(how, How::Family | How::Part | How::Fuzzy);
                    let groupable: Vec<(String, f64)> = self.fields_of(mi).into_iter().filter(|(f, _, how)| self.is_groupable(f) && !loose_measure(f, *how)).map(|(f, s, _)| (f, s)).collect();
                    // "per country" with `portCountry` and `originCountry` alike: which one is
                    // the question's to say.
                    let picked = match groupable.as_slice() {
                        // (Not the halves of one person's name, `agent_first_name` and
                        // `agentLastName`: that is one person.)
                        [(a, sa), (b, sb), ..] if (sa - sb).abs() < 1e-9 && ![a, b].iter().any(|f| qa_question::names::name_words(f).iter().any(|w| matches!(w.as_str(), "first" | "last" | "surname" | "given" | "family" | "forename"))) => {
                            let phrase = self.phrase(self.ms[mi].start, self.ms[mi].end);
                            let tied: Vec<String> = groupable.iter().filter(|(_, s)| (sa - s).abs() < 1e-9).map(|(f, _)| f.clone()).collect();
                            let _ = a;
                            // "per silo" over `silo_name` and `siloCode`: one thing's name and
                            // code; the groups are shown by name.
                            match one_things_name(&tied) {
                                Some(f) => Some(f),
                                None => Some(self.choose(&phrase, format!("Which field does \"{phrase}\" mean?"), tied)?),
                            }
                        }
                        [(a, _), ..] => Some(a.clone()),
                        [] => None,
                    };
                    if let Some(f) = &picked {
                        self.consume(mi, format!("group by {f}"));
                    }
                    picked
                }
                None => described,
            };
            // The words after the cue went to a condition ("each Dutch artist" read as the
            // nationality NL): the groups they named cannot be made, and dropping the grouping
            // would answer a different question.
            let in_condition = self.filter_spans.iter().any(|&(a, b)| a <= t && t < b) || self.ms.iter().position(|m| m.start <= t && t < m.end).is_some_and(|mi| !self.value_readings(mi).is_empty());
            if field.is_none() && in_condition && self.ms.iter().position(|m| m.start <= t && t < m.end).is_some_and(|mi| self.used[mi]) {
                // "works by Japanese artists", "the review by Henrik Aalto": a lone "by"
                // before a condition names who did it, not a grouping ("each" or "per" would).
                if g.end == g.start + 1 && self.word(g.start) == "by" {
                    self.mark(g.start..g.end, "who or what did it (the condition after it)");
                    continue;
                }
                let phrase = self.phrase(g.start, self.ms.iter().find(|m| m.start <= t && t < m.end).map(|m| m.end).unwrap_or(t + 1));
                return Err(Ambiguity {
                    field: phrase.clone(),
                    message: format!("\"{phrase}\" reads as a condition, so there is nothing left to group by. Which field should the results be grouped by?"),
                    alternatives: self.closest(&phrase, |f| self.is_groupable(f), 4),
                });
            }
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
                self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            }
        }
        Ok(())
    }

    /// "the average score", "total fines", "maximum depth", "how much"; "the average and
    /// maximum capacity", "the maximum capacity and the average": one field for a list.
    /// "Tonnes of maize delivered per month …", typed the way a search box is used: a plural
    /// unit that opens the question and names the one measure in that unit, with no figure
    /// placed yet and groups asked for, is that measure's total per group.
    fn leading_unit_total(&mut self) {
        if self.plan.metric.is_some() || self.a.groupings.is_empty() {
            return;
        }
        let first = self.a.sentences.first().map_or(0, |s| s.0);
        let Some(u) = qa_question::numbers::unit_of(self.word(first)).filter(|_| self.a.tokens[first].lower != self.a.tokens[first].norm) else { return };
        let fields: Vec<String> = self.mapping.fields.iter().filter(|f| self.kind(&f.path).is_numeric() && qa_question::numbers::field_unit(&f.path).is_some_and(|x| x.name == u.name)).map(|f| f.path.clone()).collect();
        let [f] = fields.as_slice() else { return };
        let role = format!("sum of {f}");
        match self.ms.iter().position(|m| m.start == first) {
            Some(mi) => self.consume(mi, role),
            None => self.mark(first..first + 1, role),
        }
        self.plan.metric = Some(("sum".into(), f.clone()));
    }

    fn metrics(&mut self) -> Result<(), Ambiguity> {
        let mut found: Vec<(&'static str, Option<String>, usize, usize)> = Vec::new();
        for g in self.a.aggregates.clone() {
            if g.func == AggWord::Count || self.aggs_done.contains(&g.start) || self.ledger.is_used(g.start) || self.inside_name(g.start) {
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
            // (A filler word that opens a field's name is that name: "the average overall
            // score" of `overallScore`.)
            if let Some(m) = self.ms.iter().find(|m| m.start >= g.target && m.start < p && m.end > p && matches!(m.best().target, Target::Field { .. })) {
                p = m.start;
            }
            loop {
                if let Some(mi) = self.ms.iter().position(|m| m.start == p).filter(|&mi| self.names_index(mi)) {
                    p = self.skip_filler(self.ms[mi].end);
                } else if matches!(self.word(p), "amount" | "value" | "level" | "number") && self.word(p + 1) == "of" && self.mention_covering(p).is_none() {
                    // ("the average number of nights stayed": of the count field named after.)
                    // "the total amount of bonus".
                    self.mark(p..p + 2, format!("{op} of"));
                    p = self.skip_filler(p + 2);
                } else {
                    break;
                }
            }
            let ok = |r: &Reader, f: &str| r.is_measure(f) || (matches!(op, "max" | "min") && r.kind(f) == FieldKind::Date);
            let named = self.ms.iter().position(|m| m.start == p).filter(|&mi| !self.used[mi]).and_then(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| ok(self, f)).map(|f| (f, mi)));
            let field = match named {
                Some((f, mi)) => {
                    self.consume(mi, format!("{op} of {f}"));
                    Some(f)
                }
                // "the average and maximum capacity": said once, for both.
                None if matches!(self.word(g.end), "and" | "," | "or") || found.last().is_some_and(|x| x.1.is_some() && x.3 + 3 >= g.start) => None,
                None => {
                    let (e, _) = self.phrase_from(p);
                    if e == p {
                        // "How much did the false alarms cost?", "what did they cost us in
                        // total?": the one measure named elsewhere in the question is summed.
                        // (Not of one ranked record: "How much does the youngest dog weigh?")
                        let asks_amount = op == "sum" && self.a.superlatives.is_empty() && (self.word(g.start) == "how" || (self.word(g.start) == "in" && g.target >= self.n().saturating_sub(1)));
                        let measured: Vec<(usize, String)> = (0..self.ms.len()).filter(|&mi| !self.used[mi] && (self.ms[mi].end <= g.start || self.ms[mi].start >= g.end)).filter_map(|mi| self.fields_of(mi).into_iter().map(|(f, ..)| f).find(|f| ok(self, f)).map(|f| (mi, f))).collect();
                        if let (true, [(mi, f)]) = (asks_amount, measured.as_slice()) {
                            let f = f.clone();
                            self.consume(*mi, format!("{op} of {f}"));
                            found.push((op, Some(f), g.start, g.end));
                        } else if let (false, [(_, f)]) = (self.a.superlatives.is_empty(), measured.as_slice()) {
                            // Of the ranked record, the amount is its measure, shown.
                            self.mark(g.start..g.end, format!("show {f}"));
                        }
                        continue;
                    }
                    self.field_for(p, e, &format!("give the {op}"), ok)?
                }
            };
            found.push((op, field, g.start, g.end));
        }
        // Elliptic lists share the next (or previous) field.
        for i in 0..found.len() {
            if found[i].1.is_none() {
                found[i].1 = found[i + 1..].iter().find_map(|x| x.1.clone()).or_else(|| found[..i].iter().rev().find_map(|x| x.1.clone()));
            }
        }
        for (op, field, s, e) in found {
            let Some(field) = field else { continue };
            let m = (op.to_string(), field.clone());
            self.aggs_done.push(s);
            self.mark(s..e, format!("{op} of {field}"));
            if self.plan.metric.is_none() {
                self.plan.metric = Some(m);
            } else if self.plan.metric.as_ref() != Some(&m) && !self.plan.more_metrics.contains(&m) {
                self.plan.more_metrics.push(m);
            }
        }
        Ok(())
    }

    /// The ranking's direction on `field`: a speed said of a duration flips it ("the slowest
    /// response" is the most minutes).
    pub(super) fn desc_for(&self, s: &qa_question::cues::Superlative, field: &str) -> bool {
        let flip = s.adjective.as_deref().is_some_and(|a| qa_question::cues::speed_of_a_duration(a, field));
        s.desc != flip
    }

    /// "Which X" / "what X" at a sentence's start where X is an unused field mention (not the
    /// index's own name): `(position of "which", mention)`, in question order.
    fn which_field_mentions(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for &(s, e) in &self.a.sentences {
            // (Also after a preposition: "Guests of which nationality …", "In which city …".)
            for i in s..(s + 4).min(e) {
                if !matches!(self.word(i), "which" | "what") || (i >= s + 2 && !matches!(self.word(i - 1), "of" | "from" | "in" | "for" | "at" | "on" | "by")) {
                    continue;
                }
                // "which three cities …": past a count of groups.
                let at = if self.group_count_at(i + 1).is_some() { i + 2 } else { i + 1 };
                // (A mention may span the "which": "Guests of which nationality" names
                // `guestNationality`.)
                // ("Which course has the most enrolments?" of an index `course_enrolments`: a
                // word of the index's name that is not its head is one of its fields.)
                if let Some(mi) = self.ms.iter().position(|m| m.start == at || (m.start < i && m.end > at)).filter(|&mi| !self.used[mi] && (!self.names_index(mi) || self.modifier_of_index(mi)))
                    && (matches!(self.ms[mi].best().target, Target::Field { .. }) || self.modifier_of_index(mi))
                {
                    out.push((i, mi));
                }
            }
        }
        out
    }

    /// A whole number of groups at token `k` ("which three cities", "which 3 teams").
    fn group_count_at(&self, k: usize) -> Option<(usize, usize)> {
        let written = self.a.quantities.iter().find(|q| q.at == k && q.end == k + 1 && q.unit.is_none() && !q.year_like && q.value.fract() == 0.0 && (1.0..=100.0).contains(&q.value)).map(|q| (q.value as usize, q.at));
        // A number word before a compound noun ("which two bike categories") is no quantity
        // to the analysis (it waits for a plural), but counts the groups here.
        let cardinal = !matches!(self.word(k), "once" | "twice" | "single" | "first" | "second" | "third" | "one");
        written.or_else(|| qa_question::numbers::number_word(self.word(k)).filter(|v| cardinal && (2.0..=100.0).contains(v)).map(|v| (v as usize, k)))
    }

    /// "Which X …" (or "what X") with a ranking, a count or a metric: X is the group.
    fn which_group(&mut self) {
        let ranked = !self.a.superlatives.is_empty() || self.plan.metric.is_some() || self.count;
        if !ranked {
            // "Which airline has abbreviation UAL?": the field asked for is shown.
            for (i, mi) in self.which_field_mentions() {
                let Some(f) = self.field(mi) else { continue };
                // "Which fast-charging sessions …": a flag said of the records is their
                // condition, not a list of its two values.
                if self.kind(&f) == FieldKind::Flag {
                    let l = self.ms[mi].best().clone();
                    self.place_flag(mi, &l);
                    return;
                }
                // "In which years …", "Which airline has …": the field's values (once each).
                if self.is_groupable(&f)
                    && self.plan.groups.is_empty()
                    && let Some(exact) = self.exact(&f)
                {
                    self.consume(mi, format!("values of {f}"));
                    self.mark(i..i + 1, format!("values of {f}"));
                    self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
                    return;
                }
                self.consume(mi, format!("show {f}"));
                self.mark(i..i + 1, format!("show {f}"));
                self.shown.push(f);
                return;
            }
            return;
        }
        if !self.plan.groups.is_empty() {
            return;
        }
        for (i, mi) in self.which_field_mentions() {
            // (Of several fields the word names, the one holding the things' names: "which
            // course" is `courseTitle` rather than `course_code`.)
            let groupable: Vec<String> = self.fields_of(mi).into_iter().map(|(f, ..)| f).filter(|f| self.is_groupable(f)).collect();
            let label = groupable.iter().find(|f| qa_question::names::name_words(f).last().is_some_and(|w| matches!(w.as_str(), "name" | "title" | "label"))).cloned();
            let Some(f) = label.or_else(|| groupable.first().cloned()) else { continue };
            let Some(exact) = self.exact(&f) else { continue };
            self.consume(mi, format!("group by {f}"));
            self.mark(i..i + 1, format!("group by {f}"));
            if let Some((n, at)) = self.group_count_at(i + 1).filter(|_| self.top_n.is_none()) {
                self.top_n = Some((n, at));
                self.mark(at..at + 1, format!("limit {n}"));
            }
            self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            return;
        }
        // "What is the year that had the most concerts?": the listed field is the group —
        // unless the question asks which records ("Which 3 Lufthansa flights burned the most
        // fuel? Give flight number …": the flights are ranked, the list is what they show).
        let first = self.a.sentences.first().map_or(0, |s| s.0);
        let records_asked = matches!(self.word(first), "which" | "what") && self.ms.iter().any(|m| m.start > first && m.start <= first + 4 && matches!(m.best().target, Target::Collection { .. }));
        if !records_asked
            && let Some(p) = self.a.projection.clone()
            && let Some(it) = p.items.first()
            && let Some(mi) = self.ms.iter().position(|m| m.start >= it.start && m.end <= it.end && !self.used[self.ms.iter().position(|x| x.start == m.start).unwrap_or(0)])
            && !self.may_name_index(mi)
            && matches!(self.ms[mi].best().target, Target::Field { .. })
            && let Some(f) = self.field(mi).filter(|f| self.is_groupable(f) && !self.is_measure(f))
            && let Some(exact) = self.exact(&f)
            && !self.a.superlatives.iter().any(|s| s.adjective.is_some() && !s.mode)
        {
            self.consume(mi, format!("group by {f}"));
            self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
            return;
        }
        self.who_ranked(first);
    }

    /// "Who filed the most applications?": when the records name exactly one person (a first
    /// and a last name field), "who" is that person and the verb after it is how they relate
    /// to the records; the people are grouped (and told apart by both fields later). With two
    /// people in the records (a caller and a dispatcher) "who" stays unread and asks.
    fn who_ranked(&mut self, first: usize) {
        if self.word(first) != "who" || !self.plan.groups.is_empty() {
            return;
        }
        let firsts: Vec<String> = self
            .mapping
            .fields
            .iter()
            .filter(|f| qa_question::names::name_words(&f.path).iter().any(|w| matches!(w.as_str(), "first" | "given" | "fore")) && self.name_sibling(&f.path).is_some())
            .map(|f| f.path.clone())
            .collect();
        let [person] = firsts.as_slice() else { return };
        let Some(exact) = self.exact(person) else { return };
        let mut end = first + 1;
        // The verb of the relation ("filed", "handled"), after any auxiliary.
        while end < self.n() && matches!(self.word(end), "has" | "have" | "had" | "did" | "does" | "do") {
            end += 1;
        }
        if end < self.n() && qa_core::text::is_verb_form(self.word(end)) && !self.ledger.is_used(end) && !self.ms.iter().any(|m| m.start <= end && end < m.end) {
            end += 1;
        }
        self.mark(first..end, format!("group by {person} (the people of the records)"));
        self.plan.groups.push(Group::Terms { field: exact, size: 0, order: BucketOrder::CountDesc, min_count: None });
    }

    /// The first unused mention from `from` within `span` tokens (filler, the index's name and
    /// used words skipped).
    pub(super) fn next_mention(&self, from: usize, span: usize) -> Option<usize> {
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
    pub(super) fn ranks_documents(&self, start: usize, end: usize, n: Option<usize>) -> bool {
        if n.is_some() {
            return true;
        }
        // "the car with the largest …", "the country that has the shortest …".
        let mut p = start;
        while p > 0 && matches!(self.word(p - 1), "the" | "a" | "an") {
            p -= 1;
        }
        if p > 0 && matches!(self.word(p - 1), "with" | "has" | "have" | "had" | "having" | "whose" | "of" | "by" | "for" | "that" | "which" | "who") {
            return true;
        }
        let after = self.skip_filler(end);
        if self.ms.iter().any(|m| (m.start == after || m.start == after + 1) && matches!(m.best().target, Target::Collection { .. })) {
            return true;
        }
        let first = self.a.sentences.first().map_or(0, |s| s.0);
        matches!(self.word(first), "show" | "list" | "find" | "give" | "display" | "get" | "return") || (self.word(first) == "which" && self.ms.iter().any(|m| m.start == first + 1 && matches!(m.best().target, Target::Collection { .. })))
    }

    pub(super) fn set_order(&mut self, order: BucketOrder, n: usize) {
        if let Some(Group::Terms { order: o, size, .. }) = self.plan.groups.first_mut() {
            *o = order;
            *size = n;
        }
    }
}

/// Past direction words at an ordering's key ("ordered by ascending age").
pub(super) fn skip_direction(r: &Reader, mut t: usize) -> usize {
    while matches!(r.word(t), "ascending" | "descending" | "increasing" | "decreasing" | "the" | "their" | "its") {
        t += 1;
    }
    t
}

impl Reader<'_> {
    /// "document ids with at least two paragraphs", "nationalities shared by 2 or more people":
    /// groups with at least so many documents.
    fn group_counts(&mut self) {
        if self.plan.groups.is_empty() {
            return;
        }
        for c in self.a.comparisons.clone() {
            let q = self.a.quantities[c.quantity].clone();
            if (c.start..c.end).any(|i| self.ledger.is_used(i)) || !matches!(c.op, Op::Gt | Op::Ge) || c.high.is_some() || q.unit.is_some() || q.value.fract() != 0.0 {
                continue;
            }
            let Some(mi) = self.mention_at(c.end.max(q.end)).filter(|&mi| self.may_name_index(mi)) else { continue };
            let n = if c.op == Op::Gt { q.value as u64 + 1 } else { q.value as u64 };
            if let Some(Group::Terms { min_count, .. }) = self.plan.groups.first_mut() {
                *min_count = Some(n);
            }
            let role = format!("groups of at least {n} documents");
            self.mark(c.start..c.end, role.clone());
            if !self.used[mi] {
                self.consume(mi, role);
            }
        }
    }
}

/// Words skipped when looking for what a ranking applies to.
const FILLER_AFTER: &[&str] = &["the", "a", "an", "of", "in", "to", "all", "their", "its", "any"];

/// Of fields that name one thing in different ways (`silo_name`, `siloCode`: the same words
/// once "name", "code", "id", "no" are set aside), the one holding its name or title.
fn one_things_name(fields: &[String]) -> Option<String> {
    const LABELS: &[&str] = &["name", "title", "label"];
    const KEYS: &[&str] = &["code", "id", "no", "number", "ref", "key"];
    let core = |f: &str| -> Vec<String> { qa_question::names::name_words(f).into_iter().filter(|w| !LABELS.contains(&w.as_str()) && !KEYS.contains(&w.as_str())).collect() };
    let first = core(fields.first()?);
    if first.is_empty() || !fields.iter().all(|f| core(f) == first) {
        return None;
    }
    let named: Vec<&String> = fields.iter().filter(|f| qa_question::names::name_words(f).iter().any(|w| LABELS.contains(&w.as_str()))).collect();
    match named.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}
