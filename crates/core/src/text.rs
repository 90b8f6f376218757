//! The text toolkit: word splitting, stop words, singular forms and the closed-class and verb-form
//! lexicons that phrase extraction, question decomposition and the lexical lane share, so their
//! rules cannot drift apart.

use std::collections::HashSet;
use std::sync::LazyLock;

/// Function words and other words that never start, end or sit inside a concept phrase.
const STOP: &[&str] = &[
    "a", "about", "above", "after", "again", "against", "all", "almost", "also", "although", "always", "am", "among", "an",
    "and", "another", "any", "anything", "are", "around", "as", "at", "back", "be", "because", "been", "before", "being",
    "below", "best", "better", "between", "both", "but", "by", "can", "cannot", "could", "did", "do", "does", "doing",
    "done", "down", "during", "each", "easy", "either", "else", "enough", "even", "ever", "every", "few", "first",
    "for", "from", "further", "get", "gets", "getting", "give", "given", "gives", "go", "goes", "going", "good", "got",
    "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "however", "i", "if", "in",
    "into", "is", "it", "its", "itself", "just", "keep", "keeps", "kind", "last", "least", "less", "let", "lets",
    "like", "likely", "look", "made", "make", "makes", "making", "many", "may", "me", "might", "more", "most",
    "much", "must", "my", "need", "needs", "never", "new", "next", "no", "nor", "not", "nothing", "now", "of", "off",
    "often", "on", "once", "one", "only", "or", "other", "others", "our", "ours", "out", "over", "own", "per", "put",
    "quite", "rather", "really", "right", "same", "say", "says", "see", "seen", "several", "shall", "she", "should",
    "show", "shows", "simply", "since", "so", "some", "something", "sometimes", "still", "such", "sure", "take",
    "takes", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "thing",
    "things", "this", "those", "though", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "use",
    "used", "uses", "using", "usually", "very", "via", "want", "was", "way", "ways", "we", "well", "were", "what",
    "when", "where", "whether", "which", "while", "who", "whole", "whom", "whose", "why", "will", "with", "within",
    "without", "would", "yes", "yet", "you", "your", "yours", "yourself", "able", "already", "become", "becomes",
    "call", "called", "calls", "come", "comes", "different", "example", "examples", "find", "found", "great", "know",
    "known", "later", "little", "lot", "mean", "means", "note", "possible", "start", "starts", "tell", "try", "turn",
    "write", "writes", "written", "chapter", "section", "following", "instead", "actually", "typically", "simple",
    "important", "certain", "specific", "etc", "ie", "eg", "vs", "twice", "allow", "allows", "add", "adds", "added",
    "avoid", "avoids", "require", "requires", "required", "return", "returns", "read", "reads", "needed", "provide",
    "provides", "include", "includes", "including", "along", "across", "behind", "beside", "besides", "beyond",
    "despite", "inside", "outside", "onto", "toward", "towards", "throughout", "unlike", "whereas", "whenever",
    "wherever", "whichever", "whoever", "anyone", "everyone", "someone", "nobody", "everything", "nowhere", "somewhere",
    "anywhere", "everywhere", "also", "ago", "am", "pm", "its", "he's", "she's", "it's", "i'm", "isn't", "aren't",
    "don't", "doesn't", "didn't", "won't", "can't", "couldn't", "shouldn't", "wouldn't", "mr", "mrs", "ms", "dr",
];

/// Number words: "tens of", "two hundred" are quantities, never part of a concept's name.
const NUMBER_WORDS: &[&str] = &[
    "zero", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
    "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty",
    "sixty", "seventy", "eighty", "ninety", "hundred", "hundreds", "thousand", "thousands", "million", "millions",
    "billion", "billions", "tens", "dozen", "dozens", "half", "quarter", "second", "third", "fourth", "fifth", "sixth",
    "seventh", "eighth", "ninth", "tenth", "once", "single", "double", "triple", "multiple", "numerous", "various",
];

