//! "What percentage of the batches brewed in 2025 were dry-hopped?": a share of rows is two
//! counts — the whole ("How many batches brewed in 2025?") and the part ("… were
//! dry-hopped?") — planned as questions of their own and divided. Answered only when both
//! counts are sure and the part is the whole with more conditions (same rows, every condition
//! of the whole kept); anything else falls back to the one-query plan, which asks.

use chrono::NaiveDate;
use qa_question::coverage::Mapped;

use super::ir::{AggFunc, Expr, SetOp};
use super::{plan_one, Clarification, PlanOutcome, CONFIDENCE_THRESHOLD};
use crate::schema::SchemaContext;

pub(super) fn percent_of(ctx: &SchemaContext, (whole, part): (&str, &str), clarifications: &[Clarification], today: NaiveDate) -> Option<PlanOutcome> {
    let w = plan_one(ctx, whole, clarifications, today, None);
    let p = plan_one(ctx, part, clarifications, today, None);
    let sure_count = |o: &PlanOutcome| {
        o.ambiguity.is_none()
            && o.confidence >= CONFIDENCE_THRESHOLD
            && o.plan.as_ref().is_some_and(|q| q.group_by.is_empty() && q.having.is_empty() && q.set_op.is_none() && matches!(q.select.as_slice(), [Expr::Agg { func: AggFunc::Count, col: None } | Expr::Agg { func: AggFunc::CountDistinct, col: Some(_) }]))
    };
    if !sure_count(&w) || !sure_count(&p) {
        return None;
    }
    let (wq, mut pq) = (w.plan?, p.plan?);
    let narrower = wq.table.eq_ignore_ascii_case(&pq.table) && wq.select == pq.select && wq.filters.iter().all(|f| pq.filters.contains(f)) && pq.filters.len() > wq.filters.len();
    if !narrower {
        return None;
    }
    pq.set_op = Some((SetOp::Percent, Box::new(wq)));
    let mut coverage = p.coverage;
    coverage.mapped.insert(0, Mapped { phrase: "percentage of".into(), role: "100 × the count of the part / the count of the whole".into() });
    Some(PlanOutcome { intent: p.intent, plan: Some(pq), confidence: p.confidence.min(w.confidence), coverage, fixes: p.fixes, ambiguity: None, clarifying_question: None })
}
