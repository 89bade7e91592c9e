//! Decoding the peer's message, member and group objects, given as JSON
//! trees, into the domain's types.
//!
//! Peers send messages as segment arrays or CQ-code strings; both decode to
//! [`Segment`]s. Ids are `i64` everywhere (SnowLuma ids are negative).

use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::scalar::Scalar;
use crate::domain::model::{
    ChatRef, GroupInfo, GroupMember, Message, RawEntries, RawJson, Segment, Sender,
};
use crate::onebot::cq;
use crate::onebot::ids;

/// The JSON text of `value`, kept as the peer's own object.
pub fn raw_of_value(value: &Value) -> RawJson {
    RawJson::from_text(value.to_string())
}

/// `raw` as the peer's own object.
pub fn raw_of_text(raw: &RawValue) -> RawJson {
    RawJson::from_text(raw.get())
}

/// Reads an integer the way peers send ids: a JSON integer, an integral
/// float, or a decimal string (surrounding spaces allowed). Anything else,
/// and values outside `i64`, give `None`.
pub fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            // `as` saturates; the range check keeps only exact conversions.
            (f.is_finite() && f.fract() == 0.0 && (-9.0e18..=9.0e18).contains(&f))
                .then_some(f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Reads a text field: strings as they are, numbers and booleans as their
/// JSON text; `null`, arrays and objects give `None`.
pub fn str_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> &'a Value {
    obj.get(key).unwrap_or(&Value::Null)
}

fn text_field(obj: &Map<String, Value>, key: &str) -> String {
    str_of(field(obj, key)).unwrap_or_default()
}

/// Decodes one OneBot segment object `{"type": ..., "data": {...}}`.
/// `None` when `type` is not a string; a missing or non-object `data`
/// counts as `{}`.
pub fn decode_segment(seg: &Value) -> Option<Segment> {
    let kind = seg.get("type")?.as_str()?;
    Some(segment_of_parts(
        kind,
        seg.get("data").and_then(Value::as_object),
    ))
}

/// A segment of type `kind` with `data` (`None`: not an object).
pub(super) fn segment_of_parts(kind: &str, data: Option<&Map<String, Value>>) -> Segment {
    let empty = Map::new();
    let data = data.unwrap_or(&empty);
    if reads_fields(kind) {
        let mut fields = SegmentFields::from_fn(|key| Scalar::of_value(field(data, key)));
        return segment_of_fields(kind, &mut fields);
    }
    match kind {
        "json" => Segment::Json {
            data: match field(data, "data") {
                Value::Null => String::new(),
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        },
        other => Segment::Unknown {
            kind: other.to_owned(),
            // The map's own text, as `Value::Object` would print it, without
            // copying the map first.
            data_json: serde_json::to_string(data).unwrap_or_default(),
        },
    }
}

/// True for the segment kinds [`segment_of_fields`] decodes from their
/// scalar fields alone (the others need the whole `data` object).
pub(super) fn reads_fields(kind: &str) -> bool {
    matches!(
        kind,
        "text"
            | "at"
            | "face"
            | "image"
            | "record"
            | "video"
            | "file"
            | "reply"
            | "forward"
            | "xml"
            | "poke"
    )
}

/// The `data` keys segments of the kinds [`reads_fields`] names are made of
/// (`type` is the poke segment's kind).
pub(super) const SEGMENT_FIELDS: [&str; 14] = [
    "text",
    "qq",
    "name",
    "id",
    "file",
    "url",
    "file_size",
    "summary",
    "file_id",
    "seq",
    "res_id",
    "forward_id",
    "data",
    "type",
];

/// The scalar values of a segment's `data`, by [`SEGMENT_FIELDS`].
pub(super) struct SegmentFields<'a>(pub(super) [Scalar<'a>; SEGMENT_FIELDS.len()]);

impl<'a> SegmentFields<'a> {
    /// The fields read by `read` for each key.
    pub(super) fn from_fn(mut read: impl FnMut(&str) -> Scalar<'a>) -> Self {
        let mut out: [Scalar<'a>; SEGMENT_FIELDS.len()] = Default::default();
        for (slot, key) in out.iter_mut().zip(SEGMENT_FIELDS) {
            *slot = read(key);
        }
        SegmentFields(out)
    }

    /// The index of `key`, if it is one of the fields.
    pub(super) fn index(key: &str) -> Option<usize> {
        SEGMENT_FIELDS.iter().position(|k| *k == key)
    }

    fn take(&mut self, key: &str) -> Scalar<'a> {
        Self::index(key).map_or(Scalar::Null, |i| std::mem::take(&mut self.0[i]))
    }

