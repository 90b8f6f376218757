//! A person's name said in full ("Elena Flores") where first and last names are stored apart in
//! several tables (patients, staff, doctors): the table one of whose rows holds both names is
//! the one meant. Each word alone is ambiguous; the pair, asked of the source, rarely is.

use super::{Link, Linker, Target, ValueLookup};
use crate::tokens::Token;

impl Linker<'_> {
    /// Drops the value readings of two adjacent capitalised words in collections where no one
    /// record holds both, when the source confirms the pair in at least one collection.
    pub(super) fn full_names(&self, t: &[Token], lookup: &mut dyn ValueLookup, out: &mut Vec<Link>) {
        for s in 0..t.len().saturating_sub(1) {
            if !(t[s].capitalized() && t[s + 1].capitalized()) {
                continue;
            }
            // A value stored as the whole pair ("Sky Radio") is read as that already.
            if out.iter().any(|l| matches!(l.target, Target::Value { .. }) && l.start <= s && s + 2 <= l.end) {
                continue;
            }
            let at = |out: &Vec<Link>, i: usize| -> Vec<Link> { out.iter().filter(|l| l.start == i && l.end == i + 1 && matches!(l.target, Target::Value { .. })).cloned().collect() };
            let (first, last) = (at(out, s), at(out, s + 1));
            if first.is_empty() || last.is_empty() {
                continue;
            }
            let mut collections: Vec<String> = first.iter().chain(last.iter()).map(|l| l.target.collection().to_string()).collect();
            collections.sort();
            collections.dedup();
            if collections.len() < 2 {
                continue;
            }
            let mut holding: Vec<String> = Vec::new();
            let mut asked = false;
            for c in &collections {
                let pairs: Vec<(&Link, &Link)> = first.iter().filter(|a| a.target.collection() == c).flat_map(|a| last.iter().filter(move |b| b.target.collection() == c && b.target.field() != a.target.field()).map(move |b| (a, b))).collect();
                for (a, b) in pairs {
                    let (Target::Value { field: fa, values: va, .. }, Target::Value { field: fb, values: vb, .. }) = (&a.target, &b.target) else { continue };
                    let (Some(va), Some(vb)) = (va.first(), vb.first()) else { continue };
                    match lookup.record_holds(c, &[(fa.clone(), va.clone()), (fb.clone(), vb.clone())]) {
                        Some(true) => {
                            asked = true;
                            if !holding.contains(c) {
                                holding.push(c.clone());
                            }
                        }
                        Some(false) => asked = true,
                        None => {}
                    }
                }
            }
            if !asked || holding.is_empty() || holding.len() == collections.len() {
                continue;
            }
            out.retain(|l| !((l.start == s || l.start == s + 1) && l.end == l.start + 1 && matches!(l.target, Target::Value { .. }) && !holding.iter().any(|c| c == l.target.collection())));
        }
    }
}
