//! Numbers with units: "40,000", "40k", "$500", "500 dollars", "1.5 km", "30 minutes", "-10 °C",
//! "two", "2 million"; units of a field's name (`distance_m`, `fine_cad`, `resolutionHours`);
//! conversion between units of one dimension ("1 km" against `distance_m` is 1000).

use serde::{Deserialize, Serialize};

use crate::tokens::Token;

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dimension {
    /// Kilograms, grams, pounds, tonnes.
    Mass,
    /// Metres and kilometres, miles, feet.
    Length,
    /// Seconds to years (a duration).
    Time,
    /// A currency.
    Money,
    /// Degrees.
    Temperature,
    /// Percent.
    Percent,
    /// Cubic metres, litres.
    Volume,
    /// Square metres, square feet, hectares, acres.
    Area,
    /// Watts (power).
    Power,
    /// Watt-hours (energy).
    Energy,
}

/// A unit: its canonical name, dimension and size in the dimension's base unit (kg, m, s,
/// m³; 1 for money, temperature and percent, which are not converted).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Unit {
    /// Canonical short name (`km`, `min`, `usd`).
    pub name: &'static str,
    /// What it measures.
    pub dimension: Dimension,
    /// Size in the base unit.
    pub factor: f64,
}

/// Unit words, canonical name, dimension and factor. Generic English and SI, no domain.
const UNITS: &[(&[&str], &str, Dimension, f64)] = &[
    (&["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"], "kg", Dimension::Mass, 1.0),
    (&["g", "gram", "grams"], "g", Dimension::Mass, 0.001),
    (&["lb", "lbs", "pound", "pounds"], "lb", Dimension::Mass, 0.453_592),
    (&["t", "tonne", "tonnes", "ton", "tons"], "t", Dimension::Mass, 1000.0),
    (&["km", "kms", "kilometre", "kilometres", "kilometer", "kilometers"], "km", Dimension::Length, 1000.0),
    (&["m", "metre", "metres", "meter", "meters"], "m", Dimension::Length, 1.0),
    (&["cm", "centimetre", "centimetres", "centimeter", "centimeters"], "cm", Dimension::Length, 0.01),
    (&["mm", "millimetre", "millimetres", "millimeter", "millimeters"], "mm", Dimension::Length, 0.001),
    (&["mi", "mile", "miles"], "mi", Dimension::Length, 1609.344),
    (&["ft", "foot", "feet"], "ft", Dimension::Length, 0.3048),
    (&["s", "sec", "secs", "second", "seconds"], "s", Dimension::Time, 1.0),
    (&["ms", "millisecond", "milliseconds"], "ms", Dimension::Time, 0.001),
    (&["min", "mins", "minute", "minutes"], "min", Dimension::Time, 60.0),
    (&["h", "hr", "hrs", "hour", "hours"], "hour", Dimension::Time, 3600.0),
    (&["day", "days"], "day", Dimension::Time, 86_400.0),
    (&["week", "weeks"], "week", Dimension::Time, 604_800.0),
    (&["usd", "dollar", "dollars", "$", "bucks"], "usd", Dimension::Money, 1.0),
    (&["eur", "euro", "euros", "€"], "eur", Dimension::Money, 1.0),
    (&["gbp", "£", "sterling"], "gbp", Dimension::Money, 1.0),
    (&["cad"], "cad", Dimension::Money, 1.0),
    (&["aud"], "aud", Dimension::Money, 1.0),
    (&["c", "°c", "celsius", "degree", "degrees", "°"], "c", Dimension::Temperature, 1.0),
    (&["%", "percent", "pct", "per cent", "percentage", "percentages"], "pct", Dimension::Percent, 1.0),
    (&["m3", "m³", "cubic"], "m3", Dimension::Volume, 1.0),
    (&["l", "litre", "litres", "liter", "liters"], "l", Dimension::Volume, 0.001),
    (&["hl", "hectolitre", "hectolitres", "hectoliter", "hectoliters"], "hl", Dimension::Volume, 0.1),
    (&["ml", "millilitre", "millilitres", "milliliter", "milliliters"], "ml", Dimension::Volume, 1e-6),
    (&["sqm", "m2", "m²", "sq.m", "sqmt"], "m2", Dimension::Area, 1.0),
    (&["sqft", "ft2", "ft²"], "ft2", Dimension::Area, 0.092_903),
    (&["km2", "km²", "sqkm"], "km2", Dimension::Area, 1e6),
    (&["ha", "hectare", "hectares"], "ha", Dimension::Area, 1e4),
    (&["acre", "acres"], "acre", Dimension::Area, 4_046.856),
    (&["w", "watt", "watts"], "w", Dimension::Power, 1.0),
    (&["kw", "kilowatt", "kilowatts"], "kw", Dimension::Power, 1e3),
    (&["mw", "megawatt", "megawatts"], "mw", Dimension::Power, 1e6),
    (&["gw", "gigawatt", "gigawatts"], "gw", Dimension::Power, 1e9),
    (&["wh", "watt-hour", "watt-hours"], "wh", Dimension::Energy, 1.0),
    (&["kwh", "kilowatt-hour", "kilowatt-hours"], "kwh", Dimension::Energy, 1e3),
    (&["mwh", "megawatt-hour", "megawatt-hours"], "mwh", Dimension::Energy, 1e6),
    (&["gwh", "gigawatt-hour", "gigawatt-hours"], "gwh", Dimension::Energy, 1e9),
];

