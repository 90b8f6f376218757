//! The ES path end to end: nodes in order, paged execution, the answer and its trace.
