//! The operator's record (`mcp-testserver --record FILE`): every transcript entry of every
//! session and connection, appended to a file as one JSON line
//! `{"at_ms": <unix epoch ms>, "direction": "in"|"out", "message": <the entry's JSON form>}`
//! and flushed at once, so the file holds everything up to the moment a client killed or closed
//! its session, or the server itself was killed. Unlike a [`crate::transcript::Transcript`] it
//! is unbounded (the operator asked for the file) and no client can read it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use serde_json::{Value, json};

/// A shared handle on the record file; every transcript of a server appends to the same one.
#[derive(Clone, Debug)]
pub struct Record {
    file: Arc<Mutex<RecordFile>>,
}

#[derive(Debug)]
struct RecordFile {
    writer: BufWriter<File>,
    /// The last `at_ms` written: the wall clock may step back, the record's times never do.
    last_ms: u128,
    /// Whether a write failed (reported once on stderr; the server serves on).
    failed: bool,
}

impl Record {
    /// Creates (or truncates) `path` for the record.
    pub fn create(path: &Path) -> anyhow::Result<Record> {
        let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Record {
            file: Arc::new(Mutex::new(RecordFile {
                writer: BufWriter::new(file),
                last_ms: 0,
                failed: false,
            })),
        })
    }

    /// Appends one entry as a line and flushes it: `direction` is `in` or `out`, `message` the
    /// entry's JSON form ([`crate::transcript::Entry::to_json`]). This module knows no
    /// transcript type, so the transcript can depend on it.
    pub fn append(&self, direction: &str, message: &Value) {
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_millis())
            .unwrap_or(0);
        let at_ms = now.max(file.last_ms);
        file.last_ms = at_ms;
        let line = json!({"at_ms": at_ms as u64, "direction": direction, "message": message});
        let RecordFile { writer, failed, .. } = &mut *file;
        let written = serde_json::to_writer(&mut *writer, &line)
            .map_err(std::io::Error::from)
            .and_then(|()| writer.write_all(b"\n"))
            .and_then(|()| writer.flush());
        if let Err(error) = written
            && !*failed
        {
            *failed = true;
            eprintln!("mcp-testserver: error: writing the --record file: {error}");
        }
    }
}
