//! Files written so that a reader never sees half of them: write a temporary sibling, sync it,
//! then rename it into place.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{IoContext, QaError, Result};

/// sha256 of `data` as 64 lower-case hex digits.
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hex(digest: &[u8]) -> String {
    let mut s = String::with_capacity(2 * digest.len());
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

/// Write `rows` to `path` as JSON lines, atomically like [`write_atomic`]; returns the sha256
/// of the bytes written (lower-case hex), so a later run can tell whether the file is still
/// the one it wrote.
pub fn write_jsonl<T: Serialize>(path: &Path, rows: &[T]) -> Result<String> {
    let tmp = path.with_extension("jsonl.tmp");
    let digest = {
        let f = std::fs::File::create(&tmp).ctx("creating", &tmp)?;
        let mut w = HashingWriter { inner: std::io::BufWriter::new(f), hasher: Sha256Stream::default() };
        for row in rows {
            serde_json::to_writer(&mut w, row).map_err(|e| QaError::Data { path: tmp.clone(), reason: e.to_string() })?;
            w.write_all(b"\n").ctx("writing", &tmp)?;
        }
        let HashingWriter { inner, hasher } = w;
        inner.into_inner().map_err(|e| QaError::io("writing", &tmp, e.into_error()))?.sync_all().ctx("syncing", &tmp)?;
        hasher.finish_hex()
    };
    std::fs::rename(&tmp, path).ctx("renaming into place", path)?;
    Ok(digest)
}

/// sha256 over bytes fed in pieces (a file read line by line), as [`sha256_hex`] gives it.
#[derive(Default)]
pub struct Sha256Stream(Sha256);

impl Sha256Stream {
    /// Feed the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest as 64 lower-case hex digits.
    pub fn finish_hex(self) -> String {
        hex(&self.0.finalize())
    }
}

/// A writer that hashes what passes through it.
struct HashingWriter<W> {
    inner: W,
    hasher: Sha256Stream,
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_jsonl_returns_the_hash_of_what_it_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.jsonl");
        let rows = vec![serde_json::json!({"a": 1}), serde_json::json!({"b": "two"})];
        let digest = write_jsonl(&path, &rows).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(bytes, b"{\"a\":1}\n{\"b\":\"two\"}\n");
        assert_eq!(digest, sha256_hex(&bytes));
        let mut stream = Sha256Stream::default();
        for line in bytes.split_inclusive(|b| *b == b'\n') {
            stream.update(line);
        }
        assert_eq!(stream.finish_hex(), digest);
        assert_ne!(write_jsonl(&path, &rows[..1]).unwrap(), digest);
    }
}
