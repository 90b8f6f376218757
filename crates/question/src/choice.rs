//! Picking a clarification's answer among numbered choices — one rule for every route: an
//! option number ("2", "2.", "#2", "option 2"), else the option whose words the answer shares
//! most (singular forms, `_`/`.` as spaces); a tie is no answer.

use qa_core::text;

/// The index of the choice `answer` picks among `labels`, if any.
pub fn pick(answer: &str, labels: &[&str]) -> Option<usize> {
    let a = answer.trim().to_lowercase();
    let bare = a.trim_start_matches("option").trim_start_matches("number").trim().trim_start_matches('#').trim_end_matches(['.', ')']).trim();
    if let Ok(n) = bare.parse::<usize>() {
        return (1..=labels.len()).contains(&n).then(|| n - 1);
    }
    let answer_words: Vec<String> = text::normalized_words(&a.replace(['_', '.'], " ")).into_iter().filter(|w| !text::is_stop(w)).collect();
    if answer_words.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None;
    let mut tie = false;
    for (i, l) in labels.iter().enumerate() {
        let lw = text::normalized_words(&l.to_lowercase().replace(['_', '.'], " "));
        let score = answer_words.iter().filter(|w| lw.contains(w)).count();
        if score == 0 {
            continue;
        }
        match best {
            Some((_, s)) if score < s => {}
            Some((_, s)) if score == s => tie = true,
            _ => {
                best = Some((i, score));
                tie = false;
            }
        }
    }
    if tie { None } else { best.map(|(i, _)| i) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_words_and_ties() {
        let labels = ["findings.severity = 'Critical'", "audits.status = 'Critical'", "arrival_date"];
        assert_eq!(pick("2", &labels), Some(1));
        assert_eq!(pick("#1.", &labels), Some(0));
        assert_eq!(pick("option 3", &labels), Some(2));
        assert_eq!(pick("9", &labels), None);
        assert_eq!(pick("the audit status", &labels), Some(1));
        assert_eq!(pick("arrival", &labels), Some(2));
        assert_eq!(pick("critical", &labels), None, "a tie is no answer");
        assert_eq!(pick("the", &labels), None);
    }
}
