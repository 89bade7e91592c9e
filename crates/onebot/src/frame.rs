//! A frame from the peer, decoded once with its `data` left as JSON text.
//!
//! Every frame's top-level fields (`status`, `retcode`, `echo`, `post_type`,
//! the error texts…) are decoded into a [`Value`]; `data`, which holds the
//! answer itself and can be a large tree (a page of history, a member list),
//! is kept as its validated JSON text ([`Data`]). The caller then decodes it
//! straight into what it needs: history messages are read field by field
//! without building a tree first (`model::page`, through each object's one
//! decoder), and other answers turn into a [`Value`] only when they are used.
//!
//! A WebSocket reply whose `echo` is its last field (NapCat, LLOneBot and
//! Lagrange write it last) is not decoded by the connection at all: the
//! connection reads the echo off the end of the text ([`peek_echo`]) and
//! hands the text to the waiting call as a [`FrameText`]. The call then
//! reads the frame once, decoding `data` straight into what it needs as it
//! goes ([`read_with`]), instead of skipping over `data` once to find the
//! echo and decoding it a second time.

use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_tungstenite::tungstenite::Utf8Bytes;

/// One frame: its top-level fields except `data`, and `data` as text.
#[derive(Debug, Clone)]
pub struct Frame {
    head: Value,
    data: Data,
}

/// The `data` of a reply as JSON text; absent (or `null`) is [`Data::none`].
#[derive(Debug, Clone, Default)]
pub struct Data(Option<Box<RawValue>>);

impl Frame {
    /// Decodes a text frame. Anything but a JSON object is an error.
    pub fn parse(text: &str) -> serde_json::Result<Frame> {
        serde_json::from_str(text)
    }

    /// [`parse`](Self::parse) over bytes (an HTTP body).
    pub fn from_slice(bytes: &[u8]) -> serde_json::Result<Frame> {
        serde_json::from_slice(bytes)
    }

    /// A frame from a decoded object (`data` is re-encoded as text).
    pub fn from_value(mut value: Value) -> Frame {
        let data = value
            .as_object_mut()
            .and_then(|o| o.remove("data"))
            .and_then(|d| serde_json::value::to_raw_value(&d).ok());
        if !value.is_object() {
            value = Value::Object(Map::new());
        }
        Frame {
            head: value,
            data: Data(data),
        }
    }

    /// The top-level fields, `data` left out (always an object).
    pub fn head(&self) -> &Value {
        &self.head
    }

    /// The `data` text.
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The `data`, taking it out of the frame.
    pub fn into_data(self) -> Data {
        self.data
    }

    /// The whole frame as one [`Value`] (`data` decoded back in).
    pub fn into_value(self) -> Value {
        let Frame { mut head, data } = self;
        if let (Some(raw), Some(o)) = (data.0, head.as_object_mut()) {
            o.insert("data".into(), decode(&raw));
        }
        head
    }
}

impl Data {
    /// No data (`null`).
    pub fn none() -> Data {
        Data(None)
    }

    /// The text of `value` (`null` gives [`Data::none`]).
    pub fn from_value(value: &Value) -> Data {
        if value.is_null() {
            return Data(None);
        }
        // Serializing a `Value` cannot fail (its keys are strings).
        Data(serde_json::value::to_raw_value(value).ok())
    }

    /// The JSON text, `None` for absent or `null`.
    pub fn raw(&self) -> Option<&RawValue> {
        self.0.as_deref().filter(|raw| raw.get() != "null")
    }

    /// The JSON text, taken out; `None` for absent or `null`.
    pub fn into_raw(self) -> Option<Box<RawValue>> {
        self.0.filter(|raw| raw.get() != "null")
    }

    /// Decoded into a [`Value`].
    pub fn into_value(self) -> Value {
        self.0.as_deref().map_or(Value::Null, decode)
    }
}

/// Decodes text that serde_json has already validated as JSON.
fn decode(raw: &RawValue) -> Value {
    serde_json::from_str(raw.get()).unwrap_or(Value::Null)
}

/// A reply frame's text, not decoded yet (cheap to clone: the bytes are
/// shared).
#[derive(Debug, Clone)]
pub struct FrameText(Utf8Bytes);

