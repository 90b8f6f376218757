//! Schema-free cues: comparators ("more than", "at least", "older than", "or more", "between …
//! and …"), negation, superlatives and top-N ("the 3 largest", "the most", "most common"),
//! aggregates ("how many", "average", "total"), grouping ("per", "by", "for each"), ordering
//! ("sorted by", "cheapest first", "alphabetically", "from the oldest to the youngest") and
//! distinctness. Every cue carries its token range so that coverage can account for it.

use serde::{Deserialize, Serialize};

use crate::numbers::Quantity;
use crate::tokens::Token;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `=`
    Eq,
    /// `<>`
    Ne,
}

impl Op {
    /// The SQL spelling.
    pub fn sql(self) -> &'static str {
        match self {
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "=",
            Op::Ne => "<>",
        }
    }

    /// The opposite comparison (for a negated cue: "not more than" is `<=`).
    pub fn negate(self) -> Op {
        match self {
            Op::Gt => Op::Le,
            Op::Ge => Op::Lt,
            Op::Lt => Op::Ge,
            Op::Le => Op::Gt,
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
        }
    }
}

/// A measure adjective's base word, the measure nouns it names, and whether its comparative
/// points up ("heavier" = more weight) or down ("cheaper" = less price). Generic English.
pub const MEASURES: &[(&[&str], &[&str], bool)] = &[
    (&["old", "older", "oldest", "elder", "eldest"], &["age", "old"], true),
    (&["young", "younger", "youngest"], &["age", "young"], false),
    (&["new", "newer", "newest", "recent", "recently", "latest", "late", "later"], &[], true),
    (&["early", "earlier", "earliest", "first"], &[], false),
    (&["expensive", "pricey", "pricier", "priciest", "costly", "costlier", "costliest", "dear"], &["price", "cost", "amount", "fee", "fare", "charge", "fine", "rate", "total"], true),
    (&["cheap", "cheaper", "cheapest", "inexpensive"], &["price", "cost", "amount", "fee", "fare", "charge", "fine", "rate", "total"], false),
    (&["heavy", "heavier", "heaviest"], &["weight", "mass"], true),
    (&["light", "lighter", "lightest"], &["weight", "mass"], false),
    (&["long", "longer", "longest", "lengthy"], &["length", "duration", "time", "hour", "minute", "day", "distance", "long"], true),
    (&["short", "shorter", "shortest", "brief"], &["length", "duration", "time", "hour", "minute", "day", "distance", "short"], false),
    (&["tall", "taller", "tallest"], &["height", "tall"], true),
    (&["deep", "deeper", "deepest"], &["depth", "deep"], true),
    (&["shallow", "shallower", "shallowest"], &["depth"], false),
    (&["big", "bigger", "biggest", "large", "larger", "largest", "huge"], &["size", "capacity", "area", "population", "amount", "volume", "count"], true),
    (&["small", "smaller", "smallest", "tiny"], &["size", "capacity", "area", "population", "amount", "volume", "count"], false),
    (&["high", "higher", "highest", "top", "great", "greater", "greatest"], &[], true),
    (&["low", "lower", "lowest", "bottom"], &[], false),
    (&["fast", "faster", "fastest", "quick", "quicker", "quickest"], &["speed", "velocity", "fast"], true),
    (&["slow", "slower", "slowest"], &["speed", "velocity", "slow"], false),
    (&["far", "farther", "farthest", "further", "furthest", "distant"], &["distance", "far"], true),
    (&["near", "nearer", "nearest", "close", "closer", "closest"], &["distance", "near"], false),
    (&["hot", "hotter", "hottest", "warm", "warmer", "warmest"], &["temperature", "temp"], true),
    (&["cold", "colder", "coldest", "cool", "cooler", "coolest"], &["temperature", "temp"], false),
    (&["rich", "richer", "richest", "wealthy", "wealthier", "wealthiest"], &["worth", "wealth", "income", "earning", "salary"], true),
    (&["wide", "wider", "widest"], &["width"], true),
    (&["wet", "wetter", "wettest", "damp", "damper", "dampest", "humid", "humider"], &["moisture", "humidity", "wet"], true),
    (&["dry", "drier", "driest", "dryer", "dryest"], &["moisture", "humidity"], false),
    (&["loud", "louder", "loudest", "noisy", "noisier", "noisiest"], &["noise", "volume", "loudness", "decibel", "db"], true),
    (&["quiet", "quieter", "quietest"], &["noise", "volume", "loudness", "decibel", "db"], false),
    (&["strong", "stronger", "strongest"], &["strength", "abv", "alcohol", "power"], true),
    (&["weak", "weaker", "weakest"], &["strength", "abv", "alcohol", "power"], false),
    (&["thick", "thicker", "thickest"], &["thickness", "gsm"], true),
    (&["thin", "thinner", "thinnest"], &["thickness", "gsm"], false),
    (&["good", "better", "best"], &["score", "rating", "rank", "grade"], true),
    (&["bad", "worse", "worst"], &["score", "rating", "rank", "grade"], false),
    (&["popular", "common", "frequent"], &[], true),
    (&["busy", "busier", "busiest"], &["count"], true),
    (&["rare", "uncommon"], &[], false),
];

