//! Signal words: aggregates ("how many", "average", "total"), ranking ("most", "top 3"),
//! grouping ("per", "by", "each"), time buckets ("monthly"), distinct counts and the entity of
//! "which X …". Positions are token indices; matches are indices into `Interp::ms`.

use super::interpret::Interp;
use super::{AggFunc, TimeUnit};

/// Verbs after which "by" names who did something ("written by"), not a grouping.
pub(super) const AGENTIVE: &[&str] = &["made", "led", "held", "sold", "bought", "paid", "run", "won", "lost", "read", "sent", "built", "found", "kept", "done", "seen", "owned", "taught", "given", "taken", "written", "placed"];

/// Signal words found in the question (positions are token indices; matches are indices into
/// `Interp::ms`).
#[derive(Debug, Default)]
pub(super) struct Signals {
    pub count: bool,
    /// An explicit aggregate word (average, total, highest, …) and where it stands.
    pub agg: Option<(AggFunc, usize)>,
    pub distinct: Option<usize>,
    /// A ranking word (most, fewest, top, highest, …): position, descending.
    pub rank: Option<(usize, bool)>,
    pub top_n: Option<usize>,
    /// The match right after "which"/"what" (the entity asked about).
    pub which: Option<usize>,
    /// Token positions where a grouping target starts ("per X", "by X", "each X").
    pub group_at: Vec<usize>,
    /// "sorted by X": the target position and descending.
    pub order_at: Option<(usize, bool)>,
    pub time_unit: Option<TimeUnit>,
    /// The first table or column match after the ranking word.
    pub rank_target: Option<usize>,
}