impl FrameText {
    /// The text of a WebSocket text message.
    pub fn new(text: Utf8Bytes) -> FrameText {
        FrameText(text)
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Decoded the usual way, `data` kept as text ([`Frame::parse`]).
    pub fn parse(&self) -> serde_json::Result<Frame> {
        Frame::parse(self.as_str())
    }
}

/// A reply as the waiting call receives it.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Decoded by the connection, `data` as text.
    Frame(Frame),
    /// Handed over undecoded: the connection only read its echo.
    Text(FrameText),
}

impl Reply {
    /// The frame, decoding the text if it came undecoded.
    pub fn into_frame(self) -> serde_json::Result<Frame> {
        match self {
            Reply::Frame(frame) => Ok(frame),
            Reply::Text(text) => text.parse(),
        }
    }
}

/// The echo of a frame whose `echo` is among its last members, read off
/// the end of `text` without decoding the rest; `None` for any other frame.
///
/// The members after `echo` may only be plain scalars (NapCat ends its
/// replies with `"echo":…,"stream":"normal-action"`; LLOneBot and Lagrange
/// with the echo). Only an echo the gateway could have sent is read: a
/// decimal counter without leading zeros, as a string or a number, so the
/// key is the one [`echo_key`](crate::transport::pending::echo_key)
/// gives for it.
///
/// Reading backwards is sound for any valid JSON object: its last byte
/// closes it; a string with neither quote nor backslash inside, whose
/// opening quote does not follow a backslash, is exactly the string that
/// ends there, and so is a bare number or literal; so each `key: value`
/// read back, up to the `,` or `{` before the key, is a member of the
/// object itself. The first `echo` met is the last one, the one a decoder
/// keeps when a key repeats. Text that is not valid JSON fails when the
/// call decodes it.
pub(crate) fn peek_echo(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let end = skip_space_back(b, b.len());
    if end == 0 || b[end - 1] != b'}' {
        return None;
    }
    let mut end = skip_space_back(b, end - 1);
    // NapCat's tail is four members after the data; a few more are read
    // before giving up.
    for _ in 0..8 {
        let (value, start) = scalar_back(b, end)?;
        let colon = skip_space_back(b, start);
        if colon == 0 || b[colon - 1] != b':' {
            return None;
        }
        let key_end = skip_space_back(b, colon - 1);
        let (key, key_start) = scalar_back(b, key_end)?;
        let before = skip_space_back(b, key_start);
        let sep = *b.get(before.checked_sub(1)?)?;
        if sep != b',' && sep != b'{' {
            return None;
        }
        if key == "\"echo\"" {
            let digits = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            let counter = !digits.is_empty()
                && digits.bytes().all(|c| c.is_ascii_digit())
                && (digits.len() == 1 || !digits.starts_with('0'));
            return counter.then_some(digits);
        }
        if sep == b'{' {
            return None;
        }
        end = skip_space_back(b, before - 1);
    }
    None
}

