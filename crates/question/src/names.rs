//! How people say a schema name: the words of `list_price`, `satisfactionRating`,
//! `country_code`, `is_active`, `first_answer_at`, `weight_kg` — split, singular, with generic
//! suffixes (keys, units, `_at`/`_date`) and flag prefixes (`is_`, `has_`) dropped, the head noun,
//! the acronym (`vehicle_identification_number` → vin) — each form with a weight saying how
//! surely it names the field.

use qa_core::text;
use serde::{Deserialize, Serialize};

/// Words of a name that give its unit, its key role or its date role rather than what it holds.
pub const GENERIC_SUFFIXES: &[&str] = &[
    "id", "ids", "name", "code", "no", "num", "nr", "key", "ref", "at", "on", "date", "time", "ts", "timestamp", "dt", "datetime", "flag", "ind", "yn",
    "kg", "g", "lb", "lbs", "t", "km", "mi", "m", "cm", "mm", "m3", "usd", "eur", "cad", "gbp", "aud", "chf", "jpy", "pct", "percent", "ms", "sec",
    "secs", "second", "min", "mins", "minute", "hr", "hrs", "hour", "h", "day", "c", "f", "count", "qty", "amt", "value", "millions", "million",
    "bpm", "mph", "kmh", "year", "yr", "kw", "mw", "gw", "kwh", "mwh", "gwh", "sqm", "m2", "sqft",
];

/// Units that can open a measure's name (singular, as [`name_words`] gives them).
const LEADING_UNITS: &[&str] = &[
    "hour", "hr", "minute", "min", "second", "sec", "day", "week", "month", "year", "km", "mile", "kg", "ton", "tonne", "litre", "liter", "gallon",
    "meter", "metre", "m3", "kwh", "point", "goal", "dollar", "euro",
];

/// Words that open a flag's name and are not said ("is_active" is "active").
pub const FLAG_PREFIXES: &[&str] = &["is", "has", "was", "can", "allow", "allows", "should", "needs", "did", "does", "are"];

/// Other words for common column names (the name's words → what people say).
const COMMON_SYNONYMS: &[(&str, &[&str])] = &[
    ("last name", &["surname", "family name", "last"]),
    ("lname", &["surname", "last name"]),
    ("first name", &["forename", "given name", "first"]),
    ("fname", &["first name", "forename"]),
    ("birth date", &["birthday", "date of birth", "dob", "born"]),
    ("date of birth", &["birthday", "birth date", "dob", "born"]),
    ("dob", &["birthday", "birth date", "date of birth"]),
    ("phone number", &["phone", "telephone", "phone no"]),
    ("phone", &["telephone", "phone number"]),
    ("email", &["e mail", "email address", "mail"]),
    ("email address", &["email", "e mail"]),
    ("zip code", &["zip", "postcode", "postal code"]),
    ("postal code", &["zip", "postcode", "zip code"]),
    ("postcode", &["zip", "postal code", "zip code"]),
    ("sex", &["gender"]),
    ("gender", &["sex"]),
    ("country", &["nation"]),
    // "students from each country", "customers from Japan" of a `nationality` column.
    ("nationality", &["country", "nation"]),
    ("nationality code", &["country", "nation", "country code"]),
    ("city", &["town"]),
    ("town", &["city"]),
    ("dob", &["birthday", "birth date"]),
    ("completion date", &["end date", "ended", "finished", "completed"]),
    ("end date", &["completion date", "ended", "finished"]),
    ("start date", &["began", "started", "begin date"]),
    // Who someone answers to.
    ("supervisor", &["boss", "manager", "line manager"]),
    ("manager", &["boss", "supervisor", "line manager"]),
];