/// The area unit of "square <length unit>" ("square meters", "square feet").
pub fn square_of(length_word: &str) -> Option<Unit> {
    let u = unit_of(length_word).filter(|u| u.dimension == Dimension::Length)?;
    let name = match u.name {
        "m" => "m2",
        "ft" => "ft2",
        "km" => "km2",
        _ => return None,
    };
    unit_of(name)
}

/// How a unit is said as a word on its own ("kilos", "minutes", "square metres", "watts"): the
/// spelt-out forms of `unit`'s entry, lower-case and singular. Abbreviations ("min" is also a
/// minimum), days and weeks ("per day" asks about a date) and words of another sense ("second",
/// "pound") are left out.
pub fn spoken_forms(unit: &Unit) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut push = |words: Vec<String>| {
        if !out.contains(&words) {
            out.push(words);
        }
    };
    let spelt = |name: &str| -> Vec<String> {
        UNITS.iter().filter(|(_, n, ..)| *n == name).flat_map(|(words, ..)| words.iter()).filter(|w| w.len() >= 4 && w.chars().all(|c| c.is_ascii_alphabetic()) && !matches!(**w, "second" | "seconds" | "pound" | "pounds" | "cubic")).map(|w| qa_core::text::singular(w)).filter(|w| w.len() >= 4).collect()
    };
    if matches!(unit.name, "day" | "week") || unit.dimension == Dimension::Money {
        return out;
    }
    for w in spelt(unit.name) {
        push(vec![w]);
    }
    // "square metres" of an area in m2.
    let side = match unit.name {
        "m2" => Some("m"),
        "ft2" => Some("ft"),
        "km2" => Some("km"),
        _ => None,
    };
    if let Some(side) = side {
        for w in spelt(side) {
            push(vec!["square".to_string(), w]);
        }
    }
    out
}

/// The unit a word names, if any.
pub fn unit_of(word: &str) -> Option<Unit> {
    let w = word.to_lowercase();
    UNITS.iter().find(|(words, ..)| words.contains(&w.as_str())).map(|(_, name, dimension, factor)| Unit { name, dimension: *dimension, factor: *factor })
}

