//! An answer's `data` read from its text in one pass (a history page, a
//! member list): each object decoded as it is read, its `raw` pointing into
//! the shared text instead of holding a copy.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::message::PeerMessage;
use super::scalar::KeyIn;
use crate::frame::{self, FrameText};
use onebot_gateway_domain::model::{ChatRef, Message, RawEntries, RawJson};

/// What a history answer's `data` holds.
#[derive(Debug)]
pub enum Entries {
    /// No list: `null`, or an object without `messages`.
    None,
    /// The entries that are messages, in the peer's order, and how many
    /// entries the list had.
    List {
        /// The decoded messages.
        messages: Vec<Message>,
        /// Entries in the list, messages or not.
        returned: usize,
    },
    /// An object whose `messages` is not an array.
    NotAnArray,
    /// Neither an array nor an object.
    NotAnObject,
}

/// Decodes a history answer's `data` (a message array, or an object with
/// one under `messages`) in one pass over its text. Each message's `raw`
/// shares the text rather than copying its entry out.
pub fn history_entries(data: Box<RawValue>, chat: ChatRef) -> Entries {
    let page = Arc::new(PageText::new(data));
    let mut de = serde_json::Deserializer::from_str(page.text());
    // The text is valid JSON; only a nesting deeper than serde_json allows
    // fails here.
    match ShapeVisitor::new(&page, chat).deserialize(&mut de) {
        Ok(entries) if de.end().is_ok() => entries,
        _ => Entries::NotAnObject,
    }
}

/// A whole history reply read in one pass: its top-level fields (as
/// [`Frame::head`](crate::frame::Frame::head)) and the entries of
/// its `data` ([`Entries::None`] without one), as [`history_entries`] reads
/// them. `None` when the text is not a JSON object.
pub fn history_entries_of_frame(text: FrameText, chat: ChatRef) -> Option<(Value, Entries)> {
    let page = Arc::new(PageText::frame(text));
    let (head, entries) = frame::read_with(page.text(), ShapeVisitor::new(&page, chat)).ok()?;
    Some((head, entries.unwrap_or(Entries::None)))
}

/// An answer's `data` text (a history page, a member list), shared by the
/// objects decoded from it: the text of `data` alone, or of the whole reply
/// it is the `data` of.
pub(super) struct PageText {
    text: Source,
    /// Where each entry of the list lies in the text.
    entries: OnceLock<Vec<Range<usize>>>,
    /// How many entries the list has, as its reader counted them.
    count: AtomicUsize,
}

enum Source {
    Data(Box<RawValue>),
    Frame(FrameText),
}

impl PageText {
    /// The shared text of `data`.
    pub(super) fn new(data: Box<RawValue>) -> PageText {
        PageText {
            text: Source::Data(data),
            entries: OnceLock::new(),
            count: AtomicUsize::new(0),
        }
    }

    /// The shared text of a whole reply; the list is in its `data`.
    pub(super) fn frame(text: FrameText) -> PageText {
        PageText {
            text: Source::Frame(text),
            entries: OnceLock::new(),
            count: AtomicUsize::new(0),
        }
    }

    /// Records how many entries the list has (the last list read wins,
    /// as a repeated key does in a tree).
    pub(super) fn counted(&self, entries: usize) {
        self.count.store(entries, Ordering::Relaxed);
    }

    /// The text.
    pub(super) fn text(&self) -> &str {
        match &self.text {
            Source::Data(data) => data.get(),
            Source::Frame(text) => text.as_str(),
        }
    }

    /// Where the entries lie in [`text`](Self::text).
    fn ranges(&self) -> Vec<Range<usize>> {
        let text = self.text();
        let data = match self.text {
            Source::Data(_) => Some(text),
            // Later duplicates win, as in a `Value`.
            Source::Frame(_) => serde_json::from_str::<BTreeMap<String, &RawValue>>(text)
                .ok()
                .and_then(|o| o.get("data").map(|d| d.get())),
        };
        let Some(data) = data else {
            return Vec::new();
        };
        // `data` borrows from `text`: its offset is the distance between
        // the two.
        let offset = data.as_ptr() as usize - text.as_ptr() as usize;
        entry_ranges(data)
            .into_iter()
            .map(|r| r.start + offset..r.end + offset)
            .collect()
    }
}

