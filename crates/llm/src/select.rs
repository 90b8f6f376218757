//! Which LLM a run uses: `llm_provider` (`auto`, `local`, `openai`, `none`) resolved against the
//! model files and endpoint settings, then opened. Without the `local-llm` cargo feature, `local`
//! is an error ([`LlmError::LocalNotBuilt`]) and `auto` never picks a local model.

#[cfg(feature = "local-llm")]
use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

#[cfg(feature = "local-llm")]
use super::local::{LocalLlm, LocalOptions, WeightMode};
use super::openai::{OpenAiLlm, OpenAiOptions};
use super::{Llm, LlmError};
use qa_core::secret::Secret;
use qa_core::setting_enum;

// `setting_enum!` takes no docs for the variants: they are the setting's values, named in the
// strings beside them.
setting_enum! {
    /// `llm_provider`: `auto` uses an endpoint if one is configured, else a named local model, else
    /// none; `local` the local model (the bundled one unless named); `openai` the endpoint.
    #[allow(missing_docs)]
    LlmProvider { Auto => "auto", Local => "local", OpenAi => "openai", None => "none" }
}
setting_enum! {
    /// `llm_weights`: how a local model's weights are held in memory.
    #[allow(missing_docs)]
    LlmWeights { Auto => "auto", F32 => "f32", Q8 => "q8_0", Keep => "keep" }
}

setting_enum! {
    /// `cypher_generation`, `sql_generation`: may the LLM write queries?
    #[allow(missing_docs)]
    Generation { Auto => "auto", On => "on", Off => "off" }
}

impl From<bool> for Generation {
    fn from(on: bool) -> Self {
        if on { Generation::On } else { Generation::Off }
    }
}

impl Generation {
    /// Why the LLM may not write the queries this `setting` governs, or `None` when it may. `auto`
    /// means remote LLMs only: the bundled 135M local model answered the Cypher and SQL prompts
    /// with prose or the prompt's own keywords in every trial, at 5–8 s a question.
    pub fn refusal(self, setting: &str, llm_is_local: bool) -> Option<String> {
        match self {
            Generation::Off => Some(format!("{setting} is off")),
            Generation::Auto if llm_is_local => Some(format!(
                "{setting} is auto and the LLM is local (small local models write no usable queries; set {setting} = \"on\" to try)"
            )),
            Generation::Auto | Generation::On => None,
        }
    }
}

/// What [`choose`] and [`open`] need to pick and open an LLM; the CLI fills it from its settings.
#[derive(Debug, Clone)]
pub struct LlmSettings {
    /// Which provider to use.
    pub provider: LlmProvider,
    /// A local GGUF (path, or file or folder under `models_dir`) or a remote model name.
    pub model: Option<String>,
    /// An OpenAI-compatible endpoint.
    pub base_url: Option<String>,
    /// The endpoint's API key (sent as a bearer token), if it needs one.
    pub api_key: Option<Secret>,
    /// Where local model names are looked up.
    pub models_dir: PathBuf,
    /// How a local model's weights are held in memory.
    pub weights: LlmWeights,
    /// Cores to use when `prefill_threads` / `decode_threads` are 0.
    pub cores: usize,
    /// Threads for prompt processing (local model; 0 = `cores`).
    pub prefill_threads: usize,
    /// Threads for token generation (local model; 0 = `cores`).
    pub decode_threads: usize,
    /// Context length override (0 = the model's own).
    pub context: usize,
    /// Whole-request limit for an endpoint call, in seconds.
    pub timeout_secs: f64,
    /// Retries after the first attempt on 429, 5xx and connection errors (endpoint only).
    pub max_retries: u32,
}

impl Default for LlmSettings {
    fn default() -> Self {
        LlmSettings {
            provider: LlmProvider::Auto,
            model: None,
            base_url: None,
            api_key: None,
            models_dir: PathBuf::from("models"),
            weights: LlmWeights::Auto,
            cores: 1,
            prefill_threads: 0,
            decode_threads: 0,
            context: 0,
            timeout_secs: 60.0,
            max_retries: 3,
        }
    }
}

/// The local model `scripts/setup-models.sh` fetches, relative to the models folder.
pub const DEFAULT_LOCAL_MODEL: &str = "SmolLM2-135M-Instruct/SmolLM2-135M-Instruct.Q4_1.gguf";

/// The LLM a run will use, as resolved by [`choose`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "provider", rename_all = "lowercase")]
pub enum LlmChoice {
    /// A local GGUF model.
    Local {
        /// The GGUF file to load.
        path: PathBuf,
    },
    /// An OpenAI-compatible endpoint.
    Openai {
        /// The endpoint, as configured.
        base_url: String,
        /// The remote model name.
        model: String,
    },
    /// No LLM: answers are extractive.
    None {
        /// Why: so configured, or nothing available.
        reason: String,
    },
}