/// Comparative and degree words: "hPa lower", "much faster" end a phrase.
const DEGREE_WORDS: &[&str] = &[
    "lower", "higher", "larger", "smaller", "faster", "slower", "worse", "greater", "longer", "shorter", "earlier",
    "newer", "older", "bigger", "cheaper", "easier", "harder", "stronger", "weaker", "wider", "narrower", "closer",
    "deeper", "hotter", "colder", "warmer", "heavier", "lighter", "safer", "simpler", "quicker", "louder", "softer",
    "fewer", "lowest", "highest", "largest", "smallest", "fastest", "slowest", "worst", "greatest", "longest",
    "shortest", "earliest", "newest", "oldest", "biggest", "cheapest", "easiest", "hardest", "strongest", "weakest",
    "latest", "best", "least", "nearest", "furthest",
    // Relative adjectives: they place a thing among others ("the usual convention", "the same
    // pin"), they do not name a kind of thing.
    "usual", "previous", "same", "certain", "particular", "entire", "typical", "actual", "respective",
    "above", "below", "again", "always", "never", "often", "almost", "nearly", "roughly", "about", "approximately",
];

/// Base forms of common English verbs whose third-person form is rarely a noun: "the sensor
/// measures station pressure" holds two phrases, not one. Their `-s` and `-ed` forms end a phrase.
const VERBS: &[&str] = &[
    "accept", "achieve", "adjust", "agree", "allow", "appear", "apply", "argue", "arrive", "ask", "assign", "assume",
    "attach", "become", "begin", "believe", "belong", "bind", "borrow", "bring", "build", "buy", "calculate", "carry",
    "choose", "claim", "collect", "combine", "compare", "compile", "compute", "connect", "consider", "consist",
    "consume", "contain", "continue", "convert", "create", "decide", "declare", "decrease", "define", "delete",
    "deliver", "depend", "derive", "describe", "detect", "determine", "develop", "differ", "disable", "discover",
    "divide", "earn", "eat", "enable", "enter", "establish", "evaluate", "exceed", "exist", "expand", "expect",
    "explain", "extend", "fail", "feel", "fetch", "follow", "generate", "give", "grow", "handle", "happen", "help",
    "hide", "hold", "identify", "ignore", "implement", "imply", "improve", "include", "increase", "indicate",
    "inherit", "initialize", "insert", "install", "intend", "introduce", "invoke", "involve", "join", "keep", "kill",
    "know", "lead", "learn", "leave", "lend", "live", "lose", "maintain", "manage", "marry", "measure", "meet",
    "mention", "merge", "miss", "modify", "move", "notice", "observe", "obtain", "occur", "operate", "own", "pay",
    "perform", "populate", "portray", "predict", "prefer", "prepare", "prevent", "produce", "promote", "protect",
    "prove", "provide", "publish", "reach", "react", "realize", "receive", "recognize", "reduce", "refer", "reflect",
    "rely", "remain", "remember", "remove", "rename", "render", "repeat", "replace", "represent", "require",
    "resolve", "respond", "restore", "retire", "return", "reveal", "save", "say", "seem", "select", "sell", "send",
    "serve", "settle", "shoot", "sing", "sit", "solve", "speak", "specify", "spend", "stay", "submit", "succeed",
    "suggest", "suppose", "take", "teach", "tend", "think", "throw", "understand", "use", "validate", "vary",
    "verify", "wake", "want", "warn", "wear", "win", "wish", "write", "compose", "elect", "appoint", "graduate",
    "attend", "locate", "situate", "originate", "allocate", "accumulate", "achieve", "discuss", "ensure", "execute",
];

/// Verbs whose `-s` form is as often a plural noun ("charges", "films", "records"): only their
/// past forms end a phrase.
const NOUN_VERBS: &[&str] = &[
    "access", "act", "affect", "aim", "attempt", "award", "block", "boot", "break", "call", "cause", "change", "charge",
    "check", "clean", "clear", "close", "control", "copy", "correct", "cost", "count", "cover", "cross", "cut", "design",
    "direct", "display", "draw", "drive", "drop", "end", "feature", "fill", "film", "finish", "fit", "fix", "flow",
    "focus", "force", "form", "free", "host", "import", "jump", "limit", "link", "list", "load", "lock", "look",
    "love", "mark", "match", "matter", "monitor", "mount", "name", "need", "offer", "open", "order", "pass", "pick",
    "place", "plan", "play", "point", "power", "present", "print", "pull", "push", "raise", "record", "release",
    "report", "request", "reset", "rest", "result", "rise", "run", "search", "set", "share", "shift", "show", "shut",
    "sign", "sleep", "sort", "split", "spread", "stand", "star", "start", "state", "step", "stop", "store", "study",
    "supply", "support", "switch", "talk", "test", "trigger", "try", "turn", "update", "upgrade", "view", "visit",
    "wait", "walk", "watch", "work", "wrap", "yield", "debut", "premiere", "air", "border", "capture", "express",
];

