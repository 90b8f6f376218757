//! Looser links, asked for separately (they are not part of [`Linker::link`]): a field's name
//! said in another order or with function words between ("required a follow-up" for
//! `follow_up_required`, "country office" for `officeCountry`), a one-word value said by a word
//! of its family ("failed" for 'fail'), and the fields closest to a phrase that links to
//! nothing (for "no field matches …" messages, best first by a link-like score).

use qa_core::text;

use super::{family, family_match, is_edge_word, reserved_tokens, How, Link, Linker, Target};
use crate::analysis::Analysis;
use crate::coverage::is_function_word;
use crate::edit::{edit_distance, is_typo_of};
use crate::names::{self, FLAG_PREFIXES, GENERIC_SUFFIXES};
use crate::schema::FieldKind;
use crate::tokens::TokenKind;

/// The words of a name without a flag prefix or generic suffix, and those of them that say
/// what it is (no function word).
fn name_parts(name: &str) -> (Vec<String>, Vec<String>) {
    let mut words = names::name_words(name);
    if words.len() > 1 && FLAG_PREFIXES.contains(&words[0].as_str()) {
        words.remove(0);
    }
    words.retain(|w| !GENERIC_SUFFIXES.contains(&w.as_str()));
    let content = words.iter().filter(|w| w.len() >= 2 && w.chars().any(char::is_alphabetic) && !is_function_word(w) && !is_edge_word(w)).cloned().collect();
    (words, content)
}

/// How well a question word says a name word: 1 the same (singular) word, 0.85 the same word
/// family, 0 otherwise.
fn word_match(token_lower: &str, token_norm: &str, name_word: &str) -> f64 {
    if token_norm == name_word || token_lower == name_word {
        return 1.0;
    }
    if token_lower.len() >= 4 && name_word.len() >= 4 && family_match(&family(token_lower), &text::word_family(name_word)) {
        return 0.85;
    }
    0.0
}