/// A verb of money changing hands ("spent", "paid", "cost", "charged", "billed"): with "how much"
/// it asks for money.
pub fn is_paying_verb(word: &str) -> bool {
    matches!(word, "spend" | "spends" | "spent" | "pay" | "pays" | "paid" | "cost" | "costs" | "earn" | "earns" | "earned" | "charge" | "charges" | "charged" | "bill" | "billed" | "invoiced")
}

/// "the slowest response" of `response_time_min`: a speed adjective said of a duration
/// points the other way (slow is more time), so the ranking flips.
pub fn speed_of_a_duration(adjective_base: &str, field: &str) -> bool {
    let duration = crate::numbers::field_unit(field).is_some_and(|u| u.dimension == crate::numbers::Dimension::Time)
        || crate::names::name_words(field).iter().any(|w| matches!(w.as_str(), "time" | "duration" | "delay" | "wait" | "minutes" | "hours" | "seconds"));
    matches!(adjective_base, "fast" | "slow") && duration
}

/// The measure of an adjective (any form): `(base, nouns, up)`.
pub fn measure_of(word: &str) -> Option<(&'static str, &'static [&'static str], bool)> {
    MEASURES.iter().find(|(forms, ..)| forms.contains(&word)).map(|(forms, nouns, up)| (forms[0], *nouns, *up))
}

/// How many `(noun, forms)` pairs [`MEASURES`] holds: one per measure and noun.
const N_NOUN_FORMS: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < MEASURES.len() {
        n += MEASURES[i].1.len();
        i += 1;
    }
    n
};

const fn noun_forms() -> [(&'static str, &'static [&'static str]); N_NOUN_FORMS] {
    let mut out: [(&'static str, &'static [&'static str]); N_NOUN_FORMS] = [("", &[]); N_NOUN_FORMS];
    let (mut i, mut k) = (0, 0);
    while i < MEASURES.len() {
        let (forms, nouns, _) = MEASURES[i];
        let mut j = 0;
        while j < nouns.len() {
            out[k] = (nouns[j], forms);
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// [`MEASURES`] by noun: `(noun, the adjective forms that name it)`, one pair per measure and
/// noun ("weight" → heavy, heavier, heaviest; "weight" → light, lighter, lightest), in the order
/// of [`MEASURES`]. Derived at compile time: no vocabulary of its own.
pub const MEASURE_NOUN_FORMS: &[(&str, &[&str])] = &noun_forms();

const N_DOWNWARD: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < MEASURES.len() {
        if !MEASURES[i].2 {
            n += MEASURES[i].0.len();
        }
        i += 1;
    }
    n
};

const fn downward_forms() -> [&'static str; N_DOWNWARD] {
    let mut out: [&'static str; N_DOWNWARD] = [""; N_DOWNWARD];
    let (mut i, mut k) = (0, 0);
    while i < MEASURES.len() {
        let (forms, _, up) = MEASURES[i];
        let mut j = 0;
        while !up && j < forms.len() {
            out[k] = forms[j];
            k += 1;
            j += 1;
        }
        i += 1;
    }
    out
}

/// Every form of the measure adjectives of [`MEASURES`] whose comparative points down
/// ("lighter than" is "less than"). Derived at compile time.
pub const DOWNWARD_FORMS: &[&str] = &downward_forms();

/// Words after a quantity that say what it measures when no field is named ("1 km away": a
/// distance; "300 m up": a height): the measure nouns, or none. Generic English.
pub fn measure_hint(word: &str) -> &'static [&'static str] {
    match word {
        "away" | "apart" | "off" | "distant" | "far" | "from" => &["distance"],
        "up" | "high" | "altitude" | "elevation" | "tall" => &["elevation", "altitude", "height"],
        "deep" | "down" | "below" => &["depth"],
        "long" | "lasting" => &["length", "duration"],
        "old" => &["age"],
        "wide" | "across" => &["width"],
        _ => &[],
    }
}

/// Words before a compared amount that say what it measures ("worth more than 500 euros": a
/// value; "weighing over 2 kg": a weight). Generic English.
pub fn measure_hint_before(word: &str) -> &'static [&'static str] {
    match word {
        "worth" | "valued" => &["value", "worth"],
        "weighing" | "weighs" | "weighed" | "weigh" => &["weight", "mass"],
        "costing" | "costs" | "priced" => &["price", "cost"],
        "earning" | "earns" | "earned" => &["income", "earning", "salary", "revenue"],
        _ => &[],
    }
}

/// The comparison of a comparative said before a noun ("greater", "lower").
fn comparative_op(word: &str) -> Option<Op> {
    match word {
        "more" | "greater" | "higher" | "larger" | "bigger" | "longer" => Some(Op::Gt),
        "less" | "fewer" | "lower" | "smaller" | "shorter" => Some(Op::Lt),
        _ => None,
    }
}

/// A number compared to something.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Token range of the cue, the number and its unit.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// The operator.
    pub op: Op,
    /// The quantity (index into the analysis's quantities).
    pub quantity: usize,
    /// The upper quantity of "between A and B".
    pub high: Option<usize>,
    /// A measure adjective in the cue ("older than", "more expensive than"): its base word.
    pub adjective: Option<String>,
    /// The cue words ("more than", "at least", "" for a bare number).
    pub cue: String,
    /// Where "or more" / "or less" stands when a noun comes between it and the number ("13.5%
    /// protein or more"): two words the comparison uses, outside its range.
    #[serde(default)]
    pub tail: Option<usize>,
}

/// A ranking: "the most", "the 3 largest", "the youngest", "top 5".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Superlative {
    /// Token range of the cue (with "the", the count, "most"/"least").
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// High values first.
    pub desc: bool,
    /// How many ("top 5"); none said is one.
    pub n: Option<usize>,
    /// The measure adjective's base word ("old" for "oldest"), if any; "most"/"least" alone have none.
    pub adjective: Option<String>,
    /// "most common", "most popular", "most frequent", "most often": the mode of something.
    pub mode: bool,
    /// Position after the cue: where its target starts.
    pub target: usize,
}

/// An aggregate function word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AggWord {
    /// how many, number of, count.
    Count,
    /// total, sum, combined, how much.
    Sum,
    /// average, mean.
    Avg,
    /// maximum, max, highest (as a value).
    Max,
    /// minimum, min, lowest (as a value).
    Min,
}

/// An aggregate cue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Aggregate {
    /// Token range.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// Which function.
    pub func: AggWord,
    /// Position after the cue (its argument starts here).
    pub target: usize,
}

/// A grouping cue: "per X", "by X", "for each X", "in each X", "broken down by X".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Grouping {
    /// Token range of the cue words.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// Where the group's name starts.
    pub target: usize,
}

/// An ordering cue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ordering {
    /// Token range.
    pub start: usize,
    /// End (exclusive).
    pub end: usize,
    /// Where the sort key is named ("sorted by X"), if it is.
    pub target: Option<usize>,
    /// Descending, when said ("descending", "newest first"); None: ascending unless the key's
    /// adjective says otherwise.
    pub desc: Option<bool>,
    /// The measure adjective ("cheapest first" → cheap), if the order is said that way.
    pub adjective: Option<String>,
    /// Alphabetical: by a name.
    pub alphabetical: bool,
}