/// The unit a field's name ends with (`distance_m` → m, `resolutionHours` → hour, `fine_cad`
/// → cad). One-letter suffixes count only after an underscore-separated name of 2+ words.
pub fn field_unit(name: &str) -> Option<Unit> {
    let words = crate::names::name_words(name);
    let last = words.last()?;
    if words.len() < 2 {
        return None;
    }
    // A rate (`price_per_mwh`, `cost_per_kg`) is measured in what it costs, not in its
    // denominator's unit.
    // `day_of_week`, `hour_of_day`: a part of a date, no measure.
    if words.len() >= 3 && matches!(words[words.len() - 2].as_str(), "per" | "of") {
        return None;
    }
    // "hours" is singular "hour" in name_words.
    let trailing = unit_of(last).or_else(|| unit_of(&format!("{last}s")));
    // A measure named by its unit first (`days_on_market`, `hours_worked`), not a part of a
    // date (`day_of_week`, `hour_of_day`).
    let leading = || {
        let first = &words[0];
        let unit_word = matches!(first.as_str(), "day" | "hour" | "minute" | "second" | "week" | "km" | "mile" | "kg" | "meter" | "metre" | "litre" | "liter" | "tonne" | "kwh" | "mwh" | "gwh" | "kw" | "mw" | "m3" | "m2" | "sqm");
        (unit_word && words[1] != "of").then(|| unit_of(first).or_else(|| unit_of(&format!("{first}s")))).flatten()
    };
    trailing.or_else(leading)
}

/// `value` in `from` expressed in `to` (same dimension), else unchanged.
pub fn convert(value: f64, from: Unit, to: Unit) -> f64 {
    if from.dimension == to.dimension && from.factor != to.factor && !matches!(from.dimension, Dimension::Money | Dimension::Temperature | Dimension::Percent) {
        value * from.factor / to.factor
    } else {
        value
    }
}

/// Small number words.
const NUMBER_WORDS: &[(&str, f64)] = &[
    ("zero", 0.0), ("one", 1.0), ("two", 2.0), ("three", 3.0), ("four", 4.0), ("five", 5.0), ("six", 6.0), ("seven", 7.0), ("eight", 8.0),
    ("nine", 9.0), ("ten", 10.0), ("eleven", 11.0), ("twelve", 12.0), ("fifteen", 15.0), ("twenty", 20.0), ("thirty", 30.0), ("fifty", 50.0),
    ("hundred", 100.0), ("dozen", 12.0), ("once", 1.0), ("twice", 2.0), ("single", 1.0), ("first", 1.0), ("second", 2.0), ("third", 3.0),
];

/// The value of a number word ("two" → 2); ordinals and "once"/"twice" included.
pub fn number_word(word: &str) -> Option<f64> {
    NUMBER_WORDS.iter().find(|(w, _)| *w == word).map(|(_, v)| *v)
}

/// A number in the question with its unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quantity {
    /// Token range (the number, a currency symbol before it, the unit words after it).
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// The number token's index.
    pub at: usize,
    /// The value (scaled: "2 million" is 2e6).
    pub value: f64,
    /// The unit, when one is written.
    #[serde(skip_deserializing)]
    pub unit: Option<Unit>,
    /// Written as a word ("two", "twice").
    pub word: bool,
    /// Four digits 1800–2100 without a unit: may be a year.
    pub year_like: bool,
}

