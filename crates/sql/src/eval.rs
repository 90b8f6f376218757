//! `qa sql eval`: score the SQL path on a question set with known results. The file format,
//! the grades and the row comparison are shared with `qa es eval` ([`qa_core::tabular_eval`]).

pub use qa_core::tabular_eval::{compare, grade, load, Counts, EvalFileError, EvalQuestion, Expected, Grade, Mismatch, Outcome, Summary};
