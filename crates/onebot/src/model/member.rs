//! The peer's group member and group objects, decoded by one
//! [`Deserialize`] each from text and from trees alike, and member lists
//! read from the answer's text in one pass, each member's `raw` pointing
//! into that text instead of holding a copy.

use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::message::raw_of_value;
use super::page::PageText;
use super::scalar::{self, KeyIn, Scalar};
use crate::frame::{self, FrameText};
use onebot_gateway_domain::model::{GroupInfo, GroupMember, RawJson};

/// One member object, `raw` left out. Never fails: what is not an object
/// is a member without fields, and a member without a numeric `user_id`
/// keeps `None` (the peer counted it, so it is listed). A member without a
/// role is a `member`; a zero time is no time. A repeated key keeps its
/// last value, as in a tree.
#[derive(Default)]
pub struct PeerMember {
    user_id: Option<i64>,
    nickname: CompactString,
    card: CompactString,
    role: CompactString,
    title: CompactString,
    level: CompactString,
    join_time: Option<i64>,
    last_sent_time: Option<i64>,
}

impl PeerMember {
    /// The member, `raw` its own object.
    pub fn into_member(self, raw: RawJson) -> GroupMember {
        let role = if self.role.trim().is_empty() {
            "member".into()
        } else {
            self.role
        };
        GroupMember {
            user_id: self.user_id,
            nickname: self.nickname,
            card: self.card,
            role,
            title: self.title,
            level: self.level,
            join_time: self.join_time,
            last_sent_time: self.last_sent_time,
            raw,
        }
    }
}

impl<'de> Deserialize<'de> for PeerMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MemberVisitor)
    }
}

/// Decodes one member object given as a tree; `raw` is its text.
pub fn decode_member(raw: &Value) -> GroupMember {
    PeerMember::deserialize(raw)
        .unwrap_or_default()
        .into_member(raw_of_value(raw))
}

/// Decodes a member list given as trees, each member as [`decode_member`].
pub fn decode_members(list: Vec<Value>) -> Vec<GroupMember> {
    list.iter().map(decode_member).collect()
}

/// The index of a member key read; every other key is skipped.
fn member_key(key: &str) -> Option<usize> {
    Some(match key {
        "user_id" => 0,
        "nickname" => 1,
        "card" => 2,
        "role" => 3,
        "title" => 4,
        "level" => 5,
        "join_time" => 6,
        "last_sent_time" => 7,
        _ => return None,
    })
}

struct MemberVisitor;