impl Linker<'_> {
    /// Fields whose content words (two or more) are all said within a short span, in any order,
    /// with only function words between them: "required a follow-up" names
    /// `follow_up_required`, "country office" names `officeCountry`, "closure order" names
    /// `closed_by_order` (word families count). Spans the plain linker already links to the
    /// same field are left out.
    pub fn scattered_names(&self, a: &Analysis, links: &[Link]) -> Vec<Link> {
        let t = &a.tokens;
        let reserved = reserved_tokens(a);
        let mut out: Vec<Link> = Vec::new();
        for c in &self.schema.collections {
            for f in &c.fields {
                let (all, words) = name_parts(&f.name);
                if words.len() < 2 || words.len() > 4 {
                    continue;
                }
                let target = Target::Field { collection: c.name.clone(), field: f.name.clone() };
                let window = words.len() * 2 + 1;
                for s in 0..t.len() {
                    // The span starts on a name word.
                    let starts = t[s].is_word() && words.iter().any(|w| word_match(&t[s].lower, &t[s].norm, w) > 0.0);
                    if !starts || reserved[s] {
                        continue;
                    }
                    let mut matched: Vec<Option<(usize, f64)>> = vec![None; words.len()];
                    let mut end = s;
                    for (i, tok) in t.iter().enumerate().skip(s).take(window) {
                        if !matches!(tok.kind, TokenKind::Word) {
                            break;
                        }
                        let hit = words.iter().enumerate().filter(|(k, _)| matched[*k].is_none()).map(|(k, w)| (k, word_match(&tok.lower, &tok.norm, w))).filter(|(_, m)| *m > 0.0).max_by(|x, y| x.1.total_cmp(&y.1));
                        match hit {
                            Some((k, m)) if !reserved[i] => {
                                matched[k] = Some((i, m));
                                end = i + 1;
                                if matched.iter().all(Option::is_some) {
                                    break;
                                }
                            }
                            // A negation between the words is the condition's, not the name's:
                            // "contain no dairy" is no `contains_dairy` = 1.
                            _ if crate::cues::is_negation(&tok.lower) => break,
                            // Only function words may sit between the name's words.
                            _ if is_function_word(&tok.lower) || is_edge_word(&tok.lower) => {}
                            _ => break,
                        }
                    }
                    if !matched.iter().all(Option::is_some) {
                        continue;
                    }
                    if links.iter().chain(out.iter()).any(|l| l.start == s && l.end == end && l.target == target) {
                        continue;
                    }
                    let quality = matched.iter().flatten().map(|(_, m)| *m).fold(1.0, f64::min);
                    // Said in the name's order and contiguous: the plain linker's business.
                    let mut positions: Vec<usize> = matched.iter().flatten().map(|(i, _)| *i).collect();
                    if positions.windows(2).all(|p| p[1] == p[0] + 1) && quality >= 1.0 {
                        continue;
                    }
                    positions.sort_unstable();
                    // Function words of the name right after ("follow-up" of `follow_up_required`).
                    while t.get(end).is_some_and(|x| x.is_word() && all.contains(&x.norm) && !words.contains(&x.norm)) {
                        end += 1;
                    }
                    let used: Vec<String> = positions.iter().map(|&i| t[i].lower.clone()).collect();
                    out.push(Link { start: s, end, target: target.clone(), score: 0.9 * quality, how: How::Core, words: used, negated: false });
                }
            }
        }
        out
    }

    /// One-word stored values said by a word of the same family ("failed" for 'fail', "passing"
    /// for 'pass'), where no value link covers the word already.
    pub fn value_families(&self, a: &Analysis, links: &[Link]) -> Vec<Link> {
        let t = &a.tokens;
        let mut out: Vec<Link> = Vec::new();
        for c in &self.schema.collections {
            for f in c.fields.iter().filter(|f| f.kind != FieldKind::Flag) {
                for v in &f.values {
                    let vw = names::value_words(v);
                    if vw.len() != 1 || vw[0].len() < 4 || !vw[0].chars().all(char::is_alphabetic) {
                        continue;
                    }
                    let fam = text::word_family(&vw[0]);
                    for (i, tok) in t.iter().enumerate() {
                        // A participle or gerund says the value ("failed" for 'fail'); a noun of
                        // the family does not ("delivery" is no 'delivered').
                        let verb_form = tok.lower.ends_with("ed") || tok.lower.ends_with("ing") || text::is_verb_form(&tok.lower);
                        if !tok.is_word() || tok.lower.len() < 4 || !verb_form || is_function_word(&tok.lower) || tok.norm == vw[0] || family(&tok.lower) != fam {
                            continue;
                        }
                        let covered = links.iter().chain(out.iter()).any(|l| l.start <= i && i < l.end && matches!(l.target, Target::Value { .. }));
                        if covered {
                            continue;
                        }
                        let target = Target::Value { collection: c.name.clone(), field: f.name.clone(), values: vec![v.clone()] };
                        out.push(Link { start: i, end: i + 1, target, score: 0.8, how: How::Value, words: vec![tok.lower.clone()], negated: false });
                    }
                }
            }
        }
        out
    }

    /// Every field with how closely `words` (lower-case) say its name, best first: the name's
    /// forms compared word by word — the same word, a misspelling, the same family, else the
    /// share of letters in common — weighted by how surely each form names the field. Fields
    /// with nothing in common are left out.
    pub fn closest(&self, words: &[String]) -> Vec<(Target, f64)> {
        let words: Vec<String> = words.iter().map(|w| text::singular(&w.to_lowercase())).filter(|w| !is_function_word(w)).collect();
        if words.is_empty() {
            return Vec::new();
        }
        let sim = |a: &str, b: &str| -> f64 {
            if a == b {
                return 1.0;
            }
            if is_typo_of(a, b) {
                return 0.8;
            }
            if a.len() >= 4 && b.len() >= 4 && family_match(&family(a), &text::word_family(b)) {
                return 0.75;
            }
            let longest = a.chars().count().max(b.chars().count()).max(1);
            let ratio = 1.0 - edit_distance(a, b) as f64 / longest as f64;
            if ratio >= 0.6 { ratio * 0.5 } else { 0.0 }
        };
        let mut out: Vec<(Target, f64)> = Vec::new();
        for c in &self.schema.collections {
            for f in &c.fields {
                let mut best = 0.0f64;
                for form in names::forms(&f.name, &f.synonyms) {
                    // Each phrase word against its best name word, and the name's words covered.
                    let per: f64 = words.iter().map(|w| form.words.iter().map(|n| sim(w, n)).fold(0.0, f64::max)).sum::<f64>() / words.len() as f64;
                    let covered = form.words.iter().filter(|n| words.iter().any(|w| sim(w, n) >= 0.75)).count() as f64 / form.words.len() as f64;
                    best = best.max(form.weight * (0.8 * per + 0.2 * covered));
                }
                if best > 0.0 {
                    out.push((Target::Field { collection: c.name.clone(), field: f.name.clone() }, (best * 1000.0).round() / 1000.0));
                }
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.label().cmp(&b.0.label())));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyse;
    use crate::link::cover;
    use crate::schema::{Collection, Field, SourceSchema};

    fn schema() -> SourceSchema {
        SourceSchema {
            collections: vec![Collection::new(
                "orders",
                vec![
                    Field::new("gift_wrap_requested", FieldKind::Flag),
                    Field::new("service_type", FieldKind::Keyword).with_values(&["gift-wrap", "express", "standard"]),
                    Field::new("outcome", FieldKind::Keyword).with_values(&["fail", "pass", "pending"]),
                    Field::new("warehouseRegion", FieldKind::Keyword),
                    Field::new("weight_kg", FieldKind::Number),
                    Field::new("shipped_by_courier", FieldKind::Flag),
                    Field::new("size_class", FieldKind::Keyword).with_values(&["S", "M", "L"]),
                    Field::new("sign_up_confirmed", FieldKind::Flag),
                    Field::new("package_option", FieldKind::Keyword).with_values(&["Option", "Premium"]),
                ],
            )],
            ..Default::default()
        }
    }

    fn a(q: &str) -> Analysis {
        analyse(q, chrono::NaiveDate::from_ymd_opt(2026, 11, 26).unwrap())
    }

    #[test]
    fn names_said_in_another_order_or_with_words_between() {
        let s = schema();
        let l = Linker::new(&s);
        let q = a("How many orders requested a gift-wrap?");
        let links = l.link(&q, None);
        let extra = l.scattered_names(&q, &links);
        let hit = extra.iter().find(|x| x.target.field() == Some("gift_wrap_requested")).expect("the flag");
        assert_eq!((hit.start, hit.end), (3, 7), "{extra:?}");
        // It beats the value "gift-wrap" of another field in the cover.
        let mut all = links.clone();
        all.extend(extra);
        let m = cover(&all, q.tokens.len());
        assert!(m.iter().any(|m| m.best().target.field() == Some("gift_wrap_requested")) && !m.iter().any(|m| m.best().target.label().contains("'gift-wrap'")), "{m:?}");
        // A name with a function word ("up"): "confirmed a sign-up" for `sign_up_confirmed`.
        let q = a("orders that confirmed a sign-up");
        let extra = l.scattered_names(&q, &l.link(&q, None));
        let hit = extra.iter().find(|x| x.target.field() == Some("sign_up_confirmed")).expect("the flag");
        assert_eq!((hit.start, hit.end), (2, 6), "{extra:?}");
        let q = a("orders per region warehouse");
        let extra = l.scattered_names(&q, &l.link(&q, None));
        assert!(extra.iter().any(|x| x.target.field() == Some("warehouseRegion") && x.words == ["region", "warehouse"]), "{extra:?}");
        // A content word between the name's words breaks it.
        let q = a("gift for a heavy wrap");
        assert!(l.scattered_names(&q, &l.link(&q, None)).is_empty());
        // So does a negation: "requested no gift wrap" is no `gift_wrap_requested` = 1.
        let q = a("orders that requested no gift wrap");
        assert!(!l.scattered_names(&q, &l.link(&q, None)).iter().any(|x| x.target.field() == Some("gift_wrap_requested") && x.start < 4), "negation inside");
        // Families count: "courier shipping".
        let q = a("orders with courier shipping");
        let extra = l.scattered_names(&q, &l.link(&q, None));
        assert!(extra.iter().any(|x| x.target.field() == Some("shipped_by_courier")), "{extra:?}");
    }

    #[test]
    fn a_code_after_its_field_is_a_value_even_when_it_looks_like_a_unit() {
        let s = schema();
        let l = Linker::new(&s);
        let q = a("How many orders have size class M?");
        let m = cover(&l.link(&q, None), q.tokens.len());
        assert!(m.iter().any(|m| m.best().target.label() == "orders.size_class = 'M'" && m.best().how == How::FieldValue), "{m:?}");
    }

    #[test]
    fn a_field_named_whole_is_not_a_value_of_it() {
        let s = schema();
        let l = Linker::new(&s);
        let q = a("List the package options of all orders");
        let m = cover(&l.link(&q, None), q.tokens.len());
        assert!(m.iter().any(|m| m.best().target.label() == "orders.package_option" && m.end - m.start == 2), "{m:?}");
        assert!(!m.iter().any(|m| m.best().target.label() == "orders.package_option = 'Option'"), "{m:?}");
    }

    #[test]
    fn a_quoted_value_is_found_in_its_words() {
        let s = SourceSchema { collections: vec![Collection::new("films", vec![Field::new("director", FieldKind::Keyword).with_values(&["Anna Jones", "Bo Widerberg"])])], ..Default::default() };
        let l = Linker::new(&s);
        let q = a("films directed by \"Anna Jones\"");
        let m = cover(&l.link(&q, None), q.tokens.len());
        assert!(m.iter().any(|m| m.best().target.label() == "films.director = 'Anna Jones'"), "{m:?}");
    }

    #[test]
    fn a_preposition_between_a_field_and_a_value_is_no_suffix() {
        let s = schema();
        let l = Linker::new(&s);
        let q = a("orders per service type at express");
        let m = cover(&l.link(&q, None), q.tokens.len());
        assert!(m.iter().any(|m| m.best().target.label() == "orders.service_type" && m.end == 4), "{m:?}");
    }

    #[test]
    fn values_by_family_and_closest_fields() {
        let s = schema();
        let l = Linker::new(&s);
        let q = a("Which warehouse had the most failed orders?");
        let extra = l.value_families(&q, &l.link(&q, None));
        assert_eq!(extra.len(), 1, "{extra:?}");
        assert_eq!(extra[0].target.label(), "orders.outcome = 'fail'");
        let c = l.closest(&["weight".into()]);
        assert_eq!(c[0].0.field(), Some("weight_kg"));
        let c = l.closest(&["wieght".into()]);
        assert_eq!(c[0].0.field(), Some("weight_kg"), "{c:?}");
        let c = l.closest(&["region".into()]);
        assert_eq!(c[0].0.field(), Some("warehouseRegion"));
        assert!(l.closest(&["the".into()]).is_empty());
        // A noun of a value's family is not the value.
        let q = a("orders with a failure report");
        assert!(l.value_families(&q, &l.link(&q, None)).is_empty());
        let q = a("orders with a passing outcome");
        assert_eq!(l.value_families(&q, &l.link(&q, None)).len(), 1);
    }
}
