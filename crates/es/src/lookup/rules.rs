//! The rules of [`analyse`]: intent, groupings, metrics, numeric comparisons and dates, on top
//! of the field and value matches.

use chrono::NaiveDate;

use qa_core::text;

use super::{Analysis, Comparison, DateMention, MatchKind, Mention, Metadata, field_mentions, value_mentions};
use crate::semantic::Semantic;
use crate::{FieldKind, Intent, Mapping};

const GROUP_WORDS: &[&str] = &["per", "by", "each", "every"];
const COUNT_PHRASES: &[&[&str]] = &[&["how", "many"], &["number", "of"], &["count"], &["how", "much"]];
const METRICS: &[(&str, &str)] = &[
    ("average", "avg"), ("avg", "avg"), ("mean", "avg"), ("total", "sum"), ("sum", "sum"), ("minimum", "min"), ("min", "min"),
    ("lowest", "min"), ("smallest", "min"), ("maximum", "max"), ("max", "max"), ("highest", "max"), ("largest", "max"), ("heaviest", "max"),
    ("lightest", "min"), ("cheapest", "min"), ("shortest", "min"), ("youngest", "min"), ("slowest", "min"), ("nearest", "min"), ("longest", "max"),
    ("biggest", "max"), ("costliest", "max"), ("priciest", "max"), ("oldest", "max"), ("fastest", "max"), ("tallest", "max"), ("farthest", "max"),
    ("furthest", "max"),
];
const COMPARATORS: &[(&[&str], &str)] = &[
    (&["more", "than"], "gt"), (&["greater", "than"], "gt"), (&["over"], "gt"), (&["above"], "gt"), (&["at", "least"], "gte"),
    (&["less", "than"], "lt"), (&["fewer", "than"], "lt"), (&["under"], "lt"), (&["below"], "lt"), (&["at", "most"], "lte"),
];
const CALENDAR: &[&str] = &["day", "week", "month", "quarter", "year"];
/// Words that shape the query rather than name what to search for.
const FORM_WORDS: &[&str] = &[
    "number", "count", "many", "much", "per", "each", "every", "average", "avg", "mean", "sum", "total", "minimum", "min",
    "maximum", "max", "lowest", "highest", "smallest", "largest", "top", "most", "least", "fewest", "show", "list", "find",
    "give", "get", "display", "which", "record", "document", "result", "entry", "item", "than", "over", "under", "above",
    "below", "least", "between", "since", "after", "before", "last", "this", "year", "month", "week", "day", "quarter",
];

fn find(words: &[String], phrase: &[&str]) -> Option<usize> {
    words.windows(phrase.len()).position(|w| w.iter().zip(phrase).all(|(a, b)| a == b))
}