    fn text(&mut self, key: &str) -> String {
        self.take(key).text().unwrap_or_default()
    }

    fn first_text(&mut self, keys: &[&str]) -> String {
        keys.iter()
            .filter_map(|k| self.take(k).text())
            .find(|s| !s.is_empty())
            .unwrap_or_default()
    }

    fn size(&mut self, key: &str) -> i64 {
        self.take(key).int().filter(|n| *n > 0).unwrap_or(0)
    }
}

/// A segment of a kind [`reads_fields`] names, from its fields.
pub(super) fn segment_of_fields(kind: &str, data: &mut SegmentFields<'_>) -> Segment {
    match kind {
        "text" => Segment::Text(data.text("text")),
        "at" => {
            let qq = data.take("qq");
            let all = qq.as_str().is_some_and(|s| s.trim() == "all");
            let user_id = if all { None } else { qq.int() };
            let name = data
                .take("name")
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
            id: data.text("id"),
        },
        "image" => Segment::Image {
            file: data.text("file"),
            url: data.text("url"),
            file_size: data.size("file_size"),
            summary: data.text("summary"),
        },
        "record" => Segment::Record {
            file: data.text("file"),
            url: data.text("url"),
        },
        "video" => Segment::Video {
            file: data.text("file"),
            url: data.text("url"),
        },
        "file" => Segment::File {
            file: data.first_text(&["file", "file_id"]),
            name: data.text("name"),
            file_size: data.size("file_size"),
            url: data.text("url"),
        },
        "reply" => Segment::reply(ids::message_id_text(&data.first_text(&["id", "seq"]))),
        "forward" => Segment::Forward {
            id: data.first_text(&["id", "res_id", "forward_id"]),
        },
        "xml" => Segment::Xml {
            data: data.text("data"),
        },
        "poke" => Segment::Poke {
            kind: data.text("type"),
            id: data.text("id"),
        },
        other => Segment::Unknown {
            kind: other.to_owned(),
            data_json: "{}".to_owned(),
        },
    }
}

/// Decodes a peer's `message` value in any of its forms: a segment array
/// (entries that are not segment objects skipped), one segment object, or a
/// CQ-code string (a plain string is a CQ string without codes). When that
/// gives no segment, `raw_message` (a CQ string) is decoded instead.
pub fn segments_of(message: &Value, raw_message: Option<&str>) -> Vec<Segment> {
    let segments: Vec<Segment> = match message {
        Value::Array(items) => items.iter().filter_map(decode_segment).collect(),
        Value::Object(_) => decode_segment(message).into_iter().collect(),
        Value::String(s) => cq::parse(s).iter().filter_map(decode_segment).collect(),
        _ => Vec::new(),
    };
    if !segments.is_empty() {
        return segments;
    }
    match raw_message {
        Some(raw) => cq::parse(raw).iter().filter_map(decode_segment).collect(),
        None => Vec::new(),
    }
}

/// Decodes the peer's message object (a history entry, a `get_msg` result
/// or a message event).
///
/// Returns `None` for anything without a numeric sender id
/// (`sender.user_id`, else `user_id`) or any `message_id` (ids of every
/// shape are read by [`ids::message_id_of`]), and when `chat` is
/// `None` and cannot be derived (`message_type` `group` with a numeric
/// `group_id`, `private` with the other side's id — `target_id` for the
/// bot's own `message_sent` — or, without `message_type`, a numeric
/// `group_id`). Ids may be numbers or numeric strings, negative included.
///
/// `message_seq` is the real QQ sequence: `real_seq` when present
/// (NapCat, whose `message_seq` and `real_id` are its short id), else
/// `message_seq`, else `real_id` (go-cqhttp), each only when positive and
/// different from `message_id`.
pub fn decode_message(raw: &Value, chat: Option<ChatRef>) -> Option<Message> {
    let obj = raw.as_object()?;
    let segments = || segments_of(field(obj, "message"), field(obj, "raw_message").as_str());
    message_of_fields(obj, chat, segments, || raw_of_value(raw))
}