/// Every number of the question, with units and scales. Number words count only where a
/// quantity is meant (after a comparator, "top", "the", or before a plural noun).
pub fn quantities(tokens: &[Token]) -> Vec<Quantity> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        let (value, word) = match (t.number(), number_word(&t.lower)) {
            (Some(v), _) => (v, false),
            (None, Some(v)) if word_is_quantity(tokens, i) => (v, true),
            (None, None) if article_is_one(tokens, i) => (1.0, true),
            _ => {
                i += 1;
                continue;
            }
        };
        let mut value = value;
        let mut start = i;
        let mut end = i + 1;
        let mut unit = None;
        // "$500", "€20".
        if i > 0 && ['$', '€', '£'].iter().any(|c| tokens[i - 1].is_symbol(*c)) {
            unit = unit_of(&tokens[i - 1].text);
            start = i - 1;
        }
        // "2 million", "3 thousand".
        if let Some(next) = tokens.get(end) {
            let scale = match next.lower.as_str() {
                "thousand" => Some(1e3),
                "million" | "millions" => Some(1e6),
                "billion" | "billions" => Some(1e9),
                _ => None,
            };
            if let Some(s) = scale {
                value *= s;
                end += 1;
            }
        }
        if unit.is_none()
            && let Some(next) = tokens.get(end)
        {
            // "°C" / "° C" / "%": a symbol, maybe followed by a letter.
            if next.is_symbol('°') {
                unit = unit_of("c");
                end += 1;
                if tokens.get(end).is_some_and(|t| matches!(t.lower.as_str(), "c" | "celsius")) {
                    end += 1;
                }
            } else if next.is_symbol('%') {
                unit = unit_of("%");
                end += 1;
            } else if next.is_word() && !next.hyphen_next {
                // "cubic metres" is m3.
                if next.lower == "cubic" && tokens.get(end + 1).is_some_and(|t| unit_of(&t.lower).is_some_and(|u| u.dimension == Dimension::Length)) {
                    unit = unit_of("m3");
                    end += 2;
                } else if let Some(u) = (next.lower == "square").then(|| tokens.get(end + 1).and_then(|t| square_of(&t.lower))).flatten() {
                    // "100 square meters" is an area.
                    unit = Some(u);
                    end += 2;
                } else if let Some(u) = unit_of(&next.lower) {
                    // A one-letter unit only when written against the number's meaning: "5 m",
                    // not "5 a" — "a", "i" are no units, "t"/"s"/"h"/"m"/"g"/"c"/"l" are.
                    unit = Some(u);
                    end += 1;
                }
            }
        }
        let year_like = !word && unit.is_none() && value.fract() == 0.0 && (1800.0..=2100.0).contains(&value) && t.text.len() == 4;
        out.push(Quantity { start, end, at: i, value, unit, word, year_like });
        i = end.max(i + 1);
    }
    out
}

/// A number word stands for a quantity: after a comparator, "top", "the", "at least", or
/// before a plural noun ("two vets", "three largest").
/// "more than a million euros", "delayed by more than an hour": after a comparator, "a" or
/// "an" before a scale word or a unit is the number one.
fn article_is_one(tokens: &[Token], i: usize) -> bool {
    let prev = i.checked_sub(1).map(|j| tokens[j].lower.as_str()).unwrap_or("");
    let next = tokens.get(i + 1).filter(|n| n.is_word()).map(|n| n.lower.as_str()).unwrap_or("");
    matches!(tokens[i].lower.as_str(), "a" | "an")
        && matches!(prev, "than" | "over" | "under" | "above" | "below" | "within" | "exactly" | "least" | "most")
        && (matches!(next, "thousand" | "million" | "billion") || unit_of(next).is_some())
}

