//! Progress bars on stderr for the library's [`Progress`] reports (hidden with `--quiet`).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use qa_core::progress::Progress;

/// One bar per stage, drawn on stderr; nothing at all when hidden.
pub struct Bars {
    show: bool,
    current: Mutex<Option<ProgressBar>>,
}

impl Bars {
    pub fn new(show: bool) -> Bars {
        Bars { show, current: Mutex::new(None) }
    }

    fn with_bar(&self, f: impl FnOnce(&mut Option<ProgressBar>)) {
        // A poisoned lock only means another thread panicked while drawing; keep drawing.
        let mut guard = self.current.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut guard);
    }
}

impl Progress for Bars {
    fn start(&self, stage: &str, total: u64) {
        if !self.show {
            return;
        }
        let pb = ProgressBar::new(total);
        pb.set_style(
            ProgressStyle::with_template("{prefix:>9.bold} [{bar:30}] {pos}/{len} {msg} ({eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        pb.set_prefix(stage.to_string());
        self.with_bar(|cur| {
            if let Some(old) = cur.replace(pb) {
                old.finish_and_clear();
            }
        });
    }

    fn advance(&self, n: u64) {
        self.with_bar(|cur| {
            if let Some(pb) = cur.as_ref() {
                pb.inc(n);
            }
        });
    }

    fn finish(&self) {
        self.with_bar(|cur| {
            if let Some(pb) = cur.take() {
                pb.finish_and_clear();
            }
        });
    }
}

/// A spinner for the library's short stages ("querying the database", "answering with …"):
/// each stage replaces the message; hidden when quiet or when stderr is not a terminal.
pub struct Spinner {
    quiet: bool,
    current: Mutex<Option<ProgressBar>>,
}

impl Spinner {
    pub fn new(quiet: bool) -> Spinner {
        Spinner { quiet, current: Mutex::new(None) }
    }
}

impl Progress for Spinner {
    fn start(&self, stage: &str, _total: u64) {
        let mut cur = self.current.lock().unwrap_or_else(|e| e.into_inner());
        match cur.as_ref() {
            Some(pb) => pb.set_message(stage.to_string()),
            None => *cur = Some(crate::app::spinner(self.quiet, stage)),
        }
    }

    fn advance(&self, _n: u64) {}

    fn finish(&self) {
        if let Some(pb) = self.current.lock().unwrap_or_else(|e| e.into_inner()).take() {
            pb.finish_and_clear();
        }
    }
}
