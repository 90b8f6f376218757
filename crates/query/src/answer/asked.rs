//! The value a question asks for, and whether the passages give one for the thing it names.
//!
//! "What's the phone number of the marina office?" asks for a kind of value (a phone number) of a
//! thing (the marina office). Passages that describe the office at length but give no phone
//! number near it do not answer the question, however close they are in meaning and however
//! many of its words they hold — a quoted sentence about the office would be the confident wrong
//! answer the evidence check exists to prevent. The kinds are forms of value any corpus writes
//! the same way: phone numbers, e-mail and web addresses, postcodes, prices, clock times and
//! counts. The check acts only when the passages name the thing: a thing they do not name is
//! the evidence score's business (the asker's words may not be the corpus's).

use qa_core::text::{is_stop, singular, words};

/// A kind of value a question can ask for, each recognisable by its form in any text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// "the phone number of X": a run of seven or more digits in groups.
    Phone,
    /// "the e-mail address of X": `name@domain.tld`.
    Email,
    /// "the website of X": a URL, `www.` or a domain name.
    Web,
    /// "the postcode of X": a UK postcode or a five-digit ZIP code.
    Postcode,
    /// "how much does X cost": an amount of money, or "free" / "no charge".
    Price,
    /// "how much is X": a price or any other amount (a number: "4 GB per core").
    Amount,
    /// "what time does X open": a clock time.
    ClockTime,
    /// "how many X": a number, in digits or words.
    Count,
    /// "the name of the X": a person's name — a title and a capitalised word
    /// ("Dr Okafor"), or two capitalised words inside a sentence that the question does not say.
    PersonName,
}

impl ValueKind {
    /// What the reader is told the passages lack ("phone number").
    pub(crate) fn described(self) -> &'static str {
        match self {
            ValueKind::Phone => "phone number",
            ValueKind::Email => "e-mail address",
            ValueKind::Web => "web address",
            ValueKind::Postcode => "postcode",
            ValueKind::Price => "price",
            ValueKind::Amount => "amount",
            ValueKind::ClockTime => "time of day",
            ValueKind::Count => "number",
            ValueKind::PersonName => "name",
        }
    }
}

/// What a question asks for: a kind of value of a thing, the thing as singular words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskedValue {
    pub kind: ValueKind,
    /// The thing's words, singular: what a sentence must name.
    pub thing: Vec<String>,
    /// The thing as the question says it ("marina office").
    pub said: String,
}

/// How a cue introduces its thing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ThingAfter {
    /// "the phone number of the marina office": the words after the cue.
    Noun,
    /// "how much does the rabies vaccine cost": the subject between the auxiliary and the verb
    /// that closes it (the last word is the verb).
    Clause,
}

