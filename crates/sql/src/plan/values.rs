//! Stored values said in the question: which column a value belongs to when several hold it (the
//! table named around it, the column a trip word or another named column points to, a
//! clarification), and the `=` / `<>` / `IN` conditions they become.

use qa_question::link::{How, Target};
use qa_question::FieldKind;

use super::super::schema::Term;
use super::ir::{ColRef, Cond, Lit};
use super::read::Reader;
use super::{same_phrase, Ambiguity, AmbiguityKind, Choice};

impl Reader<'_> {
    /// Value mentions become `col = value` (`<>` after a negation); values of one column said
    /// together ("houses or apartments") one `IN` list.
    pub(super) fn values(&mut self) {
        let words: Vec<String> = (0..self.n()).map(|i| self.word(i).to_string()).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        for mi in 0..self.ms.len() {
            if self.used[mi] || !matches!(self.ms[mi].best().target, Target::Value { .. }) {
                continue;
            }
            // "Koen Pluijmen's team leader" where roles hold 'team leader' and `team_leader_id`
            // refers to the same table: after a possessive, the words name whom the row refers
            // to (read with the self-references), not a value of the row.
            if self.ms[mi].start > 0 && self.a.tokens[self.ms[mi].start - 1].possessive && self.names_own_reference(mi) {
                continue;
            }
            // "Polish nationals" where 'Polish' was read in `nationality_code`: a word right after a
            // value that spells its column's name says which column, not a second value elsewhere.
            if let Some(role) = self.column_word_after_value(mi) {
                self.consume(mi, role);
                continue;
            }
            // "flagged as emergencies" of appointments with an `is_emergency` flag: the flag.
            let ctx = self.context_tables();
            // "the beer name and its ABV" of beers with `abv_pct`, where a test type elsewhere
            // holds 'abv': a column of a table in play, named by the word, is that column.
            let flag_here = self.readings(mi).iter().any(|l| {
                matches!(&l.target, Target::Field { collection, field } if ctx.iter().any(|t| t.eq_ignore_ascii_case(collection)) && (self.kind(&ColRef::new(collection, field)) == FieldKind::Flag || (l.how == How::Core && l.score >= 0.85 && self.schema.field(collection, field).is_some_and(|f| f.key == qa_question::KeyRole::None))))
                    && !matches!(l.how, How::Part | How::Head)
            });
            let value_here = self.value_readings(mi).iter().any(|l| ctx.iter().any(|t| t.eq_ignore_ascii_case(l.target.collection())));
            if flag_here && !value_here {
                continue;
            }
            // "the most recent donation received" of donations with `received_on`, where a
            // transfer status elsewhere holds 'received': the participle names the date of the
            // rows in play or named, not another table's state.
            let participle = self.ms[mi].end == self.ms[mi].start + 1 && self.word(self.ms[mi].start).ends_with("ed");
            let named: Vec<String> = (0..self.ms.len()).filter(|&j| self.names_table(j)).filter_map(|j| self.table(j)).collect();
            let date_here = self.readings(mi).iter().any(|l| matches!(&l.target, Target::Field { collection, field } if ctx.iter().chain(named.iter()).any(|t| t.eq_ignore_ascii_case(collection)) && self.kind(&ColRef::new(collection, field)) == FieldKind::Date));
            // ("submitted in March 2025" where a status holds 'submitted': a participle with a
            // date after it dates the event, the status is not asked.)
            let dated = qa_question::states::dated_after(&words, self.ms[mi].start) && self.a.dates.iter().any(|d| d.start > self.ms[mi].start && d.start <= self.ms[mi].start + 3);
            if participle && date_here && (!value_here || dated) {
                continue;
            }
            if self.value_is_read_table(mi) {
                let t = self.table(mi).unwrap_or_default();
                self.consume(mi, format!("table {t}"));
                continue;
            }
            let cands: Vec<qa_question::Link> = self.value_readings(mi).into_iter().cloned().collect();
            let ctx = self.context_tables();
            let in_ctx: Vec<&qa_question::Link> = cands.iter().filter(|l| ctx.iter().any(|t| t.eq_ignore_ascii_case(l.target.collection()))).collect();
            let best_score = cands.iter().map(|l| l.score).fold(0.0, f64::max);
            let top: Vec<&qa_question::Link> = cands.iter().filter(|l| l.score >= best_score - 0.05).collect();
            let phrase = self.a.tokens[self.ms[mi].start..self.ms[mi].end].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
            // The same value in several columns of one table ("Aruba" as a name and a local name):
            // the table's label column.
            let one_table = top.iter().all(|l| l.target.collection().eq_ignore_ascii_case(top[0].target.collection()));
            let labelled = one_table.then(|| {
                let label = self.label(top[0].target.collection());
                top.iter().find(|l| label.iter().any(|c| Some(c.column.as_str()) == l.target.field())).map(|l| (*l).clone())
            }).flatten();
            // "closed audits": a value right before a table's name is that table's.
            let next_table = self.ms.iter().position(|m| m.start == self.ms[mi].end).filter(|&n| self.names_table(n)).and_then(|n| self.table(n));
            // (A country's demonym of the next table's own codes counts even below another
            // table's stored word: "Japanese students" where 'Japanese' is also a language.)
            let of_next = next_table.and_then(|t| top.iter().map(|l| (*l).clone()).find(|l| l.target.collection().eq_ignore_ascii_case(&t)).or_else(|| cands.iter().find(|l| l.how == How::Alias && l.target.collection().eq_ignore_ascii_case(&t)).cloned()));
            // "outages in New Hamburg": a value said of the table named right before it.
            let start = self.ms[mi].start;
            let prev_table = (start >= 2 && matches!(self.word(start - 1), "in" | "at" | "from" | "of" | "for" | "with" | "on"))
                .then(|| self.ms.iter().position(|m| m.end == start - 1))
                .flatten()
                .filter(|&p| self.names_table(p))
                .and_then(|p| self.table(p));
            // Its own value, else one of the row it refers to ("a festival in Germany" is the
            // festival's city's country).
            let to_one = |from: &str, to: &str| self.ctx.join_path(from, to).is_some_and(|p| !p.is_empty() && !p.iter().any(|st| super::ir::multiplies(self.ctx, st)));
            let of_prev = prev_table.and_then(|t| {
                top.iter().find(|l| l.target.collection().eq_ignore_ascii_case(&t)).or_else(|| {
                    let reached: Vec<&&qa_question::Link> = top.iter().filter(|l| to_one(&t, l.target.collection())).collect();
                    (reached.len() == 1).then(|| reached[0])
                }).map(|l| (*l).clone())
            });
            let chosen = if let Some(l) = of_next.or(of_prev) {
                Some(l)
            } else if top.len() == 1 {
                Some(top[0].clone())
            } else if let Some((l, said)) = self.value_in_column_named_by_key_words(&top) {
                // "flights departing from APG": of `SourceAirport` and `DestAirport`, the column
                // a word of the question names.
                for i in said {
                    self.mark(i..i + 1, format!("{}.{}", l.target.collection(), l.target.field().unwrap_or_default()));
                }
                Some(l)
            } else if let Some(l) = labelled {
                Some(l)
            } else if in_ctx.len() == 1 && (!self.entity_mentions.is_empty() || in_ctx[0].how == How::Alias) {
                Some(in_ctx[0].clone())
            } else if let Some(l) = top.iter().find(|l| l.how == How::FieldValue) {
                Some((*l).clone())
            } else if let Some(term) = self.clar.iter().find(|c| same_phrase(&c.phrase, &phrase)).and_then(|c| c.choice.clone()) {
                cands.iter().find(|l| term_matches(&term, &l.target)).cloned()

            } else if let Some(l) = self.value_of_named_columns_table(mi, &top) {
                // "the average fare in euros": the currency of the table whose column is named.
                Some(l)
            } else if let Some(l) = self.value_of_the_table_a_word_names(mi, &top) {
                // "Anna Kovačič the assistant conductor", "concerts Lukas Brandl conducted": a
                // name stored for conductors and musicians is the conductor's.
                Some(l)
            } else if let Some(l) = self.value_of_the_nearest_table(mi, &top) {
                // "buyers who bought cherries": the sales one join from the buyers, not the
                // harvests four joins away.
                Some(l)
            } else {
                // The same value in several columns: ask which.
                if self.ambiguity.is_none() {
                    let options = top.iter().map(|l| Choice { label: l.target.label(), term: term_of(&l.target) }).collect();
                    self.ambiguity = Some(Ambiguity { phrase: phrase.clone(), options, score: 1.0, kind: AmbiguityKind::Reading });
                }
                None
            };
            let Some(link) = chosen else { continue };
            let Target::Value { collection, field, values } = &link.target else { continue };
            let col = ColRef::new(collection.as_str(), field.as_str());
            let neg = self.negation_before(self.ms[mi].start);
            let start = self.ms[mi].start;
            let listed = start > 0 && matches!(self.word(start - 1), "or" | "and" | "nor" | ",");
            let earlier = self.q.filters.iter().find_map(|f| match f {
                Cond::In { col: c, negated, .. } if *c == col && listed => Some(*negated),
                _ => None,
            });
            let negated = earlier.unwrap_or(neg.is_some());
            if let Some(j) = neg {
                self.mark(j..j + 1, "negation");
            }
            // "both cats and dogs", "English and French as official languages": each value must
            // hold for some related row (checked against the query's table at the end).
            let and = start > 0 && self.word(start - 1) == "and";
            // "cartoons directed by A and cartoons directed by B": a second value of the column in
            // a clause joined by "and" must hold too.
            let tag = format!("{col} ");
            let clause_and = !listed
                && (0..start).rev().find(|&i| self.ledger.role(i).is_some_and(|r| r.starts_with(&tag))).is_some_and(|p| {
                    let between: Vec<&str> = (p + 1..start).map(|i| self.word(i)).collect();
                    between.contains(&"and") && !between.contains(&"or")
                });
            if (listed && ((0..start).any(|i| self.word(i) == "both") || and) || clause_and) && !self.both.contains(&col) {
                self.both.push(col.clone());
                if let Some(b) = (0..start).find(|&i| self.word(i) == "both") {
                    self.mark(b..b + 1, format!("{col} = each of"));
                }
            }
            let role = format!("{col} {} '{}'", if negated { "<>" } else { "=" }, values.join("' | '"));
            self.consume(mi, role);
            if link.how == How::Fuzzy {
                self.penalties.push((format!("\"{phrase}\" read as '{}' (spelling)", values.join("', '")), 0.9));
            }
            // "recruiters who joined the agency": a thing said with "the" that is only a lower-case
            // category two or more tables away from the rows asked about, its column unnamed, is a
            // guess at what the words mean.
            // After a verb ("joined the agency"), not after a preposition ("made in the usa").
            let definite = start > 1 && self.word(start - 1) == "the" && !matches!(self.word(start - 2), "in" | "from" | "at" | "to" | "of" | "by" | "for" | "with" | "on" | "via" | "through" | "into");
            let category = values.iter().all(|v| v.chars().all(|c| !c.is_uppercase()));
            let far = !self.q.table.is_empty() && self.ctx.join_path(&self.q.table, collection).is_some_and(|p| p.len() >= 2);
            if definite && category && far && link.how == How::Value {
                self.penalties.push((format!("\"the {phrase}\" read as '{}' of {col}, two tables away", values.join("', '")), 0.7));
            }
            self.reach.push(collection.clone());
            let lits: Vec<Lit> = values.iter().map(|v| Lit::Text(v.clone())).collect();
            let trip_end = start > 0 && matches!(self.word(start - 1), "to" | "towards" | "toward" | "-");
            let same = self.q.filters.iter_mut().find_map(|f| match f {
                Cond::In { col: c, values: v, negated: n } if *c == col && *n == negated => Some(v),
                _ => None,
            });
            // "the Gothenburg to Kiel sailing": two values of one column as the ends of a trip
            // are no list of alternatives.
            if same.is_some() && trip_end {
                self.penalties.push((format!("\"{phrase}\" read as another value of {col}, not as where something goes"), 0.5));
            }
            match same {
                Some(v) => v.extend(lits.into_iter().filter(|x| !v.contains(x)).collect::<Vec<_>>()),
                None => self.q.filters.push(Cond::In { col, values: lits, negated }),
            }
        }
    }

    /// Mention `mi`'s words are the role of a key by which a table its values belong to refers
    /// to itself ("team leader" of `staff.team_leader_id`).
    fn names_own_reference(&self, mi: usize) -> bool {
        let words: Vec<String> = (self.ms[mi].start..self.ms[mi].end).map(|i| qa_core::text::singular(self.word(i))).collect();
        self.value_readings(mi).iter().any(|l| {
            self.ctx.table(l.target.collection()).is_some_and(|t| {
                t.foreign_keys.iter().filter(|fk| fk.ref_table.eq_ignore_ascii_case(&t.name)).any(|fk| {
                    let role: Vec<String> = fk.columns.iter().flat_map(|c| qa_question::names::name_words(c)).filter(|w| !matches!(w.as_str(), "id" | "key" | "ref")).collect();
                    !words.is_empty() && words.iter().all(|w| role.contains(w))
                })
            })
        })
    }

    /// The role of the value condition read just before mention `mi` when `mi` is one word that
    /// spells a word of that condition's column (its stem: "nationals" of `nationality_code`,
    /// "codes" of `country_code`); `None` otherwise.
    fn column_word_after_value(&self, mi: usize) -> Option<String> {
        let (start, end) = (self.ms[mi].start, self.ms[mi].end);
        if end != start + 1 || start == 0 {
            return None;
        }
        let role = self.ledger.role(start - 1)?.to_string();
        let (col, rest) = role.split_once(' ')?;
        if !(rest.starts_with("= '") || rest.starts_with("<> '")) {
            return None;
        }
        let (_, column) = col.split_once('.')?;
        let word = qa_core::text::singular(self.word(start));
        let spelled = qa_question::names::name_words(column).iter().any(|w| {
            let w = qa_core::text::singular(w);
            let (short, long) = if w.len() <= word.len() { (w.as_str(), word.as_str()) } else { (word.as_str(), w.as_str()) };
            short.len() >= 4 && long.starts_with(short)
        });
        spelled.then_some(role)
    }

    /// Mention `mi` reads as a stored value of another table's column but also names, by its
    /// whole name, a table the query reads ("the average interview score" where
    /// `applications.stage` holds 'interview' and the score is the interviews table's): the
    /// word says which rows, not a condition on a row elsewhere. A value stays a value when its
    /// column is named ("in stage interview"), is said by its field and value ("stage
    /// interview"), or lives in a table the query reads.
    fn value_is_read_table(&self, mi: usize) -> bool {
        let named_table = self.readings(mi).into_iter().find_map(|l| match (&l.target, l.how) {
            (Target::Collection { collection }, How::Name | How::Synonym) => Some(collection.clone()),
            _ => None,
        });
        let Some(table) = named_table else { return false };
        let ctx = self.context_tables();
        let read_elsewhere = self.ms.iter().enumerate().any(|(j, m)| j != mi && matches!(&m.best().target, Target::Field { collection, .. } if collection.eq_ignore_ascii_case(&table)));
        if !read_elsewhere && !ctx.iter().any(|t| t.eq_ignore_ascii_case(&table)) {
            return false;
        }
        let values = self.value_readings(mi);
        if values.is_empty() || values.iter().any(|l| l.how == How::FieldValue || ctx.iter().any(|t| t.eq_ignore_ascii_case(l.target.collection()))) {
            return false;
        }
        // The value's column named anywhere else in the question.
        let column_named = self.ms.iter().enumerate().any(|(j, m)| {
            j != mi && self.readings(j).iter().any(|r| matches!(&r.target, Target::Field { collection, field } if values.iter().any(|v| v.target.collection().eq_ignore_ascii_case(collection) && v.target.field() == Some(field.as_str()))) && matches!(r.how, How::Name | How::Core | How::Synonym)) && !m.best().target.collection().is_empty()
        });
        !column_named
    }

    /// Of a value's readings in several columns, the only one whose name has a word the
    /// question says as a key word ("departing" → `source_…`, "home" → `home_…`), other than
    /// its table's name and generic suffixes.
    fn value_in_column_named_by_key_words(&self, top: &[&qa_question::Link]) -> Option<(qa_question::Link, Vec<usize>)> {
        if self.ctx.key_words.is_empty() {
            return None;
        }
        let families = |l: &qa_question::Link| -> Vec<String> { l.target.field().map(|f| crate::schema::key_families(&[l.target.collection()], &[f])).unwrap_or_default() };
        let hits: Vec<&&qa_question::Link> = top.iter().filter(|l| families(l).iter().any(|f| self.ctx.key_words.contains(f))).collect();
        let [one] = hits.as_slice() else { return None };
        let fams = families(one);
        let said: Vec<usize> = (0..self.n()).filter(|&i| self.a.tokens[i].is_word() && !self.ledger.is_used(i) && self.word(i).len() >= 4 && fams.contains(&crate::schema::key_family(self.word(i)))).collect();
        Some(((**one).clone(), said))
    }

    /// Of a value's readings in several tables, the one in the only table whose own column
    /// (not a key) another word of the question names.
    fn value_of_named_columns_table(&self, mi: usize, top: &[&qa_question::Link]) -> Option<qa_question::Link> {
        // (A reference of a table to its own rows names a role of them — "Ann Lee's mentor"
        // of `instructors.mentor_id` — so it counts too.)
        let own_reference = |t: &str, c: &str| self.pk(t).is_some_and(|pk| self.own_references(t, &pk).iter().any(|x| x.eq_ignore_ascii_case(c)));
        let named = |t: &str| {
            self.ms.iter().enumerate().any(|(j, m)| {
                j != mi && matches!(&m.best().target, Target::Field { collection, field } if collection.eq_ignore_ascii_case(t) && (self.schema.field(collection, field).is_some_and(|f| f.key == qa_question::KeyRole::None) || own_reference(collection, field)))
            })
        };
        let hits: Vec<&&qa_question::Link> = top.iter().filter(|l| named(l.target.collection())).collect();
        match hits.as_slice() {
            [one] => Some((**one).clone()),
            _ => None,
        }
    }
}

