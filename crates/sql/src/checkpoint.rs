//! Checkpoints of interrupted SQL runs: when the planner needs a clarification, the whole
//! state is saved under `<data_dir>/sql_checkpoints/<id>.json` (written to a temp file, then
//! renamed) and `qa sql --resume <id> --answer "..."` continues from it. The database is stored
//! without its password; a resumed run reads the password from the environment again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::agent::AgentOptions;
use super::state::AgentState;
use super::SqlError;

/// A run interrupted by a clarifying question, as saved.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The run's trace id (also the file name).
    pub(crate) id: String,
    /// When it was saved (RFC 3339).
    pub(crate) created: String,
    /// The question the run was asked.
    pub question: String,
    /// The database (redacted URL).
    pub database: String,
    /// The run's options, reused on resume.
    pub options: AgentOptions,
    pub(crate) state: AgentState,
}

/// Where checkpoints are kept under `data_dir`.
pub(crate) fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("sql_checkpoints")
}

/// Write `cp` (temp file, then rename); returns its path.
pub(crate) fn save(data_dir: &Path, cp: &Checkpoint) -> Result<PathBuf, SqlError> {
    let d = dir(data_dir);
    std::fs::create_dir_all(&d).map_err(|source| SqlError::Io { action: "cannot create", path: d.clone(), source })?;
    let path = d.join(format!("{}.json", cp.id));
    let tmp = d.join(format!(".{}.json.tmp", cp.id));
    let text = serde_json::to_string_pretty(cp).map_err(SqlError::SaveCheckpoint)?;
    std::fs::write(&tmp, text).map_err(|source| SqlError::Io { action: "cannot write", path: tmp.clone(), source })?;
    std::fs::rename(&tmp, &path).map_err(|source| SqlError::Io { action: "cannot write", path: path.clone(), source })?;
    Ok(path)
}

/// Load by id or unique id prefix.
pub fn load(data_dir: &Path, id: &str) -> Result<Checkpoint, SqlError> {
    let d = dir(data_dir);
    let id = id.trim();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(SqlError::CheckpointId(id.to_string()));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&d)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(id) && n.ends_with(".json"))).collect())
        .unwrap_or_default();
    found.sort();
    match found.len() {
        0 => Err(SqlError::CheckpointMissing { id: id.to_string(), dir: d }),
        1 => {
            let path = found.remove(0);
            let text = std::fs::read_to_string(&path).map_err(|source| SqlError::Io { action: "cannot read", path: path.clone(), source })?;
            serde_json::from_str(&text).map_err(|source| SqlError::BadCheckpoint { path, source })
        }
        n => Err(SqlError::CheckpointAmbiguous { id: id.to_string(), matches: n }),
    }
}

/// Remove a checkpoint once its run has finished.
pub(crate) fn remove(data_dir: &Path, id: &str) {
    let _ = std::fs::remove_file(dir(data_dir).join(format!("{id}.json")));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_load_by_prefix_and_remove() {
        let d = tempfile::tempdir().unwrap();
        let mut state = AgentState::default();
        state.apply("input", crate::state::update([("question", serde_json::json!("q"))]), 0.0).unwrap();
        let cp = Checkpoint { id: "abc123".into(), created: "now".into(), question: "q".into(), database: "sqlite://x.db".into(), options: AgentOptions::default(), state };
        save(d.path(), &cp).unwrap();
        let back = load(d.path(), "abc").unwrap();
        assert_eq!(back.state, cp.state);
        assert!(load(d.path(), "zzz").unwrap_err().to_string().contains("no checkpoint"));
        assert!(load(d.path(), "../etc").is_err());
        remove(d.path(), "abc123");
        assert!(load(d.path(), "abc").is_err());
    }
}
