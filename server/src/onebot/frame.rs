//! A frame from the peer, decoded once with its `data` left as JSON text.
//!
//! Every frame's top-level fields (`status`, `retcode`, `echo`, `post_type`,
//! the error texts…) are decoded into a [`Value`]; `data`, which holds the
//! answer itself and can be a large tree (a page of history, a member list),
//! is kept as its validated JSON text ([`Data`]). The caller then decodes it
//! straight into what it needs: history messages are read field by field
//! without building a tree first (`model::Message::from_json`), and other
//! answers turn into a [`Value`] only when they are used.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

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
    fn from_value_splits_data_out() {
        let f = Frame::from_value(json!({"retcode": 0, "data": {"x": "y"}}));
        assert_eq!(f.head(), &json!({"retcode": 0}));
        assert_eq!(f.into_data().into_value(), json!({"x": "y"}));
        assert_eq!(Frame::from_value(json!(3)).head(), &json!({}));
        assert!(Data::from_value(&Value::Null).raw().is_none());
    }
}