/// Map `question` onto the index: fields, values, dates (relative to `today`), comparisons,
/// grouping, metric and intent.
pub fn analyse(question: &str, mapping: &Mapping, meta: &Metadata, semantic: &Semantic, today: NaiveDate) -> Analysis {
    let words: Vec<String> = text::normalized_words(question);
    let mut mappings = field_mentions(&words, mapping, semantic);
    mappings.extend(value_mentions(&words, question, meta, semantic));
    let numeric: Vec<&Mention> = mappings.iter().filter(|m| m.value.is_none() && mapping.field(&m.field).is_some_and(|f| matches!(f.kind, FieldKind::Long | FieldKind::Double))).collect();

    // "per carrier", "by month", "for each port"; "which X has the most" groups by X too.
    let mut group_term = None;
    for (i, w) in words.iter().enumerate() {
        // "carried by X", "written by X" name an agent, and "by <a value>" filters: neither groups.
        let agent = i > 0 && words[i - 1].ends_with("ed") && w == "by";
        let value_next = mappings.iter().any(|m| m.value.is_some() && m.at == i + 1);
        // "top 5 carriers by number of shipments": "by" names the ranking, not the grouping.
        let ranking = w == "by" && words.get(i + 1).is_some_and(|x| matches!(x.as_str(), "number" | "count" | "amount" | "total"));
        if GROUP_WORDS.contains(&w.as_str()) && i + 1 < words.len() && !agent && !value_next && !ranking {
            let rest: Vec<String> = words[i + 1..].iter().take_while(|x| !text::is_stop(x) || *x == "the").filter(|x| *x != "the").take(3).cloned().collect();
            if !rest.is_empty() {
                group_term = Some(rest.join(" "));
                break;
            }
        }
    }
    if group_term.is_none()
        && let Some(i) = words.iter().position(|w| w == "which")
        && words.iter().any(|w| w == "most" || w == "least")
        && let Some(next) = words.get(i + 1)
    {
        group_term = Some(next.clone());
    }
    let top_at = words.iter().position(|w| w == "top");
    let top = top_at.and_then(|i| words.get(i + 1)).and_then(|n| n.parse::<usize>().ok());
    // "top 5 consignees (by …)": the named field is the grouping.
    if group_term.is_none()
        && let Some(i) = top_at
    {
        let at = if top.is_some() { i + 2 } else { i + 1 };
        if let Some(m) = mappings.iter().find(|m| m.at == at && m.value.is_none()) {
            group_term = Some(m.term.clone());
        }
    }

    // "average weight": the metric word followed (within 3 words) by a numeric field.
    let metric = METRICS.iter().find_map(|(word, m)| {
        let i = words.iter().position(|w| w == word)?;
        // "heaviest" may itself name the field (a measure adjective).
        numeric.iter().filter(|n| n.at >= i && n.at <= i + 3).min_by_key(|n| n.at).map(|n| (m.to_string(), n.field.clone()))
    });
    // "the most expensive", "the least costly": a superlative of a measure adjective.
    let metric = metric.or_else(|| {
        words.iter().enumerate().find_map(|(i, w)| {
            let op = match w.as_str() {
                "most" => "max",
                "least" => "min",
                _ => return None,
            };
            numeric.iter().find(|n| n.at == i + 1).map(|n| (op.to_string(), n.field.clone()))
        })
    });

    let comparisons = comparisons(&words, &numeric);
    let mut date = date_mention(question, &mappings, mapping, today);
    // No date field named: a verb may name its event ("arrived in May" → `arrival_date`).
    if let Some(d) = date.as_mut().filter(|d| d.named_fields.is_empty()) {
        let verbs = date_verb_mentions(&words, mapping);
        d.named_fields = verbs.iter().map(|m| m.field.clone()).collect();
        d.named_fields.dedup();
        mappings.extend(verbs);
    }
    let counting = COUNT_PHRASES.iter().any(|p| find(&words, p).is_some());
    let intent_type = if group_term.is_some() || metric.is_some() {
        Intent::Aggregation
    } else if counting {
        Intent::Count
    } else {
        Intent::Search
    };
    let covered: Vec<usize> = mappings.iter().flat_map(|m| m.at..m.at + m.term.split(' ').count()).collect();
    // "over 20 usd": the unit of a compared field is part of the comparison, not text to search.
    let compared_words: Vec<String> = comparisons.iter().flat_map(|c| super::name_words(&c.field)).collect();
    // With filters found, a verb ("carried by X", "which shipper sent …") is the question's
    // grammar, not words the records must contain.
    let structured = mappings.iter().any(|m| m.value.is_some()) || date.is_some() || !comparisons.is_empty();
    let grammar = |w: &String| structured && (text::is_verb_form(w) || text::is_base_verb(w));
    let free_text: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            !covered.contains(i) && !compared_words.contains(w) && !grammar(w) && !text::is_stop(w) && !FORM_WORDS.contains(&w.as_str()) && !text::QUESTION_WORDS.contains(&w.as_str()) && w.chars().any(char::is_alphabetic) && w.len() > 2 && month_name(w).is_none()
        })
        .map(|(_, w)| w.clone())
        .collect();
    Analysis { intent_type, mappings, date, comparisons, group_term, metric, top, free_text, words }
}

