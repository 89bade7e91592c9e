//! Member lists decoded straight from the answer's text: each member's
//! fields read in one pass, everything else skipped, and each member's
//! `raw` pointing into the shared text instead of holding a copy. The
//! result is the same as decoding the text into a [`serde_json::Value`] and
//! calling [`decode_members`](super::value::decode_members) (a test holds
//! the two together).

use std::fmt;
use std::sync::Arc;

use compact_str::CompactString;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;

use super::json::PageText;
use super::scalar::Scalar;
use crate::domain::model::{GroupMember, RawJson};
use crate::onebot::frame::{self, FrameText};

/// The member keys read; every other key is skipped.
const KEYS: [&str; 8] = [
    "user_id",
    "nickname",
    "card",
    "role",
    "title",
    "level",
    "join_time",
    "last_sent_time",
];

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
/// [`Frame::head`](crate::onebot::frame::Frame::head)) and its `data` as
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
        // Each member is read into its place in the list: one slot pushed
        // ahead of the entry, taken back when the array has ended.
        loop {
            let raw = RawJson::entry(self.0.clone(), out.len());
            out.push(GroupMember {
                user_id: None,
                nickname: CompactString::default(),
                card: CompactString::default(),
                role: CompactString::default(),
                title: CompactString::default(),
                level: CompactString::default(),
                join_time: None,
                last_sent_time: None,
                raw,
            });
            let slot = out.last_mut().expect("just pushed");
            if seq.next_element_seed(EntrySeed(slot))?.is_none() {
                out.pop();
                return Ok(MemberList::Members(out));
            }
        }
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

/// One entry read into its member: an object field by field, anything else
/// a member without fields. A member without a role is a `member`.
struct EntrySeed<'m>(&'m mut GroupMember);

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        let member = deserializer.deserialize_any(EntryVisitor(&mut *self.0))?;
        if member.role.trim().is_empty() {
            member.role = "member".into();
        }
        Ok(())
    }
}

struct EntryVisitor<'m>(&'m mut GroupMember);

macro_rules! fieldless {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> {
            Ok(self.0)
        })*
    };
}

impl<'de, 'm> Visitor<'de> for EntryVisitor<'m> {
    type Value = &'m mut GroupMember;

    fieldless!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(self.0)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(self.0)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let m = self.0;
        // Later duplicates win, as in a `Value`.
        while let Some(index) = map.next_key_seed(Key)? {
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

/// A member key: its index in [`KEYS`], `None` for any other.
struct Key;

impl<'de> de::DeserializeSeed<'de> for Key {
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
        Ok(KEYS.iter().position(|k| *k == key))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::onebot::model::value::decode_members;

    fn by_text(text: &str) -> Vec<GroupMember> {
        match member_list(serde_json::from_str::<Box<RawValue>>(text).unwrap()) {
            MemberList::Members(m) => m,
            MemberList::NotAnArray(kind) => panic!("{kind}"),
            MemberList::Nothing => panic!("nothing"),
        }
    }

    fn without_raw(members: Vec<GroupMember>) -> Vec<GroupMember> {
        members
            .into_iter()
            .map(|m| GroupMember {
                raw: RawJson::null(),
                ..m
            })
            .collect()
    }

    #[test]
    fn decoded_from_text_the_same_as_from_a_tree() {
        let text = r#"[{"user_id":"10001","nickname":"张三","card":"群主张三","role":"owner",
            "level":3,"title":"t","join_time":1700000000,"last_sent_time":0,"x":{"deep":[1]}},
            {"user_id":null,"role":null},{"\u0075ser_id":7,"user_id":8,"role":" ","nickname":1.5},
            1,"s",null,[1],{"join_time":"17","card":true}]"#;
        let members = by_text(text);
        let list: Vec<Value> = serde_json::from_str(text).unwrap();
        assert_eq!(
            without_raw(members.clone()),
            without_raw(decode_members(list.clone()))
        );
        // Each raw is its own entry, as the peer sent it.
        for (m, v) in members.iter().zip(&list) {
            assert_eq!(serde_json::from_str::<Value>(m.raw.text()).unwrap(), *v);
        }
        assert_eq!(members[2].user_id, Some(8), "later duplicates win");
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
}