const NEGATIONS: &[&str] = &[
    "not", "no", "never", "without", "none", "neither", "nor", "except", "excluding", "isn't", "aren't", "wasn't", "weren't", "don't", "doesn't", "didn't",
    "haven't", "hasn't", "hadn't", "cannot", "can't", "won't", "nobody", "nothing", "lacking", "n't",
];

/// "What percentage of the batches brewed in 2025 were dry-hopped?": the two counts a share of
/// rows compares, as questions of their own — the whole ("How many batches brewed in 2025?")
/// and the part ("How many batches brewed in 2025 were dry-hopped?"). The part's clause must
/// start at an auxiliary ("were", "are", "have", "did" …), so that a participle of the rows
/// ("brewed in 2025") stays with the whole. None for any other shape, or with a grouping cue
/// ("per carrier", "for each …"), which the two counts cannot say.
pub fn ratio_counts(question: &str, t: &[Token]) -> Option<(String, String)> {
    let i = (0..t.len()).find(|&i| matches!(w(t, i), "percentage" | "percent" | "proportion" | "fraction" | "share") && w(t, i + 1) == "of")?;
    if i == 0 || !matches!(w(t, i - 1), "what" | "which") {
        return None;
    }
    let mut from = i + 2;
    if matches!(w(t, from), "the" | "all" | "our") {
        from += 1;
    }
    let aux = (from + 1..t.len()).find(|&k| matches!(w(t, k), "were" | "was" | "are" | "is" | "have" | "has" | "had" | "did" | "do" | "does"))?;
    if (0..t.len()).any(|k| matches!(w(t, k), "per" | "each" | "every") || (w(t, k) == "by" && k > aux)) {
        return None;
    }
    let end = t.iter().rposition(|x| x.kind != crate::tokens::TokenKind::Symbol)?;
    let whole = &question[t[from].start..t[aux - 1].end];
    let part = &question[t[from].start..t[end].end];
    Some((format!("How many {whole}?"), format!("How many {part}?")))
}

/// Particles that say a state after "are" ("still out", "back in", "switched off") — words the
/// coverage counts as function words, a condition all the same.
pub fn is_state_particle(word: &str) -> bool {
    matches!(word, "out" | "in" | "off" | "on" | "up" | "over" | "away" | "back" | "down" | "open" | "closed")
}

/// A negation word.
pub fn is_negation(word: &str) -> bool {
    NEGATIONS.contains(&word)
}

fn w(t: &[Token], i: usize) -> &str {
    t.get(i).map(|x| x.lower.as_str()).unwrap_or("")
}