/// Cues, as word sequences of the lower-case question, with the value kind they ask for. An
/// auxiliary after "how much" or "what time" is part of the cue: "how much notice" asks for an
/// amount of notice, "how much does it cost" for a price.
const CUES: &[(&[&str], ValueKind, ThingAfter)] = &[
    (&["phone", "number"], ValueKind::Phone, ThingAfter::Noun),
    (&["telephone", "number"], ValueKind::Phone, ThingAfter::Noun),
    (&["contact", "number"], ValueKind::Phone, ThingAfter::Noun),
    (&["mobile", "number"], ValueKind::Phone, ThingAfter::Noun),
    (&["email", "address"], ValueKind::Email, ThingAfter::Noun),
    (&["e", "mail", "address"], ValueKind::Email, ThingAfter::Noun),
    (&["website"], ValueKind::Web, ThingAfter::Noun),
    (&["web", "address"], ValueKind::Web, ThingAfter::Noun),
    (&["web", "site"], ValueKind::Web, ThingAfter::Noun),
    (&["postcode"], ValueKind::Postcode, ThingAfter::Noun),
    (&["post", "code"], ValueKind::Postcode, ThingAfter::Noun),
    (&["postal", "code"], ValueKind::Postcode, ThingAfter::Noun),
    (&["zip", "code"], ValueKind::Postcode, ThingAfter::Noun),
    (&["how", "much", "does"], ValueKind::Price, ThingAfter::Clause),
    (&["how", "much", "do"], ValueKind::Price, ThingAfter::Clause),
    (&["how", "much", "did"], ValueKind::Price, ThingAfter::Clause),
    (&["how", "much", "will"], ValueKind::Price, ThingAfter::Clause),
    (&["how", "much", "would"], ValueKind::Price, ThingAfter::Clause),
    (&["how", "much", "is"], ValueKind::Amount, ThingAfter::Noun),
    (&["how", "much", "are"], ValueKind::Amount, ThingAfter::Noun),
    (&["what", "is", "the", "price"], ValueKind::Price, ThingAfter::Noun),
    (&["what", "is", "the", "cost"], ValueKind::Price, ThingAfter::Noun),
    (&["what", "is", "the", "fee"], ValueKind::Price, ThingAfter::Noun),
    (&["what", "time", "does"], ValueKind::ClockTime, ThingAfter::Clause),
    (&["what", "time", "do"], ValueKind::ClockTime, ThingAfter::Clause),
    (&["what", "time", "is"], ValueKind::ClockTime, ThingAfter::Clause),
    (&["what", "time", "are"], ValueKind::ClockTime, ThingAfter::Clause),
    (&["opening", "hours"], ValueKind::ClockTime, ThingAfter::Noun),
    (&["opening", "times"], ValueKind::ClockTime, ThingAfter::Noun),
    (&["how", "many"], ValueKind::Count, ThingAfter::Noun),
    (&["maximum", "number", "of"], ValueKind::Count, ThingAfter::Noun),
    (&["minimum", "number", "of"], ValueKind::Count, ThingAfter::Noun),
    // Only a name asked for as such: "who is the data controller?" may be answered by a role
    // ("the practice"), which is no name.
    (&["name", "of", "the"], ValueKind::PersonName, ThingAfter::Noun),
];

/// Words skipped before a thing begins: articles, possessives, auxiliaries and the prepositions
/// that join it to the cue ("the phone number *for the* office").
const LEAD_IN: &[&str] = &["the", "a", "an", "of", "for", "at", "to", "in", "on", "my", "our", "your", "his", "her", "its", "their", "this", "that", "these", "those"];

/// The most words a thing keeps.
const THING_WORDS: usize = 3;

/// Verbs that close a "how much does X …" clause asking for a price: "how much does the vaccine
/// cost", not "how much does pressure change".
const MONEY_VERBS: &[&str] = &["cost", "costs", "charge", "charges", "pay", "pays", "spend", "earn", "earns"];

/// The value the question asks for, when one cue of [`CUES`] opens an asking sentence (one that
/// ends in a question mark, or the last sentence) and a thing follows. A cue in a sentence that
/// states the asker's situation ("the iterator works out how many items remain. What breaks
/// …?") asks nothing.
pub(crate) fn asked_value(question: &str) -> Option<AskedValue> {
    let sentences: Vec<&str> = qa_core::text::split_sentences(question).into_iter().map(|(a, b)| question[a..b].trim()).collect();
    let asking: Vec<&str> = match sentences.iter().filter(|s| s.ends_with('?')).copied().collect::<Vec<_>>() {
        v if v.is_empty() => sentences.last().copied().into_iter().collect(),
        v => v,
    };
    asking.iter().find_map(|s| asked_in(s))
}

fn asked_in(sentence: &str) -> Option<AskedValue> {
    let ws = words(sentence);
    // The same tokens in the question's own case, for telling the reader what was asked of.
    let original: Vec<&str> = sentence.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
    for i in 0..ws.len() {
        for (cue, kind, after) in CUES {
            if ws.len() >= i + cue.len() && ws[i..i + cue.len()].iter().zip(cue.iter()).all(|(w, c)| w == c) {
                let at = i + cue.len();
                let (thing, verb) = thing_after(&ws[at..], *after);
                if *kind == ValueKind::Price && *after == ThingAfter::Clause && !verb.is_some_and(|v| MONEY_VERBS.contains(&ws[at + v].as_str())) {
                    return None;
                }
                let said = thing.iter().map(|&j| original.get(at + j).copied().unwrap_or(ws[at + j].as_str())).collect::<Vec<_>>().join(" ");
                let thing: Vec<String> = thing.iter().map(|&j| singular(&ws[at + j])).collect();
                return (!thing.is_empty()).then_some(AskedValue { kind: *kind, thing, said });
            }
        }
    }
    None
}