impl<'de> Visitor<'de> for MemberVisitor {
    type Value = PeerMember;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<PeerMember, E> {
        Ok(PeerMember::default())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<PeerMember, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(PeerMember::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PeerMember, A::Error> {
        let mut m = PeerMember::default();
        while let Some(index) = map.next_key_seed(KeyIn(member_key))? {
            let Some(index) = index else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let v: Scalar<'de> = map.next_value()?;
            match index {
                0 => m.user_id = v.int(),
                1 => m.nickname = v.compact().unwrap_or_default(),
                2 => m.card = v.compact().unwrap_or_default(),
                3 => m.role = v.compact().unwrap_or_default(),
                4 => m.title = v.compact().unwrap_or_default(),
                5 => m.level = v.compact().unwrap_or_default(),
                6 => m.join_time = v.int().filter(|t| *t != 0),
                _ => m.last_sent_time = v.int().filter(|t| *t != 0),
            }
        }
        Ok(m)
    }
}

/// What a member-list answer's `data` held.
#[derive(Debug)]
pub enum MemberList {
    /// The members, one per entry of the list (entries that are not objects
    /// count as members without fields: the peer counted them).
    Members(Vec<GroupMember>),
    /// `null` or `{}`: what a peer without the action answers `ok` with.
    Nothing,
    /// Not an array: what it was (`an object`, `a string`, ...).
    NotAnArray(&'static str),
}

/// Decodes `data` (a member array) in one pass over its text.
pub fn member_list(data: Box<RawValue>) -> MemberList {
    let page = Arc::new(PageText::new(data));
    let mut de = serde_json::Deserializer::from_str(page.text());
    match ListSeed(&page).deserialize(&mut de) {
        Ok(list) => list,
        // The text is valid JSON; only a nesting deeper than serde_json
        // allows fails here.
        Err(_) => MemberList::NotAnArray("an array too deeply nested"),
    }
}

/// A whole member-list reply read in one pass: its top-level fields (as
/// [`Frame::head`](crate::frame::Frame::head)) and its `data` as
/// [`member_list`] reads it ([`MemberList::Nothing`] without one). `None`
/// when the text is not a JSON object.
pub fn member_list_of_frame(text: FrameText) -> Option<(Value, MemberList)> {
    let page = Arc::new(PageText::frame(text));
    let (head, list) = frame::read_with(page.text(), ListSeed(&page)).ok()?;
    Some((head, list.unwrap_or(MemberList::Nothing)))
}

/// Reads `data`: an array's entries each as a member whose `raw` is its
/// entry of `page` (the text being read), anything else named.
#[derive(Clone, Copy)]
struct ListSeed<'p>(&'p Arc<PageText>);

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = MemberList;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<MemberList, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = MemberList;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<MemberList, A::Error> {
        let mut out: Vec<GroupMember> = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(member) = seq.next_element::<PeerMember>()? {
            let raw = RawJson::entry(self.0.clone(), out.len());
            out.push(member.into_member(raw));
        }
        self.0.counted(out.len());
        Ok(MemberList::Members(out))
    }

    /// `null` or `{}`: what a peer without the action answers `ok` with.
    fn visit_unit<E: de::Error>(self) -> Result<MemberList, E> {
        Ok(MemberList::Nothing)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MemberList, A::Error> {
        let mut empty = true;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<IgnoredAny>()?;
            empty = false;
        }
        Ok(if empty {
            MemberList::Nothing
        } else {
            MemberList::NotAnArray("an object")
        })
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<MemberList, E> {
        Ok(MemberList::NotAnArray("a string"))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<MemberList, E> {
        Ok(MemberList::NotAnArray("a boolean"))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<MemberList, E> {
        Ok(MemberList::NotAnArray("a number"))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<MemberList, E> {
        Ok(MemberList::NotAnArray("a number"))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<MemberList, E> {
        Ok(MemberList::NotAnArray("a number"))
    }
}

/// One `get_group_list` entry, `raw` left out: it needs a numeric
/// `group_id`; a name is read as text, counts that are not numbers are 0.
/// Anything else fails to decode.
#[derive(Deserialize)]
pub struct PeerGroup {
    #[serde(deserialize_with = "scalar::id")]
    group_id: i64,
    #[serde(default, deserialize_with = "scalar::text")]
    group_name: String,
    #[serde(default, deserialize_with = "scalar::count")]
    member_count: i64,
    #[serde(default, deserialize_with = "scalar::count")]
    max_member_count: i64,
}

impl PeerGroup {
    /// The group, `raw` its own object.
    pub fn into_group(self, raw: RawJson) -> GroupInfo {
        GroupInfo {
            group_id: self.group_id,
            group_name: self.group_name,
            member_count: self.member_count,
            max_member_count: self.max_member_count,
            raw,
        }
    }
}

/// Decodes one `get_group_list` entry given as a tree; `None` without a
/// numeric `group_id`.
pub fn decode_group(raw: &Value) -> Option<GroupInfo> {
    let group = PeerGroup::deserialize(raw).ok()?;
    Some(group.into_group(raw_of_value(raw)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn by_text(text: &str) -> Vec<GroupMember> {
        match member_list(serde_json::from_str::<Box<RawValue>>(text).unwrap()) {
            MemberList::Members(m) => m,
            MemberList::NotAnArray(kind) => panic!("{kind}"),
            MemberList::Nothing => panic!("nothing"),
        }
    }

    #[test]
    fn members_decode() {
        let m = decode_member(
            &json!({"user_id": "10001", "nickname": "张三", "card": "群主张三",
            "role": "owner", "level": 3, "title": "t", "join_time": 1700000000, "last_sent_time": 0}),
        );
        assert_eq!(m.user_id, Some(10001));
        assert_eq!((m.role.as_str(), m.level.as_str()), ("owner", "3"));
        assert_eq!((m.join_time, m.last_sent_time), (Some(1_700_000_000), None));
        let m = decode_member(&json!({"user_id": null, "role": null}));
        assert_eq!((m.user_id, m.role.as_str()), (None, "member"));
        let m = decode_member(&json!("x"));
        assert_eq!(
            (m.user_id, m.role.as_str(), m.raw.text()),
            (None, "member", "\"x\"")
        );
    }

    /// The members of a list count the shared text once between them,
    /// whether or not any member's own text was asked for.
    #[test]
    fn a_list_counts_its_text_once() {
        let text = r#"[{"user_id":1,"nickname":"a"},{"user_id":2,"nickname":"bb"},{"user_id":3}]"#;
        for ask in [false, true] {
            let members = by_text(text);
            if ask {
                assert_eq!(members[1].raw.text(), r#"{"user_id":2,"nickname":"bb"}"#);
            }
            let shares: usize = members.iter().map(|m| m.raw.approx_bytes()).sum();
            assert!(
                (text.len() - members.len()..=text.len()).contains(&shares),
                "{shares} of {}",
                text.len()
            );
        }
    }

    #[test]
    fn a_list_read_from_its_text() {
        let text = r#"[{"user_id":"10001","nickname":"张三","card":"群主张三","role":"owner",
            "level":3,"title":"t","join_time":1700000000,"last_sent_time":0,"x":{"deep":[1]}},
            {"user_id":null,"role":null},{"\u0075ser_id":7,"user_id":8,"role":" ","nickname":1.5},
            1,"s",null,[1],{"join_time":"17","card":true}]"#;
        let members = by_text(text);
        let list: Vec<Value> = serde_json::from_str(text).unwrap();
        assert_eq!(members.len(), list.len());
        // Each member as it reads from its own tree, and its raw is its
        // own entry, as the peer sent it.
        for (m, v) in members.iter().zip(&list) {
            let alone = decode_member(v);
            assert_eq!(
                GroupMember {
                    raw: RawJson::null(),
                    ..m.clone()
                },
                GroupMember {
                    raw: RawJson::null(),
                    ..alone
                }
            );
            assert_eq!(serde_json::from_str::<Value>(m.raw.text()).unwrap(), *v);
        }
        assert_eq!(members[0].level, "3");
        assert_eq!(members[2].user_id, Some(8), "later duplicates win");
        assert_eq!(
            (members[2].role.as_str(), members[2].nickname.as_str()),
            ("member", "1.5")
        );
        assert_eq!(
            (members[3].user_id, members[3].role.as_str()),
            (None, "member")
        );
        assert_eq!(
            (members[7].join_time, members[7].card.as_str()),
            (Some(17), "true")
        );
    }

    #[test]
    fn anything_but_an_array_is_named() {
        for text in ["null", "{}", " { } "] {
            let raw = serde_json::from_str::<Box<RawValue>>(text).unwrap();
            assert!(matches!(member_list(raw), MemberList::Nothing), "{text}");
        }
        for (text, kind) in [
            ("{\"a\":1}", "an object"),
            ("\"x\"", "a string"),
            ("true", "a boolean"),
            ("1", "a number"),
            ("-1", "a number"),
        ] {
            match member_list(serde_json::from_str::<Box<RawValue>>(text).unwrap()) {
                MemberList::NotAnArray(k) => assert_eq!(k, kind, "{text}"),
                other => panic!("{text}: {}", matches!(other, MemberList::Nothing)),
            }
        }
        assert!(matches!(
            member_list(serde_json::from_str::<Box<RawValue>>(&json!([]).to_string()).unwrap()),
            MemberList::Members(m) if m.is_empty()
        ));
    }

    #[test]
    fn groups_decode() {
        let g = decode_group(&json!({"group_id": "20000002", "group_name": "示例群",
            "member_count": 120, "max_member_count": "500"}))
        .unwrap();
        assert_eq!(
            (
                g.group_id,
                g.group_name.as_str(),
                g.member_count,
                g.max_member_count
            ),
            (20000002, "示例群", 120, 500)
        );
        let g = decode_group(&json!({"group_id": 3, "group_name": 7, "member_count": -1,
            "max_member_count": [1]}))
        .unwrap();
        assert_eq!(
            (g.group_name.as_str(), g.member_count, g.max_member_count),
            ("7", 0, 0)
        );
        assert!(decode_group(&json!({"group_name": "x"})).is_none());
        assert!(decode_group(&json!({"group_id": "x"})).is_none());
        assert!(decode_group(&json!(1)).is_none());
        // From text, as from a tree.
        let text = r#"{"group_id":"20000002","group_name":"\u793a例群","x":{"y":1}}"#;
        let g = serde_json::from_str::<PeerGroup>(text)
            .unwrap()
            .into_group(RawJson::from_text(text));
        assert_eq!((g.group_id, g.group_name.as_str()), (20000002, "示例群"));
    }
}