/// Irregular past forms and participles (common ones).
const IRREGULAR_PAST: &[&str] = &[
    "was", "were", "been", "had", "did", "done", "went", "gone", "made", "took", "taken", "came", "saw", "seen", "knew",
    "known", "got", "gotten", "gave", "given", "found", "thought", "told", "became", "left", "felt", "brought", "began",
    "begun", "kept", "held", "wrote", "written", "stood", "heard", "meant", "met", "ran", "paid", "sat", "spoke",
    "spoken", "lay", "led", "grew", "grown", "lost", "fell", "fallen", "sent", "built", "understood", "drew", "drawn",
    "broke", "broken", "spent", "rose", "risen", "drove", "driven", "bought", "wore", "worn", "chose", "chosen", "sold",
    "caught", "taught", "fought", "sought", "won", "shot", "threw", "thrown", "hid", "hidden", "bound", "sang", "sung",
    "slept", "woke", "woken", "ate", "eaten", "flew", "flown", "forgot", "forgotten", "born", "died",
];

/// Nouns ending in `-ly` (every other `-ly` word is taken for an adverb).
const LY_NOUNS: &[&str] = &[
    "family", "supply", "assembly", "anomaly", "butterfly", "italy", "july", "reply", "rally", "ally", "jelly", "belly",
    "lily", "holly", "bully", "monopoly", "fly", "poly", "ply", "emily", "kelly", "sully", "polly", "molly", "billy",
    "sicily", "apply", "comply", "multiply", "firefly", "dragonfly", "homily", "folly", "gully", "tally", "dolly",
];

static STOP_SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| STOP.iter().chain(NUMBER_WORDS).copied().collect());
/// Adjectives that pick a referent out of the discourse rather than name a kind of thing: "the
/// current package", "the selected packages", "the specified operations", "valid values". They
/// may end a term ("sleep current") but never start one. Generic English, like the relative
/// adjectives above, which break a phrase wherever they stand.
const REFERRING_ADJECTIVES: &[&str] = &[
    "current", "selected", "specified", "given", "valid", "invalid", "following", "various", "corresponding", "existing",
    "specific", "available", "appropriate", "relevant", "additional", "extra",
    "multiple", "desired", "intended", "aforementioned", "requested", "supplied", "provided", "mentioned", "listed",
];

/// A word that never starts a term ([`REFERRING_ADJECTIVES`]).
pub fn is_referring_adjective(word: &str) -> bool {
    REFERRING_ADJECTIVES.contains(&word)
}

static DEGREE_SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| DEGREE_WORDS.iter().copied().collect());
static LY_NOUN_SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| LY_NOUNS.iter().copied().collect());

/// Inflected verb forms that end a phrase: third person of [`VERBS`], past forms of every
/// known verb, and the irregular ones. `-ing` forms are not among them: gerunds name things
/// ("wiring diagram", "battery charging circuit").
static VERB_FORMS: LazyLock<HashSet<String>> = LazyLock::new(|| {
    let mut out: HashSet<String> = IRREGULAR_PAST.iter().map(|s| s.to_string()).collect();
    for v in VERBS {
        out.insert(third_person(v));
    }
    for v in VERBS.iter().chain(NOUN_VERBS) {
        out.insert(past(v));
    }
    out
});

static BASE_VERBS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| VERBS.iter().chain(NOUN_VERBS).copied().collect());

