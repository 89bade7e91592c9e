//! The peer's own object (a message, a member, a group, an event), kept
//! verbatim as JSON text for callers that show it (tool details, unknown
//! events). The domain never reads inside it.

use std::fmt;
use std::sync::Arc;

/// A list of JSON texts shared by many [`RawJson`]s: an adapter decodes a
/// page of objects once and lets each object find its own text when asked.
pub trait RawEntries: Send + Sync + 'static {
    /// The JSON text of entry `index` (`null` when there is none).
    fn entry(&self, index: usize) -> &str;

    /// The bytes of the shared text one entry accounts for: the whole
    /// text's length over the number of entries, known without locating
    /// any entry, so the entries of a list together count the text once.
    fn share_bytes(&self) -> usize;
}

/// A JSON value kept as its text, produced only when asked for.
#[derive(Clone)]
pub struct RawJson(Repr);

#[derive(Clone)]
enum Repr {
    /// Text of its own.
    Text(Arc<str>),
    /// Entry `index` of a shared list.
    Entry(Arc<dyn RawEntries>, usize),
}

impl RawJson {
    /// JSON `null`.
    pub fn null() -> RawJson {
        RawJson(Repr::Text(Arc::from("null")))
    }

    /// A value from its JSON text. The caller vouches that `text` is one
    /// valid JSON value.
    pub fn from_text(text: impl Into<Arc<str>>) -> RawJson {
        RawJson(Repr::Text(text.into()))
    }

    /// Entry `index` of `entries`.
    pub fn entry(entries: Arc<dyn RawEntries>, index: usize) -> RawJson {
        RawJson(Repr::Entry(entries, index))
    }

    /// About how many bytes of memory the text takes: its length, or for
    /// an entry of a shared list its [share](RawEntries::share_bytes) of
    /// the shared text. Never produces the text.
    pub fn approx_bytes(&self) -> usize {
        match &self.0 {
            Repr::Text(text) => text.len(),
            Repr::Entry(entries, _) => entries.share_bytes(),
        }
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        match &self.0 {
            Repr::Text(text) => text,
            Repr::Entry(entries, index) => entries.entry(*index),
        }
    }
}

impl Default for RawJson {
    fn default() -> Self {
        RawJson::null()
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.text())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.text() == other.text()
    }
}