/// Comparisons around each quantity not read as a date.
pub fn comparisons(t: &[Token], qs: &[Quantity], date_tokens: &[bool]) -> Vec<Comparison> {
    let mut out: Vec<Comparison> = Vec::new();
    let mut skip_q: Vec<usize> = Vec::new();
    for (qi, q) in qs.iter().enumerate() {
        if skip_q.contains(&qi) || date_tokens.get(q.at).copied().unwrap_or(false) {
            continue;
        }
        let s = q.start;
        let mut start = s;
        let mut op = None;
        let mut cue = String::new();
        let mut adjective = None;
        let high = None;
        let mut end = q.end;
        let back = |k: usize| if s >= k { w(t, s - k) } else { "" };
        // "between 5000 and 10000", "from 5 to 10".
        if matches!(back(1), "between" | "from")
            && matches!(w(t, q.end), "and" | "to")
            && let Some((hj, h)) = qs.iter().enumerate().find(|(_, h)| h.start == q.end + 1)
        {
            out.push(Comparison { start: s - 1, end: h.end, op: Op::Ge, quantity: qi, high: Some(hj), adjective: None, cue: back(1).to_string(), tail: None });
            skip_q.push(hj);
            continue;
        }
        // Two-word cues before the number.
        let two = format!("{} {}", back(2), back(1));
        let two_op = match two.as_str() {
            "more than" | "greater than" | "larger than" | "bigger than" | "higher than" | "longer than" | "over than" | "excess of" | "upwards of" => Some(Op::Gt),
            "less than" | "fewer than" | "lower than" | "smaller than" | "shorter than" | "below than" => Some(Op::Lt),
            "at least" | "minimum of" | "least of" => Some(Op::Ge),
            "at most" | "maximum of" | "up to" => Some(Op::Le),
            "equal to" | "equals to" => Some(Op::Eq),
            _ => None,
        };
        if let Some(o) = two_op {
            op = Some(o);
            start = s - 2;
            cue = two.clone();
            // "no more than", "not less than", "in excess of".
            if matches!(back(3), "no" | "not") {
                op = Some(o.negate());
                start = s - 3;
                cue = format!("{} {cue}", back(3));
            }
            if back(3) == "in" && two == "excess of" {
                start = s - 3;
            }
            if let Some((base, _, up)) = measure_of(back(2)).filter(|_| back(1) == "than" && !matches!(back(2), "more" | "less" | "fewer" | "greater")) {
                adjective = Some(base.to_string());
                op = Some(if up { Op::Gt } else { Op::Lt });
            }
        } else if back(1) == "than" {
            // "older than 30", "heavier than 7 kg", "more expensive than 50", "cheaper than".
            let adj = back(2);
            if let Some((base, _, up)) = measure_of(adj) {
                let modified = matches!(back(3), "more" | "less");
                let up = if back(3) == "less" { !up } else { up };
                op = Some(if up { Op::Gt } else { Op::Lt });
                adjective = Some(base.to_string());
                start = s - if modified { 3 } else { 2 };
                cue = t[start..s].iter().map(|x| x.lower.as_str()).collect::<Vec<_>>().join(" ");
            } else if let Some(o) = comparative_op(back(3)).filter(|_| s >= 3) {
                // "a greater weight than 10", "a lower score than 60": the noun between.
                op = Some(o);
                start = s - 3;
                cue = format!("{} {} than", back(3), adj);
            } else if adj.ends_with("er") {
                op = Some(Op::Gt);
                start = s - 2;
                cue = format!("{adj} than");
                adjective = Some(adj.to_string());
            }
        } else {
            let one_op = match back(1) {
                "over" | "above" | "exceeding" | "exceeds" | "exceed" | "beyond" | "past" | ">" => Some(Op::Gt),
                "under" | "below" | "beneath" | "<" => Some(Op::Lt),
                ">=" | "≥" => Some(Op::Ge),
                "<=" | "≤" => Some(Op::Le),
                "=" | "equals" | "exactly" | "only" | "just" => Some(Op::Eq),
                "!=" => Some(Op::Ne),
                _ => None,
            };
            // "under age 30", "above capacity 5000": the cue, the column, then the number.
            let one_op = one_op.or_else(|| {
                let o = match back(2) {
                    "over" | "above" | "exceeding" => Some(Op::Gt),
                    "under" | "below" => Some(Op::Lt),
                    _ => None,
                };
                o.filter(|_| t.get(s - 1).is_some_and(|x| x.is_word()) && !is_negation(back(1)))
            });
            if let Some(o) = one_op {
                let skip = usize::from(!matches!(back(1), "over" | "under" | "above" | "below" | "beneath" | "exceeding" | "exceeds" | "exceed" | "beyond" | "past" | ">" | "<" | ">=" | "≥" | "<=" | "≤" | "=" | "equals" | "exactly" | "only" | "just" | "!="));
                op = Some(o);
                start = s - 1 - skip;
                cue = back(1 + skip).to_string();
                if matches!(back(2), "not" | "no") && matches!(o, Op::Gt | Op::Lt) {
                    op = Some(o.negate());
                    start = s - 2;
                    cue = format!("{} {cue}", back(2));
                }
            } else if s >= 2 && t[s - 1].is_word() && !crate::coverage::is_function_word(back(1)) {
                // "above age 20", "under grade 3": the measure's word between the cue and the number.
                let cue_op = match back(2) {
                    "over" | "above" | "exceeding" | "beyond" => Some(Op::Gt),
                    "under" | "below" | "beneath" => Some(Op::Lt),
                    _ => None,
                };
                if let Some(o) = cue_op {
                    op = Some(o);
                    start = s - 2;
                    cue = format!("{} {}", back(2), back(1));
                }
            }
        }
        // After the number: "or more", "and above", "+", "or less", "or fewer", "and under".
        let after = (w(t, end), w(t, end + 1));
        let after_op = match after {
            ("or" | "and", "more" | "above" | "higher" | "greater" | "over" | "up") => Some(Op::Ge),
            ("or" | "and", "less" | "fewer" | "below" | "lower" | "under") => Some(Op::Le),
            _ => None,
        };
        let mut tail = None;
        if let Some(o) = after_op.filter(|_| op.is_none() || op == Some(Op::Eq)) {
            op = Some(o);
            end += 2;
            cue = format!("{} {}", after.0, after.1);
        } else if op.is_none() || op == Some(Op::Eq) {
            // "13.5% protein or more": one noun between the number and the cue.
            let later = (w(t, end + 1), w(t, end + 2));
            let noun = t.get(end).is_some_and(|x| x.is_word() && x.number().is_none() && !qa_core::text::is_stop(&x.lower));
            let o = match later {
                ("or", "more" | "above" | "higher" | "greater" | "over") => Some(Op::Ge),
                ("or", "less" | "fewer" | "below" | "lower" | "under") => Some(Op::Le),
                _ => None,
            };
            if let Some(o) = o.filter(|_| noun) {
                op = Some(o);
                tail = Some(end + 1);
                cue = format!("{} {}", later.0, later.1);
            }
        }
        let op = op.unwrap_or(Op::Eq);
        out.push(Comparison { start, end, op, quantity: qi, high, adjective, cue, tail });
    }
    out
}