/// Common abbreviations in column and table names, written out.
fn abbreviation(w: &str) -> Option<&'static str> {
    Some(match w {
        "cert" => "certificate",
        "qty" => "quantity",
        "amt" => "amount",
        "desc" => "description",
        "addr" => "address",
        "dept" => "department",
        "emp" => "employee",
        "mgr" => "manager",
        "acct" => "account",
        "cust" => "customer",
        "prod" => "product",
        "req" => "request",
        "temp" => "temperature",
        "avg" => "average",
        "pct" => "percent",
        "tel" => "telephone",
        "reg" => "registration",
        "loc" => "location",
        "org" => "organization",
        "info" => "information",
        "txn" => "transaction",
        "inv" => "invoice",
        "pmt" => "payment",
        "bal" => "balance",
        "lic" => "licence",
        "spec" => "specification",
        "dest" => "destination",
        "orig" => "origin",
        "dep" => "departure",
        "arr" => "arrival",
        "hrs" => "hours",
        "wt" => "weight",
        "tech" => "technician",
        _ => return None,
    })
}

/// How a form was derived from the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FormKind {
    /// All the name's words.
    Full,
    /// Without a generic suffix or a flag prefix ("weight" of `weight_kg`).
    Core,
    /// The last content word of a longer name ("price" of `list_price`): weaker.
    Head,
    /// Another content word of a longer name ("list" of `list_price`): weakest.
    Part,
    /// The initials of a name of three words or more ("vin").
    Acronym,
    /// A synonym from the semantic file.
    Synonym,
}

/// One way to say a name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NameForm {
    /// Lower-case singular words.
    pub words: Vec<String>,
    /// How surely these words name it, 0..1.
    pub weight: f64,
    /// How the form was derived.
    pub kind: FormKind,
}

/// The words a name is made of (`departure_date` → departure, date; `customerName` → customer,
/// name; `HTTPStatus` → http, status; `a.b` → a, b), lower-case, singular.
pub fn name_words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut spaced = String::with_capacity(name.len() + 8);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        if c.is_uppercase() && i > 0 {
            let after_lower = prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit());
            // "HTTPStatus": the S starts a word because a lower-case letter follows it.
            let acronym_end = prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase);
            if after_lower || acronym_end {
                spaced.push(' ');
            }
        }
        spaced.push(if matches!(c, '_' | '.' | '-' | '/' | ' ') { ' ' } else { c });
    }
    spaced.split_whitespace().map(|w| text::singular(&w.to_lowercase())).collect()
}

/// Words of a name that say nothing alone (the document toolkit's stop words are too broad for
/// names: "section" of `section_description` is a word people say).
const NAME_STOP: &[&str] = &[
    "a", "an", "the", "of", "in", "on", "at", "for", "to", "by", "and", "or", "is", "has", "was", "with", "from", "as", "per", "first", "last", "second",
    "middle", "other", "new", "old", "current", "previous", "next", "main", "all", "any", "some", "no", "not",
];

fn is_content(w: &str) -> bool {
    !NAME_STOP.contains(&w) && !GENERIC_SUFFIXES.contains(&w) && w.chars().any(char::is_alphabetic) && w.len() >= 2
}

/// A column of money: a currency in its name (`fee_eur`) or a word of money (`amount_paid`,
/// `total_price`, `budget`).
pub fn is_money_name(name: &str) -> bool {
    crate::numbers::field_unit(name).is_some_and(|u| u.dimension == crate::numbers::Dimension::Money)
        || name_words(name).iter().any(|w| matches!(w.as_str(), "amount" | "price" | "cost" | "total" | "paid" | "fee" | "charge"))
}

/// A money column named by a generic money word alone, units and "total" aside (`amount_eur`,
/// `total_amount_eur`, `price`, `total_eur`): of several money columns, the rows' amount.
pub fn is_generic_money_name(name: &str) -> bool {
    let words: Vec<String> = name_words(name).into_iter().filter(|w| crate::numbers::unit_of(w).is_none() && w != "total").collect();
    match words.as_slice() {
        [] => name_words(name).iter().any(|w| w == "total"),
        [w] => matches!(w.as_str(), "amount" | "price" | "value" | "cost" | "fee" | "sum"),
        _ => false,
    }
}

