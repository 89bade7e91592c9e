//! Lenient readers for the peer's JSON, decoded straight from its text
//! (no intermediate tree): a field that is absent or of another type reads
//! as empty, an unknown field is skipped, and a repeated key's last value
//! wins (as in a JSON tree). Nothing here fails on valid JSON; only text
//! that is not JSON, or nested deeper than the parser allows, fails.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use onebot_gateway_domain::model::{RawEntries, RawJson};

/// Every scalar `visit_*` answering `$empty`.
macro_rules! scalars_as {
    ($empty:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($empty)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($empty)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($empty)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($empty)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok($empty)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($empty)
        }
    };
}

/// An object's fields, set one by one as its keys are read.
pub(crate) trait Fields<'de>: Default {
    /// Reads the value of `key` from `map` into `self`, or skips it.
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error>;
}

/// Reads `text` as `T` (`None` only when `text` is not JSON).
pub(crate) fn read<'de, T: Fields<'de>>(text: &'de str) -> Option<T> {
    serde_json::from_str::<Obj<T>>(text).ok().map(|o| o.0)
}

/// Skips a field's value.
pub(crate) fn skip<'de, A: MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(drop)
}

/// Any JSON value read into a [`Fields`]: an object field by field,
/// anything else as the default.
pub(crate) struct Obj<T>(pub T);

impl<'de, T: Fields<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Fields<'de>> Visitor<'de> for V<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Obj<T>, A::Error> {
                let mut out = T::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    out.field(&key, &mut map)?;
                }
                Ok(Obj(out))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Obj<T>, A::Error> {
                drain(seq).map(|()| Obj(T::default()))
            }
            scalars_as!(Obj(T::default()));
        }
        d.deserialize_any(V(PhantomData))
    }
}