fn is_vowel(c: u8) -> bool {
    matches!(c, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// Short verbs ending consonant-vowel-consonant double the final letter ("stop" → "stopped").
fn doubles_final(v: &str) -> bool {
    let b = v.as_bytes();
    let n = b.len();
    (3..=4).contains(&n) && !is_vowel(b[n - 1]) && !matches!(b[n - 1], b'w' | b'x' | b'y') && is_vowel(b[n - 2]) && !is_vowel(b[n - 3])
}

fn third_person(v: &str) -> String {
    if v.ends_with(['s', 'x', 'z']) || v.ends_with("ch") || v.ends_with("sh") {
        format!("{v}es")
    } else if v.ends_with('y') && v.len() > 2 && !is_vowel(v.as_bytes()[v.len() - 2]) {
        format!("{}ies", &v[..v.len() - 1])
    } else {
        format!("{v}s")
    }
}

fn past(v: &str) -> String {
    if v.ends_with('e') {
        format!("{v}d")
    } else if v.ends_with('y') && v.len() > 2 && !is_vowel(v.as_bytes()[v.len() - 2]) {
        format!("{}ied", &v[..v.len() - 1])
    } else if doubles_final(v) {
        format!("{v}{}ed", &v[v.len() - 1..])
    } else {
        format!("{v}ed")
    }
}

/// The months' names, January first (lower-case).
pub const MONTHS: &[&str] = &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/// The weekdays' names, Monday first (lower-case).
pub const WEEKDAYS: &[&str] = &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// A month or weekday name (lower-case input): part of a date, never a topic of its own.
pub fn is_calendar_word(word: &str) -> bool {
    MONTHS.contains(&word) || WEEKDAYS.contains(&word)
}

/// A function word, number word or other word that carries no topic (lower-case input).
pub fn is_stop(word: &str) -> bool {
    STOP_SET.contains(word)
}

/// An inflected verb form that ends a phrase ("measures", "portrayed", "was"), lower-case input.
pub fn is_verb_form(word: &str) -> bool {
    VERB_FORMS.contains(word)
}

/// The `-ed` form of a known verb, which may also open a noun phrase as a modifier
/// ("powered station", "compiled language").
pub fn is_participle(word: &str) -> bool {
    word.ends_with("ed") && VERB_FORMS.contains(word)
}

/// A base form of a known verb ("measure", "portray").
pub fn is_base_verb(word: &str) -> bool {
    BASE_VERBS.contains(word)
}

/// A word that ends a noun phrase: an adverb in `-ly`, a comparative, superlative, relative or
/// degree word.
pub fn is_phrase_breaker(word: &str) -> bool {
    DEGREE_SET.contains(word) || (word.len() > 4 && word.ends_with("ly") && !LY_NOUN_SET.contains(word))
}

/// English plural → singular for a lower-case word, conservatively (words of ≤ 3 letters, with
/// digits or non-ASCII letters are kept).
pub fn singular(word: &str) -> String {
    let w = word;
    // Irregular plurals that name things in schemas and questions ("people" of `person_id`).
    if let Some((_, one)) = [("people", "person"), ("children", "child"), ("men", "man"), ("women", "woman"), ("staff", "staff")].iter().find(|(many, _)| *many == w) {
        return one.to_string();
    }
    let n = w.len();
    if n <= 3 || !w.is_ascii() || w.chars().any(|c| c.is_ascii_digit()) {
        return w.to_string();
    }
    if let Some(stem) = w.strip_suffix("ies")
        && n > 4
    {
        return format!("{stem}y");
    }
    // Latin -us plurals ("statuses", "bonuses", "campuses"); "houses", "causes" keep their "e".
    for us in ["tuses", "nuses", "ruses", "puses"] {
        if w.ends_with(us) {
            return w[..n - 2].to_string();
        }
    }
    for keep in ["ss", "us", "is", "ous", "sis", "ics", "ness"] {
        if w.ends_with(keep) {
            return w.to_string();
        }
    }
    for es in ["ches", "shes", "sses", "xes", "zes"] {
        if w.ends_with(es) {
            return w[..n - 2].to_string();
        }
    }
    if let Some(stem) = w.strip_suffix('s') {
        return stem.to_string();
    }
    w.to_string()
}

/// Base forms a verb form may have: the irregular one ("came" → come), else the word itself and
/// what its -ed, -ing, -s endings leave ("submitted" → submit, "carried" → carry).
pub fn verb_lemmas(w: &str) -> Vec<String> {
    let irregular = match w {
        "came" => Some("come"),
        "took" | "taken" => Some("take"),
        "made" => Some("make"),
        "did" | "done" | "does" => Some("do"),
        "got" | "gotten" => Some("get"),
        "saw" | "seen" => Some("see"),
        "found" => Some("find"),
        "held" => Some("hold"),
        "ran" => Some("run"),
        "led" => Some("lead"),
        "went" | "gone" => Some("go"),
        "was" | "were" | "been" | "is" | "are" => Some("be"),
        "had" | "has" => Some("have"),
        "wrote" | "written" => Some("write"),
        "put" => Some("put"),
        "sent" => Some("send"),
        "built" => Some("build"),
        "kept" => Some("keep"),
        "left" => Some("leave"),
        "flew" | "flown" => Some("fly"),
        "brought" => Some("bring"),
        "drove" | "driven" => Some("drive"),
        "gave" | "given" => Some("give"),
        "sold" => Some("sell"),
        "bought" => Some("buy"),
        "paid" => Some("pay"),
        "won" => Some("win"),
        "taught" => Some("teach"),
        "chose" | "chosen" => Some("choose"),
        _ => None,
    };
    if let Some(b) = irregular {
        return vec![b.to_string()];
    }
    let mut out = vec![w.to_string()];
    for (suffix, add) in [("ied", "y"), ("ies", "y"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e")] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.len() >= 2
        {
            out.push(format!("{stem}{add}"));
            // "submitted" → "submit".
            let b = stem.as_bytes();
            if add.is_empty() && b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] {
                out.push(stem[..stem.len() - 1].to_string());
            }
        }
    }
    out
}

/// An irregular verb form ("found", "sent", "wrote"): one whose base form is another word.
pub fn is_irregular_verb_form(w: &str) -> bool {
    matches!(verb_lemmas(w).as_slice(), [l] if l != w)
}

/// The family of a lower-case word, so that a verb finds the field named by its noun: "arrived",
/// "arriving", "arrival" → "arriv"; "departed", "departure" → "depart"; "shipped", "shipment" →
/// "ship". A light suffix stripper (not a full stemmer): compare families of words of at least
/// four letters only, since short words collide.
pub fn word_family(word: &str) -> String {
    let w = singular(word);
    if !w.is_ascii() || w.len() <= 3 {
        return w;
    }
    let mut stem = w.as_str();
    let mut noun_of_verb = false;
    for suffix in ["ion", "ment", "ure", "ing", "al", "ed", "er", "y", "e"] {
        if let Some(s) = stem.strip_suffix(suffix)
            && s.len() >= 3
        {
            stem = s;
            noun_of_verb = suffix == "ion";
            break;
        }
    }
    // Latin nouns of verbs may change the root's last consonant: "admission" is of "admit"
    // (and "decision" of "decide": see `families_match`).
    if noun_of_verb && let Some(root) = stem.strip_suffix("miss") {
        return format!("{root}mit");
    }
    let b = stem.as_bytes();
    // "shipp(ed)" → "ship", "plann(ed)" → "plan".
    if b.len() >= 4 && b[b.len() - 1] == b[b.len() - 2] && !b"aeiouls".contains(&b[b.len() - 1]) {
        stem = &stem[..stem.len() - 1];
    }
    stem.to_string()
}

/// Two word families are one: equal, or sharing a long prefix ("registrat" / "register").
pub fn families_match(a: &str, b: &str) -> bool {
    if a == b {
        return a.len() >= 3;
    }
    let common = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let shorter = a.chars().count().min(b.chars().count());
    // "decid" / "decis", "includ" / "inclus": a Latin root's d becomes s in its noun.
    let d_to_s = a.len() == b.len() && common + 1 == a.len() && common >= 4 && matches!((a.as_bytes()[common], b.as_bytes()[common]), (b'd', b's') | (b's', b'd'));
    d_to_s || common >= 5 && common + 2 >= shorter
}

/// Two words of one family ("delayed" and "delay": their families, or the words themselves,
/// match).
pub fn same_family(a: &str, b: &str) -> bool {
    families_match(&word_family(a), &word_family(b)) || families_match(&singular(a), &singular(b))
}

/// Lower-case word tokens of a text: letters, digits and `_` (an identifier is one word).
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// [`words`] with each word in singular form: the comparison form of phrase matching.
pub fn normalized_words(text: &str) -> Vec<String> {
    words(text).iter().map(|w| singular(w)).collect()
}

/// Words of a question that say what it is about: not stop words, not question forms.
pub fn content_words(text: &str) -> Vec<String> {
    words(text).into_iter().filter(|w| !is_stop(w) && !QUESTION_FORM.contains(&w.as_str()) && (w.len() >= 2 || w.chars().all(|c| c.is_ascii_digit()))).collect()
}

/// Words that give a question its form rather than its subject.
const QUESTION_FORM: &[&str] = &[
    "relate", "relates", "related", "relation", "relationship", "connect", "connected", "connection", "explain",
    "describe", "affect", "affects", "influence", "impact", "difference", "differ", "compare", "comparison",
];

/// The backtick code spans of `text`, as the byte ranges of their insides: backticks pair in
/// order, and a last unpaired one opens nothing.
pub fn code_spans(text: &str) -> Vec<std::ops::Range<usize>> {
    let ticks: Vec<usize> = text.match_indices('`').map(|(i, _)| i).collect();
    ticks.chunks_exact(2).map(|p| p[0] + 1..p[1]).collect()
}

/// Whether `needle` occurs as a contiguous word sequence in `hay`.
pub fn contains_seq(hay: &[String], needle: &[String]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Cut `text` to at most `max` characters on a character boundary, marking the cut with `…`.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Capitalised like a name: an upper-case first letter and a lower-case or digit letter after
/// it ("Shirley", "McCartney", "Apollo"), or an all-capitals word of 2+ letters ("NASA").
pub fn is_capitalized(word: &str) -> bool {
    let mut chars = word.chars();
    let Some(first) = chars.next() else { return false };
    first.is_uppercase() && word.chars().count() >= 2 && word.chars().any(char::is_alphabetic)
}

/// Byte ranges of sentences in `text`. A boundary is `.`, `!` or `?` (plus closing quotes or
/// brackets) followed by whitespace and an upper-case letter, digit, quote or bracket; common
/// abbreviations and single-letter initials do not end a sentence.
pub fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    const ABBREV: &[&str] = &["e.g", "i.e", "etc", "vs", "cf", "fig", "approx", "dr", "mr", "mrs", "ms", "no", "st"];
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if matches!(c, b'.' | b'!' | b'?') {
            let mut end = i + 1;
            while end < bytes.len() && matches!(bytes[end], b'"' | b'\'' | b')' | b']') {
                end += 1;
            }
            let mut next = end;
            while next < bytes.len() && bytes[next].is_ascii_whitespace() {
                next += 1;
            }
            // `next` follows ASCII bytes only, so it is a char boundary.
            let next_char = text[next..].chars().next();
            let starts_new = next > end
                && next_char.is_some_and(|ch| ch.is_uppercase() || ch.is_ascii_digit() || matches!(ch, '"' | '(' | '[' | '`'));
            if starts_new && c == b'.' {
                let word_start = text[..i]
                    .char_indices()
                    .rev()
                    .find(|(_, ch)| ch.is_whitespace() || *ch == '(')
                    .map(|(p, ch)| p + ch.len_utf8())
                    .unwrap_or(0);
                let word = text[word_start..i].to_ascii_lowercase();
                let initial = word.len() == 1 && word.chars().all(|ch| ch.is_alphabetic());
                if ABBREV.contains(&word.as_str()) || initial {
                    i += 1;
                    continue;
                }
            }
            if starts_new {
                out.push((start, end));
                start = next;
                i = next;
                continue;
            }
        }
        i += 1;
    }
    if start < text.len() && !text[start..].trim().is_empty() {
        out.push((start, text.trim_end().len().max(start)));
    }
    out.retain(|(s, e)| e > s);
    out
}

/// Keywords that declare a name of the code's own — an item, a variable, a macro — in Rust and in
/// the other languages technical documents show (`struct Guess`, `let file_path`, `def drink`,
/// `class Pair`): the corpus's example names (graph) and the asker's own names in a question's
/// snippet (the focus check) are read with the same list.
pub const DECLARING_KEYWORDS: &[&str] = &[
    "struct", "enum", "union", "trait", "fn", "let", "const", "static", "mod", "type", "macro_rules", "class", "def", "function",
    "var", "interface",
];

/// Question forms, pronouns and function words that a graph or grounding lookup ignores.
pub const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "how", "why", "when", "where", "does", "do", "did", "is", "are", "was", "were", "the",
    "a", "an", "of", "to", "in", "on", "for", "and", "or", "with", "between", "relate", "relates", "related", "relation",
    "relationship", "connect", "connected", "connection", "explain", "describe", "tell", "me", "show", "give", "find",
    "about", "there", "any", "can", "could", "should", "would", "i", "my", "it", "its", "this", "that", "these", "those",
    "be", "by", "from", "use", "used", "affect", "affects", "influence", "impact", "much", "many", "some", "your", "we",
    "our", "you", "they", "them", "as", "at", "if", "into", "than", "then", "so", "not", "no", "yes", "have", "has",
];