/// [`is_money_name`], or a word that is money only when money is asked for ("how much … spent"
/// of `budget`, `salary`, `order_value`).
pub fn may_be_money_name(name: &str) -> bool {
    is_money_name(name) || name_words(name).iter().any(|w| matches!(w.as_str(), "revenue" | "spend" | "spent" | "payment" | "value" | "budget" | "salary"))
}

/// The ways to say a field or collection name, best first.
pub fn forms(name: &str, synonyms: &[String]) -> Vec<NameForm> {
    let words = name_words(name);
    let mut out: Vec<NameForm> = Vec::new();
    let mut push = |words: Vec<String>, weight: f64, kind: FormKind| {
        // The whole name always counts ("on_call"); a shorter form of stop words never does.
        // (Nouns the prose stop list holds for retrieval — "call", "note", "lot" — still name a
        // field or table: `dispatch_calls` is said "calls".)
        let stop = |w: &String| text::is_stop(w) && !FLAG_PREFIXES.contains(&w.as_str()) && !matches!(w.as_str(), "call" | "calls" | "note" | "notes" | "lot" | "lots" | "section" | "sections" | "chapter" | "chapters" | "example" | "examples" | "make" | "makes");
        if words.is_empty() || (kind != FormKind::Full && words.iter().all(stop)) {
            return;
        }
        if let Some(f) = out.iter_mut().find(|f| f.words == words) {
            if f.weight < weight {
                f.weight = weight;
                f.kind = kind;
            }
            return;
        }
        out.push(NameForm { words, weight, kind });
    };
    push(words.clone(), 1.0, FormKind::Full);
    // "days on the market" for `days_on_market`: an article after an inner preposition.
    if let Some(k) = (1..words.len().saturating_sub(1)).find(|&k| matches!(words[k].as_str(), "on" | "in" | "at" | "of" | "to")) {
        let mut said = words[..=k].to_vec();
        said.push("the".to_string());
        said.extend(words[k + 1..].iter().cloned());
        push(said, 0.97, FormKind::Full);
    }
    // Without flag prefixes and generic suffixes, when content is left.
    let mut core: &[String] = &words;
    if core.len() > 1 && FLAG_PREFIXES.contains(&core[0].as_str()) {
        core = &core[1..];
    }
    while core.len() > 1 && GENERIC_SUFFIXES.contains(&core[core.len() - 1].as_str()) {
        core = &core[..core.len() - 1];
    }
    // A date or year written first (`yearBuilt`, `dateOpened`): the event's word says it.
    if core.len() > 1 && matches!(core[0].as_str(), "year" | "date" | "time" | "yr" | "dt") && core[1..].iter().any(|w| is_content(w)) {
        core = &core[1..];
    }
    // "number_products" / "num_of_pages": a count named by what it counts.
    if core.len() > 1 && matches!(core[0].as_str(), "number" | "num" | "no" | "total" | "count") {
        let rest: Vec<String> = core[1..].iter().filter(|w| w.as_str() != "of").cloned().collect();
        if rest.iter().any(|w| is_content(w)) {
            let mut of = vec!["number".to_string(), "of".to_string()];
            of.extend(rest.iter().cloned());
            push(of, 1.0, FormKind::Full);
            push(rest, 0.85, FormKind::Core);
        }
    }
    if core.len() < words.len() && core.iter().any(|w| is_content(w)) {
        push(core.to_vec(), 0.92, FormKind::Core);
    }
    // The generic noun of a measure or a date said with its core: `awarded_eur` is "the amount
    // awarded" / "the awarded amount", `starts_on` is "the start date".
    // (Not a core that is itself an aggregate's word: "the total amount" of `total_eur` is a sum.)
    if core.len() < words.len() && core.iter().all(|w| is_content(w) && !matches!(w.as_str(), "total" | "sum" | "average" | "avg" | "mean" | "max" | "min" | "overall")) && core.len() <= 2 {
        let last = words[words.len() - 1].as_str();
        let money = crate::numbers::field_unit(name).is_some_and(|u| u.dimension == crate::numbers::Dimension::Money) || matches!(last, "amount" | "amt");
        let dated = matches!(last, "on" | "at" | "date" | "dt");
        if money {
            push(std::iter::once("amount".to_string()).chain(core.iter().cloned()).collect(), 0.95, FormKind::Synonym);
            push(core.iter().cloned().chain(std::iter::once("amount".to_string())).collect(), 0.95, FormKind::Synonym);
        } else if dated {
            push(core.iter().cloned().chain(std::iter::once("date".to_string())).collect(), 0.95, FormKind::Synonym);
        }
    }
    // A number written short (`serial_no`, `flight_num`, `invoice_nr`) is said "serial number".
    if core.len() < words.len() && matches!(words[words.len() - 1].as_str(), "no" | "num" | "nr") && core.iter().any(|w| is_content(w)) {
        let mut said = core.to_vec();
        said.push("number".to_string());
        push(said, 0.95, FormKind::Synonym);
    }
    // `salary_min`, `max_speed`: "minimum salary", "maximum speed" ("min" is no minutes here).
    if words.len() == 2 {
        let (a, b) = (&words[0], &words[1]);
        let bound = |w: &str| match w {
            "min" | "minimum" => Some("minimum"),
            "max" | "maximum" => Some("maximum"),
            _ => None,
        };
        let said = match (bound(a), bound(b)) {
            (None, Some(x)) if is_content(a) => Some((x, a)),
            (Some(x), None) if is_content(b) => Some((x, b)),
            _ => None,
        };
        if let Some((x, noun)) = said {
            push(vec![x.to_string(), noun.clone()], 0.95, FormKind::Synonym);
        }
    }
    // `artistFirstName`, `agent_last_name`: the person is said by the first word ("each artist").
    if words.len() == 3 && words[2] == "name" && matches!(words[1].as_str(), "first" | "last" | "given" | "family") && is_content(&words[0]) {
        push(vec![words[0].clone()], 0.6, FormKind::Head);
    }
    // A date named by its event's participle (`installed_on`, `posted_at`): "the install
    // date", "posted date", "the detection time" is said with the verb's stem or the participle.
    if core.len() == 1 && words.len() == 2 && matches!(words[1].as_str(), "on" | "at") && core[0].len() >= 5 && core[0].ends_with("ed") {
        let participle = core[0].clone();
        let mut stems = vec![participle.clone(), participle[..participle.len() - 2].to_string()];
        if !participle.ends_with("eed") {
            stems.push(participle[..participle.len() - 1].to_string());
        }
        // The event's noun: "completion" of completed, "installation" of installed.
        let stem = &participle[..participle.len() - 2];
        stems.push(if stem.ends_with('t') { format!("{stem}ion") } else { format!("{stem}ation") });
        stems.push(format!("{stem}ing"));
        let nouns: &[&str] = if words[1] == "at" { &["date", "time"] } else { &["date"] };
        for stem in stems.iter().filter(|s| s.len() >= 3) {
            for noun in nouns {
                push(vec![stem.clone(), noun.to_string()], 0.9, FormKind::Synonym);
            }
        }
    }
    // A number glued to its unit (`is_open_24h`, `warranty_2y`) is said spelt out: "open 24
    // hours".
    let spelt = |ws: &[String]| -> Option<Vec<String>> {
        let mut out = Vec::new();
        let mut any = false;
        for w in ws {
            let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
            let unit = &w[digits.len()..];
            match crate::numbers::unit_of(unit).filter(|_| !digits.is_empty() && !unit.is_empty()) {
                Some(u) => {
                    out.push(digits);
                    out.push(u.name.to_string());
                    any = true;
                }
                None => out.push(w.clone()),
            }
        }
        any.then_some(out)
    };
    if let Some(said) = spelt(core) {
        push(said, 0.9, FormKind::Synonym);
    }
    // Head and other content words of a longer name.
    let content: Vec<&String> = core.iter().filter(|w| is_content(w)).collect();
    // The last words of a longer name ("air date" of `original_air_date`).
    if words.len() >= 3 {
        for k in 2..words.len() {
            let tail = words[words.len() - k..].to_vec();
            if tail.iter().filter(|w| is_content(w)).count() >= 1 && !text::is_stop(&tail[0]) {
                push(tail, 0.75, FormKind::Head);
            }
        }
    }
    if content.len() >= 2 {
        let head = content[content.len() - 1];
        push(vec![head.clone()], 0.6, FormKind::Head);
        for w in &content[..content.len() - 1] {
            push(vec![(*w).clone()], 0.45, FormKind::Part);
        }
    }
    // A measure named by its unit first (`hours_on_site`, `km_driven`, `days_overdue`): the
    // unit is how people ask for it ("how many hours in total").
    if words.len() >= 2 && LEADING_UNITS.contains(&words[0].as_str()) && words[1..].iter().any(|w| is_content(w)) {
        push(vec![words[0].clone()], 0.6, FormKind::Head);
    }
    // `line_1`, `address_line_2`: "the first line", "second line".
    if let Some(last) = words.last()
        && let Ok(n) = last.parse::<usize>()
        && words.len() >= 2
        && (1..=3).contains(&n)
    {
        let ordinal = ["first", "second", "third"][n - 1].to_string();
        let mut w = vec![ordinal];
        w.extend(words[..words.len() - 1].iter().cloned());
        push(w, 0.95, FormKind::Synonym);
    }
    if words.len() >= 3 {
        let acronym: String = words.iter().filter_map(|w| w.chars().next()).collect();
        push(vec![acronym], 0.9, FormKind::Acronym);
    }
    // Abbreviations written out ("has_sea_survival_cert" is said "sea survival certificate").
    if core.iter().any(|w| abbreviation(w).is_some()) {
        let full: Vec<String> = core.iter().map(|w| abbreviation(w).map(str::to_string).unwrap_or_else(|| w.clone())).collect();
        push(full, 0.95, FormKind::Synonym);
    }
    // Words people use for common column names: generic English, no schema's vocabulary.
    for (name, said) in COMMON_SYNONYMS {
        let nw: Vec<String> = name.split(' ').map(str::to_string).collect();
        // (A key is said by its role: "boss" of `supervisor_id`.)
        let role: Vec<String> = match words.split_last() {
            Some((last, rest)) if matches!(last.as_str(), "id" | "key" | "ref") && !rest.is_empty() => rest.to_vec(),
            _ => Vec::new(),
        };
        if words == nw || words.concat() == nw.concat() || (!role.is_empty() && role == nw) {
            for alt in *said {
                push(alt.split(' ').map(str::to_string).collect(), 0.9, FormKind::Synonym);
            }
        }
    }
    // "incident type" of `incidentCategory`: the classifier's words for a kind are one.
    if let [noun, kind] = words.as_slice()
        && matches!(kind.as_str(), "type" | "category" | "kind" | "class")
    {
        for alt in ["type", "category", "kind"].into_iter().filter(|k| k != kind) {
            push(vec![noun.clone(), alt.to_string()], 0.9, FormKind::Synonym);
        }
    }
    for s in synonyms {
        let w = text::normalized_words(s);
        if !w.is_empty() {
            push(w, 0.97, FormKind::Synonym);
        }
    }
    // A one-word form written short is said in full too ("technician" of the part "tech" of
    // `tech_first_name`), as surely as the short word.
    let short: Vec<(String, f64, FormKind)> = out.iter().filter(|f| f.words.len() == 1).filter_map(|f| abbreviation(&f.words[0]).map(|full| (full.to_string(), f.weight, f.kind))).collect();
    for (full, weight, kind) in short {
        if !out.iter().any(|f| f.words.len() == 1 && f.words[0] == full) {
            out.push(NameForm { words: vec![full], weight, kind });
        }
    }
    out.sort_by(|a, b| b.weight.partial_cmp(&a.weight).unwrap_or(std::cmp::Ordering::Equal));
    out
}

