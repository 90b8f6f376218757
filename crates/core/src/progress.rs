//! Progress of long work. Library stages report what they do through [`Progress`]; only the CLI
//! draws (bars on stderr), so a library caller chooses its own display or none.

/// Receives the stages of a long task and their progress. Stages run one after another.
pub trait Progress: Sync {
    /// A stage named `stage` starts, with `total` units of work.
    fn start(&self, stage: &str, total: u64);
    /// `n` more units of the current stage are done.
    fn advance(&self, n: u64);
    /// The current stage is over.
    fn finish(&self);
}

/// Reports nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _stage: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}