fn drain<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// An integer field: `None` unless the value is an integer within `i64`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Int(pub Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Int, E> {
                Ok(Int(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Int, A::Error> {
                drain(seq).map(|()| Int(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Int, A::Error> {
                drain_map(map).map(|()| Int(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A string field: empty unless the value is a string.
#[derive(Debug, Default, Clone)]
pub(crate) struct Str(pub String);

impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Str;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Str, E> {
                Ok(Str(v.to_string()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Str, E> {
                Ok(Str(v))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Str, E> {
                Ok(Str::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Str, A::Error> {
                drain(seq).map(|()| Str::default())
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Str, A::Error> {
                drain_map(map).map(|()| Str::default())
            }
        }
        d.deserialize_any(V)
    }
}

/// A list field: empty unless the value is an array (an element read as
/// `T` reads).
#[derive(Debug)]
pub(crate) struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<List<T>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(v) = seq.next_element::<T>()? {
                    out.push(v);
                }
                Ok(List(out))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<List<T>, A::Error> {
                drain_map(map).map(|()| List::default())
            }
            scalars_as!(List::default());
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// A raw value borrowed from the text (`None` for `null`).
pub(crate) fn raw_value<'de, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<&'de RawValue>, A::Error> {
    let v = map.next_value::<&'de RawValue>()?;
    Ok((v.get() != "null").then_some(v))
}

/// A field's value in its text, owned (`None` for `null`).
pub(crate) fn owned_value<'de, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<Box<RawValue>>, A::Error> {
    let v = map.next_value::<Box<RawValue>>()?;
    Ok((v.get() != "null").then_some(v))
}

/// A list field that is there only when the value is an array.
pub(crate) struct Array<T>(pub Option<List<T>>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Array<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Array<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Array<T>, A::Error> {
                let list = List::<T>::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Array(Some(list)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Array<T>, A::Error> {
                drain_map(map).map(|()| Array(None))
            }
            scalars_as!(Array(None));
        }
        d.deserialize_any(V(PhantomData))
    }
}

/// The text of `key` in the JSON object `text` (the last one when
/// repeated); `None` when absent, `null`, or `text` is no object.
pub(crate) fn field_text<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let fields: Vec<(Cow<'t, str>, &'t RawValue)> = serde_json::from_str::<Pairs<'t>>(text).ok()?.0;
    fields
        .into_iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.get())
        .filter(|v| *v != "null")
}

/// An object's fields in order, keys and values borrowed.
struct Pairs<'de>(Vec<(Cow<'de, str>, &'de RawValue)>);

impl<'de> Deserialize<'de> for Pairs<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                    out.push((k, map.next_value::<&'de RawValue>()?));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// Where `inner` (borrowed from `outer`) lies in `outer`.
fn span(outer: &str, inner: &str) -> Range<usize> {
    let start = (inner.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize);
    if start <= outer.len() && inner.len() <= outer.len() - start {
        start..start + inner.len()
    } else {
        0..0
    }
}

/// A whole answer's text, shared by the objects decoded from the list
/// `data.<list>` in it: each finds its own text there when asked (the
/// entries are located once, on the first ask) instead of keeping a copy.
pub(crate) struct Shared {
    text: Arc<str>,
    list: &'static str,
    count: usize,
    entries: OnceLock<Vec<Range<usize>>>,
}

impl Shared {
    /// The `count` entries of `data.<list>` in the answer `text`.
    pub(crate) fn new(text: Arc<str>, list: &'static str, count: usize) -> Arc<Shared> {
        Arc::new(Shared {
            text,
            list,
            count,
            entries: OnceLock::new(),
        })
    }

    /// Entry `index`'s raw JSON.
    pub(crate) fn raw(self: &Arc<Self>, index: usize) -> RawJson {
        RawJson::entry(Arc::clone(self) as Arc<dyn RawEntries>, index)
    }

    fn locate(&self) -> Vec<Range<usize>> {
        let text: &str = &self.text;
        let Some(list) = field_text(text, "data").and_then(|d| field_text(d, self.list)) else {
            return Vec::new();
        };
        let items: Vec<&RawValue> = serde_json::from_str(list).unwrap_or_default();
        items.iter().map(|v| span(text, v.get())).collect()
    }
}

impl RawEntries for Shared {
    fn entry(&self, index: usize) -> &str {
        self.entries
            .get_or_init(|| self.locate())
            .get(index)
            .and_then(|r| self.text.get(r.clone()))
            .filter(|t| !t.is_empty())
            .unwrap_or("null")
    }

    fn share_bytes(&self) -> usize {
        self.text.len() / self.count.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Pair {
        a: Int,
        b: Str,
    }

    impl<'de> Fields<'de> for Pair {
        fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
            match key {
                "a" => self.a = map.next_value()?,
                "b" => self.b = map.next_value()?,
                _ => skip(map)?,
            }
            Ok(())
        }
    }

    #[test]
    fn fields_are_lenient_and_the_last_duplicate_wins() {
        let p: Pair = read(r#"{"a":1,"b":"x","a":2,"c":{"d":[1,2]}}"#).unwrap();
        assert_eq!((p.a.0, p.b.0.as_str()), (Some(2), "x"));
        let p: Pair = read(r#"{"a":"1","b":3}"#).unwrap();
        assert_eq!((p.a.0, p.b.0.as_str()), (None, ""));
        let p: Pair = read(r#"{"a":18446744073709551615,"b":{"x":1},"\u0061":[5]}"#).unwrap();
        assert_eq!((p.a.0, p.b.0.as_str()), (None, ""));
        let p: Pair = read("[1,2]").unwrap();
        assert_eq!(p.a.0, None);
        assert!(read::<Pair>("{").is_none());
    }

    #[test]
    fn entries_are_found_in_the_shared_text() {
        let text: Arc<str> =
            Arc::from(r#"{"status":"ok","data":{"l":[0],"l":[{"x":1}, 2 ,"s"],"m":0}}"#);
        let shared = Shared::new(Arc::clone(&text), "l", 3);
        assert_eq!(shared.raw(0).text(), r#"{"x":1}"#);
        assert_eq!(shared.raw(1).text(), "2");
        assert_eq!(shared.raw(2).text(), r#""s""#);
        assert_eq!(shared.raw(3).text(), "null");
        assert_eq!(shared.share_bytes(), text.len() / 3);
        assert_eq!(field_text(&text, "status"), Some(r#""ok""#));
        assert_eq!(field_text("[1]", "status"), None);
        let none = Shared::new(Arc::from(r#"{"data":null}"#), "l", 0);
        assert_eq!(none.raw(0).text(), "null");
    }

    #[test]
    fn arrays_are_there_only_when_arrays() {
        #[derive(Default)]
        struct A(Option<List<Int>>);
        impl<'de> Fields<'de> for A {
            fn field<M: MapAccess<'de>>(&mut self, key: &str, map: &mut M) -> Result<(), M::Error> {
                match key {
                    "a" => self.0 = map.next_value::<Array<Int>>()?.0,
                    _ => skip(map)?,
                }
                Ok(())
            }
        }
        let a: A = read(r#"{"a":[1,"x",3]}"#).unwrap();
        let got: Vec<Option<i64>> = a.0.unwrap().0.iter().map(|i| i.0).collect();
        assert_eq!(got, vec![Some(1), None, Some(3)]);
        assert!(read::<A>(r#"{"a":{"b":1}}"#).unwrap().0.is_none());
        assert!(read::<A>(r#"{"a":null}"#).unwrap().0.is_none());
    }
}
