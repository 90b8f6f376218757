//! Which LLM a run uses: `llm_provider` (`auto`, `local`, `openai`, `none`) resolved against the
//! model files and endpoint settings, then opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::local::{LocalLlm, LocalOptions, WeightMode};
use super::openai::{OpenAiLlm, OpenAiOptions};
use super::{Llm, LlmError};
use crate::config::{LlmProvider, LlmWeights, Settings};

/// The local model `scripts/setup-models.sh` fetches, relative to the models folder.
pub const DEFAULT_LOCAL_MODEL: &str = "SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf";

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "provider", rename_all = "lowercase")]
pub enum LlmChoice {
    Local { path: PathBuf },
    Openai { base_url: String, model: String },
    /// No LLM: answers are extractive. `reason` says why (configured, or nothing available).
    None { reason: String },
}

impl LlmChoice {
    pub fn provider(&self) -> &'static str {
        match self {
            LlmChoice::Local { .. } => "local",
            LlmChoice::Openai { .. } => "openai",
            LlmChoice::None { .. } => "none",
        }
    }
}

/// The GGUF file `llm_model` names: a path, or a file or folder name under the models folder
/// (a folder must hold exactly one `.gguf`).
pub fn local_model_path(settings: &Settings) -> Result<PathBuf, LlmError> {
    let named = settings.llm_model.as_deref().unwrap_or(DEFAULT_LOCAL_MODEL);
    let as_given = PathBuf::from(named);
    let path = if as_given.is_absolute() || as_given.exists() || named.starts_with('.') {
        as_given
    } else {
        settings.models_dir.join(named)
    };
    if path.is_dir() {
        return single_gguf_in(&path);
    }
    Ok(path)
}