/// The message in `obj` (see [`decode_message`]); `segments` and `raw` are
/// only asked for once the ids check out.
pub(super) fn message_of_fields(
    obj: &impl Fields,
    chat: Option<ChatRef>,
    segments: impl FnOnce() -> Vec<Segment>,
    raw: impl FnOnce() -> RawJson,
) -> Option<Message> {
    let user_id = obj
        .sender_of("user_id")
        .int()
        .or_else(|| obj.value_of("user_id").int())?;
    let message_id = message_id_of(&obj.value_of("message_id"))?;
    let chat = match chat {
        Some(chat) => chat,
        None => derive_chat(obj, user_id)?,
    };
    let message_seq = ["real_seq", "message_seq", "real_id"]
        .iter()
        .filter_map(|k| obj.value_of(k).int())
        .find(|seq| *seq > 0 && *seq != message_id);
    let peer_seq = obj
        .value_of("message_seq")
        .int()
        .or_else(|| obj.value_of("real_id").int())
        .filter(|s| *s > 0);
    let time = obj.value_of("time").time().unwrap_or(0);
    let sender = Sender {
        user_id,
        nickname: obj.sender_of("nickname").text().unwrap_or_default(),
        card: obj.sender_of("card").text().unwrap_or_default(),
        role: obj.sender_of("role").text().unwrap_or_default(),
    };
    Some(Message {
        message_id,
        message_seq,
        peer_seq,
        time,
        sender,
        segments: segments(),
        chat,
        raw: raw(),
    })
}

/// A message id as [`ids::message_id_of`] reads it, from a field read as a
/// [`Scalar`].
fn message_id_of(v: &Scalar<'_>) -> Option<i64> {
    match v {
        Scalar::I64(i) => Some(*i),
        Scalar::U64(u) => Some(ids::message_id_of_u64(*u)),
        Scalar::F64(f) => ids::message_id_of_f64(*f),
        Scalar::Str(s) => ids::message_id_of_str(s),
        Scalar::Bool(_) | Scalar::Null | Scalar::Nested => None,
    }
}

fn derive_chat(obj: &impl Fields, sender_id: i64) -> Option<ChatRef> {
    let group = || obj.value_of("group_id").int().map(ChatRef::Group);
    match obj.value_of("message_type").as_str() {
        Some("group") => group(),
        Some("private") => {
            let self_sent = obj.value_of("post_type").as_str() == Some("message_sent");
            let peer = if self_sent {
                obj.value_of("target_id").int()
            } else {
                None
            };
            let top = obj.value_of("user_id").int();
            Some(ChatRef::Private(peer.or(top).unwrap_or(sender_id)))
        }
        _ => group(),
    }
}

/// A message object's fields by name, wherever they were decoded from.
pub(super) trait Fields {
    /// The top-level field `key`; `Null` when absent.
    fn value_of(&self, key: &str) -> Scalar<'_>;
    /// The field `key` of the `sender` object; `Null` when absent or when
    /// `sender` is not an object.
    fn sender_of(&self, key: &str) -> Scalar<'_>;
}

impl Fields for Map<String, Value> {
    fn value_of(&self, key: &str) -> Scalar<'_> {
        Scalar::of_value(field(self, key))
    }

    fn sender_of(&self, key: &str) -> Scalar<'_> {
        field(self, "sender")
            .as_object()
            .map_or(Scalar::Null, |sender| Scalar::of_value(field(sender, key)))
    }
}

/// Decodes a member list, keeping each member's own object without copying
/// it (its text is made on first use).
pub fn decode_members(list: Vec<Value>) -> Vec<GroupMember> {
    let shared = Arc::new(ValueEntries {
        texts: list.iter().map(|_| OnceLock::new()).collect(),
        values: list,
    });
    (0..shared.values.len())
        .map(|i| {
            let mut member = member_fields(&shared.values[i]);
            member.raw = RawJson::entry(shared.clone(), i);
            member
        })
        .collect()
}