/// The terms a graph or grounding lookup keys on: lower-cased words (identifiers with `_` or `-`
/// kept whole) of two or more characters that are not in [`QUESTION_WORDS`].
pub fn query_terms(question: &str) -> Vec<String> {
    question
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| w.len() >= 2 && !QUESTION_WORDS.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lemmas_of_verb_forms() {
        assert!(verb_lemmas("submitted").contains(&"submit".to_string()));
        assert!(verb_lemmas("carried").contains(&"carry".to_string()));
        assert!(verb_lemmas("raised").contains(&"raise".to_string()));
        assert!(verb_lemmas("handled").contains(&"handle".to_string()));
        assert_eq!(verb_lemmas("came"), ["come"]);
        assert!(verb_lemmas("resulted").contains(&"result".to_string()));
    }

    #[test]
    fn verb_forms_are_generated_from_base_forms() {
        for w in ["measures", "measured", "stopped", "carries", "carried", "portrayed", "was", "went", "charged"] {
            assert!(is_verb_form(w), "{w}");
        }
        for w in ["station", "pressure", "sensor", "battery", "ownership", "charges", "wiring", "charging"] {
            assert!(!is_verb_form(w), "{w}");
        }
        assert!(is_participle("compiled") && !is_participle("measures"));
    }

    #[test]
    fn breakers_and_stop_words() {
        assert!(is_phrase_breaker("lower") && is_phrase_breaker("quickly") && !is_phrase_breaker("family"));
        assert!(is_phrase_breaker("latest") && is_phrase_breaker("usual") && !is_phrase_breaker("current"));
        assert!(is_stop("tens") && is_stop("the") && !is_stop("sensor"));
    }

    #[test]
    fn singular_is_conservative() {
        assert_eq!(singular("batteries"), "battery");
        assert_eq!(singular("bus"), "bus");
        assert_eq!(singular("switches"), "switch");
        assert_eq!(singular("analysis"), "analysis");
        assert_eq!(singular("i2cs"), "i2cs");
        assert_eq!(singular("statuses"), "status");
        assert_eq!(singular("warehouses"), "warehouse");
        assert_eq!(singular("causes"), "cause");
    }

    #[test]
    fn word_families_join_verbs_and_nouns() {
        for (a, b) in [("arrived", "arrival"), ("arriving", "arrival"), ("departed", "departure"), ("shipped", "shipment"), ("delivered", "delivery"), ("hired", "hire"), ("created", "creation"), ("closed", "closure"), ("updates", "updated"), ("opened", "opening"), ("admitted", "admission"), ("submit", "submission"), ("revised", "revision")] {
            assert_eq!(word_family(a), word_family(b), "{a} / {b}");
        }
        for (a, b) in [("decided", "decision"), ("included", "inclusion"), ("divided", "division"), ("provided", "provision")] {
            assert!(same_family(a, b), "{a} / {b}");
        }
        assert!(!same_family("ended", "ens"));
        for (a, b) in [("arrival", "departure"), ("created", "closed"), ("shipped", "shape"), ("ended", "end_date"), ("discussion", "discard"), ("version", "verdict")] {
            assert_ne!(word_family(a), word_family(b), "{a} / {b}");
        }
    }

    #[test]
    fn code_spans_pair_backticks_in_order() {
        let t = "use `a; b` then `c` and ` alone";
        let spans: Vec<&str> = code_spans(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(spans, ["a; b", "c"]);
        assert!(code_spans("no code").is_empty());
    }

    #[test]
    fn content_words_drop_question_form() {
        assert_eq!(content_words("How does deep sleep relate to battery life?"), vec!["deep", "sleep", "battery", "life"]);
    }

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(truncate("ééééé", 3), "éé…");
    }
}
