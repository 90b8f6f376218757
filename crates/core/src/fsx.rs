//! Files written so that a reader never sees half of them: write a temporary sibling, sync it,
//! then rename it into place.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{IoContext, QaError, Result};

/// sha256 of `data` as 64 lower-case hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    let mut s = String::with_capacity(64);
    for b in digest {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Write `bytes` to `path` atomically (temporary sibling, sync, rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    {
        let mut f = std::fs::File::create(&tmp).ctx("creating", &tmp)?;
        f.write_all(bytes).ctx("writing", &tmp)?;
        f.sync_all().ctx("syncing", &tmp)?;
    }
    std::fs::rename(&tmp, path).ctx("renaming into place", path)
}

/// Write `rows` to `path` as JSON lines, atomically like [`write_atomic`].
pub fn write_jsonl<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let tmp = path.with_extension("jsonl.tmp");
    {
        let f = std::fs::File::create(&tmp).ctx("creating", &tmp)?;
        let mut w = std::io::BufWriter::new(f);
        for row in rows {
            serde_json::to_writer(&mut w, row).map_err(|e| QaError::Data { path: tmp.clone(), reason: e.to_string() })?;
            w.write_all(b"\n").ctx("writing", &tmp)?;
        }
        w.into_inner().map_err(|e| QaError::io("writing", &tmp, e.into_error()))?.sync_all().ctx("syncing", &tmp)?;
    }
    std::fs::rename(&tmp, path).ctx("renaming into place", path)?;
    Ok(())
}