/// A verb form whose agent noun is `noun`: "borrowed" of `borrower`, "bought" of `buyer`,
/// "inspected" of `inspector`, "drove" of `driver`. The noun itself is no verb of it.
pub fn is_agent_of(verb: &str, noun: &str) -> bool {
    let verb = verb.to_lowercase();
    let noun = qa_core::text::singular(&noun.to_lowercase());
    if verb.len() < 3 || verb.ends_with("er") || verb.ends_with("ers") || verb.ends_with("or") || verb.ends_with("ors") {
        return false;
    }
    let Some(stem) = noun.strip_suffix("er").or_else(|| noun.strip_suffix("or")).filter(|x| x.len() >= 2) else { return false };
    let stems = [qa_core::text::word_family(stem), qa_core::text::word_family(&format!("{stem}e"))];
    let mut lemmas = qa_core::text::verb_lemmas(&verb);
    lemmas.push(verb.clone());
    lemmas.iter().any(|l| stems.contains(&qa_core::text::word_family(l)))
}

/// The one-word forms of a phrasal verb ("picked up" → "pickup", "checked in" → "checkin"),
/// as field names write them (`pickup_date`, `checkin_at`); empty when `particle` is none.
pub fn phrasal_forms(verb: &str, particle: &str) -> Vec<String> {
    if !matches!(particle, "up" | "in" | "out" | "off" | "on" | "over" | "down" | "back") {
        return Vec::new();
    }
    let mut out: Vec<String> = qa_core::text::verb_lemmas(verb).into_iter().chain(std::iter::once(verb.to_string())).map(|l| format!("{l}{particle}")).collect();
    out.dedup();
    out
}