/// Ranking cues.
pub fn superlatives(t: &[Token], qs: &[Quantity]) -> Vec<Superlative> {
    let mut out: Vec<Superlative> = Vec::new();
    let n_at = |i: usize| qs.iter().find(|q| q.at == i && q.unit.is_none() && q.value.fract() == 0.0 && q.value >= 1.0 && q.value <= 1000.0).map(|q| q.value as usize);
    let mut i = 0;
    while i < t.len() {
        let word = w(t, i);
        let prev = if i > 0 { w(t, i - 1) } else { "" };
        let mut hit: Option<(usize, usize, bool, Option<String>, bool)> = None; // (start, end, desc, adjective, mode)
        match word {
            "most" | "least" | "fewest" => {
                if matches!(prev, "at" | "no") {
                    i += 1;
                    continue;
                }
                let next = w(t, i + 1);
                if let Some((base, _, up)) = measure_of(next).filter(|_| word != "fewest") {
                    // "most expensive", "least common".
                    let mode = matches!(base, "popular" | "common" | "frequent" | "rare");
                    let desc = if word == "most" { up } else { !up };
                    hit = Some((i, i + 2, desc, (!mode).then(|| base.to_string()), mode));
                } else if matches!(next, "often" | "frequently") {
                    hit = Some((i, i + 2, word == "most", None, true));
                } else {
                    hit = Some((i, i + 1, word == "most", None, false));
                }
            }
            "top" | "bottom" if !matches!(w(t, i + 1), "of") => {
                // "the top 5 largest": the ranking word after the count gives the measure.
                let k = if n_at(i + 1).is_some() { i + 2 } else { i + 1 };
                // ("Top 5 most expensive": one ranking, its measure after "most".)
                let most = matches!(w(t, k), "most" | "least").then(|| measure_of(w(t, k + 1))).flatten();
                let est = measure_of(w(t, k)).filter(|_| w(t, k).ends_with("est"));
                hit = Some(match (most, est) {
                    (Some((base, _, up)), _) => {
                        let d = if w(t, k) == "most" { up } else { !up };
                        (i, k + 2, if word == "top" { d } else { !d }, Some(base.to_string()), false)
                    }
                    (None, Some((base, _, up))) => (i, k + 1, if word == "top" { up } else { !up }, Some(base.to_string()), false),
                    (None, None) => (i, i + 1, word == "top", None, false),
                });
            }
            _ => {
                if let Some((base, _, up)) = measure_of(word).filter(|_| word.ends_with("est") || matches!(word, "best" | "worst" | "eldest" | "latest")) {
                    hit = Some((i, i + 1, up, Some(base.to_string()), false));
                } else if matches!(word, "maximum" | "max" | "minimum" | "min") && !matches!(w(t, i + 1), "of") {
                    hit = Some((i, i + 1, matches!(word, "maximum" | "max"), None, false));
                }
            }
        }
        if let Some((mut start, end, desc, adjective, mode)) = hit {
            // "the 3 largest", "top 5", "5 most", "the two youngest".
            let mut n = None;
            if start > 0 && let Some(k) = n_at(start - 1) {
                n = Some(k);
                start -= 1;
            } else if let Some(k) = n_at(end).filter(|_| matches!(word, "top" | "bottom")) {
                n = Some(k);
            }
            let mut end = if n.is_some() && matches!(word, "top" | "bottom") && n_at(end).is_some() { end + 1 } else { end };
            if matches!(word, "top" | "bottom") && n.is_none() && let Some(k) = n_at(start + 1).filter(|_| end > start + 2) {
                n = Some(k);
            }
            if matches!(w(t, end), "one" | "ones") {
                end += 1;
            }
            if start > 0 && w(t, start - 1) == "the" {
                start -= 1;
            }
            out.push(Superlative { start, end, desc, n, adjective, mode, target: end });
            i = end;
            continue;
        }
        i += 1;
    }
    // "first 10" / "last 5" as top-N over an order.
    out
}

/// "the phone number of X", "the room number of …": a noun before "number" makes a compound,
/// the number is an attribute, not a count. Not after a determiner, a verb that asks ("find
/// number of …") or a ranking adjective ("the largest number of …").
fn names_a_number(prev: &str) -> bool {
    !prev.is_empty()
        && prev.chars().all(char::is_alphabetic)
        && !qa_core::text::is_stop(prev)
        && !prev.ends_with("est")
        && !matches!(
            prev,
            "find" | "show" | "list" | "give" | "return" | "get" | "display" | "compute" | "calculate" | "report" | "tell" | "count" | "total" | "whole" | "overall"
                | "combined" | "greater" | "larger" | "smaller" | "higher" | "lower" | "bigger" | "fewer" | "large" | "small" | "high" | "low" | "big" | "maximum"
                | "minimum" | "max" | "min" | "equal" | "same" | "exact" | "actual" | "approximate" | "estimated" | "median" | "typical"
        )
}

