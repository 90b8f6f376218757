//! Plan tests (filled below).
