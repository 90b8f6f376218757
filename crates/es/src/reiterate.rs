//! Reiterate (F01, the ES part): main goal, pasted query, force execute.
