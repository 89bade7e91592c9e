//! Message objects decoded straight from their JSON text (history pages).
//!
//! A page of history is decoded in one pass over the answer's `data`
//! ([`history_entries`]); each message's `raw` then points into that text
//! instead of holding a copy.
//!
//! Only what a [`Message`] is made of is decoded: the top-level fields
//! [`decode_message`](super::decode_message) reads, the `sender` fields and
//! the segments; every other key is skipped without building anything. The
//! result is the same as decoding the text into a [`Value`] and calling
//! [`decode_message`](super::decode_message) (a property test holds the two together), at a
//! fraction of the allocations.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::scalar::Scalar;
use super::value::{
    Fields, SEGMENT_FIELDS, SegmentFields, message_of_fields, raw_of_text, reads_fields,
    segment_of_fields, segment_of_parts, segments_of,
};
use crate::domain::model::{ChatRef, Message, RawEntries, RawJson, Segment};
use crate::onebot::frame::{self, FrameText};

/// The top-level keys decoding reads: the plain fields first, then
/// `sender` and `message`, which have readers of their own.
const KEYS: [&str; 13] = [
    "user_id",
    "message_id",
    "group_id",
    "message_type",
    "post_type",
    "target_id",
    "real_seq",
    "message_seq",
    "real_id",
    "time",
    "raw_message",
    "sender",
    "message",
];
/// How many of [`KEYS`] are plain fields.
const PLAIN: usize = 11;
const SENDER_KEYS: [&str; 4] = ["user_id", "nickname", "card", "role"];
const SEGMENT_KEYS: [&str; 2] = ["type", "data"];

/// The `visit_*` methods of the listed JSON scalars (`bool`, `i64`, `u64`,
/// `f64`, `str`, `unit`), each answering `$answer(&self)`: the visitors
/// here take any JSON value and only look inside some.
macro_rules! scalars {
    ($out:ty, $answer:expr; $($kind:ident),*) => {
        $(scalars!(@one $out, $answer, $kind);)*
    };
    (@one $out:ty, $answer:expr, bool) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
    (@one $out:ty, $answer:expr, i64) => {
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
    (@one $out:ty, $answer:expr, u64) => {
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
    (@one $out:ty, $answer:expr, f64) => {
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
    (@one $out:ty, $answer:expr, str) => {
        fn visit_str<E: de::Error>(self, _: &str) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
    (@one $out:ty, $answer:expr, unit) => {
        fn visit_unit<E: de::Error>(self) -> Result<$out, E> {
            Ok(($answer)(&self))
        }
    };
}

/// The [`DeserializeSeed`] of a visitor that takes any JSON value: the
/// seed is the visitor itself (`$de` names the input's lifetime in `$ty`).
macro_rules! seed_is_visitor {
    ($de:lifetime, $ty:ty, $out:ty) => {
        impl<$de> DeserializeSeed<$de> for $ty {
            type Value = $out;

            fn deserialize<D: Deserializer<$de>>(self, deserializer: D) -> Result<$out, D::Error> {
                deserializer.deserialize_any(self)
            }
        }
    };
}

/// [`decode_message`](super::decode_message) reading the object's text:
/// only the fields a message is made of are decoded, the rest is skipped,
/// and `raw` keeps the text as it came.
pub fn decode_message_json(raw: &RawValue, chat: Option<ChatRef>) -> Option<Message> {
    message(raw.get(), chat, || raw_of_text(raw))
}

/// The message in `text`, if it is one (see
/// [`decode_message`](super::decode_message)).
fn message(text: &str, chat: Option<ChatRef>, raw: impl FnOnce() -> RawJson) -> Option<Message> {
    let mut fields = MessageFields::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let object = MessageInto(&mut fields).deserialize(&mut de).ok()?;
    de.end().ok()?;
    if !object {
        return None;
    }
    finish(&mut fields, chat, raw)
}

/// The message made of `fields`, if the ids check out.
fn finish(
    fields: &mut MessageFields<'_>,
    chat: Option<ChatRef>,
    raw: impl FnOnce() -> RawJson,
) -> Option<Message> {
    // The segments as read, or the value `message` held instead.
    let read = match std::mem::replace(&mut fields.message, MessageField::Other(Value::Null)) {
        MessageField::Segments(segments) => Ok(segments),
        MessageField::Other(value) => Err(value),
        MessageField::Redo => {
            // A segment this pass could not read exactly: the whole object
            // is decoded again from a tree of its text.
            let raw = raw();
            let tree: Value = serde_json::from_str(raw.text()).ok()?;
            let mut decoded = super::value::decode_message(&tree, chat)?;
            decoded.raw = raw;
            return Some(decoded);
        }
    };
    let view = View {
        top: &fields.top,
        sender: &fields.sender,
    };
    let raw_message = view.value_of("raw_message");
    let raw_message = raw_message.as_str();
    let segments = move || match read {
        Ok(segments) if !segments.is_empty() => segments,
        Ok(_) => segments_of(&Value::Null, raw_message),
        Err(value) => segments_of(&value, raw_message),
    };
    message_of_fields(&view, chat, segments, raw)
}

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
/// [`Frame::head`](crate::onebot::frame::Frame::head)) and the entries of
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
        }
    }

    /// The shared text of a whole reply; the list is in its `data`.
    pub(super) fn frame(text: FrameText) -> PageText {
        PageText {
            text: Source::Frame(text),
            entries: OnceLock::new(),
        }
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

seed_is_visitor!('de, ShapeVisitor<'_>, Entries);

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

    scalars!(Entries, |v: &Self| v.other(); bool, i64, u64, f64, str);

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
        // One buffer for every entry: each is read into it in place.
        let mut fields = MessageFields::new();
        while let Some(object) = seq.next_element_seed(MessageInto(&mut fields))? {
            let index = returned;
            returned += 1;
            if object {
                let raw = || RawJson::entry(self.page.clone(), index);
                messages.extend(finish(&mut fields, Some(self.chat), raw));
            }
        }
        Ok(Entries::List { messages, returned })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
        // Inside `messages`, an object is just not an array.
        let mut shape = if self.inner {
            Entries::NotAnArray
        } else {
            Entries::None
        };
        while let Some(index) = map.next_key_seed(Key(&["messages"]))? {
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

/// What decoding reads of a message object: its fields as scalars,
/// strings borrowed from the text.
struct MessageFields<'de> {
    top: [Scalar<'de>; PLAIN],
    /// `Null`s when `sender` is absent or not an object.
    sender: [Scalar<'de>; SENDER_KEYS.len()],
    message: MessageField,
}

/// The `message` field: a segment array decoded on the spot, or any other
/// value for [`segments_of`].
enum MessageField {
    Segments(Vec<Segment>),
    Other(Value),
    /// A segment array with an entry read for the wrong kind (a `type`
    /// repeated after `data`): the message is decoded again from a tree.
    Redo,
}

struct View<'a, 'de> {
    top: &'a [Scalar<'de>; PLAIN],
    sender: &'a [Scalar<'de>; SENDER_KEYS.len()],
}

impl Fields for View<'_, '_> {
    fn value_of(&self, key: &str) -> Scalar<'_> {
        lookup(&KEYS[..PLAIN], self.top, key)
    }

    fn sender_of(&self, key: &str) -> Scalar<'_> {
        lookup(&SENDER_KEYS, self.sender, key)
    }
}

/// The value of `key` among `values` (in the order of `keys`), its string
/// borrowed.
fn lookup<'a>(keys: &[&str], values: &'a [Scalar<'_>], key: &str) -> Scalar<'a> {
    keys.iter()
        .position(|k| *k == key)
        .and_then(|i| values.get(i))
        .map_or(Scalar::Null, Scalar::borrowed)
}

/// A key: its index in the keys given, `None` for any other.
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for Key {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|k| *k == key))
    }
}