impl Interp<'_> {
    /// Aggregate, ranking, grouping, distinct and "which" words.
    pub fn signals(&mut self) {
        let mut sig = Signals::default();
        if let Some(i) = self.q.seq(&["how", "many"]) {
            sig.count = true;
            self.q.mark(i..i + 2, "aggregate COUNT");
        }
        for i in 0..self.q.len() {
            self.aggregate_word(i, &mut sig);
            self.rank_word(i, &mut sig);
            self.group_word(i, &mut sig);
        }
        self.top_n(&mut sig);
        // "by channel and status": the list goes on.
        let mut k = 0;
        while k < sig.group_at.len() {
            let p = sig.group_at[k];
            if let Some(m) = self.match_at(p).map(|mi| &self.ms[mi])
                && matches!(self.q.word(m.end), "and" | "then")
                && let Some(next) = self.match_at(m.end + 1).map(|mi| &self.ms[mi])
                && next.is_column()
                && !next.is_value()
                && !sig.group_at.contains(&next.start)
            {
                sig.group_at.push(next.start);
            }
            k += 1;
        }
        // "Which genre …", "What department …": the entity asked about.
        for i in 0..self.q.len().min(3) {
            if matches!(self.q.word(i), "which" | "what" | "who") {
                sig.which = self.match_at(i + 1);
                break;
            }
        }
        if let Some((r, _)) = sig.rank {
            sig.rank_target = self.ms.iter().position(|m| m.start > r && (m.is_table() || m.is_column()) && !m.is_value());
        }
        self.sig = sig;
        self.entity_groups();
    }

    fn words_around(&self, i: usize) -> (String, String, String) {
        let prev = if i > 0 { self.q.word(i - 1).to_string() } else { String::new() };
        (prev, self.q.word(i).to_string(), self.q.word(i + 1).to_string())
    }

    fn aggregate_word(&mut self, i: usize, sig: &mut Signals) {
        let (prev, word, next) = self.words_around(i);
        match word.as_str() {
            "number" if next == "of" => {
                if matches!(prev.as_str(), "average" | "avg" | "mean" | "maximum" | "minimum" | "max" | "min" | "highest" | "lowest") {
                    self.q.mark(i..i + 2, "measure");
                } else {
                    sig.count = true;
                    let from = if prev == "total" { i - 1 } else { i };
                    self.q.mark(from..i + 2, "aggregate COUNT");
                }
            }
            "count" | "counts" => {
                sig.count = true;
                self.q.mark(i..i + 1, "aggregate COUNT");
            }
            "average" | "avg" | "mean" if !matches!(sig.agg, Some((AggFunc::Avg, _))) => sig.agg = Some((AggFunc::Avg, i)),
            "total" | "sum" if next != "number" && !matches!(sig.agg, Some((AggFunc::Avg, _))) => sig.agg = Some((AggFunc::Sum, i)),
            "maximum" | "max" | "highest" | "largest" | "biggest" | "greatest" | "longest" if sig.agg.is_none() => sig.agg = Some((AggFunc::Max, i)),
            "minimum" | "min" | "lowest" | "smallest" | "shortest" if sig.agg.is_none() => sig.agg = Some((AggFunc::Min, i)),
            "distinct" | "different" | "unique" => sig.distinct = Some(i),
            _ => {}
        }
    }

    fn rank_word(&mut self, i: usize, sig: &mut Signals) {
        let (prev, word, next) = self.words_around(i);
        let at_least = prev == "at" || prev == "no";
        let rank = match word.as_str() {
            "most" if !at_least && !matches!(next.as_str(), "expensive" | "recent") => Some(true),
            "top" | "highest" | "largest" | "biggest" | "greatest" | "longest" | "maximum" => Some(true),
            "fewest" | "lowest" | "smallest" | "shortest" | "minimum" => Some(false),
            "least" if !at_least && next != "expensive" => Some(false),
            _ => None,
        };
        if let Some(desc) = rank
            && sig.rank.is_none()
        {
            sig.rank = Some((i, desc));
        }
    }

    /// "per X", "by X" (not "written by X"), "each X", "sorted by X", "per month", "yearly".
    fn group_word(&mut self, i: usize, sig: &mut Signals) {
        let (prev, word, next) = self.words_around(i);
        let target = |me: &Self, from: usize| if matches!(me.q.word(from), "the" | "each" | "every") { from + 1 } else { from };
        match word.as_str() {
            "per" | "each" | "every" => sig.group_at.push(target(self, i + 1)),
            "by" => {
                if matches!(prev.as_str(), "sorted" | "ordered" | "ranked" | "sort" | "order") {
                    let desc = (i..self.q.len()).any(|k| matches!(self.q.word(k), "desc" | "descending"));
                    sig.order_at = Some((target(self, i + 1), desc));
                    self.q.mark(i - 1..i, "ordering");
                } else if matches!(prev.as_str(), "grouped" | "broken" | "down" | "split" | "group") || !(AGENTIVE.contains(&prev.as_str()) || (prev.len() > 4 && (prev.ends_with("ed") || prev.ends_with("en")))) {
                    sig.group_at.push(target(self, i + 1));
                }
            }
            _ => {}
        }
        let time = match (word.as_str(), next.as_str()) {
            ("per" | "by" | "each" | "every", "month" | "months") => Some((TimeUnit::Month, i..i + 2)),
            ("per" | "by" | "each" | "every", "year" | "years") => Some((TimeUnit::Year, i..i + 2)),
            ("monthly", _) => Some((TimeUnit::Month, i..i + 1)),
            ("yearly" | "annually" | "annual", _) => Some((TimeUnit::Year, i..i + 1)),
            _ => None,
        };
        if let Some((unit, range)) = time
            && sig.time_unit.is_none()
        {
            sig.time_unit = Some(unit);
            self.q.mark(range, "group by time");
        }
    }

    /// "top 5", "first 10", "5 most expensive", "the 3 books with the most pages"; "top 3
    /// categories by cost" groups by the column after "top N", "top 2 departments by findings"
    /// by the table, when another table is counted.
    fn top_n(&mut self, sig: &mut Signals) {
        let mut top_at = None;
        for i in 0..self.q.len() {
            let Some(k) = self.q.number(i).filter(|k| k.fract() == 0.0 && (1.0..=1000.0).contains(k) && self.q.toks[i].number.is_some()) else { continue };
            let (prev, _, next) = self.words_around(i);
            let rank_next = matches!(next.as_str(), "most" | "least" | "highest" | "lowest" | "largest" | "smallest" | "biggest" | "fewest" | "cheapest" | "costliest" | "latest" | "newest" | "oldest" | "earliest" | "longest" | "shortest");
            let table_next = self.ms.iter().any(|m| m.start == i + 1 && m.is_table()) && sig.rank.is_some() && prev == "the";
            let after_top = matches!(prev.as_str(), "top" | "first" | "bottom");
            if after_top || rank_next || table_next {
                sig.top_n = Some(k as usize);
                top_at = Some(i + 1);
                let from = if after_top { i - 1 } else { i };
                self.q.mark(from..i + 1, format!("limit {}", k as usize));
                break;
            }
        }
        if sig.top_n.is_none()
            && let Some(i) = self.q.pos("top")
        {
            sig.top_n = Some(1);
            top_at = Some(i + 1);
            self.q.mark(i..i + 1, "limit 1");
        }
        if let Some(at) = top_at
            && let Some(mi) = self.match_at(at)
        {
            let m = &self.ms[mi];
            let tables = self.ms.iter().filter(|m| m.is_table() && !m.is_value()).count();
            let column = m.is_column() && !m.is_value() && !m.is_table() && self.pick_column(mi).is_some_and(|c| !self.is_numeric(&c));
            if column || (m.is_table() && !m.is_value() && tables > 1) {
                sig.group_at.push(m.start);
            }
        }
    }

    /// "Which department has the most findings", "the 3 members with the most loans": the
    /// entity becomes a grouping target when something else is counted.
    fn entity_groups(&mut self) {
        let Some((_, _)) = self.sig.rank else { return };
        let Some(rt) = self.sig.rank_target else { return };
        let counted_table = self.ms[rt].table().map(str::to_string);
        let entity = self.sig.which.or_else(|| self.ms.iter().position(|m| m.is_table() && m.start < self.ms[rt].start));
        let Some(e) = entity.filter(|&e| e != rt) else { return };
        let em = &self.ms[e];
        let entity_is_other_table = em.table().is_some_and(|t| counted_table.as_deref().is_some_and(|c| !c.eq_ignore_ascii_case(t)));
        let entity_is_column = !em.is_table() && em.is_column() && !em.is_value();
        let measure_elsewhere = counted_table.is_none() && self.ms[rt].columns().next().is_some_and(|(t, _)| em.table().is_some_and(|et| !et.eq_ignore_ascii_case(t)));
        if entity_is_other_table || entity_is_column || measure_elsewhere {
            let start = em.start;
            if !self.sig.group_at.contains(&start) {
                self.sig.group_at.push(start);
            }
        }
    }
}
