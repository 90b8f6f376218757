//! Measure adjectives read as the measure they name, before planning: "heavier than 20" →
//! "weight over 20", "more expensive than 50" → "price over 50", "the heaviest parcel" → "the
//! highest weight parcel", "the most expensive" → "the highest price" — only when a number column of the schema is named by the measure
//! (`weight_kg`, `unit_price`), so the planner then matches that column as if it were named.

use super::super::schema::SchemaContext;
use super::super::ColumnKind;
use qa_route::profile::{DOWNWARD, measure_nouns};

/// The measure word a number column of the schema answers to, for `adjective`.
fn column_noun(ctx: &SchemaContext, adjective: &str) -> Option<&'static str> {
    let nouns = measure_nouns(adjective);
    nouns.into_iter().find(|noun| {
        ctx.db.tables.iter().flat_map(|t| &t.columns).any(|c| matches!(c.kind(), ColumnKind::Number | ColumnKind::Integer) && qa_route::SourceProfile::name_words(&c.name).iter().any(|w| w == noun))
    })
}

/// `question` with its measure adjectives replaced by the measure (see the module).
pub(super) fn rewrite(ctx: &SchemaContext, question: &str) -> String {
    let tokens: Vec<&str> = question.split_whitespace().collect();
    let bare = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let w = bare(tokens[i]);
        let next = tokens.get(i + 1).map(|t| bare(t)).unwrap_or_default();
        // "more expensive than", "less costly than".
        if matches!(w.as_str(), "more" | "less")
            && tokens.get(i + 2).is_some_and(|t| bare(t) == "than")
            && let Some(noun) = column_noun(ctx, &next)
        {
            let up = (w == "more") != DOWNWARD.contains(&next.as_str());
            out.push(format!("{noun} {}", if up { "over" } else { "under" }));
            i += 3;
            continue;
        }
        // "most expensive", "least costly".
        if matches!(w.as_str(), "most" | "least")
            && let Some(noun) = column_noun(ctx, &next)
        {
            let up = (w == "most") != DOWNWARD.contains(&next.as_str());
            out.push(format!("{} {noun}", if up { "highest" } else { "lowest" }));
            i += 2;
            continue;
        }
        if let Some(noun) = column_noun(ctx, &w) {
            let down = DOWNWARD.contains(&w.as_str());
            if next == "than" {
                out.push(format!("{noun} {}", if down { "under" } else { "over" }));
                i += 2;
                continue;
            }
            if w.ends_with("est") {
                out.push(format!("{} {noun}", if down { "lowest" } else { "highest" }));
                i += 1;
                continue;
            }
        }
        out.push(tokens[i].to_string());
        i += 1;
    }
    out.join(" ")
}