/// Decodes one member object. Never fails: a member without a numeric
/// `user_id` keeps `None` (the peer counted it, so it is listed).
pub fn decode_member(raw: &Value) -> GroupMember {
    GroupMember {
        raw: raw_of_value(raw),
        ..member_fields(raw)
    }
}

/// JSON values whose texts are made when first asked for.
struct ValueEntries {
    values: Vec<Value>,
    texts: Vec<OnceLock<String>>,
}

impl RawEntries for ValueEntries {
    fn entry(&self, index: usize) -> &str {
        match (self.values.get(index), self.texts.get(index)) {
            (Some(v), Some(text)) => text.get_or_init(|| v.to_string()),
            _ => "null",
        }
    }
}

/// The fields of one member object (`raw` left empty), read as the list
/// decoder reads them ([`Scalar::compact`]).
fn member_fields(raw: &Value) -> GroupMember {
    let mut member = GroupMember::default();
    let text = |v| Scalar::of_value(v).compact().unwrap_or_default();
    // One pass over the object (members carry twenty-odd keys; lists run to
    // thousands of members): each key is matched once, not searched for per
    // field.
    if let Some(obj) = raw.as_object() {
        for (key, v) in obj {
            match key.as_str() {
                "user_id" => member.user_id = int_of(v),
                "nickname" => member.nickname = text(v),
                "card" => member.card = text(v),
                "role" => member.role = text(v),
                "title" => member.title = text(v),
                "level" => member.level = text(v),
                "join_time" => member.join_time = int_of(v).filter(|t| *t != 0),
                "last_sent_time" => member.last_sent_time = int_of(v).filter(|t| *t != 0),
                _ => {}
            }
        }
    }
    if member.role.trim().is_empty() {
        member.role = "member".into();
    }
    member
}