/// The thing a classifier field classifies (`property_type` → property, `vehicleCategory` →
/// vehicle): in a collection of one kind of record, what its records are.
pub fn classified_noun(name: &str) -> Option<String> {
    match name_words(name).as_slice() {
        [noun, kind] if matches!(kind.as_str(), "type" | "category" | "kind" | "class") && is_content(noun) && noun.len() >= 3 => Some(noun.clone()),
        _ => None,
    }
}

/// The words people use for a stored value: `in_transit` → in, transit; `Sky Radio` → sky, radio;
/// `pre-opening` → pre, opening. Lower-case, singular.
pub fn value_words(value: &str) -> Vec<String> {
    value.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '.' || c == '&')).filter(|w| !w.is_empty()).map(|w| text::singular(&w.trim_matches('.').to_lowercase())).filter(|w| !w.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_money_name_is_the_rows_amount() {
        for n in ["amount_eur", "total_amount_eur", "price", "totalEur"] {
            assert!(is_generic_money_name(n), "{n}");
        }
        for n in ["insurer_share_eur", "pricePerTonneEur", "vat_eur"] {
            assert!(!is_generic_money_name(n), "{n}");
        }
    }

    #[test]
    fn a_verb_of_an_agent_noun() {
        assert!(is_agent_of("borrowed", "borrower"));
        assert!(is_agent_of("bought", "buyers"));
        assert!(is_agent_of("inspected", "inspector"));
        assert!(is_agent_of("drove", "driver"));
        // The noun itself, and verbs of another noun, are not.
        assert!(!is_agent_of("borrower", "borrower"));
        assert!(!is_agent_of("returned", "borrower"));
        assert!(!is_agent_of("sold", "buyer"));
    }

    #[test]
    fn phrasal_verbs_as_one_word() {
        assert!(phrasal_forms("picked", "up").contains(&"pickup".to_string()));
        assert!(phrasal_forms("checked", "in").contains(&"checkin".to_string()));
        assert!(phrasal_forms("picked", "the").is_empty());
    }

    #[test]
    fn a_key_is_said_by_its_role() {
        let said = |name: &str, words: &[&str]| forms(name, &[]).iter().any(|f| f.words == words);
        assert!(said("supervisor_id", &["boss"]) && said("manager_id", &["boss"]));
        assert!(!said("supervisor_name_id", &["boss"]));
    }

    #[test]
    fn a_classifier_names_what_it_classifies() {
        assert_eq!(classified_noun("property_type").as_deref(), Some("property"));
        assert_eq!(classified_noun("vehicleCategory").as_deref(), Some("vehicle"));
        assert_eq!(classified_noun("type"), None);
        assert_eq!(classified_noun("energy_label"), None);
        // Its words for a kind are one: "incident type" of `incidentCategory`.
        let said = |name: &str, words: &[&str]| forms(name, &[]).iter().any(|f| f.words == words);
        assert!(said("incidentCategory", &["incident", "type"]) && said("room_type", &["room", "category"]));
        assert!(!said("energy_label", &["energy", "type"]));
    }

    #[test]
    fn short_numbers_and_event_dates_are_said_in_words() {
        let said = |name: &str, words: &[&str]| forms(name, &[]).iter().any(|f| f.words == words);
        assert!(said("serial_no", &["serial", "number"]));
        assert!(said("installed_on", &["install", "date"]));
        assert!(said("completed_on", &["completion", "date"]));
        assert!(said("posted_on", &["posting", "date"]));
        assert!(said("detected_at", &["detection", "time"]));
        assert!(!said("country_code", &["country", "number"]));
        assert!(said("yearBuilt", &["built"]));
        assert!(said("salary_min", &["minimum", "salary"]));
        assert!(said("max_speed", &["maximum", "speed"]));
        assert!(said("days_on_market", &["day", "on", "the", "market"]));
    }

    fn words_of(name: &str) -> Vec<Vec<String>> {
        forms(name, &[]).into_iter().map(|f| f.words).collect()
    }

    #[test]
    fn name_words_split_every_convention() {
        assert_eq!(name_words("satisfactionRating"), ["satisfaction", "rating"]);
        assert_eq!(name_words("list_price_usd"), ["list", "price", "usd"]);
        assert_eq!(name_words("HTTPStatus"), ["http", "status"]);
        assert_eq!(name_words("consignee.city"), ["consignee", "city"]);
        assert_eq!(name_words("Appointments"), ["appointment"]);
    }

    #[test]
    fn forms_drop_suffixes_and_prefixes_and_give_heads() {
        let f = words_of("mechanic_name");
        assert!(f.contains(&vec!["mechanic".to_string()]), "{f:?}");
        let f = words_of("is_active");
        assert!(f.contains(&vec!["active".to_string()]), "{f:?}");
        let f = words_of("weight_kg");
        assert_eq!(f[1], ["weight"]);
        // The generic noun of a money column or a date said with its core.
        let f = words_of("awarded_eur");
        assert!(f.contains(&vec!["amount".to_string(), "awarded".to_string()]) && f.contains(&vec!["awarded".to_string(), "amount".to_string()]), "{f:?}");
        let f = words_of("starts_on");
        assert!(f.contains(&vec!["start".to_string(), "date".to_string()]), "{f:?}");
        let f = words_of("first_answer_at");
        assert!(f.contains(&vec!["first".to_string(), "answer".to_string()]), "{f:?}");
        assert!(words_of("has_sea_survival_cert").contains(&vec!["sea".to_string(), "survival".to_string(), "certificate".to_string()]));
        assert!(words_of("dest_country").contains(&vec!["destination".to_string(), "country".to_string()]));
        assert!(words_of("dispatch_calls").contains(&vec!["call".to_string()]), "a noun the prose stop list holds still heads a name");
        assert!(words_of("arr_gate").contains(&vec!["arrival".to_string(), "gate".to_string()]));
        let f = words_of("list_price");
        assert!(f.contains(&vec!["price".to_string()]) && f.contains(&vec!["list".to_string()]));
        assert_eq!(words_of("vehicle_identification_number").iter().find(|w| w.len() == 1 && w[0] == "vin").map(|_| ()), Some(()));
        assert!(words_of("number_products").contains(&vec!["product".to_string()]));
        // A generic word alone is the name itself.
        assert_eq!(words_of("name"), [vec!["name".to_string()]]);
        // "last" of last_name is no way to say it.
        assert!(!words_of("last_name").contains(&vec!["last".to_string()]));
        assert_eq!(value_words("in_transit"), ["in", "transit"]);
        assert_eq!(value_words("Pre-Opening"), ["pre", "opening"]);
    }
}
