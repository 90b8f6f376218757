//! `qa-question`: reading a question against a source's self-description, the same way for the
//! SQL planner, the Elasticsearch planner and the router.
//!
//! Two parts. *Analysis* ([`analysis::analyse`]) needs no schema: tokens with spans
//! ([`tokens`]), numbers with units ([`numbers`]), dates ([`dates`]: years, months, quarters,
//! ranges, relative dates), comparators, negation, superlatives and top-N, aggregates, grouping
//! and ordering cues ([`cues`]), a projection list and the literals worth looking up.
//! *Linking* ([`link::Linker`]) maps spans onto a [`schema::SourceSchema`] — collections,
//! fields, stored values — each link with a score and the words it used; [`link::cover`] picks
//! the best non-overlapping reading. [`coverage`] keeps the ledger of used and unused words
//! that a plan's confidence comes from, [`choice`] reads the answer to a clarifying question,
//! and [`edit`] is the one edit distance.

pub mod analysis;
pub mod choice;
pub mod countries;
pub mod coverage;
pub mod currencies;
pub mod cues;
pub mod dates;
pub mod edit;
pub mod link;
pub mod names;
pub mod numbers;
pub mod schema;
pub mod states;
pub mod tokens;

pub use analysis::{analyse, Analysis};
pub use coverage::{Coverage, Ledger};
pub use link::{cover, How, Link, Linker, Mention, Target, ValueLookup};
pub use schema::{Collection, Field, FieldKind, KeyRole, Relation, SourceSchema, ValueAlias};
