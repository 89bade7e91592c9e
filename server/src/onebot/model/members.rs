//! Member lists decoded straight from the answer's text: each member's
//! fields read in one pass, everything else skipped, and each member's
//! `raw` pointing into the shared text instead of holding a copy. The
//! result is the same as decoding the text into a [`serde_json::Value`] and
//! calling [`decode_members`](super::value::decode_members) (a test holds
//! the two together).

use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::json::PageText;
use super::scalar::Scalar;
use crate::domain::model::{GroupMember, RawJson};

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
    let text = data.get();
    let kind = match text.as_bytes().first() {
        Some(b'[') => None,
        Some(b'n') => return MemberList::Nothing,
        Some(b'{') if text[1..].trim_start().starts_with('}') => return MemberList::Nothing,
        Some(b'{') => Some("an object"),
        Some(b'"') => Some("a string"),
        Some(b't' | b'f') => Some("a boolean"),
        _ => Some("a number"),
    };
    if let Some(kind) = kind {
        return MemberList::NotAnArray(kind);
    }
    let page = Arc::new(PageText::new(data));
    let entries = match serde_json::from_str::<List>(page.text()) {
        Ok(List(entries)) => entries,
        // The text is valid JSON; only a nesting deeper than serde_json
        // allows fails here.
        Err(_) => return MemberList::NotAnArray("an array too deeply nested"),
    };
    MemberList::Members(
        entries
            .into_iter()
            .enumerate()
            .map(|(index, mut member)| {
                member.raw = RawJson::entry(page.clone(), index);
                member
            })
            .collect(),
    )
}

/// The list's entries, each read as a member.
struct List(Vec<GroupMember>);

impl<'de> Deserialize<'de> for List {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<List, D::Error> {
        deserializer.deserialize_seq(ListVisitor)
    }
}

struct ListVisitor;

impl<'de> Visitor<'de> for ListVisitor {
    type Value = List;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Entry(member)) = seq.next_element::<Entry>()? {
            out.push(member);
        }
        Ok(List(out))
    }
}

/// One entry: a member object read field by field, anything else a member
/// without fields.
struct Entry(GroupMember);

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Entry, D::Error> {
        deserializer.deserialize_any(EntryVisitor)
    }
}

struct EntryVisitor;

fn finish(mut member: GroupMember) -> Entry {
    if member.role.trim().is_empty() {
        member.role = "member".to_owned();
    }
    Entry(member)
}

macro_rules! fieldless {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $ty) -> Result<Entry, E> {
            Ok(finish(GroupMember::default()))
        })*
    };
}

impl<'de> Visitor<'de> for EntryVisitor {
    type Value = Entry;

    fieldless!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Entry, E> {
        Ok(finish(GroupMember::default()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Entry, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(finish(GroupMember::default()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entry, A::Error> {
        let mut m = GroupMember::default();
        // Later duplicates win, as in a `Value`.
        while let Some(index) = map.next_key_seed(Key)? {
            let Some(index) = index else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let v: Scalar<'de> = map.next_value()?;
            match index {
                0 => m.user_id = v.int(),
                1 => m.nickname = v.text().unwrap_or_default(),
                2 => m.card = v.text().unwrap_or_default(),
                3 => m.role = v.text().unwrap_or_default(),
                4 => m.title = v.text().unwrap_or_default(),
                5 => m.level = v.text().unwrap_or_default(),
                6 => m.join_time = v.int().filter(|t| *t != 0),
                _ => m.last_sent_time = v.int().filter(|t| *t != 0),
            }
        }
        Ok(finish(m))
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
