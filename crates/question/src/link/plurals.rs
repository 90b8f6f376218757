//! Stored values and the case they are written in: codes in capitals match only as written
//! ("us" is a pronoun), a capitalised value matches a lower-case word as itself, and a lower-case
//! plural of it ("hedgehogs" of 'Hedgehog') only where nothing else reads the word.

use qa_core::text;

use super::{Entry, How, Link, Linker, Target};
use crate::currencies;
use crate::names;
use crate::tokens::{Token, TokenKind};

impl Linker<'_> {
    /// Codes stored in capitals ("CA", "US", "S1") match only as written in capitals, or quoted:
    /// "us" is a pronoun. A name stored capitalised ("Price", "Bennett") matches a lower-case
    /// word only as itself or its plural, not a spelling of it; a plural that is also another
    /// word of the question's schema is left to it (see `plurals_of_capitalised_values`).
    pub(super) fn case_ok(&self, e: &Entry, span: &[Token]) -> bool {
        let Target::Value { values, .. } = &e.target else { return true };
        let code = values.iter().all(|v| v.chars().filter(|c| c.is_alphanumeric()).count() <= 3 && !v.chars().any(char::is_lowercase));
        // A name standing for a code ("Turkey" for 'TR') is a proper noun: capitalised.
        if e.how == How::Alias && code && !span.iter().all(|x| x.kind == TokenKind::Quoted) {
            let words: Vec<String> = span.iter().flat_map(|x| names::value_words(&x.text)).collect();
            return span.first().is_some_and(|x| x.capitalized() || x.all_caps()) || currencies::is_currency_name(&words);
        }
        if e.how == How::Alias || span.iter().all(|x| x.kind == TokenKind::Quoted) {
            return true;
        }
        if code {
            return span.iter().all(|x| x.all_caps() || x.text.chars().any(|c| c.is_ascii_digit()) || values.iter().any(|v| v == &x.text));
        }
        let capitalised = values.iter().all(|v| v.chars().next().is_some_and(char::is_uppercase));
        if capitalised {
            let written: Vec<String> = span.iter().map(|x| x.lower.clone()).collect();
            let stored: Vec<String> = values.iter().flat_map(|v| v.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)).collect();
            // ("hedgehogs" of 'Hedgehog': a lower-case common noun's plural is its value too.)
            return span.iter().any(|x| x.capitalized()) || written.iter().all(|w| stored.contains(w) || stored.contains(&text::singular(w)));
        }
        true
    }

    /// "hedgehogs" of a species 'Hedgehog' stays; "sculptures" of a department 'Sculpture'
    /// beside an object type 'sculpture', "prices" of a vet 'Price' beside a `price` column, a
    /// plural of a person's first or last name: the plural is the other reading's.
    pub(super) fn plurals_of_capitalised_values(&self, t: &[Token], out: &mut Vec<Link>) {
        let capitalised = |values: &[String]| values.iter().all(|v| v.chars().next().is_some_and(char::is_uppercase));
        let plural_of_capitalised = |l: &Link| {
            matches!(&l.target, Target::Value { values, .. } if capitalised(values) && !values.iter().any(|v| v.to_lowercase() == l.words.join(" ")))
                && t[l.start..l.end].iter().all(|x| x.kind == TokenKind::Word && !x.capitalized() && !x.all_caps())
        };
        let person = |l: &Link| l.target.field().is_some_and(|f| names::name_words(f).iter().any(|w| matches!(w.as_str(), "first" | "last" | "surname" | "given" | "family" | "forename")));
        let other_reading = |l: &Link, out: &[Link]| {
            out.iter().any(|o| {
                o.start == l.start
                    && o.end == l.end
                    && match &o.target {
                        Target::Value { values, .. } => !capitalised(values),
                        _ => true,
                    }
            })
        };
        let drop: Vec<bool> = out.iter().map(|l| plural_of_capitalised(l) && (person(l) || other_reading(l, out))).collect();
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
    }
}