/// Aggregate cues.
pub fn aggregates(t: &[Token]) -> Vec<Aggregate> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let (word, next) = (w(t, i), w(t, i + 1));
        let prev = if i > 0 { w(t, i - 1) } else { "" };
        let hit = match (word, next) {
            ("how", "many") if w(t, i + 2) == "times" => Some((AggWord::Count, 3)),
            ("how", "many") => Some((AggWord::Count, 2)),
            ("how", "much") => Some((AggWord::Sum, 2)),
            ("number" | "count" | "counts", "of") if !matches!(prev, "average" | "avg" | "mean" | "different" | "various" | "each") && (word != "number" || !names_a_number(prev)) => Some((AggWord::Count, 2)),
            ("count" | "counts", _) => Some((AggWord::Count, 1)),
            ("total", "number") if w(t, i + 2) == "of" => Some((AggWord::Count, 3)),
            ("average" | "avg" | "mean", _) => Some((AggWord::Avg, 1)),
            // ("the average overall score", "the mean total price": after an average the word
            // opens what is averaged; "the highest total value" still ranks a sum.)
            ("total" | "sum" | "combined" | "altogether" | "overall" | "cumulative", _) if !matches!(prev, "average" | "avg" | "mean" | "median") => Some((AggWord::Sum, 1)),
            ("maximum" | "max", _) => Some((AggWord::Max, 1)),
            ("minimum" | "min", _) => Some((AggWord::Min, 1)),
            _ => None,
        };
        if let Some((func, len)) = hit {
            let len = if next == "of" && len == 1 && matches!(func, AggWord::Avg | AggWord::Sum | AggWord::Max | AggWord::Min) { 2 } else { len };
            out.push(Aggregate { start: i, end: i + len, func, target: i + len });
            i += len;
            continue;
        }
        // "in total".
        if word == "in" && next == "total" {
            out.push(Aggregate { start: i, end: i + 2, func: AggWord::Sum, target: i + 2 });
            i += 2;
            continue;
        }
        i += 1;
    }
    out
}

/// Past forms after which "by" names an agent ("written by", "owned by"), not a grouping.
fn is_agentive(word: &str) -> bool {
    (word.len() > 3 && (word.ends_with("ed") || word.ends_with("en"))) || qa_core::text::is_verb_form(word) || matches!(word, "made" | "led" | "held" | "sold" | "bought" | "paid" | "run" | "won" | "read" | "sent" | "built" | "taught" | "given" | "taken" | "seen" | "done" | "owned" | "shot" | "drawn" | "set" | "hit" | "put")
}

/// Grouping cues.
pub fn groupings(t: &[Token]) -> Vec<Grouping> {
    let mut out = Vec::new();
    for i in 0..t.len() {
        let (word, next) = (w(t, i), w(t, i + 1));
        let prev = if i > 0 { w(t, i - 1) } else { "" };
        let skip_article = |k: usize| if matches!(w(t, k), "the" | "each" | "every" | "their" | "its" | "a") { k + 1 } else { k };
        match word {
            // "the most expensive per kilogram" is a rate, not one group per kilogram (a time
            // unit stays a grouping: "bookings per day").
            "per" if crate::numbers::unit_of(w(t, skip_article(i + 1))).is_some_and(|u| !matches!(u.dimension, crate::numbers::Dimension::Time)) => {}
            "per" => out.push(Grouping { start: i, end: i + 1, target: skip_article(i + 1) }),
            "each" | "every" if !matches!(prev, "for" | "in" | "of" | "per" | "by") && !matches!(next, "of" | "other" | "time") => {
                out.push(Grouping { start: i, end: i + 1, target: i + 1 })
            }
            // "each of our 3-star hotels", "each of the stations": the groups are named after
            // the determiner ("each of them" names none).
            "each" if !matches!(prev, "for" | "in" | "of" | "per" | "by") && next == "of" && matches!(w(t, i + 2), "our" | "the" | "your" | "their" | "its" | "my") && !matches!(w(t, i + 3), "" | "them" | "us" | "these" | "those" | "two" | "three") => {
                out.push(Grouping { start: i, end: i + 3, target: i + 3 })
            }
            "for" | "in" | "of" | "across" if matches!(next, "each" | "every") || (matches!(next, "different" | "all") && word == "for" && matches!(w(t, i + 2), "" | "?")) => {
                if matches!(next, "each" | "every") {
                    out.push(Grouping { start: i, end: i + 2, target: i + 2 })
                }
            }
            "by" => {
                let ordering = matches!(prev, "sorted" | "ordered" | "ranked" | "sort" | "order" | "arranged" | "listed" | "organized" | "organised");
                let broken_down = prev == "down" && i >= 2 && matches!(w(t, i - 2), "broken" | "break");
                let grouped = broken_down || matches!(prev, "grouped" | "broken" | "split" | "group" | "break" | "categorized" | "categorised" | "aggregated" | "segmented");
                // "given by each recruiter" is one group per recruiter; "turned down by the
                // candidate" names who did it.
                let distributive = matches!(next, "each" | "every");
                let agent = is_agentive(prev) || next == "the";
                if !ordering && (grouped || distributive || !agent) {
                    let start = if grouped { i - 1 } else { i };
                    let start = if prev == "down" && i >= 2 && matches!(w(t, i - 2), "broken" | "break") { i - 2 } else { start };
                    out.push(Grouping { start, end: i + 1, target: skip_article(i + 1) });
                }
            }
            "different" | "various" if matches!(prev, "for" | "across" | "among") => out.push(Grouping { start: i - 1, end: i + 1, target: i + 1 }),
            // "Monthly count of declarations", "the yearly total": the calendar word groups
            // by itself (only before a figure's word: "the monthly premium" names a column).
            "monthly" | "weekly" | "daily" | "yearly" | "quarterly" if matches!(next, "count" | "counts" | "total" | "totals" | "number" | "numbers" | "sum" | "sums" | "average" | "averages" | "figures" | "breakdown") => {
                out.push(Grouping { start: i, end: i + 1, target: i })
            }
            // "In which month of 2025 were the most claims reported?": the months are ranked.
            "which" | "what" if matches!(next, "month" | "year" | "quarter" | "weekday") && (0..t.len()).any(|k| matches!(w(t, k), "most" | "least" | "fewest" | "highest" | "lowest" | "busiest" | "quietest")) => {
                out.push(Grouping { start: i, end: i + 1, target: i + 1 })
            }
            _ => {}
        }
    }
    out
}