impl RawEntries for PageText {
    /// The text of entry `index` (`null` if there is none).
    fn entry(&self, index: usize) -> &str {
        let text = self.text();
        self.entries
            .get_or_init(|| self.ranges())
            .get(index)
            .and_then(|r| text.get(r.clone()))
            .unwrap_or("null")
    }

    fn share_bytes(&self) -> usize {
        self.text().len() / self.count.load(Ordering::Relaxed).max(1)
    }
}

/// Where the entries of the message list in `text` lie.
fn entry_ranges(text: &str) -> Vec<Range<usize>> {
    // `text` is a `RawValue`'s: valid JSON, no leading space.
    let list: Option<&RawValue> = if text.starts_with('{') {
        serde_json::from_str::<BTreeMap<String, &RawValue>>(text)
            .ok()
            .and_then(|o| o.get("messages").copied())
    } else {
        serde_json::from_str(text).ok()
    };
    let entries: Vec<&RawValue> = list
        .and_then(|l| serde_json::from_str(l.get()).ok())
        .unwrap_or_default();
    let base = text.as_ptr() as usize;
    entries
        .into_iter()
        .map(|e| {
            // Each entry borrows from `text`: its offset is the distance
            // between the two.
            let start = e.get().as_ptr() as usize - base;
            start..start + e.get().len()
        })
        .collect()
}

/// Reads `data` (`inner`: false) or its `messages` (`inner`: true) into
/// the page's entries, each message decoded as its object is read; their
/// `raw` share `page`.
#[derive(Clone, Copy)]
struct ShapeVisitor<'p> {
    inner: bool,
    page: &'p Arc<PageText>,
    chat: ChatRef,
}

impl<'de> DeserializeSeed<'de> for ShapeVisitor<'_> {
    type Value = Entries;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Entries, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'p> ShapeVisitor<'p> {
    fn new(page: &'p Arc<PageText>, chat: ChatRef) -> Self {
        ShapeVisitor {
            inner: false,
            page,
            chat,
        }
    }

    fn other(&self) -> Entries {
        if self.inner {
            Entries::NotAnArray
        } else {
            Entries::NotAnObject
        }
    }
}

impl<'de> Visitor<'de> for ShapeVisitor<'_> {
    type Value = Entries;

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Entries, E> {
        Ok(self.other())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Entries, E> {
        Ok(self.other())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Entries, E> {
        Ok(self.other())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Entries, E> {
        Ok(self.other())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Entries, E> {
        Ok(self.other())
    }

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    /// `null` data is no list; `"messages": null` is an empty one (the
    /// peer knows the action and has nothing).
    fn visit_unit<E: de::Error>(self) -> Result<Entries, E> {
        Ok(if self.inner {
            Entries::List {
                messages: Vec::new(),
                returned: 0,
            }
        } else {
            Entries::None
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entries, A::Error> {
        let mut messages = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut returned = 0;
        while let Some(entry) = seq.next_element::<PeerMessage<'de>>()? {
            let index = returned;
            returned += 1;
            let raw = || RawJson::entry(self.page.clone(), index);
            messages.extend(entry.into_message(Some(self.chat), raw));
        }
        self.page.counted(returned);
        Ok(Entries::List { messages, returned })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
        // Inside `messages`, an object is just not an array.
        let mut shape = if self.inner {
            Entries::NotAnArray
        } else {
            Entries::None
        };
        while let Some(index) =
            map.next_key_seed(KeyIn(|key: &str| (key == "messages").then_some(0)))?
        {
            match index {
                // Later duplicates win, as in a `Value`.
                Some(_) if !self.inner => {
                    shape = map.next_value_seed(ShapeVisitor {
                        inner: true,
                        ..self
                    })?
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(shape)
    }
}