/// The thing's words after a cue, as positions in `rest`: lead-in words skipped, then content
/// words up to the next stop word; after an auxiliary the last word is the verb the subject ends
/// at, returned apart.
fn thing_after(rest: &[String], after: ThingAfter) -> (Vec<usize>, Option<usize>) {
    let start = rest.iter().position(|w| !LEAD_IN.contains(&w.as_str())).unwrap_or(rest.len());
    let limit = if after == ThingAfter::Clause { THING_WORDS + 1 } else { THING_WORDS };
    // An article inside the run joins its words ("for sending a formal complaint"); the
    // possessive's "s" ("the Town Council's office") is no word of the thing.
    let mut thing: Vec<usize> = (start..rest.len())
        .filter(|&j| !matches!(rest[j].as_str(), "a" | "an" | "the" | "s"))
        .take_while(|&j| !is_stop(&rest[j]))
        .take(limit)
        .collect();
    let verb = if after == ThingAfter::Clause { thing.pop() } else { None };
    (thing, verb)
}

/// Whether `sentence` (original case) holds a value of `kind`; `question` is the lower-case
/// words of the question (its own names are no answer to it).
pub(crate) fn holds_value(kind: ValueKind, sentence: &str, question: &[String]) -> bool {
    let tokens: Vec<&str> = sentence.split_whitespace().map(|t| t.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')' | '"' | '\'' | '`' | '[' | ']')) ).collect();
    let lower = sentence.to_lowercase();
    let ws = words(sentence);
    let has_words = |seqs: &[&[&str]]| seqs.iter().any(|s| ws.windows(s.len()).any(|w| w.iter().zip(s.iter()).all(|(a, b)| a == b)));
    match kind {
        ValueKind::Phone => has_phone_number(sentence) || has_service_number(&ws),
        ValueKind::Email => tokens.iter().any(|t| t.split_once('@').is_some_and(|(user, domain)| !user.is_empty() && domain.trim_end_matches('.').contains('.'))),
        ValueKind::Web => lower.contains("http://") || lower.contains("https://") || lower.contains("www.") || tokens.iter().any(|t| is_domain(&t.to_lowercase())),
        ValueKind::Postcode => has_postcode(&tokens),
        ValueKind::Price => has_money(&tokens) || has_words(&[&["free"], &["no", "charge"], &["no", "fee"], &["no", "cost"], &["no", "extra"], &["costs", "nothing"], &["without", "charge"], &["included"], &["waived"]]),
        ValueKind::ClockTime => has_clock_time(&tokens) || has_words(&[&["noon"], &["midday"], &["midnight"], &["24", "hours"], &["around", "the", "clock"], &["24", "7"], &["dawn"], &["dusk"], &["sunrise"], &["sunset"]]),
        ValueKind::Count => has_number(&ws),
        ValueKind::Amount => holds_value(ValueKind::Price, sentence, question) || has_number(&ws),
        ValueKind::PersonName => has_person_name(&tokens, question),
    }
}

/// A person's name: a title and a capitalised word ("Dr Okafor", "Mrs. Hale"), or two
/// capitalised words in a row that do not open the sentence or a clause after a colon, and are
/// not both words the question says (its own names: "Hollins Vale").
fn has_person_name(tokens: &[&str], question: &[String]) -> bool {
    const TITLES: &[&str] = &["dr", "mr", "mrs", "ms", "miss", "mx", "prof", "sir", "dame", "rev"];
    let word = |t: &str| {
        let mut c = t.chars();
        c.next().is_some_and(|f| f.is_uppercase()) && t.chars().count() >= 2 && c.all(|x| x.is_lowercase() || x == '\'' || x == '-')
    };
    let bare = |t: &str| t.trim_end_matches(['.', ',', ';', ':', '!', '?']).to_string();
    (1..tokens.len().saturating_sub(1)).any(|i| {
        let (a, b) = (bare(tokens[i]), bare(tokens[i + 1]));
        let titled = TITLES.contains(&a.to_lowercase().as_str()) && word(&b);
        let opens = tokens[i - 1].ends_with(['.', ':', '!', '?']);
        let said = question.contains(&a.to_lowercase()) && question.contains(&b.to_lowercase());
        titled || (word(&a) && word(&b) && !opens && !said && !tokens[i].ends_with([',', ';', ':']))
    })
}

