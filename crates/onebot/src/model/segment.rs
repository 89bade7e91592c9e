//! The peer's segments, `{"type": ..., "data": {...}}`, and a message's
//! content in any of its forms, decoded by one [`Deserialize`] each from
//! text and from trees alike.
//!
//! A segment's `data` is read in one pass whatever the order of its keys
//! (NapCat writes `type` first; go-cqhttp and serde_json's own maps write
//! keys sorted, `data` first): its scalar fields are kept as [`Scalar`]s,
//! borrowed from the input, and only arrays and objects inside it are
//! built as trees. The kind then takes what it needs.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::{Map, Value};

use super::scalar::{Key, KeyIn, Scalar};
use crate::{cq, ids};
use onebot_gateway_domain::model::Segment;

/// One segment object: `None` when it is not an object with a string
/// `type`. A missing or non-object `data` counts as `{}`; a repeated key
/// keeps its last value, as in a tree.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerSegment(pub Option<Segment>);

impl<'de> Deserialize<'de> for PeerSegment {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer
            .deserialize_any(SegmentVisitor)
            .map(PeerSegment)
    }
}

/// Decodes one segment object given as a tree ([`PeerSegment`]).
pub fn decode_segment(seg: &Value) -> Option<Segment> {
    PeerSegment::deserialize(seg).ok()?.0
}

/// Decodes a message's content given as a tree, in any of its forms, else
/// (no segment there) the CQ string `raw_message` ([`Content`]).
pub fn segments_of(message: &Value, raw_message: Option<&str>) -> Vec<Segment> {
    Content::deserialize(message)
        .unwrap_or_default()
        .or_raw(raw_message)
}

/// A message's `message` (or a forward node's `content`): a segment array
/// (entries that are not segment objects skipped), one segment object, or
/// a CQ-code string (a plain string is a CQ string without codes). Other
/// values hold no segments.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Content {
    /// The segments, in order.
    pub segments: Vec<Segment>,
    /// True when the value was `null` (or the field absent).
    pub null: bool,
}

impl Content {
    /// The segments, else (none there) those of the CQ string
    /// `raw_message`, which peers send beside `message`.
    pub fn or_raw(self, raw_message: Option<&str>) -> Vec<Segment> {
        match raw_message {
            Some(raw) if self.segments.is_empty() => of_cq(raw),
            _ => self.segments,
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ContentVisitor)
    }
}