/// The `echo` member of a JSON object, found by one pass over its top-level
/// members that skips every other value without building it (nothing but
/// the echo and one key at a time is allocated); `None` when the text is
/// no JSON object or has no echo. A repeated `echo` gives the last one, as
/// a decoder keeps it.
pub fn top_level_echo(text: &str) -> Option<Value> {
    struct EchoOf;
    impl<'de> Visitor<'de> for EchoOf {
        type Value = Option<Value>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Value>, A::Error> {
            let mut echo = None;
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                if key == "echo" {
                    echo = Some(map.next_value::<Value>()?);
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(echo)
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(EchoOf).ok().flatten()
}

/// Where the JSON whitespace that ends `b[..end]` starts.
fn skip_space_back(b: &[u8], mut end: usize) -> usize {
    while end > 0 && matches!(b[end - 1], b' ' | b'\t' | b'\n' | b'\r') {
        end -= 1;
    }
    end
}

/// The plain scalar that ends `b[..end]` (with its quotes if a string) and
/// where it starts: a string with neither quote nor backslash inside whose
/// opening quote does not follow a backslash, or a bare number or literal.
/// `None` for anything else (a string with escapes, an object, an array).
fn scalar_back(b: &[u8], end: usize) -> Option<(&str, usize)> {
    let last = *b.get(end.checked_sub(1)?)?;
    let start = if last == b'"' {
        let open = b[..end - 1]
            .iter()
            .rposition(|&c| c == b'"' || c == b'\\')?;
        if b[open] != b'"' || (open > 0 && b[open - 1] == b'\\') {
            return None;
        }
        open
    } else {
        let bare = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-');
        let start = b[..end]
            .iter()
            .rposition(|&c| !bare(c))
            .map_or(0, |i| i + 1);
        if start == end {
            return None;
        }
        start
    };
    // Both ends are ASCII bytes, so both are char boundaries.
    Some((std::str::from_utf8(&b[start..end]).ok()?, start))
}

/// Reads a frame in one pass: its top-level fields except `data` into a
/// [`Value`] (as [`Frame::head`]), and `data` through `seed` (`None` when
/// the frame has no `data`; a repeated `data` is read again, and the last
/// wins, as in a [`Value`]).
pub fn read_with<'de, S>(text: &'de str, seed: S) -> serde_json::Result<(Value, Option<S::Value>)>
where
    S: DeserializeSeed<'de> + Clone,
{
    let mut de = serde_json::Deserializer::from_str(text);
    let read = (&mut de).deserialize_map(SeededVisitor(seed))?;
    de.end()?;
    Ok(read)
}

struct SeededVisitor<S>(S);

impl<'de, S: DeserializeSeed<'de> + Clone> Visitor<'de> for SeededVisitor<S> {
    type Value = (Value, Option<S::Value>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut head = Map::new();
        let mut data = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "data" {
                data = Some(map.next_value_seed(self.0.clone())?);
            } else {
                let value: Value = map.next_value()?;
                head.insert(key, value);
            }
        }
        Ok((Value::Object(head), data))
    }
}

impl<'de> Deserialize<'de> for Frame {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Frame, D::Error> {
        deserializer.deserialize_map(FrameVisitor)
    }
}

struct FrameVisitor;

