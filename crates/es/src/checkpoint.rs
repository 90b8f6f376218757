//! Checkpoints of runs stopped by a clarifying question (F09): the question, the choices made
//! so far and the ambiguity, saved under `<data_dir>/es_checkpoints/<id>.json` (temporary file,
//! then rename); `qa es --resume ID --answer "…"` continues from it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::plan::Choices;
use crate::{Ambiguity, EsError};

/// A run interrupted by a clarifying question, as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The run's trace id (also the file name).
    pub id: String,
    /// When it was saved (RFC 3339).
    pub created: String,
    /// The question as asked.
    pub question: String,
    /// The index it ran on, as `--es` takes it: an embedded index's name, or the URL without
    /// credentials.
    pub target: String,
    /// Choices made in earlier rounds.
    pub choices: Choices,
    /// What the user is asked to settle.
    pub ambiguity: Ambiguity,
    /// The page asked for.
    pub offset: usize,
}

/// Where checkpoints are kept.
pub fn dir(data_dir: &Path) -> PathBuf {
    data_dir.join("es_checkpoints")
}

/// Save `cp` atomically; returns its path.
pub fn save(data_dir: &Path, cp: &Checkpoint) -> Result<PathBuf, EsError> {
    let d = dir(data_dir);
    std::fs::create_dir_all(&d).map_err(|e| EsError::io("cannot create", &d, e))?;
    let path = d.join(format!("{}.json", cp.id));
    let bytes = serde_json::to_vec_pretty(cp)?;
    qa_core::fsx::write_atomic(&path, &bytes).map_err(|e| EsError::Checkpoint(e.to_string()))?;
    Ok(path)
}

/// Load the checkpoint whose id starts with `id` (a unique prefix is enough).
pub fn load(data_dir: &Path, id: &str) -> Result<Checkpoint, EsError> {
    let d = dir(data_dir);
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(EsError::Checkpoint(format!("{id:?} is not a checkpoint id")));
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&d)
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json") && p.file_stem().and_then(|s| s.to_str()).is_some_and(|s| s.starts_with(id))).collect())
        .unwrap_or_default();
    match found.len() {
        0 => Err(EsError::Checkpoint(format!("no checkpoint {id} in {} (it is removed once the run is answered)", d.display()))),
        1 => {
            let path = found.remove(0);
            let text = std::fs::read_to_string(&path).map_err(|e| EsError::io("cannot read", &path, e))?;
            serde_json::from_str(&text).map_err(|e| EsError::Checkpoint(format!("{}: {e}", path.display())))
        }
        n => Err(EsError::Checkpoint(format!("{n} checkpoints start with {id}: give more of the id"))),
    }
}

/// Remove a checkpoint (after its run was answered).
pub fn remove(data_dir: &Path, id: &str) {
    let _ = std::fs::remove_file(dir(data_dir).join(format!("{id}.json")));
}

/// The alternative `reply` picks: its number (1-based), its name, or the one whose words the
/// reply shares most ([`qa_question::choice::pick`]; a tie picks none). "yes", "run", "anyway"
/// pick a "run it without …" option.
pub fn pick(reply: &str, alternatives: &[String]) -> Option<String> {
    let r = reply.trim();
    if let Some(a) = alternatives.iter().find(|a| a.eq_ignore_ascii_case(r.trim_start_matches('#'))) {
        return Some(a.clone());
    }
    if let Some(run) = alternatives.iter().find(|a| a.starts_with(crate::plan::RUN_WITHOUT))
        && qa_core::text::words(r).iter().any(|w| matches!(w.as_str(), "yes" | "y" | "run" | "ok" | "okay" | "proceed" | "anyway" | "go" | "force" | "without"))
    {
        return Some(run.clone());
    }
    // Labels with a field path's words spelt out ("createdAt" is also "created at").
    let labels: Vec<String> = alternatives.iter().map(|a| format!("{a} {}", crate::lookup::name_words(a).join(" "))).collect();
    let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
    qa_question::choice::pick(r, &refs).map(|i| alternatives[i].clone())
}