/// The GGUF file `llm_model` names: a path, or a file or folder name under the models folder
/// (a folder must hold exactly one `.gguf`).
#[cfg(feature = "local-llm")]
pub(crate) fn local_model_path(settings: &LlmSettings) -> Result<PathBuf, LlmError> {
    let named = settings.model.as_deref().unwrap_or(DEFAULT_LOCAL_MODEL);
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

#[cfg(feature = "local-llm")]
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
pub fn choose(settings: &LlmSettings) -> Result<LlmChoice, LlmError> {
    let openai = || -> Result<LlmChoice, LlmError> {
        let base_url = settings
            .base_url
            .clone()
            .ok_or_else(|| LlmError::Config("the openai provider needs an endpoint: set QA_LLM_BASE_URL (e.g. http://127.0.0.1:11434/v1)".into()))?;
        let model = settings
            .model
            .clone()
            .ok_or_else(|| LlmError::Config("the openai provider needs a model name: set QA_LLM_MODEL (e.g. gpt-4o-mini)".into()))?;
        Ok(LlmChoice::Openai { base_url, model })
    };
    match settings.provider {
        LlmProvider::None => Ok(LlmChoice::None { reason: "llm_provider is none".into() }),
        LlmProvider::OpenAi => openai(),
        LlmProvider::Local => local_choice(settings),
        LlmProvider::Auto => {
            if settings.base_url.is_some() {
                return openai();
            }
            // The bundled 135M model writes worse answers than the extractive writer (BENCHMARKS.md:
            // key terms 0.29 vs 0.48, 36× slower), so `auto` uses a local model only when the user
            // names one; the bundled one is `--llm local`.
            if settings.model.is_none() {
                return Ok(LlmChoice::None { reason: NOTHING_CONFIGURED.into() });
            }
            auto_local(settings)
        }
    }
}

/// Why `auto` chose no LLM when nothing is configured.
#[cfg(feature = "local-llm")]
const NOTHING_CONFIGURED: &str = "no LLM endpoint configured (QA_LLM_BASE_URL) and no local model named (QA_LLM_MODEL); \
                                  answers are extractive (the bundled SmolLM2-135M is opt-in: --llm local)";
#[cfg(not(feature = "local-llm"))]
const NOTHING_CONFIGURED: &str = "no LLM endpoint configured (QA_LLM_BASE_URL); answers are extractive \
                                  (this qa was built without the `local-llm` feature, so it runs no local model)";

/// `llm_provider = local`: the named (or bundled) GGUF file.
#[cfg(feature = "local-llm")]
fn local_choice(settings: &LlmSettings) -> Result<LlmChoice, LlmError> {
    Ok(LlmChoice::Local { path: local_model_path(settings)? })
}

/// `llm_provider = local` in a build without a local model runtime.
#[cfg(not(feature = "local-llm"))]
fn local_choice(_settings: &LlmSettings) -> Result<LlmChoice, LlmError> {
    Err(LlmError::LocalNotBuilt)
}

/// `auto` with no endpoint and a model named: that local model if its file exists.
#[cfg(feature = "local-llm")]
fn auto_local(settings: &LlmSettings) -> Result<LlmChoice, LlmError> {
    let path = local_model_path(settings)?;
    if path.is_file() {
        return Ok(LlmChoice::Local { path });
    }
    Ok(LlmChoice::None { reason: format!("no LLM endpoint configured (QA_LLM_BASE_URL) and no local model at {}", path.display()) })
}

/// `auto` with no endpoint and a model named, in a build that cannot run it: no LLM, saying why
/// (an error would stop commands that work fine with extractive answers).
#[cfg(not(feature = "local-llm"))]
fn auto_local(_settings: &LlmSettings) -> Result<LlmChoice, LlmError> {
    Ok(LlmChoice::None {
        reason: "no LLM endpoint configured (QA_LLM_BASE_URL), and QA_LLM_MODEL names a local model, which this qa \
                 cannot run: it was built without the `local-llm` cargo feature; answers are extractive"
            .into(),
    })
}

/// Load the local model at `path` with the settings' weights and threads.
#[cfg(feature = "local-llm")]
fn open_local(settings: &LlmSettings, path: &Path) -> Result<Box<dyn Llm>, LlmError> {
    let weights = match settings.weights {
        LlmWeights::Auto => WeightMode::Auto,
        LlmWeights::F32 => WeightMode::F32,
        LlmWeights::Q8 => WeightMode::Q8_0,
        LlmWeights::Keep => WeightMode::Keep,
    };
    let cores = settings.cores;
    let opts = LocalOptions {
        path: path.to_path_buf(),
        prefill_threads: if settings.prefill_threads == 0 { cores } else { settings.prefill_threads },
        decode_threads: if settings.decode_threads == 0 { cores } else { settings.decode_threads },
        weights,
        context_override: (settings.context > 0).then_some(settings.context),
    };
    Ok(Box::new(LocalLlm::load(&opts)?))
}

/// A local model in a build without the `local-llm` feature.
#[cfg(not(feature = "local-llm"))]
fn open_local(_settings: &LlmSettings, _path: &std::path::Path) -> Result<Box<dyn Llm>, LlmError> {
    Err(LlmError::LocalNotBuilt)
}

/// Open the chosen LLM (`None` when the choice is no LLM).
pub fn open(settings: &LlmSettings, choice: &LlmChoice) -> Result<Option<Box<dyn Llm>>, LlmError> {
    match choice {
        LlmChoice::None { .. } => Ok(None),
        LlmChoice::Local { path } => open_local(settings, path).map(Some),
        LlmChoice::Openai { base_url, model } => {
            let opts = OpenAiOptions {
                base_url: base_url.clone(),
                model: model.clone(),
                api_key: settings.api_key.as_ref().map(|k| k.expose().to_string()),
                timeout: Duration::from_secs_f64(settings.timeout_secs),
                max_retries: settings.max_retries,
                context_length: (settings.context > 0).then_some(settings.context),
                backoff: Duration::from_millis(500),
            };
            Ok(Some(Box::new(OpenAiLlm::new(opts)?)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn settings_with(models: &Path) -> LlmSettings {
        LlmSettings { models_dir: models.to_path_buf(), ..LlmSettings::default() }
    }

    #[test]
    fn auto_prefers_the_endpoint_else_none() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        match choose(&s).unwrap() {
            LlmChoice::None { reason } => {
                let hint = if cfg!(feature = "local-llm") { "--llm local" } else { "local-llm" };
                assert!(reason.contains(hint), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        s.base_url = Some("http://127.0.0.1:9/v1".into());
        assert!(matches!(choose(&s), Err(LlmError::Config(m)) if m.contains("QA_LLM_MODEL")));
        s.model = Some("gpt-4o-mini".into());
        assert_eq!(choose(&s).unwrap(), LlmChoice::Openai { base_url: "http://127.0.0.1:9/v1".into(), model: "gpt-4o-mini".into() });
        s.provider = LlmProvider::OpenAi;
        assert!(matches!(choose(&s).unwrap(), LlmChoice::Openai { .. }));
        s.provider = LlmProvider::None;
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { .. }));
    }

    #[cfg(feature = "local-llm")]
    #[test]
    fn auto_uses_a_local_model_only_when_named() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        let file = dir.path().join(DEFAULT_LOCAL_MODEL);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"GGUF").unwrap();
        // The bundled model is opt-in: present but not named, auto stays extractive.
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { .. }));
        s.provider = LlmProvider::Local;
        assert_eq!(choose(&s).unwrap(), LlmChoice::Local { path: file.clone() });
        s.provider = LlmProvider::Auto;
        s.model = Some(DEFAULT_LOCAL_MODEL.into());
        assert_eq!(choose(&s).unwrap(), LlmChoice::Local { path: file });
        s.model = Some("missing.gguf".into());
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { reason } if reason.contains("missing.gguf")));
    }

    #[cfg(feature = "local-llm")]
    #[test]
    fn a_model_is_named_by_path_file_name_or_folder() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        std::fs::create_dir_all(dir.path().join("qwen")).unwrap();
        std::fs::write(dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"), b"GGUF").unwrap();
        s.model = Some("qwen".into());
        assert_eq!(local_model_path(&s).unwrap(), dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        s.model = Some("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf".into());
        assert_eq!(local_model_path(&s).unwrap(), dir.path().join("qwen/qwen2.5-0.5b-instruct-q4_k_m.gguf"));
        std::fs::write(dir.path().join("qwen/other.gguf"), b"GGUF").unwrap();
        s.model = Some("qwen".into());
        assert!(matches!(local_model_path(&s), Err(LlmError::Config(m)) if m.contains("other.gguf")));
        s.provider = LlmProvider::Local;
        s.model = Some(dir.path().join("missing.gguf").display().to_string());
        let choice = choose(&s).unwrap();
        assert!(matches!(open(&s, &choice), Err(LlmError::ModelMissing { .. })));
    }

    #[cfg(not(feature = "local-llm"))]
    #[test]
    fn without_the_feature_local_is_an_error_and_auto_skips_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = settings_with(dir.path());
        let file = dir.path().join(DEFAULT_LOCAL_MODEL);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, b"GGUF").unwrap();
        s.provider = LlmProvider::Local;
        let err = choose(&s).unwrap_err();
        assert!(matches!(err, LlmError::LocalNotBuilt), "{err:?}");
        assert!(err.to_string().contains("--features local-llm"), "{err}");
        // A local choice made some other way does not open either.
        assert!(matches!(open(&s, &LlmChoice::Local { path: file }), Err(LlmError::LocalNotBuilt)));
        s.provider = LlmProvider::Auto;
        s.model = Some(DEFAULT_LOCAL_MODEL.into());
        assert!(matches!(choose(&s).unwrap(), LlmChoice::None { reason } if reason.contains("local-llm")));
    }
}