/// The segments of a CQ string.
fn of_cq(text: &str) -> Vec<Segment> {
    cq::parse(text)
        .iter()
        .filter_map(|v| PeerSegment::deserialize(v).ok()?.0)
        .collect()
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
    type Value = Content;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Content, E> {
        Ok(Content::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Content, E> {
        Ok(Content::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Content, E> {
        Ok(Content::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Content, E> {
        Ok(Content::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Content, E> {
        Ok(Content {
            segments: Vec::new(),
            null: true,
        })
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Content, E> {
        Ok(Content {
            segments: of_cq(s),
            null: false,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
        let mut segments = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(PeerSegment(segment)) = seq.next_element()? {
            segments.extend(segment);
        }
        Ok(Content {
            segments,
            null: false,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content, A::Error> {
        Ok(Content {
            segments: SegmentVisitor.visit_map(map)?.into_iter().collect(),
            null: false,
        })
    }
}

struct SegmentVisitor;

impl<'de> Visitor<'de> for SegmentVisitor {
    type Value = Option<Segment>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Segment>, E> {
        Ok(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Segment>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Segment>, A::Error> {
        let mut kind = Scalar::Null;
        let mut data = Data::default();
        while let Some(key) = map.next_key_seed(KeyIn(|key: &str| match key {
            "type" => Some(0),
            "data" => Some(1),
            _ => None,
        }))? {
            match key {
                Some(0) => kind = map.next_value()?,
                Some(_) => data = map.next_value()?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(kind.as_str().map(|kind| data.segment(kind)))
    }
}

/// A segment's `data`: its members in order, scalars as [`Scalar`]s and
/// arrays and objects as trees; `None` when it is not an object.
#[derive(Default)]
struct Data<'de>(Option<Vec<(Cow<'de, str>, Member<'de>)>>);

enum Member<'de> {
    Scalar(Scalar<'de>),
    Tree(Value),
}

impl<'de> Deserialize<'de> for Data<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(DataVisitor)
    }
}

struct DataVisitor;

impl<'de> Visitor<'de> for DataVisitor {
    type Value = Data<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Data<'de>, E> {
        Ok(Data(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Data<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Data(None))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Data<'de>, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(2));
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(MemberSeed)?;
            members.push((key, value));
        }
        Ok(Data(Some(members)))
    }
}

/// One member of `data`: a scalar kept as read, anything else as a tree.
struct MemberSeed;

impl<'de> DeserializeSeed<'de> for MemberSeed {
    type Value = Member<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Member<'de>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MemberSeed {
    type Value = Member<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::I64(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::U64(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::F64(v)))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::Str(Cow::Borrowed(v))))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::Str(Cow::Owned(v.to_owned()))))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::Str(Cow::Owned(v))))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Member<'de>, E> {
        Ok(Member::Scalar(Scalar::Null))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Member<'de>, A::Error> {
        Value::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Member::Tree)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Member<'de>, A::Error> {
        Value::deserialize(de::value::MapAccessDeserializer::new(map)).map(Member::Tree)
    }
}

impl<'de> Data<'de> {
    /// The value of `key` (the last one when repeated), `Null` when absent
    /// or when `data` is not an object.
    fn get(&self, key: &str) -> Scalar<'_> {
        let Some(members) = &self.0 else {
            return Scalar::Null;
        };
        match members.iter().rev().find(|(k, _)| k == key) {
            Some((_, Member::Scalar(s))) => s.borrowed(),
            Some((_, Member::Tree(_))) => Scalar::Nested,
            None => Scalar::Null,
        }
    }

    /// The tree of `key`, for a member that is an array or an object.
    fn tree(&self, key: &str) -> Option<&Value> {
        match self.0.as_ref()?.iter().rev().find(|(k, _)| k == key) {
            Some((_, Member::Tree(v))) => Some(v),
            _ => None,
        }
    }

    /// The whole object as a tree (`{}` when it is not an object), built as
    /// a [`Value`] builds it: members in order, a repeated key replaced.
    fn into_map(self) -> Map<String, Value> {
        let mut map = Map::new();
        for (key, member) in self.0.into_iter().flatten() {
            let value = match member {
                Member::Scalar(s) => s.to_value().unwrap_or(Value::Null),
                Member::Tree(v) => v,
            };
            map.insert(key.into_owned(), value);
        }
        map
    }

    fn text(&self, key: &str) -> String {
        self.get(key).text().unwrap_or_default()
    }

    /// The first of `keys` with a non-empty text.
    fn first_text(&self, keys: &[&str]) -> String {
        keys.iter()
            .filter_map(|k| self.get(k).text())
            .find(|s| !s.is_empty())
            .unwrap_or_default()
    }

    /// A size in bytes: positive, else 0.
    fn size(&self, key: &str) -> i64 {
        self.get(key).int().filter(|n| *n > 0).unwrap_or(0)
    }

    /// The segment of `kind` made of this `data`.
    fn segment(self, kind: &str) -> Segment {
        match kind {
            "text" => Segment::Text(self.text("text")),
            "at" => {
                let qq = self.get("qq");
                let all = qq.as_str().is_some_and(|s| s.trim() == "all");
                let user_id = if all { None } else { qq.int() };
                let name = self
                    .get("name")
                    .text()
                    .filter(|s| !s.is_empty())
                    .or_else(|| {
                        (!all && user_id.is_none())
                            .then(|| qq.text())
                            .flatten()
                            .filter(|s| !s.is_empty())
                    });
                Segment::At { user_id, all, name }
            }
            "face" => Segment::Face {
                id: self.text("id"),
            },
            "image" => Segment::Image {
                file: self.text("file"),
                url: self.text("url"),
                file_size: self.size("file_size"),
                summary: self.text("summary"),
            },
            "record" => Segment::Record {
                file: self.text("file"),
                url: self.text("url"),
            },
            "video" => Segment::Video {
                file: self.text("file"),
                url: self.text("url"),
            },
            "file" => Segment::File {
                file: self.first_text(&["file", "file_id"]),
                name: self.text("name"),
                file_size: self.size("file_size"),
                url: self.text("url"),
            },
            "reply" => Segment::reply(ids::message_id_text(&self.first_text(&["id", "seq"]))),
            "forward" => Segment::Forward {
                id: self.first_text(&["id", "res_id", "forward_id"]),
            },
            "xml" => Segment::Xml {
                data: self.text("data"),
            },
            "poke" => Segment::Poke {
                kind: self.text("type"),
                id: self.text("id"),
            },
            // A card: its `data` kept as text, a tree written out.
            "json" => Segment::Json {
                data: match self.tree("data") {
                    Some(tree) => tree.to_string(),
                    None => self.text("data"),
                },
            },
            other => Segment::Unknown {
                kind: other.to_owned(),
                data_json: Value::Object(self.into_map()).to_string(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn segments(v: Value) -> Vec<Segment> {
        Content::deserialize(&v).unwrap().segments
    }

    #[test]
    fn every_segment_decodes() {
        let segs = segments(json!([
            {"type": "text", "data": {"text": "t"}},
            {"type": "at", "data": {"qq": "all"}},
            {"type": "at", "data": {"qq": "10001", "name": "张三"}},
            {"type": "at", "data": {"qq": "nobody"}},
            {"type": "face", "data": {"id": 1}},
            {"type": "image", "data": {"file": "f", "url": "u", "file_size": "48213", "summary": "[动画表情]"}},
            {"type": "record", "data": {"file": "f", "url": "u"}},
            {"type": "video", "data": {"file": "f", "url": "u"}},
            {"type": "file", "data": {"file_id": "fid", "name": "a.pdf", "file_size": 10, "url": "u"}},
            {"type": "reply", "data": {"id": -12}},
            {"type": "forward", "data": {"res_id": "r"}},
            {"type": "json", "data": {"data": {"app": "x"}}},
            {"type": "xml", "data": {"data": "<a/>"}},
            {"type": "poke", "data": {"type": "126", "id": "2003"}},
            {"type": "mface", "data": {"emoji_id": "e"}},
            {"type": "dice"},
        ]));
        assert_eq!(
            segs,
            vec![
                Segment::Text("t".into()),
                Segment::At {
                    user_id: None,
                    all: true,
                    name: None
                },
                Segment::At {
                    user_id: Some(10001),
                    all: false,
                    name: Some("张三".into())
                },
                Segment::At {
                    user_id: None,
                    all: false,
                    name: Some("nobody".into())
                },
                Segment::Face { id: "1".into() },
                Segment::Image {
                    file: "f".into(),
                    url: "u".into(),
                    file_size: 48213,
                    summary: "[动画表情]".into()
                },
                Segment::Record {
                    file: "f".into(),
                    url: "u".into()
                },
                Segment::Video {
                    file: "f".into(),
                    url: "u".into()
                },
                Segment::File {
                    file: "fid".into(),
                    name: "a.pdf".into(),
                    file_size: 10,
                    url: "u".into()
                },
                Segment::reply("-12"),
                Segment::Forward { id: "r".into() },
                Segment::Json {
                    data: "{\"app\":\"x\"}".into()
                },
                Segment::Xml {
                    data: "<a/>".into()
                },
                Segment::Poke {
                    kind: "126".into(),
                    id: "2003".into()
                },
                Segment::Unknown {
                    kind: "mface".into(),
                    data_json: json!({"emoji_id": "e"}).to_string()
                },
                Segment::Unknown {
                    kind: "dice".into(),
                    data_json: json!({}).to_string()
                },
            ]
        );
        let kinds: Vec<&str> = segs.iter().map(Segment::kind).collect();
        assert_eq!(
            kinds,
            [
                "text", "at", "at", "at", "face", "image", "record", "video", "file", "reply",
                "forward", "json", "xml", "poke", "mface", "dice"
            ]
        );
    }

    /// Read from text in any key order, repeated keys and odd `data`, a
    /// segment is what it is read as from its tree (where the last of a
    /// repeated key is the one kept).
    #[test]
    fn text_in_any_key_order_reads_as_its_tree() {
        for (text, expected) in [
            (
                r#"{"data":{"text":"a"},"type":"text"}"#,
                Some(Segment::Text("a".into())),
            ),
            (
                r#"{"type":"text","data":{"text":"a\nb","x":[1]}}"#,
                Some(Segment::Text("a\nb".into())),
            ),
            (
                r#"{"data":{"emoji_id":"e","f":1.0,"n":[1,{"k":null}]},"type":"mface"}"#,
                Some(Segment::Unknown {
                    kind: "mface".into(),
                    data_json: r#"{"emoji_id":"e","f":1.0,"n":[1,{"k":null}]}"#.into(),
                }),
            ),
            (
                r#"{"type":"text","data":{"text":"a"},"type":"mface"}"#,
                Some(Segment::Unknown {
                    kind: "mface".into(),
                    data_json: r#"{"text":"a"}"#.into(),
                }),
            ),
            (
                r#"{"type":"mface","data":{"text":"a","k":1},"type":"text"}"#,
                Some(Segment::Text("a".into())),
            ),
            (
                r#"{"type":"text","data":{"text":"a"},"data":{"text":"b"}}"#,
                Some(Segment::Text("b".into())),
            ),
            (
                r#"{"type":"text","data":{"text":"a","text":"c"}}"#,
                Some(Segment::Text("c".into())),
            ),
            (
                r#"{"data":{"data":"{\"app\":1}"},"type":"json"}"#,
                Some(Segment::Json {
                    data: r#"{"app":1}"#.into(),
                }),
            ),
            (
                r#"{"type":"json","data":{"data":7}}"#,
                Some(Segment::Json { data: "7".into() }),
            ),
            (
                r#"{"type":"json","data":{}}"#,
                Some(Segment::Json {
                    data: String::new(),
                }),
            ),
            (
                r#"{"type":"text","data":null}"#,
                Some(Segment::Text(String::new())),
            ),
            (r#"{"type":"text"}"#, Some(Segment::Text(String::new()))),
            (
                r#"{"type":"face","data":"not an object"}"#,
                Some(Segment::Face { id: String::new() }),
            ),
            (
                r#"{"type":"dice","data":[1]}"#,
                Some(Segment::Unknown {
                    kind: "dice".into(),
                    data_json: "{}".into(),
                }),
            ),
            (
                r#"{"type":"image","data":{"file":"f.png","url":"http://u/1?a=1&b=2","file_size":"12","summary":"[图片]"}}"#,
                Some(Segment::Image {
                    file: "f.png".into(),
                    url: "http://u/1?a=1&b=2".into(),
                    file_size: 12,
                    summary: "[图片]".into(),
                }),
            ),
            (r#"{"type":7,"data":{"text":"a"}}"#, None),
            (r#"{"type":"text","data":{"text":"a"},"type":null}"#, None),
            (r#"{"data":{"text":"a"}}"#, None),
            ("[1,2]", None),
            ("\"text\"", None),
            ("null", None),
        ] {
            let by_text: PeerSegment = serde_json::from_str(text).unwrap();
            assert_eq!(by_text.0, expected, "{text}");
            let tree: Value = serde_json::from_str(text).unwrap();
            assert_eq!(PeerSegment::deserialize(&tree).unwrap(), by_text, "{text}");
        }
    }

    #[test]
    fn content_forms() {
        let face = Segment::Face { id: "14".into() };
        let content = |v: Value, raw: Option<&str>| Content::deserialize(&v).unwrap().or_raw(raw);
        assert_eq!(
            content(json!([{"type": "face", "data": {"id": 14}}]), None),
            vec![face.clone()]
        );
        assert_eq!(
            content(json!({"type": "face", "data": {"id": "14"}}), None),
            vec![face.clone()]
        );
        assert_eq!(content(json!("[CQ:face,id=14]"), None), vec![face.clone()]);
        assert_eq!(
            content(json!(null), Some("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            content(json!([]), Some("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            content(json!([1, "x", {"data": {}}]), Some("plain")),
            vec![Segment::Text("plain".into())]
        );
        assert_eq!(content(json!(""), Some("")), vec![]);
        assert_eq!(content(json!(42), None), vec![]);
        assert!(Content::deserialize(&json!(null)).unwrap().null);
        assert!(!Content::deserialize(&json!(42)).unwrap().null);
    }

    #[test]
    fn reply_ids_of_any_shape_are_kept() {
        let reply = |v: Value| PeerSegment::deserialize(&v).unwrap().0;
        assert_eq!(
            reply(json!({"type": "reply", "data": {"id": "fork-1"}})),
            Some(Segment::reply(
                onebot_gateway_domain::ids::mint("fork-1").to_string()
            ))
        );
        assert_eq!(
            reply(json!({"type": "reply", "data": {"seq": 5}})),
            Some(Segment::reply("5"))
        );
    }
}