fn term_of(t: &Target) -> Term {
    match t {
        Target::Collection { collection } => Term::Table { table: collection.clone() },
        Target::Field { collection, field } => Term::Column { table: collection.clone(), column: field.clone() },
        Target::Value { collection, field, values } => Term::Value { table: collection.clone(), column: field.clone(), values: values.clone() },
    }
}

pub(super) fn term_matches(term: &Term, t: &Target) -> bool {
    match (term, t) {
        (Term::Value { table, column, .. }, Target::Value { collection, field, .. }) => table.eq_ignore_ascii_case(collection) && column.eq_ignore_ascii_case(field),
        (Term::Column { table, column }, Target::Field { collection, field }) => table.eq_ignore_ascii_case(collection) && column.eq_ignore_ascii_case(field),
        (Term::Table { table }, other) => table.eq_ignore_ascii_case(other.collection()),
        _ => false,
    }
}

impl Reader<'_> {
    /// Of a value's readings in several tables, the one in the table nearest a table the
    /// question names by its noun — when it is nearer than every other by two joins or more.
    fn value_of_the_nearest_table(&self, mi: usize, top: &[&qa_question::Link]) -> Option<qa_question::Link> {
        let named: Vec<String> = (0..self.ms.len()).filter(|&k| k != mi && self.names_table(k)).filter_map(|k| self.table(k)).collect();
        let distance = |l: &qa_question::Link| super::read::joins_from(self.ctx, &named, l.target.collection());
        let mut by: Vec<(usize, &qa_question::Link)> = top.iter().map(|l| (distance(l), *l)).collect();
        by.sort_by_key(|(d, _)| *d);
        match by.as_slice() {
            [(d0, l), (d1, _), ..] if *d0 != usize::MAX && d1.saturating_sub(*d0) >= 2 => Some((*l).clone()),
            _ => None,
        }
    }

    /// Of a value's readings in several tables, the one whose table a word elsewhere in the
    /// question names by its family ("conductor", "conducted" of `conductors`) — when exactly
    /// one table is so named.
    fn value_of_the_table_a_word_names(&self, mi: usize, top: &[&qa_question::Link]) -> Option<qa_question::Link> {
        let (s, e) = (self.ms[mi].start, self.ms[mi].end);
        let said: Vec<String> = (0..self.n()).filter(|&i| (i < s || i >= e) && self.a.tokens[i].is_word() && self.word(i).len() >= 4).map(|i| qa_core::text::word_family(self.word(i))).collect();
        // (An agent noun by its verb too: "conducted" of `conductors`.)
        let forms = |w: &str| -> Vec<String> {
            let w = qa_core::text::singular(w);
            let w = w.as_str();
            let mut out = vec![qa_core::text::word_family(w)];
            if let Some(stem) = w.strip_suffix("or").or_else(|| w.strip_suffix("er")).filter(|x| x.len() >= 4) {
                out.push(qa_core::text::word_family(stem));
            }
            out
        };
        let names = |t: &str| qa_question::names::name_words(t).iter().any(|w| w.len() >= 4 && forms(w).iter().any(|f| said.contains(f)));
        let hits: Vec<&&qa_question::Link> = top.iter().filter(|l| names(l.target.collection())).collect();
        let tables: Vec<&str> = hits.iter().map(|l| l.target.collection()).fold(Vec::new(), |mut v, t| {
            if !v.iter().any(|x: &&str| x.eq_ignore_ascii_case(t)) {
                v.push(t);
            }
            v
        });
        // (Only between tables: two columns of one table — a source and a destination — are not
        // told apart by the table's name.)
        let all_tables = top.iter().map(|l| l.target.collection().to_ascii_lowercase()).collect::<std::collections::BTreeSet<_>>();
        if tables.len() != 1 || all_tables.len() < 2 || hits.len() != 1 {
            return None;
        }
        hits.first().map(|l| (**l).clone())
    }
}