/// Ordering cues.
pub fn orderings(t: &[Token]) -> Vec<Ordering> {
    let mut out = Vec::new();
    let dir_after = |k: usize| match w(t, k) {
        "desc" | "descending" | "decreasing" | "reverse" | "reversed" => Some(true),
        "asc" | "ascending" | "increasing" => Some(false),
        _ => None,
    };
    let mut i = 0;
    while i < t.len() {
        let (word, next) = (w(t, i), w(t, i + 1));
        // "ordered by X [descending]", "sorted by", "order by", "ranked by", "ordered descending
        // by X".
        let dir_first = dir_after(i + 1).filter(|_| w(t, i + 2) == "by");
        // "Sort all the shops by …": the object between the verb and "by".
        if matches!(word, "sort" | "order" | "rank" | "arrange") && next != "by" && dir_first.is_none()
            && let Some(k) = (i + 2..(i + 6).min(t.len())).find(|&k| w(t, k) == "by")
        {
            let target = if matches!(w(t, k + 1), "the" | "their" | "its") { k + 2 } else { k + 1 };
            let mut desc = None;
            let mut end = k + 1;
            for j in target..(target + 5).min(t.len()) {
                if let Some(d) = dir_after(j) {
                    desc = Some(d);
                    end = j + 1;
                    if w(t, j + 1) == "order" {
                        end += 1;
                    }
                    break;
                }
            }
            // ("Sort them alphabetically by surname": the adverb before "by" is the cue's.)
            let alpha = matches!(w(t, k - 1), "alphabetically" | "lexicographically");
            let (start, desc) = if alpha { (k - 1, desc.or(Some(false))) } else { (k, desc) };
            out.push(Ordering { start, end, target: Some(target), desc, adjective: None, alphabetical: alpha });
            i = k + 1;
            continue;
        }
        if matches!(word, "sorted" | "ordered" | "ranked" | "sort" | "order" | "arranged" | "listed" | "organized" | "organised") && (next == "by" || dir_first.is_some()) {
            let by = if dir_first.is_some() { i + 2 } else { i + 1 };
            let target = if matches!(w(t, by + 1), "the" | "their" | "its") { by + 2 } else { by + 1 };
            // The direction may follow the key: find it within four words.
            let mut desc = dir_first;
            let mut end = i + 2;
            for k in target..(target + 5).min(t.len()) {
                if let Some(d) = dir_after(k) {
                    desc = Some(d);
                    end = k + 1;
                    if w(t, k + 1) == "order" {
                        end += 1;
                    }
                    break;
                }
            }
            let end = end.max(by + 1);
            out.push(Ordering { start: i, end, target: Some(target), desc, adjective: None, alphabetical: false });
            i = by + 1;
            continue;
        }
        // "in descending order (of X)", "in alphabetical order", "in reverse alphabetical order".
        if word == "in" {
            let mut k = i + 1;
            let mut desc = None;
            let mut alpha = false;
            while k < t.len() && k <= i + 3 {
                match w(t, k) {
                    "descending" | "decreasing" | "reverse" | "reversed" | "inverse" => desc = Some(true),
                    "ascending" | "increasing" => desc = Some(desc.unwrap_or(false)),
                    "alphabetical" | "alphabetic" | "lexicographical" | "lexicographic" | "lexical" => alpha = true,
                    "the" | "an" | "a" => {}
                    _ => break,
                }
                k += 1;
            }
            if w(t, k) == "order" && (desc.is_some() || alpha) {
                let mut end = k + 1;
                let mut target = None;
                if matches!(w(t, end), "of" | "by") {
                    target = Some(if w(t, end + 1) == "the" { end + 2 } else { end + 1 });
                    end += 1;
                }
                out.push(Ordering { start: i, end, target, desc: desc.or(Some(false)), adjective: None, alphabetical: alpha });
                i = end;
                continue;
            }
            // "in order of X".
            if next == "order" && matches!(w(t, i + 2), "of" | "by") {
                out.push(Ordering { start: i, end: i + 3, target: Some(i + 3), desc: None, adjective: None, alphabetical: false });
                i += 3;
                continue;
            }
        }
        if matches!(word, "alphabetically" | "lexicographically") {
            // "alphabetically by surname": the column follows.
            if next == "by" && t.get(i + 2).is_some() {
                let target = if w(t, i + 2) == "the" { i + 3 } else { i + 2 };
                out.push(Ordering { start: i, end: i + 2, target: Some(target), desc: Some(false), adjective: None, alphabetical: true });
                i += 2;
                continue;
            }
            out.push(Ordering { start: i, end: i + 1, target: None, desc: Some(false), adjective: None, alphabetical: true });
        }
        // "cheapest first", "newest first", "most recent first", "biggest first".
        if next == "first" || (next == "to" && i > 0) {
            let adj_at = if word == "recent" && i > 0 && w(t, i - 1) == "most" { i - 1 } else { i };
            if let Some((base, _, up)) = measure_of(word).filter(|_| next == "first") {
                let start = if adj_at > 0 && w(t, adj_at - 1) == "the" { adj_at - 1 } else { adj_at };
                out.push(Ordering { start, end: i + 2, target: None, desc: Some(up), adjective: Some(base.to_string()), alphabetical: false });
                i += 2;
                continue;
            }
        }
        // "biggest group first", "busiest trainer first", "most recent leaver first": the
        // adjective, one noun of the rows, then "first".
        if w(t, i + 2) == "first" && t.get(i + 1).is_some_and(|x| x.is_word() && x.lower.len() >= 3 && !matches!(x.lower.as_str(), "and" | "the" | "one" | "ones")) {
            let adj_at = if word == "recent" && i > 0 && w(t, i - 1) == "most" { i - 1 } else { i };
            if let Some((base, _, up)) = measure_of(word) {
                out.push(Ordering { start: adj_at, end: i + 3, target: None, desc: Some(up), adjective: Some(base.to_string()), alphabetical: false });
                i += 3;
                continue;
            }
        }
        // "from the oldest to the youngest", "from highest to lowest", "from A to Z".
        if word == "from" {
            let a = if next == "the" { i + 2 } else { i + 1 };
            if w(t, a + 1) == "to" {
                let b = if w(t, a + 2) == "the" { a + 3 } else { a + 2 };
                if let (Some((base, _, up)), Some(_)) = (measure_of(w(t, a)), measure_of(w(t, b))) {
                    out.push(Ordering { start: i, end: b + 1, target: None, desc: Some(up), adjective: Some(base.to_string()), alphabetical: false });
                    i = b + 1;
                    continue;
                }
                if w(t, a) == "a" && w(t, b) == "z" {
                    out.push(Ordering { start: i, end: b + 1, target: None, desc: Some(false), adjective: None, alphabetical: true });
                    i = b + 1;
                    continue;
                }
                if w(t, a) == "z" && w(t, b) == "a" {
                    out.push(Ordering { start: i, end: b + 1, target: None, desc: Some(true), adjective: None, alphabetical: true });
                    i = b + 1;
                    continue;
                }
            }
        }
        // A bare "descending"/"ascending" after the key ("by age descending" handled above).
        i += 1;
    }
    out
}

