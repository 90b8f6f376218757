//! Join paths: the foreign-key steps from one table to another, and which of two keys between
//! the same tables a question means (a trip's two ends, two roles of one table).

use super::super::schema::JoinStep;
use super::ir::multiplies;
use super::read::Reader;

/// Longest join path considered between two tables.
const MAX_PATH: usize = 4;

impl Reader<'_> {
    /// Where a row goes from and to: the words of keys for a trip's two ends that the
    /// question's generic words say ("leaving" → source, origin; "to" → dest, arrival).
    pub(super) fn trip_key_words(&self) -> Vec<String> {
        let said = |ws: &[&str]| self.a.tokens.iter().any(|t| ws.contains(&t.lower.as_str()));
        let mut out: Vec<String> = Vec::new();
        if said(&["from", "departing", "leaving", "departs", "depart", "origin", "out"]) {
            out.extend(["source", "origin", "departure", "from", "start"].map(str::to_string));
        }
        if said(&["to", "into", "arriving", "arrive", "arrives", "destination", "reaching"]) {
            out.extend(["dest", "destination", "arrival", "to", "end"].map(str::to_string));
        }
        out
    }

    /// The shortest path from `from` to `to`; among paths at most as long, the one through
    /// most of the `named` tables.
    pub(super) fn path(&mut self, from: &str, to: &str, named: &[String]) -> Option<Vec<JoinStep>> {
        let shortest = self.ctx.join_path(from, to)?;
        if shortest.len() == 1 {
            // Two keys between the same tables (a current and a permanent address): the one
            // whose name the question says, else a guess.
            let edges: Vec<JoinStep> = self.ctx.fk_steps().into_iter().filter(|e| e.from_table.eq_ignore_ascii_case(from) && e.to_table.eq_ignore_ascii_case(to)).collect();
            if edges.len() <= 1
                && !self.ctx.step_named(&shortest[0])
                && let Some(via) = self.junction_said(from, to, false)
            {
                return Some(via);
            }
            if edges.len() > 1 {
                // The question's words as keys name them (`SchemaContext::for_question`).
                let mut fams: Vec<String> = self.ctx.key_words.clone();
                fams.extend(self.trip_key_words());
                // The words that tell the keys apart (either end of the step, in either
                // direction): "current" of `current_city_id`, not the "city" all of them hold.
                let words_of = |e: &JoinStep| -> Vec<String> { [&e.from_column, &e.to_column].iter().flat_map(|c| qa_question::names::name_words(c)).collect() };
                let shared: Vec<String> = words_of(&edges[0]).into_iter().filter(|w| edges.iter().all(|e| words_of(e).contains(w))).collect();
                // (A key's word of the family of either table's own name — `dispensed_by_id` of
                // dispensings — is said by every question about those rows: it tells no key.)
                let tables: Vec<String> = qa_question::names::name_words(from).iter().chain(qa_question::names::name_words(to).iter()).map(|w| qa_core::text::word_family(w)).collect();
                let says = |e: &JoinStep| {
                    words_of(e).iter().filter(|w| !shared.contains(w) && !tables.contains(&qa_core::text::word_family(w))).any(|w| {
                        fams.contains(&qa_core::text::word_family(w)) || fams.contains(&crate::schema::key_family(w)) || fams.contains(w) || self.verb_says(w)
                    })
                };
                let said: Vec<&JoinStep> = edges.iter().filter(|e| says(e)).collect();
                if said.len() == 1 {
                    // The words that named the key are used by the join ("previously" for
                    // `previous_city_id`).
                    let step = said[0].clone();
                    let key_words: Vec<String> = words_of(&step).into_iter().filter(|w| !shared.contains(w) && w.len() >= 4).map(|w| crate::schema::key_family(&w)).collect();
                    for i in 0..self.n() {
                        if self.a.tokens[i].is_word() && !self.ledger.is_used(i) && (self.word(i).len() >= 4 || self.word(i) == "now") && key_words.contains(&crate::schema::key_family(self.word(i))) {
                            self.mark(i..i + 1, format!("join by {}.{}", step.from_table, step.from_column));
                        }
                    }
                    return Some(vec![step]);
                }
                // No word names one: the plain key (`guest_id`, not `referred_by_guest_id`) is
                // what the relation means unqualified.
                let plain: Vec<&JoinStep> = edges.iter().filter(|e| crate::schema::is_plain_key(e)).collect();
                if said.is_empty()
                    && let [one] = plain.as_slice()
                {
                    return Some(vec![(*one).clone()]);
                }
                // Else the key said without a qualifier (`carer_id`, not `second_carer_id`).
                let bare: Vec<&JoinStep> = edges.iter().filter(|e| edges.iter().all(|o| o == *e || crate::schema::less_qualified(e, o))).collect();
                if said.is_empty()
                    && let [one] = bare.as_slice()
                {
                    return Some(vec![(*one).clone()]);
                }
                // "stops served by more than four routes" beside `start_stop_id` and
                // `end_stop_id`: the table named after both (`route_stops`) relates them
                // without a role.
                // (Not when a word of the question names a role, however short: "where does
                // route R-29 end".)
                let role_said = edges.iter().flat_map(words_of).filter(|w| !shared.contains(w) && w != "id").any(|w| (0..self.n()).any(|i| self.a.tokens[i].is_word() && (self.word(i) == w || qa_core::text::same_family(self.word(i), &w))));
                if said.is_empty()
                    && !role_said
                    && let Some(via) = self.junction_said(from, to, true)
                {
                    return Some(via);
                }
                self.penalties.push((format!("{from} and {to} are joined by {} keys; which one is meant is not said", edges.len()), 0.7));
            }
            return Some(shortest);
        }
        let edges = self.ctx.fk_steps();
        let mut best = shortest.clone();
        let ends: Vec<String> = qa_question::names::name_words(from).into_iter().chain(qa_question::names::name_words(to)).collect();
        let trip = self.trip_key_words();
        // Tables the question names, then no step that fans out (a path that fans out and comes
        // back changes the meaning), then a link table named after both ends.
        let score = |p: &[JoinStep]| {
            let hits = p.iter().filter(|s| named.iter().any(|n| n.eq_ignore_ascii_case(&s.to_table))).count() as i64;
            let fans = p.iter().filter(|s| multiplies(self.ctx, s)).count() as i64;
            let link = p[..p.len().saturating_sub(1)].iter().filter(|s| {
                let w = qa_question::names::name_words(&s.to_table);
                w.len() >= 2 && w.iter().all(|x| ends.contains(x))
            }).count() as i64;
            // A key the question's words name ("leaving" → `origin_port_id`, "home" →
            // `home_port_id`, "flights to" → `DestAirport`).
            let keyed = p.iter().filter(|s| self.ctx.step_named(s) || crate::schema::step_key_families(s).iter().any(|f| trip.contains(f))).count() as i64;
            hits * 100 + keyed * 50 - fans * 10 + link
        };
        let mut stack: Vec<(String, Vec<JoinStep>)> = vec![(from.to_string(), Vec::new())];
        let mut ties = 0usize;
        let mut role_ties = 0usize;
        let mut role_tied: Vec<Vec<JoinStep>> = Vec::new();
        let mut best_score = score(&best);
        while let Some((at, p)) = stack.pop() {
            if at.eq_ignore_ascii_case(to) {
                // A path one step longer counts only through a table the question names.
                let named_hits = p.iter().filter(|s| named.iter().any(|n| n.eq_ignore_ascii_case(&s.to_table))).count();
                let short_hits = shortest.iter().filter(|s| named.iter().any(|n| n.eq_ignore_ascii_case(&s.to_table))).count();
                if p.len() <= shortest.len() || (p.len() == shortest.len() + 1 && named_hits > short_hits) {
                    let sc = score(&p);
                    if sc > best_score {
                        best = p;
                        best_score = sc;
                        ties = 0;
                        role_ties = 0;
                        role_tied.clear();
                    } else if sc == best_score && p != best {
                        ties += 1;
                        // The same tables by other keys: two roles ("pi_id", "reviewer_id").
                        if p.len() == best.len() && p.iter().zip(best.iter()).all(|(a, b)| a.to_table.eq_ignore_ascii_case(&b.to_table)) {
                            role_ties += 1;
                            role_tied.push(p);
                        }
                    }
                }
                continue;
            }
            if p.len() >= (shortest.len() + 1).min(MAX_PATH) {
                continue;
            }
            for e in edges.iter().filter(|e| e.from_table.eq_ignore_ascii_case(&at)) {
                if e.to_table.eq_ignore_ascii_case(from) || p.iter().any(|s| s.to_table.eq_ignore_ascii_case(&e.to_table)) {
                    continue;
                }
                let mut q = p.clone();
                q.push(e.clone());
                stack.push((e.to_table.clone(), q));
            }
        }
        // Two equally good ways through different tables: which rows relate is a guess.
        // The same tables by two keys of one table to another (a principal investigator and a
        // reviewer) with no word for either: which role relates the rows is a guess, asked.
        // (Unless one way takes, at every step where they differ, the key said without a
        // qualifier: a visit's `carer_id` rather than its `second_carer_id`.)
        if role_ties > 0 && role_ties == ties && best.len() > 1 {
            let mut all = vec![best.clone()];
            all.extend(role_tied);
            let bare: Vec<&Vec<JoinStep>> = all.iter().filter(|c| all.iter().all(|o| *o == **c || c.iter().zip(o.iter()).all(|(a, b)| a == b || crate::schema::less_qualified(a, b)))).collect();
            if let [one] = bare.as_slice() {
                return Some((*one).clone());
            }
        }
        if role_ties > 0 && best.len() > 1 {
            self.penalties.push((format!("{from} and {to} are related through two roles of one table, and no word says which"), 0.7));
        } else if ties > 0 && best.len() > 1 {
            self.penalties.push((format!("{from} and {to} are related through more than one path"), 0.85));
        }
        Some(best)
    }

    /// A verb of the question, in any form, says the role word `w` of a key: "took" of
    /// `taken_by_rep_id`, "picked up" of `pickup_branch_id`, "drove" of a driver's key (an agent
    /// noun names its verb).
    fn verb_says(&self, w: &str) -> bool {
        if w.len() < 4 {
            return false;
        }
        let mut role = qa_core::text::verb_lemmas(w);
        if let Some(stem) = w.strip_suffix("er") {
            role.extend([stem.to_string(), format!("{stem}e")]);
        }
        (0..self.n()).filter(|&i| self.a.tokens[i].is_word()).any(|i| {
            let lemmas = qa_core::text::verb_lemmas(self.word(i));
            let particle = matches!(self.word(i + 1), "up" | "off" | "out" | "back" | "in" | "over").then(|| self.word(i + 1));
            lemmas.iter().any(|l| l.len() >= 4 && (role.contains(l) || particle.is_some_and(|p| role.contains(&format!("{l}{p}")))))
        })
    }

    /// "members enrolled in each course" where `courses.instructor_id` joins the two directly
    /// and `course_enrolments` holds a key to each: a word of the question from that table's
    /// name ("enrolled") says the rows are related through it, not through the direct key.
    /// With `by_both_names`: instead the one such table whose name is made of the two
    /// tables' names (`route_stops` of routes and stops).
    fn junction_said(&self, from: &str, to: &str, by_both_names: bool) -> Option<Vec<JoinStep>> {
        // (A verb — "enrolled", not the noun of an event table's rows — and a word of neither
        // end's own name: "route" of `route_stops` is the routes.)
        let ends: Vec<String> = qa_question::names::name_words(from).into_iter().chain(qa_question::names::name_words(to)).collect();
        let words: Vec<&str> = (0..self.n())
            .filter(|&i| self.a.tokens[i].is_word() && self.word(i).len() >= 5 && (self.word(i).ends_with("ed") || qa_core::text::is_verb_form(self.word(i))))
            .map(|i| self.word(i))
            .filter(|q| !ends.iter().any(|e| qa_core::text::same_family(e, q)))
            .collect();
        let refers = |t: &crate::TableInfo, other: &str| t.foreign_keys.iter().any(|fk| fk.ref_table.eq_ignore_ascii_case(other));
        let said: Vec<&crate::TableInfo> = self
            .ctx
            .db
            .tables
            .iter()
            .filter(|t| !t.name.eq_ignore_ascii_case(from) && !t.name.eq_ignore_ascii_case(to) && refers(t, from) && refers(t, to))
            .filter(|t| {
                let own = qa_question::names::name_words(&t.name);
                if by_both_names {
                    let has = |end: &str| qa_question::names::name_words(end).iter().any(|e| own.iter().any(|w| qa_core::text::same_family(w, e)));
                    return own.len() == 2 && has(from) && has(to);
                }
                own.iter().filter(|w| w.len() >= 5).any(|w| words.iter().any(|q| qa_core::text::same_family(w, q)))
            })
            .collect();
        let [j] = said.as_slice() else { return None };
        let mut a = self.ctx.join_path(from, &j.name)?;
        let b = self.ctx.join_path(&j.name, to)?;
        if a.len() != 1 || b.len() != 1 {
            return None;
        }
        a.extend(b);
        Some(a)
    }
}