fn comparisons(words: &[String], numeric: &[&Mention]) -> Vec<Comparison> {
    let mut out = Vec::new();
    // "heavier than 20000": the adjective names the field and the direction.
    for (i, w) in words.iter().enumerate() {
        let Some(field) = numeric.iter().find(|n| n.at == i && words.get(i + 1).is_some_and(|t| t == "than")).map(|n| n.field.clone()) else { continue };
        let Some(value) = words.get(i + 2).and_then(|n| n.replace(',', "").parse::<f64>().ok()) else { continue };
        let op = if qa_route::profile::DOWNWARD.contains(&w.as_str()) { "lt" } else { "gt" };
        out.push(Comparison { field, op: op.to_string(), value, phrase: format!("{w} than {value}") });
    }
    for (phrase, op) in COMPARATORS {
        let Some(i) = find(words, phrase) else { continue };
        let Some(value) = words.get(i + phrase.len()).and_then(|n| n.replace(',', "").parse::<f64>().ok()) else { continue };
        // The numeric field named nearest to the comparison.
        let Some(field) = numeric.iter().min_by_key(|n| n.at.abs_diff(i)).map(|n| n.field.clone()) else { continue };
        out.push(Comparison { field, op: op.to_string(), value, phrase: format!("{} {value}", phrase.join(" ")) });
    }
    out
}

fn date_mention(question: &str, mappings: &[Mention], mapping: &Mapping, today: NaiveDate) -> Option<DateMention> {
    let f = qa_route::filters::extract(question, None, today);
    let (from, to, phrase) = match (&f.date_range, f.years.as_slice()) {
        (Some(r), _) => (r.from, r.to, r.phrase.clone()),
        (None, [y]) => (NaiveDate::from_ymd_opt(*y, 1, 1), NaiveDate::from_ymd_opt(*y, 12, 31), y.to_string()),
        (None, [a, .., b]) => (NaiveDate::from_ymd_opt(*a, 1, 1), NaiveDate::from_ymd_opt(*b, 12, 31), format!("{a}–{b}")),
        (None, []) => return None,
    };
    let named_fields = mappings.iter().filter(|m| m.value.is_none() && mapping.field(&m.field).is_some_and(|x| x.kind == FieldKind::Date)).map(|m| m.field.clone()).collect();
    Some(DateMention { from, to, phrase, named_fields })
}

/// Name words of date fields that say nothing about which event the date is.
const DATE_NAME_WORDS: &[&str] = &["date", "at", "on", "time", "timestamp", "ts", "dt", "day", "datetime", "when"];

/// Date fields whose event the question names by a verb of its family: "arrived" for
/// `arrival_date`, "shipped" for `shipment_ts`, "hired" for `hire_date`. Only verb forms count
/// (`-ed`, `-ing`, known base verbs): "loans in May" names the index's records, not `loaned_on`.
fn date_verb_mentions(words: &[String], mapping: &Mapping) -> Vec<Mention> {
    let verb = |w: &String| w.ends_with("ed") || w.ends_with("ing") || text::is_base_verb(w);
    let mut out = Vec::new();
    for (at, w) in words.iter().enumerate() {
        if w.len() < 4 || text::is_stop(w) || !w.chars().all(|c| c.is_ascii_alphabetic()) || !verb(w) {
            continue;
        }
        let family = text::word_family(w);
        for f in mapping.fields.iter().filter(|f| f.kind == FieldKind::Date) {
            let names = super::name_words(&f.path);
            if names.iter().filter(|n| n.len() >= 4 && !DATE_NAME_WORDS.contains(&n.as_str())).any(|n| text::word_family(n) == family) {
                out.push(Mention { term: w.clone(), field: f.path.clone(), value: None, match_kind: MatchKind::FieldName, score: 1.0, at });
            }
        }
    }
    out
}

/// A calendar interval named by a grouping term ("month" → `month`).
pub fn calendar_interval(term: &str) -> Option<&'static str> {
    let t = text::singular(term.split(' ').next().unwrap_or(term));
    CALENDAR.iter().find(|c| **c == t).copied()
}

fn month_name(w: &str) -> Option<usize> {
    const MONTHS: [&str; 12] = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    MONTHS.iter().position(|m| *m == w || (w.len() >= 3 && m.starts_with(w)))
}