impl<'de> Visitor<'de> for FrameVisitor {
    type Value = Frame;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Frame, A::Error> {
        let mut head = Map::new();
        let mut data = None;
        // Later duplicates win, as they do in a `Value`.
        while let Some(key) = map.next_key::<String>()? {
            if key == "data" {
                data = Some(map.next_value::<Box<RawValue>>()?);
            } else {
                let value: Value = map.next_value()?;
                head.insert(key, value);
            }
        }
        Ok(Frame {
            head: Value::Object(head),
            data: Data(data),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn data_is_kept_as_text_and_the_rest_decoded() {
        let f =
            Frame::parse(r#"{"status":"ok","retcode":0,"data":{"a":[1,2]},"echo":"7"}"#).unwrap();
        assert_eq!(
            f.head(),
            &json!({"status": "ok", "retcode": 0, "echo": "7"})
        );
        assert_eq!(f.data().raw().map(RawValue::get), Some(r#"{"a":[1,2]}"#));
        assert_eq!(
            f.clone().into_value(),
            json!({"status": "ok", "retcode": 0, "echo": "7", "data": {"a": [1, 2]}})
        );
        assert_eq!(f.into_data().into_value(), json!({"a": [1, 2]}));
    }

    #[test]
    fn null_or_missing_data_is_none_and_duplicates_keep_the_last() {
        for text in [r#"{"retcode":0}"#, r#"{"retcode":0,"data":null}"#] {
            let f = Frame::parse(text).unwrap();
            assert!(f.data().raw().is_none(), "{text}");
            assert_eq!(f.head(), &json!({"retcode": 0}));
            // Given back as it came.
            let back: Value = serde_json::from_str(text).unwrap();
            assert_eq!(f.into_value(), back);
        }
        let f = Frame::parse(r#"{"retcode":1,"retcode":0,"data":1,"data":[2]}"#).unwrap();
        assert_eq!(f.head(), &json!({"retcode": 0}));
        assert_eq!(f.into_data().into_value(), json!([2]));
    }

    #[test]
    fn only_objects_are_frames() {
        for text in ["[]", "1", "\"x\"", "null", "{", "{\"data\":}", ""] {
            assert!(Frame::parse(text).is_err(), "{text}");
        }
        assert!(Frame::from_slice(b"{\"data\":[1]}").is_ok());
    }

    #[test]
    fn the_echo_is_read_off_the_end_only_when_it_is_the_last_member() {
        for (text, echo) in [
            (r#"{"status":"ok","data":{"a":1},"echo":"17"}"#, Some("17")),
            (r#"{"data":[],"echo":17}"#, Some("17")),
            ("{ \"data\" : null , \"echo\" :\n \"0\" }\n", Some("0")),
            (r#"{"echo":"5"}"#, Some("5")),
            // Not what the gateway sends: decoded the usual way.
            (r#"{"data":1,"echo":"017"}"#, None),
            (r#"{"data":1,"echo":"a7"}"#, None),
            (r#"{"data":1,"echo":""}"#, None),
            (r#"{"data":1,"echo":-7}"#, None),
            (r#"{"data":1,"echo":"1.5"}"#, None),
            // Not the top-level member.
            (r#"{"data":{"echo":"7"}}"#, None),
            (r#"{"data":"x\"echo\":\"7\"}"#, None),
            (r#"{"data":"x","xecho":"7"}"#, None),
            (r#"{"echo":"7","data":1}"#, Some("7")),
            (r#"{"echo":"7","data":{}}"#, None),
            (r#"["echo","7"]"#, None),
            // NapCat: plain members after the echo.
            (
                r#"{"status":"ok","data":[],"message":"","wording":"","echo":"42","stream":"normal-action"}"#,
                Some("42"),
            ),
            (
                r#"{"data":[],"echo":"4","n":-1.5e3,"t":true,"z":null}"#,
                Some("4"),
            ),
            // A member after the echo that is not plain: decoded the usual way.
            (r#"{"data":[],"echo":"4","m":"a\"b"}"#, None),
            (r#"{"data":[],"echo":"4","m":{}}"#, None),
            (r#"{"echo":"4","m":"\\"}"#, None),
            (r#"{"echo":"4","m":"x\"}"#, None),
            // The last echo is the one kept.
            (r#"{"echo":"1","echo":"2"}"#, Some("2")),
            (r#"{"data":"x","echo":"1","stream":"s"}"#, Some("1")),
            (r#"{"data":1,"echo":"中7"}"#, None),
            (r#"{"data":1,"echo":中7}"#, None),
            ("", None),
            ("}", None),
        ] {
            assert_eq!(peek_echo(text), echo, "{text}");
        }
    }

    #[test]
    fn a_seeded_read_gives_the_head_and_the_last_data() {
        #[derive(Clone)]
        struct Len;
        impl<'de> DeserializeSeed<'de> for Len {
            type Value = usize;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
                Ok(Value::deserialize(d)?.as_array().map_or(0, Vec::len))
            }
        }
        let (head, data) =
            read_with(r#"{"status":"ok","data":[1],"data":[1,2],"echo":"3"}"#, Len).unwrap();
        assert_eq!(head, json!({"status": "ok", "echo": "3"}));
        assert_eq!(data, Some(2));
        let (head, data) = read_with(r#"{"retcode":0}"#, Len).unwrap();
        assert_eq!(head, json!({"retcode": 0}));
        assert_eq!(data, None);
        for bad in ["[]", "{\"data\":[1]", "{} x", ""] {
            assert!(read_with(bad, Len).is_err(), "{bad}");
        }
        let text = FrameText::new(Utf8Bytes::from_static(r#"{"data":[1],"echo":"9"}"#));
        assert_eq!(peek_echo(text.as_str()), Some("9"));
        let frame = Reply::Text(text).into_frame().unwrap();
        assert_eq!(frame.into_value(), json!({"data": [1], "echo": "9"}));
    }

    #[test]
    fn from_value_splits_data_out() {
        let f = Frame::from_value(json!({"retcode": 0, "data": {"x": "y"}}));
        assert_eq!(f.head(), &json!({"retcode": 0}));
        assert_eq!(f.into_data().into_value(), json!({"x": "y"}));
        assert_eq!(Frame::from_value(json!(3)).head(), &json!({}));
        assert!(Data::from_value(&Value::Null).raw().is_none());
    }
}