/// A number in digits or words.
fn has_number(ws: &[String]) -> bool {
    ws.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()) || NUMBER_WORDS.contains(&w.as_str()))
}

/// Numbers written as words, and words that state a count without one ("unlimited").
const NUMBER_WORDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fifteen", "twenty", "thirty", "forty",
    "fifty", "hundred", "thousand", "million", "dozen", "once", "twice", "single", "half", "unlimited", "none", "no",
];

/// Seven or more digits in a run of digits and phone separators (space, `-`, `.`, `(`, `)`,
/// a leading `+`), in at least two groups, and not an ISO date (`2024-05-01`).
fn has_phone_number(sentence: &str) -> bool {
    let chars: Vec<char> = sentence.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() || (chars[i] == '+' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) || (chars[i] == '(' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            let (mut digits, mut groups, mut in_group) = (0usize, 0usize, false);
            while i < chars.len() && (chars[i].is_ascii_digit() || matches!(chars[i], ' ' | '-' | '.' | '(' | ')' | '+')) {
                if chars[i].is_ascii_digit() {
                    digits += 1;
                    if !in_group {
                        groups += 1;
                        in_group = true;
                    }
                } else {
                    in_group = false;
                    // Two separators in a row end the number ("1. 2").
                    if i + 1 < chars.len() && !chars[i + 1].is_ascii_digit() && chars[i + 1] != '(' {
                        break;
                    }
                }
                i += 1;
            }
            let run: String = chars[start..i].iter().collect();
            let iso_date = run.trim().len() == 10 && run.trim().chars().filter(|c| *c == '-').count() == 2 && run.trim().starts_with(|c: char| c.is_ascii_digit());
            if digits >= 7 && (groups >= 2 || digits >= 10) && !iso_date {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// A short service number said as one ("call 111", "dial 999", "ring 101 or text 61016"): three
/// to six digits right after a verb of calling.
fn has_service_number(ws: &[String]) -> bool {
    ws.windows(2).any(|w| matches!(w[0].as_str(), "call" | "ring" | "dial" | "phone" | "telephone" | "text") && (3..=6).contains(&w[1].len()) && w[1].chars().all(|c| c.is_ascii_digit()))
}

/// A bare domain name: letters, digits and hyphens in dotted labels ending in a common top-level
/// domain ("brackenford.gov.uk", "example.org").
fn is_domain(token: &str) -> bool {
    const TLDS: &[&str] = &["com", "org", "net", "io", "uk", "gov", "edu", "dev", "app", "info", "eu", "us", "ca", "au", "de", "fr", "nl"];
    let t = token.trim_end_matches(['.', ':', '!', '?']);
    let labels: Vec<&str> = t.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        && labels.last().is_some_and(|tld| TLDS.contains(tld))
        && labels[0].chars().any(|c| c.is_ascii_alphabetic())
}

/// A UK postcode ("BR4 7QT": outward code of one or two letters, a digit and an optional letter
/// or digit; inward code of a digit and two letters), a Dutch or Canadian one ("1012 AB", "K1A
/// 0B1"), or a five-digit code (US ZIP, optionally `-` and four more; German, French …) alone.
fn has_postcode(tokens: &[&str]) -> bool {
    let outward = |t: &str| {
        let c: Vec<char> = t.chars().collect();
        let letters = c.iter().take_while(|ch| ch.is_ascii_uppercase()).count();
        (1..=2).contains(&letters) && c.len() > letters && c.len() <= letters + 2 && c[letters].is_ascii_digit() && c[letters..].iter().all(|ch| ch.is_ascii_digit() || ch.is_ascii_uppercase())
    };
    let inward = |t: &str| {
        let c: Vec<char> = t.trim_end_matches(['.', ',']).chars().collect();
        c.len() == 3 && c[0].is_ascii_digit() && c[1].is_ascii_uppercase() && c[2].is_ascii_uppercase()
    };
    let zip = |t: &str| {
        let t = t.trim_end_matches(['.', ',']);
        let (five, four) = t.split_once('-').unwrap_or((t, ""));
        five.len() == 5 && five.chars().all(|c| c.is_ascii_digit()) && (four.is_empty() || (four.len() == 4 && four.chars().all(|c| c.is_ascii_digit())))
    };
    // "1012 AB" (the Netherlands), "K1A 0B1" (Canada).
    let dutch = |a: &str, b: &str| a.len() == 4 && a.chars().all(|c| c.is_ascii_digit()) && b.trim_end_matches(['.', ',']).len() == 2 && b.chars().take(2).all(|c| c.is_ascii_uppercase());
    let alternating = |t: &str, letter_first: bool| {
        let t = t.trim_end_matches(['.', ',']);
        t.len() == 3 && t.chars().enumerate().all(|(i, c)| if (i % 2 == 0) == letter_first { c.is_ascii_uppercase() } else { c.is_ascii_digit() })
    };
    tokens.windows(2).any(|w| (outward(w[0]) && inward(w[1])) || dutch(w[0], w[1]) || (alternating(w[0], true) && alternating(w[1], false))) || tokens.iter().any(|t| zip(t))
}

/// An amount of money: a currency sign before a digit ("£15", "$3.50"), or a number with a
/// currency word, code or pence mark ("15 euros", "20p", "EUR 40").
fn has_money(tokens: &[&str]) -> bool {
    const SIGNS: &[char] = &['£', '$', '€', '¥', '₹'];
    const UNITS: &[&str] = &["p", "pence", "penny", "euro", "euros", "eur", "dollar", "dollars", "usd", "pound", "pounds", "gbp", "cent", "cents", "chf", "franc", "francs", "yen"];
    let numeric = |t: &str| t.chars().next().is_some_and(|c| c.is_ascii_digit());
    let unit = |t: &str| UNITS.contains(&t.trim_end_matches(['.', ',', ':']).to_lowercase().as_str());
    tokens.iter().any(|t| {
        let t = t.trim_start_matches(['-', '~']);
        let mut c = t.chars();
        c.next().is_some_and(|s| SIGNS.contains(&s)) && c.next().is_some_and(|d| d.is_ascii_digit())
    }) || tokens.iter().any(|t| {
        // "20p", "15EUR": digits then a unit in one token.
        let digits = t.chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').count();
        digits > 0 && digits < t.len() && unit(&t[digits..])
    }) || tokens.windows(2).any(|w| (numeric(w[0]) && unit(w[1])) || (unit(w[0]) && numeric(w[1]) && w[0].len() > 1))
}

/// A clock time: `9:30`, `18:00`, `9am`, `9 pm`, `9.30am`.
fn has_clock_time(tokens: &[&str]) -> bool {
    let hm = |t: &str| {
        let t = t.trim_end_matches(['.', ',', ';', ':']);
        t.split_once(':').is_some_and(|(h, m)| (1..=2).contains(&h.len()) && h.chars().all(|c| c.is_ascii_digit()) && m.len() >= 2 && m.chars().take(2).all(|c| c.is_ascii_digit()))
    };
    let meridiem = |t: &str| matches!(t.trim_end_matches([',', ';', '.']).to_lowercase().as_str(), "am" | "pm" | "a.m" | "p.m");
    let hour = |t: &str| !t.is_empty() && t.split(['.', ':']).all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())) && t.chars().next().is_some_and(|c| c.is_ascii_digit());
    tokens.iter().any(|t| hm(t))
        || tokens.iter().any(|t| {
            let l = t.to_lowercase();
            let l = l.trim_end_matches([',', ';', '.']);
            ["am", "pm"].iter().any(|m| l.strip_suffix(m).is_some_and(hour))
        })
        || tokens.windows(2).any(|w| hour(w[0]) && meridiem(w[1]))
}

/// Whether the passages leave the asked value unanswered: some sentence names the thing (every
/// word of it the passages use, singular), and neither it nor the sentence right after it in its
/// passage ("The bar is in the clubhouse. It opens at 18:00.") holds a value of the kind. None
/// when no sentence names the thing (the check has nothing to say). `passages` holds each
/// passage's sentences in order.
pub(crate) fn value_missing(asked: &AskedValue, question: &str, passages: &[Vec<&str>]) -> Option<bool> {
    let said: Vec<Vec<Vec<String>>> = passages.iter().map(|p| p.iter().map(|s| words(s).iter().map(|w| singular(w)).collect()).collect()).collect();
    // The thing's words the passages use at all; a sentence about the thing names all of them.
    let held: Vec<&String> = asked.thing.iter().filter(|t| said.iter().flatten().any(|ws| ws.contains(t))).collect();
    if held.is_empty() {
        return None;
    }
    let question = words(question);
    let answered = passages.iter().zip(&said).any(|(sentences, words)| {
        (0..sentences.len()).any(|i| held.iter().all(|t| words[i].contains(t)) && sentences[i..sentences.len().min(i + 2)].iter().any(|s| holds_value(asked.kind, s, &question)))
    });
    Some(!answered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(q: &str) -> Option<(ValueKind, String)> {
        asked_value(q).map(|a| (a.kind, a.thing.join(" ")))
    }

    #[test]
    fn the_kind_and_the_thing_are_read_from_the_question() {
        let said = |k: ValueKind, t: &str| Some((k, t.split(' ').map(singular).collect::<Vec<_>>().join(" ")));
        assert_eq!(asked("What's the phone number for the marina office?"), said(ValueKind::Phone, "marina office"));
        assert_eq!(asked("How much does the rabies vaccine cost on a private prescription?"), said(ValueKind::Price, "rabies vaccine"));
        assert_eq!(asked("What time does the chandlery open on a Saturday?"), said(ValueKind::ClockTime, "chandlery"));
        assert_eq!(asked("How many plugins can one controller run?"), said(ValueKind::Count, "plugins"));
        assert_eq!(asked("What is the postcode of Hollins Vale Clinic?"), said(ValueKind::Postcode, "hollins vale clinic"));
        // The reader is told the thing in the question's own words and case.
        assert_eq!(asked_value("What are the opening hours of the Town Council's recycling centre?").map(|a| a.said), Some("Town Council recycling".to_string()));
        assert_eq!(asked("My mate is visiting. How much is a day launch off the slipway?"), said(ValueKind::Amount, "day launch"));
        // No thing, no cue, a verb that asks no price, or a cue only in the asker's situation.
        assert_eq!(asked("How much does it cost?"), None);
        assert_eq!(asked("How much notice do I have to give?"), None);
        assert_eq!(asked("How much does station pressure change with altitude?"), None);
        assert_eq!(asked("Why does the build fail?"), None);
        assert_eq!(asked("What is the name of the Commodore at the moment?"), said(ValueKind::PersonName, "commodore"));
        assert_eq!(asked("Who is the data controller for my records?"), None, "a role may answer it");
        assert_eq!(asked("What is the email address for sending a formal complaint to the manager?"), said(ValueKind::Email, "sending formal complaint"));
        assert_eq!(asked("What are the opening hours of the Town Council's recycling centre?"), said(ValueKind::ClockTime, "town council recycling"));
        assert_eq!(asked("The iterator works out how many items remain by subtracting pointers. What breaks for zero-sized types?"), None);
    }

    fn hv(kind: ValueKind, sentence: &str) -> bool {
        holds_value(kind, sentence, &words("Who is the practice manager at Hollins Vale?"))
    }

    #[test]
    fn values_are_recognised_by_their_form() {
        assert!(hv(ValueKind::Phone, "Call the office on 01632 960 123 during opening hours."));
        assert!(hv(ValueKind::Phone, "Ring +44 20 7946 0018."));
        assert!(!hv(ValueKind::Phone, "The release of 2024-05-01 fixed it."));
        assert!(!hv(ValueKind::Phone, "Relays are rated for about 200,000 cycles at full load."));
        assert!(hv(ValueKind::Phone, "When the surgery is shut, call 111 for advice."), "a service number said as one");
        assert!(!hv(ValueKind::Phone, "The surgery has 111 patients on its list."));
        assert!(hv(ValueKind::Email, "Write to complaints@hollinsvale.example.org."));
        assert!(!hv(ValueKind::Email, "Use the @ sign in a mention."));
        assert!(hv(ValueKind::Web, "Book at www.example.com or by phone."));
        assert!(!hv(ValueKind::Web, "The key `schedule.frost_c` sets it."));
        assert!(hv(ValueKind::Postcode, "The clinic is at 4 Mill Lane, Brackenford BR4 7QT."));
        assert!(hv(ValueKind::Postcode, "Post it to Keizersgracht 12, 1015 CJ Amsterdam.") && hv(ValueKind::Postcode, "Write to 24 Sussex Drive, Ottawa K1M 1M4."));
        assert!(!hv(ValueKind::Postcode, "Bins go out by 7 AM on Mondays."));
        assert!(hv(ValueKind::Price, "We charge a fee of £15 for writing it."));
        assert!(hv(ValueKind::Price, "A day launch costs 12 euros."));
        assert!(hv(ValueKind::Price, "Parking is free for members."));
        assert!(!hv(ValueKind::Price, "The charge is set by the pharmacy."));
        assert!(hv(ValueKind::Price, "Winter storage is included in the annual berth fee."), "a price said without a number");
        // "How much is the default memory per core?" may be answered by an amount of anything.
        assert!(hv(ValueKind::Amount, "Each core gets 4 GB of memory by default.") && hv(ValueKind::Amount, "A day launch costs £12."));
        assert!(!hv(ValueKind::Price, "Each core gets 4 GB of memory by default."));
        assert!(hv(ValueKind::ClockTime, "The bar opens at 18:00 on Fridays."));
        assert!(hv(ValueKind::ClockTime, "Doors open at 9am."));
        assert!(hv(ValueKind::ClockTime, "Doors open at 9.30 pm."));
        assert!(!hv(ValueKind::ClockTime, "The office is open on weekdays."));
        assert!(hv(ValueKind::ClockTime, "The gates open at dawn and close at dusk."));
        assert!(hv(ValueKind::Count, "Up to three plugins may run."));
        assert!(!hv(ValueKind::Count, "Plugins run in a sandbox."));
        assert!(hv(ValueKind::PersonName, "The practice manager, Dr Okafor, answers complaints."));
        assert!(hv(ValueKind::PersonName, "Complaints go to the practice manager, Helen Marsh, in writing."));
        assert!(!hv(ValueKind::PersonName, "The practice manager at Hollins Vale answers complaints."));
        assert!(!hv(ValueKind::PersonName, "Vice-Commodore: deputises for the Commodore."));
    }

    #[test]
    fn a_value_must_sit_beside_the_thing() {
        let q = asked_value("What's the phone number of the marina office?").unwrap();
        let office = [vec!["The marina office is beside the main gate."], vec!["Call the harbour master on 01632 960 555."]];
        let question = "What's the phone number of the marina office?";
        assert_eq!(value_missing(&q, question, &office), Some(true), "a number, but not the office's");
        let with = [vec!["The marina office (01632 960 123) is beside the main gate."]];
        assert_eq!(value_missing(&q, question, &with), Some(false));
        let apart = [vec!["The marina is on the river.", "Boats moor on the pontoons.", "The office is open daily; call 01632 960 123."]];
        assert_eq!(value_missing(&q, question, &apart), Some(true), "one sentence must name the whole thing the passages hold");
        let elsewhere = [vec!["The boatyard crane lifts boats of up to 12 tonnes."]];
        assert_eq!(value_missing(&q, question, &elsewhere), None, "the passages do not name the thing: no verdict");
        let next = [vec!["The marina office is beside the main gate.", "Its number is 01632 960 123."]];
        assert_eq!(value_missing(&q, question, &next), Some(false), "the sentence after the one naming it may give the value");
    }
}
