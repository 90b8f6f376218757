//! Session messages that continue an earlier turn instead of asking anew: "show me more" (the
//! next page of the last result, from the source that produced it) and the reply to a
//! clarifying question (the source's run resumed from its checkpoint).

use qa_converse::follow_up::{self, Reading};
use qa_converse::{ArtifactKind, Conversation};
use qa_core::progress::Progress;
use qa_core::trace::Route;

use crate::classify::QueryType;
use crate::source::{Ask, Source, SourceAnswer};
use crate::{ErrorCode, RouteError, Target};

/// An earlier turn continued.
pub struct Continued {
    /// The source's answer.
    pub answer: SourceAnswer,
    /// The choice run for "just run it".
    pub best_guess: Option<String>,
    /// The answer is a page of an earlier result.
    pub prior: bool,
}

/// The source of `target` among `sources`.
pub fn find(sources: &mut [Box<dyn Source>], target: Target) -> Option<&mut (dyn Source + 'static)> {
    sources.iter_mut().find(|s| s.target() == target).map(|s| s.as_mut())
}

fn needs(target: Target, what: &str) -> RouteError {
    let how = match target {
        Target::Sql => "the database (--db or QA_SQL_URL)",
        Target::Es => "the index (--es or QA_ES)",
        Target::Documents => "the indexed documents (qa index DIR)",
    };
    RouteError { code: ErrorCode::ValidationError, message: format!("{what} needs {how}"), suggestion: "configure the source the earlier turn used".into() }
}

/// Opens the source of a target when a turn needs it (only that one: paging a result sends
/// nothing to the other sources).
/// `Ok(None)`: the target is not configured.
pub type OpenSource<'a> = dyn FnMut(Target) -> Result<Option<Box<dyn Source>>, RouteError> + 'a;

/// Continue the turn the message refers to, or `None` when it is a question of its own.
pub fn continue_earlier(conv: &Conversation, message: &str, open: &mut OpenSource<'_>, progress: &dyn Progress) -> Result<Option<Continued>, RouteError> {
    match &conv.reading {
        Reading::NextPage => {
            let Some(artifact) = conv.last_artifact().and_then(|t| t.artifact.as_ref()) else { return Ok(None) };
            let target = match artifact.kind {
                ArtifactKind::Sql => Target::Sql,
                ArtifactKind::EsQuery => Target::Es,
            };
            let mut source = open(target)?.ok_or_else(|| needs(target, &format!("`show me more` on a {} result", if target == Target::Sql { "SQL" } else { "Elasticsearch" })))?;
            let answer = source.page(artifact, message)?;
            Ok(Some(Continued { answer, best_guess: None, prior: true }))
        }
        Reading::ClarificationReply { reply, force } => {
            let Some(last) = conv.log.turns.last() else { return Ok(None) };
            let Some(pending) = &last.clarification else { return Ok(None) };
            let target = match last.route {
                Route::Sql => Target::Sql,
                Route::Es => Target::Es,
                _ => return Ok(None),
            };
            let mut source = open(target)?.ok_or_else(|| needs(target, "answering the clarifying question"))?;
            // "Just run it": the first (best-ranked) choice, named in the answer.
            let reply = match (*force, pending.alternatives.first()) {
                (true, Some(best)) => best.clone(),
                (true, None) => "1".to_string(),
                (false, _) => reply.clone(),
            };
            let ask = Ask { question: "", query_type: QueryType::Simple, force: *force, in_session: true, progress };
            let answer = source.resume(&pending.checkpoint, &reply, &ask)?;
            Ok(Some(Continued { answer, best_guess: force.then_some(reply), prior: false }))
        }
        Reading::Standalone if follow_up::is_bare_next_page(message) => Err(RouteError {
            code: ErrorCode::ValidationError,
            message: format!("nothing to show more of: session {} has no earlier SQL or Elasticsearch result to page (ask a question first)", conv.name),
            suggestion: "only a list of rows or hits has pages; ask for one first".into(),
        }),
        _ => Ok(None),
    }
}