/// Positions of "distinct", "different", "unique" (not "for different X", a grouping).
pub fn distinct_words(t: &[Token]) -> Vec<usize> {
    (0..t.len()).filter(|&i| matches!(w(t, i), "distinct" | "different" | "unique") && !(i > 0 && matches!(w(t, i - 1), "for" | "across" | "among")) || each_once(t, i)).collect()
}

/// "List each warehouse once": the rows without repeats.
pub fn each_once(t: &[Token], i: usize) -> bool {
    w(t, i) == "once" && i >= 2 && w(t, i - 2) == "each" && t[i - 1].is_word()
}

/// A verb that relates things without naming a column: inflected forms of known verbs and the
/// light verbs of questions ("come from", "work in", "belong to").
pub fn is_light_verb(w: &str) -> bool {
    qa_core::text::is_base_verb(w)
        || qa_core::text::is_verb_form(w)
        || (w.len() > 4 && w.ends_with("ed"))
        || (w.len() > 5 && w.ends_with("ing"))
        || matches!(
            w,
            "own" | "owns" | "speak" | "speaks" | "spoken" | "play" | "plays" | "use" | "live" | "lives" | "come" | "comes" | "came" | "go" | "goes" | "get" | "gets"
                | "work" | "works" | "belong" | "belongs" | "happen" | "happens" | "occur" | "occurs" | "stay" | "stays" | "teach" | "teaches" | "taught"
                | "shows" | "hold" | "holds" | "run" | "runs" | "take" | "takes" | "took" | "make" | "makes" | "made" | "do" | "does" | "did" | "done"
                | "receive" | "receives" | "involve" | "involves" | "serve" | "serves" | "operate" | "operates" | "offer" | "offers"
                | "correspond" | "corresponds" | "land" | "lands" | "depart" | "departs" | "arrive" | "arrives" | "uses" | "put" | "puts"
                // (Verbs of position: "apiaries that lie above 800 metres".)
                | "lie" | "lies" | "sit" | "sits" | "stand" | "stands"
        )
}

#[cfg(test)]
mod tests;