/// Reads the values of `keys` into `values`, skipping the other entries.
fn read_keys<'de, A: MapAccess<'de>>(
    mut map: A,
    keys: &'static [&'static str],
    values: &mut [Scalar<'de>],
) -> Result<(), A::Error> {
    while let Some(index) = map.next_key_seed(Key(keys))? {
        match index.and_then(|i| values.get_mut(i)) {
            Some(slot) => *slot = map.next_value()?,
            None => {
                map.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(())
}

impl MessageFields<'_> {
    fn new() -> Self {
        MessageFields {
            top: Default::default(),
            sender: Default::default(),
            message: MessageField::Other(Value::Null),
        }
    }
}

/// Reads one JSON value into a [`MessageFields`], in place: `true` when it
/// is an object (the fields are those of this object alone), `false` for
/// any other value.
struct MessageInto<'f, 'de>(&'f mut MessageFields<'de>);

seed_is_visitor!('de, MessageInto<'_, 'de>, bool);

impl<'de> Visitor<'de> for MessageInto<'_, 'de> {
    type Value = bool;

    scalars!(bool, |_: &Self| false; bool, i64, u64, f64, str, unit);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let fields = self.0;
        fields.top.fill(Scalar::Null);
        fields.sender.fill(Scalar::Null);
        fields.message = MessageField::Other(Value::Null);
        while let Some(index) = map.next_key_seed(Key(&KEYS))? {
            match index {
                Some(i) if i < PLAIN => fields.top[i] = map.next_value()?,
                Some(PLAIN) => {
                    // Later duplicates win whole, as in a `Value`.
                    fields.sender.fill(Scalar::Null);
                    map.next_value_seed(ScalarsInto(&SENDER_KEYS, &mut fields.sender))?;
                }
                Some(_) => fields.message = map.next_value_seed(MessageSeed)?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(true)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

/// Reads an object's fields named in `.0` into `.1` (in the order of the
/// names), in place; they stay as they are when the value is not an
/// object. Used for `sender` and for a segment's `data`.
struct ScalarsInto<'f, 'de>(&'static [&'static str], &'f mut [Scalar<'de>]);

seed_is_visitor!('de, ScalarsInto<'_, 'de>, ());

impl<'de> Visitor<'de> for ScalarsInto<'_, 'de> {
    type Value = ();

    scalars!((), |_: &Self| (); bool, i64, u64, f64, str, unit);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        read_keys(map, self.0, self.1)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

/// One entry of a segment array: [`SegmentRead::Skip`] unless it is an
/// object with a string `type` (as [`decode_segment`](super::decode_segment));
/// any other JSON value is skipped.
struct SegmentEntry;

/// What [`SegmentEntry`] read.
enum SegmentRead {
    /// Not a segment.
    Skip,
    /// The segment.
    Segment(Segment),
    /// `data` was read for a kind a later `type` replaced with one that
    /// needs more of it: only a tree of the whole object reads it exactly.
    Redo,
}

/// A segment's `data` as it was read: into the entry's [`SegmentFields`]
/// when `type` came first and names a kind read from its fields, else as
/// text (a tree built from it, as for the kinds that need one, may fail on
/// its own without failing the page).
enum SegmentData<'de> {
    Absent,
    Text(&'de RawValue),
    Fields,
}

seed_is_visitor!('de, SegmentEntry, SegmentRead);

impl<'de> Visitor<'de> for SegmentEntry {
    type Value = SegmentRead;

    scalars!(SegmentRead, |_: &Self| SegmentRead::Skip; bool, i64, u64, f64, str, unit);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SegmentRead, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(SegmentRead::Skip)
    }

    /// Later duplicates win, as in a [`Value`]. With `type` first (as
    /// peers send it) `data` is read once, into the kind's fields.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SegmentRead, A::Error> {
        let mut kind = Scalar::Null;
        let mut data = SegmentData::Absent;
        // Set up only when `data` is read into it.
        let mut fields: Option<SegmentFields<'de>> = None;
        while let Some(index) = map.next_key_seed(Key(&SEGMENT_KEYS))? {
            match index {
                Some(0) => kind = map.next_value()?,
                Some(_) => {
                    data = match kind.as_str() {
                        Some(k) if reads_fields(k) => {
                            let f = fields
                                .get_or_insert_with(|| SegmentFields::from_fn(|_| Scalar::Null));
                            f.0.fill(Scalar::Null);
                            map.next_value_seed(ScalarsInto(&SEGMENT_FIELDS, &mut f.0))?;
                            SegmentData::Fields
                        }
                        _ => SegmentData::Text(map.next_value()?),
                    }
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let Some(kind) = kind.as_str() else {
            return Ok(SegmentRead::Skip);
        };
        let segment = match (data, fields.as_mut()) {
            (SegmentData::Fields, Some(f)) if reads_fields(kind) => segment_of_fields(kind, f),
            (SegmentData::Fields, _) => return Ok(SegmentRead::Redo),
            (SegmentData::Absent, _) => segment_of_text(kind, None),
            (SegmentData::Text(d), _) => segment_of_text(kind, Some(d)),
        };
        Ok(SegmentRead::Segment(segment))
    }
}

/// The segment of `kind` whose `data` is the valid JSON text `data`: the
/// common kinds read their scalar fields from it without building a tree.
fn segment_of_text(kind: &str, data: Option<&RawValue>) -> Segment {
    let data = data.filter(|d| d.get() != "null");
    if reads_fields(kind) {
        let mut fields = SegmentFields::from_fn(|_| Scalar::Null);
        if let Some(d) = data {
            let mut de = serde_json::Deserializer::from_str(d.get());
            let seed = ScalarsInto(&SEGMENT_FIELDS, &mut fields.0);
            if seed.deserialize(&mut de).is_err() {
                fields = SegmentFields::from_fn(|_| Scalar::Null);
            }
        }
        segment_of_fields(kind, &mut fields)
    } else {
        let value: Option<Value> = data.and_then(|d| serde_json::from_str(d.get()).ok());
        segment_of_parts(kind, value.as_ref().and_then(Value::as_object))
    }
}

/// Reads the `message` field.
struct MessageSeed;

seed_is_visitor!('de, MessageSeed, MessageField);

impl<'de> Visitor<'de> for MessageSeed {
    type Value = MessageField;

    // Numbers, booleans and null hold no segments.
    scalars!(MessageField, |_: &Self| MessageField::Other(Value::Null); bool, i64, u64, f64, unit);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MessageField, A::Error> {
        let mut segments = Vec::new();
        let mut redo = false;
        while let Some(entry) = seq.next_element_seed(SegmentEntry)? {
            match entry {
                SegmentRead::Segment(segment) => segments.push(segment),
                SegmentRead::Skip => {}
                SegmentRead::Redo => redo = true,
            }
        }
        Ok(if redo {
            MessageField::Redo
        } else {
            MessageField::Segments(segments)
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MessageField, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(MessageField::Other)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<MessageField, E> {
        Ok(MessageField::Other(Value::String(s.to_owned())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<MessageField, E> {
        Ok(MessageField::Other(Value::String(s)))
    }
}
