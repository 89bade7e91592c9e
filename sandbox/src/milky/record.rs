//! The Milky recording ([`SandboxConfig::milky_record`](crate::SandboxConfig::milky_record)): a
//! JSONL file, one line per API call and one per event sent. A line that cannot be written is
//! logged and dropped; the sandbox keeps serving.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;

use parking_lot::Mutex;
use serde_json::{Value, json};

/// The open recording, when one is configured.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    file: Mutex<Option<File>>,
}

impl Recorder {
    /// Opens (appends to) `path`; no recording when `None` or when it cannot be opened.
    pub(crate) fn open(path: Option<&Path>) -> Recorder {
        let file = path.and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .map_err(|e| tracing::warn!(path = %p.display(), error = %e, "milky recording not opened"))
                .ok()
        });
        Recorder {
            file: Mutex::new(file),
        }
    }

    fn write(&self, line: &Value) {
        let mut slot = self.file.lock();
        if let Some(f) = slot.as_mut() {
            let mut text = line.to_string();
            text.push('\n');
            if let Err(e) = f.write_all(text.as_bytes()).and_then(|()| f.flush()) {
                tracing::warn!(error = %e, "milky recording line dropped");
            }
        }
    }

    /// Records one call: the body as received and the envelope sent (`None`: a non-200).
    pub(crate) fn call(&self, api: &str, request: &Value, response: Option<&Value>) {
        self.write(&json!({"kind": "call", "api": api, "request": request, "response": response}));
    }

    /// Records one event sent.
    pub(crate) fn event(&self, event: &Value) {
        self.write(&json!({"kind": "event", "event": event}));
    }
}