/// Decodes one `get_group_list` entry; `None` without a numeric
/// `group_id`.
pub fn decode_group(raw: &Value) -> Option<GroupInfo> {
    let obj = raw.as_object()?;
    Some(GroupInfo {
        group_id: int_of(field(obj, "group_id"))?,
        group_name: text_field(obj, "group_name"),
        member_count: int_of(field(obj, "member_count")).unwrap_or(0).max(0),
        max_member_count: int_of(field(obj, "max_member_count")).unwrap_or(0).max(0),
        raw: raw_of_value(raw),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::onebot::model::decode_message_json;

    #[test]
    fn decoded_from_text_the_same_as_from_a_tree() {
        let raw = |s: &str| serde_json::from_str::<Box<RawValue>>(s).unwrap();
        let chat = Some(ChatRef::Group(1));
        // Unknown keys skipped, escaped keys read, later duplicates win,
        // `raw` is the text as it came.
        let text = r#"{"font":{"deep":[1,{"x":null}]},"message_id":1,"message_id":"2","\u0075ser_id":3,"message":[{"type":"text","data":{"text":"hi"}}],"message_seq":"9"}"#;
        let m = decode_message_json(&raw(text), chat).unwrap();
        assert_eq!(
            (m.message_id, m.sender.user_id, m.peer_seq),
            (2, 3, Some(9))
        );
        assert_eq!(m.segments, vec![Segment::Text("hi".into())]);
        assert_eq!(m.raw.text(), text);
        let tree: Value = serde_json::from_str(text).unwrap();
        let by_tree = decode_message(&tree, chat).unwrap();
        assert_eq!(
            Message {
                raw: m.raw.clone(),
                ..by_tree
            },
            m
        );
        assert_eq!(serde_json::from_str::<Value>(m.raw.text()).unwrap(), tree);
        for not_a_message in ["[]", "1", "null", "\"x\"", r#"{"message_id":1}"#] {
            assert!(decode_message_json(&raw(not_a_message), chat).is_none());
        }
        // The seq the peer anchors on: `message_seq`, else `real_id`, positive.
        let seq = |v: Value| decode_message(&v, chat).unwrap().peer_seq;
        assert_eq!(
            seq(json!({"message_id": 1, "user_id": 2, "real_id": 7})),
            Some(7)
        );
        assert_eq!(
            seq(json!({"message_id": 1, "user_id": 2, "message_seq": 0, "real_id": 7})),
            None
        );
        assert_eq!(seq(json!({"message_id": 1, "user_id": 2})), None);
    }

    /// Every field read from the text as a scalar reads as it does from a
    /// tree: ids beyond `i64`, floats, strings with escapes, numbers and
    /// booleans where text is expected, containers where a scalar is.
    #[test]
    fn scalar_fields_read_from_text_as_from_a_tree() {
        let chat = None;
        let texts = [
            r#"{"message_id":18446744073709551615,"user_id":"12","time":1.7e9,"message_type":"private","post_type":"message_sent","target_id":" 77 ","sender":{"user_id":5,"nickname":"a\"b\u4e2d","card":12.5,"role":true}}"#,
            r#"{"message_id":-3,"user_id":2,"time":18446744073709551615,"group_id":"9","message_type":"group","real_seq":"4","message_seq":3,"sender":{"nickname":null,"card":[1],"role":{"x":1}}}"#,
            r#"{"message_id":" 5 ","user_id":2,"time":"123","message_type":"private","user_id":8,"real_id":6.0,"raw_message":"[CQ:face,id=1]\n","sender":[]}"#,
            r#"{"message_id":1e3,"sender":{"user_id":"4"},"time":-1.5,"message_type":7,"group_id":1.5,"message":"x\ty","raw_message":"ignored"}"#,
            r#"{"message_id":"abc","user_id":2,"time":null,"message_type":"private","post_type":"message","target_id":3,"message":{"type":"text"}}"#,
        ];
        for text in texts {
            let tree: Value = serde_json::from_str(text).unwrap();
            let raw = serde_json::from_str::<Box<RawValue>>(text).unwrap();
            let by_text = decode_message_json(&raw, chat);
            let by_tree = decode_message(&tree, chat);
            match (by_text, by_tree) {
                (Some(t), Some(v)) => assert_eq!(
                    Message {
                        raw: t.raw.clone(),
                        ..v
                    },
                    t,
                    "{text}"
                ),
                (t, v) => assert_eq!(t.is_none(), v.is_none(), "{text}"),
            }
        }
    }

    /// Segments read from the text as from a tree whatever the order of
    /// `type` and `data`: `type` first (read in one pass), `data` first,
    /// repeated keys (a `type` after `data` that changes what the kind
    /// needs), `data` that is null, absent or not an object.
    #[test]
    fn segments_read_from_text_as_from_a_tree_in_any_key_order() {
        let chat = Some(ChatRef::Group(1));
        let segments = [
            r#"{"type":"text","data":{"text":"a\nb","x":[1]}}"#,
            r#"{"data":{"text":"a"},"type":"text"}"#,
            r#"{"type":"image","data":{"file":"f.png","url":"http://u/1?a=1&b=2","file_size":"12","summary":"[图片]"}}"#,
            r#"{"type":"mface","data":{"emoji_id":"e","key":"k","summary":"[表情]"}}"#,
            r#"{"data":{"emoji_id":"e"},"type":"mface"}"#,
            r#"{"type":"json","data":{"data":"{\"app\":1}"}}"#,
            r#"{"type":"reply","data":{"id":-5}}"#,
            r#"{"type":"at","data":{"qq":"all","name":"x"}}"#,
            r#"{"type":"text","data":null}"#,
            r#"{"type":"text"}"#,
            r#"{"type":"face","data":"not an object"}"#,
            r#"{"type":"text","data":{"text":"a"},"type":"mface"}"#,
            r#"{"type":"mface","data":{"text":"a","k":1},"type":"text"}"#,
            r#"{"type":"text","data":{"text":"a"},"type":"image"}"#,
            r#"{"type":"text","data":{"text":"a"},"data":{"text":"b"}}"#,
            r#"{"type":7,"data":{"text":"a"}}"#,
            r#"{"type":"text","data":{"text":"a"},"type":null}"#,
            r#"{"type":"poke","data":{"type":"1","id":"2"}}"#,
            r#"[1,2]"#,
        ];
        for segment in segments {
            // Alone, and beside a plain text segment.
            for list in [
                format!("[{segment}]"),
                format!(r#"[{segment},{{"type":"text","data":{{"text":"z"}}}}]"#),
            ] {
                let text = format!(
                    r#"{{"message_id":1,"user_id":2,"time":3,"message":{list},"raw_message":"r"}}"#
                );
                let tree: Value = serde_json::from_str(&text).unwrap();
                let raw = serde_json::from_str::<Box<RawValue>>(&text).unwrap();
                let by_text = decode_message_json(&raw, chat).unwrap();
                let by_tree = decode_message(&tree, chat).unwrap();
                assert_eq!(by_text.raw.text(), text);
                assert_eq!(
                    Message {
                        raw: by_text.raw.clone(),
                        ..by_tree
                    },
                    by_text,
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn ids_as_numbers_or_strings_negative_allowed() {
        let m = decode_message(
            &json!({"message_id": "-1834567890", "time": "1700000000", "sender": {"user_id": "10001"},
                    "message": "hi"}),
            Some(ChatRef::Group(1)),
        )
        .unwrap();
        assert_eq!(m.message_id, -1_834_567_890);
        assert_eq!(m.time, 1_700_000_000);
        assert_eq!(m.sender.user_id, 10001);
        assert_eq!(m.segments, vec![Segment::Text("hi".into())]);
        let m = decode_message(
            &json!({"message_id": 5.0, "user_id": 7, "message": []}),
            Some(ChatRef::Private(7)),
        )
        .unwrap();
        assert_eq!((m.message_id, m.sender.user_id, m.time), (5, 7, 0));
    }

    #[test]
    fn message_ids_of_any_shape_are_kept() {
        let chat = Some(ChatRef::Group(1));
        for id in [
            json!("99999999999999999999"),
            json!("fork-1"),
            json!(u64::MAX),
        ] {
            let m = decode_message(&json!({"message_id": id, "user_id": 2}), chat).unwrap();
            assert!(ids::is_mapped(m.message_id), "{id}");
        }
        let reply = decode_segment(&json!({"type": "reply", "data": {"id": "fork-1"}}));
        assert_eq!(
            reply,
            Some(Segment::reply(ids::mapped("fork-1").to_string()))
        );
    }

    #[test]
    fn entries_without_numeric_ids_are_dropped() {
        let chat = Some(ChatRef::Group(1));
        for v in [
            json!({"message_id": 1, "sender": {"user_id": "abc"}}),
            json!({"message_id": 1, "sender": {}}),
            json!({"message_id": 1.5, "user_id": 2}),
            json!({"message_id": "", "user_id": 2}),
            json!({"message_id": null, "user_id": 2}),
            json!({"user_id": 2}),
            json!({"message_id": 1, "user_id": 1e300}),
            json!("message"),
            json!([1, 2]),
            json!(null),
        ] {
            assert!(decode_message(&v, chat).is_none(), "{v}");
        }
        // `sender.user_id` not numeric, top-level `user_id` is: kept.
        assert!(
            decode_message(
                &json!({"message_id": 1, "sender": {"user_id": "x"}, "user_id": 3}),
                chat
            )
            .is_some()
        );
    }

    #[test]
    fn message_forms() {
        let chat = Some(ChatRef::Group(1));
        let decode = |message: Value, raw: Value| {
            decode_message(
                &json!({"message_id": 1, "user_id": 2, "message": message, "raw_message": raw}),
                chat,
            )
            .unwrap()
            .segments
        };
        let face = Segment::Face { id: "14".into() };
        assert_eq!(
            decode(json!([{"type": "face", "data": {"id": 14}}]), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!({"type": "face", "data": {"id": "14"}}), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!("[CQ:face,id=14]"), json!(null)),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!(null), json!("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!([]), json!("[CQ:face,id=14]")),
            vec![face.clone()]
        );
        assert_eq!(
            decode(json!([1, "x", {"data": {}}]), json!("plain")),
            vec![Segment::Text("plain".into())]
        );
        assert_eq!(decode(json!(""), json!("")), vec![]);
        assert_eq!(decode(json!(42), json!(7)), vec![]);
    }

    #[test]
    fn every_segment_decodes() {
        let segs = segments_of(
            &json!([
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
            ]),
            None,
        );
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

    #[test]
    fn real_seq_rules() {
        let seq = |v: Value| {
            decode_message(&v, Some(ChatRef::Group(1)))
                .unwrap()
                .message_seq
        };
        // NapCat: message_seq = real_id = short id; real_seq is the real one.
        assert_eq!(
            seq(
                json!({"message_id": 123, "message_seq": 123, "real_id": 123, "real_seq": "4567", "user_id": 1})
            ),
            Some(4567)
        );
        assert_eq!(
            seq(json!({"message_id": 123, "message_seq": 123, "real_id": 123, "user_id": 1})),
            None
        );
        // LLOneBot / SnowLuma: message_seq is the real seq.
        assert_eq!(
            seq(json!({"message_id": -99, "message_seq": 880, "user_id": 1})),
            Some(880)
        );
        // go-cqhttp get_msg: real_id.
        assert_eq!(
            seq(json!({"message_id": 5, "real_id": 77, "user_id": 1})),
            Some(77)
        );
        assert_eq!(
            seq(json!({"message_id": 5, "real_seq": "0", "message_seq": 0, "user_id": 1})),
            None
        );
    }

    #[test]
    fn chat_derivation() {
        let chat = |v: Value| decode_message(&v, None).map(|m| m.chat);
        assert_eq!(
            chat(
                json!({"message_type": "group", "group_id": "20000002", "message_id": 1, "user_id": 2})
            ),
            Some(ChatRef::Group(20000002))
        );
        assert_eq!(
            chat(json!({"message_type": "group", "message_id": 1, "user_id": 2})),
            None
        );
        assert_eq!(
            chat(
                json!({"message_type": "private", "message_id": 1, "user_id": 10001, "sender": {"user_id": 10001}})
            ),
            Some(ChatRef::Private(10001))
        );
        assert_eq!(
            chat(
                json!({"post_type": "message_sent", "message_type": "private", "message_id": 1,
                        "user_id": 99, "target_id": 10001, "sender": {"user_id": 99}})
            ),
            Some(ChatRef::Private(10001))
        );
        assert_eq!(
            chat(json!({"group_id": 3, "message_id": 1, "user_id": 2})),
            Some(ChatRef::Group(3))
        );
        assert_eq!(chat(json!({"message_id": 1, "user_id": 2})), None);
        // A given chat wins.
        assert_eq!(
            chat(json!({"message_type": "group", "group_id": 3, "message_id": 1, "user_id": 2}))
                .and(decode_message(
                    &json!({"message_type": "group", "group_id": 3, "message_id": 1, "user_id": 2}),
                    Some(ChatRef::Group(9))
                ))
                .map(|m| m.chat),
            Some(ChatRef::Group(9))
        );
    }

    #[test]
    fn members_and_groups_decode() {
        let m = decode_member(
            &json!({"user_id": "10001", "nickname": "张三", "card": "群主张三",
            "role": "owner", "level": 3, "title": "t", "join_time": 1700000000, "last_sent_time": 0}),
        );
        assert_eq!(m.user_id, Some(10001));
        assert_eq!((m.role.as_str(), m.level.as_str()), ("owner", "3"));
        assert_eq!((m.join_time, m.last_sent_time), (Some(1_700_000_000), None));
        let m = decode_member(&json!({"user_id": null, "role": null}));
        assert_eq!((m.user_id, m.role.as_str()), (None, "member"));
        let g = decode_group(&json!({"group_id": "20000002", "group_name": "示例群",
            "member_count": 120, "max_member_count": "500"}))
        .unwrap();
        assert_eq!(
            (g.group_id, g.member_count, g.max_member_count),
            (20000002, 120, 500)
        );
        assert!(decode_group(&json!({"group_name": "x"})).is_none());
        assert!(decode_group(&json!(1)).is_none());
    }

    #[test]
    fn number_readers() {
        assert_eq!(int_of(&json!(" 42 ")), Some(42));
        assert_eq!(int_of(&json!(-7)), Some(-7));
        assert_eq!(int_of(&json!(1e3)), Some(1000));
        assert_eq!(int_of(&json!(u64::MAX)), None);
        assert_eq!(int_of(&json!(f64::MAX)), None);
        assert_eq!(int_of(&json!(true)), None);
        assert_eq!(int_of(&json!("0x10")), None);
        assert_eq!(str_of(&json!(1.5)).as_deref(), Some("1.5"));
        assert_eq!(str_of(&json!({})), None);
    }
}
