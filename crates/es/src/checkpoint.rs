//! Checkpoints of runs stopped by a clarifying question (F09).
