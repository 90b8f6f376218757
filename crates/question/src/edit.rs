//! Edit distance, and the one rule for what counts as a typo of a word.

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The most edits a word of `len` characters may have and still be read as a misspelling:
/// none under 5 letters (short words collide: "cat"/"car"), one up to 7, two from 8.
pub fn typo_budget(len: usize) -> usize {
    match len {
        0..=4 => 0,
        5..=7 => 1,
        _ => 2,
    }
}

/// `word` is a misspelling of `target` (not equal to it): within the typo budget of the
/// shorter one, same first letter (people rarely mistype the first letter), or one
/// transposition of two neighbours. Words with digits are codes, never misspellings.
pub fn is_typo_of(word: &str, target: &str) -> bool {
    // Codes differ by design: "ref75" is no misspelling of "ref15".
    if word == target || word.chars().any(|c| c.is_ascii_digit()) || target.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let (n, m) = (word.chars().count(), target.chars().count());
    let budget = typo_budget(n.min(m));
    if budget == 0 || n.abs_diff(m) > budget || word.chars().next() != target.chars().next() {
        return false;
    }
    if transposed(word, target) {
        return true;
    }
    edit_distance(word, target) <= budget
}

/// The same letters with two neighbours swapped ("whcih" / "which").
fn transposed(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() != b.len() {
        return false;
    }
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    diff.len() == 2 && diff[1] == diff[0] + 1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_typos() {
        assert_eq!(edit_distance("canceled", "cancelled"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert!(is_typo_of("apointments", "appointments"));
        assert!(is_typo_of("particpants", "participants"));
        assert!(is_typo_of("whcih", "which"));
        assert!(!is_typo_of("cat", "car"), "short words are never typos");
        assert!(!is_typo_of("planed", "planned") || typo_budget(6) == 1);
        assert!(!is_typo_of("kanceled", "cancelled"), "the first letter counts");
        assert!(!is_typo_of("same", "same"));
        assert!(!is_typo_of("ref75", "ref15"), "codes are not typos");
        assert!(!is_typo_of("tkt10050", "tkt10051"));
    }
}