fn single_gguf_in(dir: &Path) -> Result<PathBuf, LlmError> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| LlmError::Load { path: dir.display().to_string(), reason: e.to_string() })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("gguf")))
        .collect();
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(LlmError::ModelMissing { path: format!("{}/*.gguf", dir.display()) }),
        n => Err(LlmError::Config(format!(
            "{} holds {n} GGUF files; set QA_LLM_MODEL to one of them: {}",
            dir.display(),
            found.iter().filter_map(|p| p.file_name()).map(|f| f.to_string_lossy().into_owned()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// Resolve the provider without loading anything.
pub fn choose(settings: &Settings) -> Result<LlmChoice, LlmError> {
    let openai = || -> Result<LlmChoice, LlmError> {
        let base_url = settings
            .llm_base_url
            .clone()
            .ok_or_else(|| LlmError::Config("the openai provider needs an endpoint: set QA_LLM_BASE_URL (e.g. http://127.0.0.1:11434/v1)".into()))?;
        let model = settings
            .llm_model
            .clone()
            .ok_or_else(|| LlmError::Config("the openai provider needs a model name: set QA_LLM_MODEL (e.g. gpt-4o-mini)".into()))?;
        Ok(LlmChoice::Openai { base_url, model })
    };
    match settings.llm_provider {
        LlmProvider::None => Ok(LlmChoice::None { reason: "llm_provider is none".into() }),
        LlmProvider::OpenAi => openai(),
        LlmProvider::Local => Ok(LlmChoice::Local { path: local_model_path(settings)? }),
        LlmProvider::Auto => {
            if settings.llm_base_url.is_some() {
                return openai();
            }
            // The bundled 135M model writes worse answers than the extractive writer (BENCHMARKS.md:
            // key terms 0.29 vs 0.48, 36× slower), so `auto` uses a local model only when the user
            // names one; the bundled one is `--llm local`.
            if settings.llm_model.is_none() {
                return Ok(LlmChoice::None {
                    reason: "no LLM endpoint configured (QA_LLM_BASE_URL) and no local model named (QA_LLM_MODEL); \
                             answers are extractive (the bundled SmolLM2-135M is opt-in: --llm local)"
                        .into(),
                });
            }
            match local_model_path(settings) {
                Ok(path) if path.is_file() => Ok(LlmChoice::Local { path }),
                Ok(path) => Ok(LlmChoice::None { reason: format!("no LLM endpoint configured (QA_LLM_BASE_URL) and no local model at {}", path.display()) }),
                Err(e) => Err(e),
            }
        }
    }
}

/// Open the chosen LLM (`None` when the choice is no LLM).
pub fn open(settings: &Settings, choice: &LlmChoice) -> Result<Option<Box<dyn Llm>>, LlmError> {
    match choice {
        LlmChoice::None { .. } => Ok(None),
        LlmChoice::Local { path } => {
            let weights = match settings.llm_weights {
                LlmWeights::Auto => WeightMode::Auto,
                LlmWeights::F32 => WeightMode::F32,
                LlmWeights::Q8 => WeightMode::Q8_0,
                LlmWeights::Keep => WeightMode::Keep,
            };
            let cores = settings.effective_threads();
            let opts = LocalOptions {
                path: path.clone(),
                prefill_threads: if settings.llm_threads == 0 { cores } else { settings.llm_threads },
                decode_threads: if settings.llm_decode_threads == 0 { cores } else { settings.llm_decode_threads },
                weights,
                context_override: (settings.llm_context > 0).then_some(settings.llm_context),
            };
            Ok(Some(Box::new(LocalLlm::load(&opts)?)))
        }
        LlmChoice::Openai { base_url, model } => {
            let opts = OpenAiOptions {
                base_url: base_url.clone(),
                model: model.clone(),
                api_key: settings.llm_api_key.as_ref().map(|k| k.expose().to_string()),
                timeout: Duration::from_secs_f64(settings.llm_timeout_secs),
                max_retries: settings.llm_max_retries,
                context_length: (settings.llm_context > 0).then_some(settings.llm_context),
                backoff: Duration::from_millis(500),
            };
            Ok(Some(Box::new(OpenAiLlm::new(opts)?)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_with(models: &Path) -> Settings {
        Settings { models_dir: models.to_path_buf(), ..Settings::default() }
    }

    #[test]
    fn auto_prefers_the_endpoint_then_a_named_local_model_then_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        match choose(&s).unwrap() {
            LlmChoice::None { reason } => assert!(reason.contains("--llm local"), "{reason}"),
            other => panic!("{other:?}"),
        }
        let file = dir.path().join(DEFAULT_LOCAL_MODEL);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"GGUF").unwrap();
        // The bundled model is opt-in: present but not named, auto stays extractive.
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { .. }));
        s.llm_provider = LlmProvider::Local;
        assert_eq!(choose(&s).unwrap(), LlmChoice::Local { path: file.clone() });
        s.llm_provider = LlmProvider::Auto;
        s.llm_model = Some(DEFAULT_LOCAL_MODEL.into());
        assert_eq!(choose(&s).unwrap(), LlmChoice::Local { path: file });
        s.llm_model = None;
        s.llm_base_url = Some("http://127.0.0.1:9/v1".into());
        assert!(matches!(choose(&s), Err(LlmError::Config(m)) if m.contains("QA_LLM_MODEL")));
        s.llm_model = Some("gpt-4o-mini".into());
        assert_eq!(choose(&s).unwrap(), LlmChoice::Openai { base_url: "http://127.0.0.1:9/v1".into(), model: "gpt-4o-mini".into() });
        s.llm_provider = LlmProvider::None;
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { .. }));
    }

    #[test]
    fn a_model_is_named_by_path_file_name_or_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        std::fs::create_dir_all(dir.path().join("qwen")).unwrap();
        std::fs::write(dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"), b"GGUF").unwrap();
        s.llm_model = Some("qwen".into());
        assert_eq!(local_model_path(&s).unwrap(), dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        s.llm_model = Some("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf".into());
        assert_eq!(local_model_path(&s).unwrap(), dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        std::fs::write(dir.path().join("qwen/other.gguf"), b"GGUF").unwrap();
        s.llm_model = Some("qwen".into());
        assert!(matches!(local_model_path(&s), Err(LlmError::Config(m)) if m.contains("other.gguf")));
        s.llm_provider = LlmProvider::Local;
        s.llm_model = Some(dir.path().join("missing.gguf").display().to_string());
        let choice = choose(&s).unwrap();
        assert!(matches!(open(&s, &choice), Err(LlmError::ModelMissing { .. })));
    }
}