fn word_is_quantity(tokens: &[Token], i: usize) -> bool {
    let w = tokens[i].lower.as_str();
    if matches!(w, "once" | "twice") {
        return !crate::cues::each_once(tokens, i);
    }
    if matches!(w, "first" | "second" | "third" | "single") {
        return false;
    }
    let prev = i.checked_sub(1).map(|j| tokens[j].lower.as_str()).unwrap_or("");
    let next = tokens.get(i + 1);
    let after_cue = matches!(prev, "than" | "top" | "the" | "least" | "most" | "exactly" | "only" | "just" | "over" | "under" | "above" | "below" | "first" | "last" | "between" | "and" | "or" | "with" | "have" | "has" | "had");
    let before_plural = next.is_some_and(|n| n.is_word() && n.lower != n.norm);
    let before_rank = next.is_some_and(|n| n.lower.ends_with("est") || matches!(n.lower.as_str(), "most" | "least" | "more" | "fewer" | "less"));
    w != "one" && (after_cue || before_plural || before_rank) || w == "one" && (matches!(prev, "than" | "exactly" | "only" | "just" | "least" | "most" | "between") || before_rank)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tokenize;

    fn q(text: &str) -> Vec<(f64, Option<&'static str>)> {
        quantities(&tokenize(text)).into_iter().map(|q| (q.value, q.unit.map(|u| u.name))).collect()
    }

    #[test]
    fn numbers_units_and_scales() {
        assert_eq!(q("cars over $40,000 and 2 million km"), [(40000.0, Some("usd")), (2e6, Some("km"))]);
        assert_eq!(q("longer than 30 minutes below -10 °C"), [(30.0, Some("min")), (-10.0, Some("c"))]);
        assert_eq!(q("more than two vets, the three largest"), [(2.0, None), (3.0, None)]);
        assert_eq!(q("one of the cats"), []);
        assert_eq!(q("spoken in only one country, by just two people"), [(1.0, None), (2.0, None)]);
        assert_eq!(q("at least twice"), [(2.0, None)]);
        // "a"/"an" after a comparator, before a scale or a unit, is one.
        assert_eq!(q("insured for more than a million euros, late by over an hour"), [(1e6, Some("eur")), (1.0, Some("hour"))]);
        assert_eq!(q("open for more than a week, a million thanks"), [(1.0, Some("week"))]);
        assert_eq!(q("more than a dozen"), []);
        // "each warehouse once" asks for no repeats, "more than once" counts.
        assert_eq!(q("List each warehouse once"), []);
        assert_eq!(q("tested more than once"), [(1.0, None)]);
        assert_eq!(crate::cues::distinct_words(&tokenize("List each warehouse once")), [3]);
        assert_eq!(q("usage of 5 cubic metres"), [(5.0, Some("m3"))]);
        assert!(quantities(&tokenize("in 2024"))[0].year_like);
    }

    #[test]
    fn field_units_and_conversion() {
        assert_eq!(field_unit("distance_m").map(|u| u.name), Some("m"));
        assert_eq!(field_unit("resolutionHours").map(|u| u.name), Some("hour"));
        assert_eq!(field_unit("fine_cad").map(|u| u.name), Some("cad"));
        assert_eq!(field_unit("m"), None);
        assert_eq!(field_unit("days_on_market").map(|u| u.name), Some("day"));
        assert_eq!(field_unit("day_of_week"), None);
        assert_eq!(field_unit("min_price"), None);
        assert_eq!(field_unit("rated_kw").map(|u| u.dimension), Some(Dimension::Power));
        assert_eq!(field_unit("price_per_mwh"), None);
        let mw = unit_of("megawatts").unwrap();
        assert_eq!(convert(3.0, mw, unit_of("kw").unwrap()), 3000.0);
        assert_eq!(field_unit("floorAreaSqm").map(|u| u.dimension), Some(Dimension::Area));
        let (km, m) = (unit_of("km").unwrap(), unit_of("m").unwrap());
        assert_eq!(convert(1.0, km, m), 1000.0);
        assert_eq!(convert(90.0, unit_of("minutes").unwrap(), unit_of("hours").unwrap()), 1.5);
        assert_eq!(convert(5.0, unit_of("usd").unwrap(), unit_of("cad").unwrap()), 5.0, "currencies are not converted");
    }

    #[test]
    fn units_said_as_words() {
        let said = |field: &str| spoken_forms(&field_unit(field).unwrap()).into_iter().map(|w| w.join(" ")).collect::<Vec<_>>();
        let kg = said("weight_kg");
        assert!(kg.contains(&"kilo".to_string()) && kg.contains(&"kilogram".to_string()) && !kg.contains(&"kg".to_string()), "{kg:?}");
        assert!(said("floor_area_m2").contains(&"square metre".to_string()));
        let min = said("duration_min");
        assert!(min.contains(&"minute".to_string()) && !min.contains(&"min".to_string()), "{min:?}");
        // A second is also an ordinal, a day is a date; money has its own word ("money").
        assert!(said("wait_s").is_empty() && said("days_on_market").is_empty() && said("price_eur").is_empty());
    }
}
