//! The one lenient reader of a field: a JSON value as a peer sends a
//! scalar. Ids come as numbers or numeric strings, texts as strings or
//! numbers, depending on the implementation; every decoder of the peer's
//! objects reads its fields through [`Scalar`], from text (strings borrowed
//! where they have no escapes) and from a [`Value`] tree alike (strings
//! borrowed from the tree).

use std::borrow::Cow;
use std::fmt;

use compact_str::{CompactString, ToCompactString as _};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde_json::Value;

/// Reads an integer the way peers send ids: a JSON integer, an integral
/// float, or a decimal string (surrounding spaces allowed). Anything else,
/// and values outside `i64`, give `None` ([`Scalar::int`]).
pub fn int_of(v: &Value) -> Option<i64> {
    Scalar::of_value(v).int()
}

/// Reads a text field: strings as they are, numbers and booleans as their
/// JSON text; `null`, arrays and objects give `None` ([`Scalar::text`]).
pub fn str_of(v: &Value) -> Option<String> {
    Scalar::of_value(v).text()
}

/// One field's value.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Scalar<'a> {
    /// A string.
    Str(Cow<'a, str>),
    /// A negative integer (or any the parser gave as signed).
    I64(i64),
    /// A non-negative integer.
    U64(u64),
    /// Any other number.
    F64(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `null`, or absent.
    #[default]
    Null,
    /// An array or an object.
    Nested,
}

impl<'a> Scalar<'a> {
    /// The integer it holds the way peers send ids: an integer, an integral
    /// float in range, or a decimal string (surrounding spaces allowed).
    pub fn int(&self) -> Option<i64> {
        match self {
            Scalar::I64(i) => Some(*i),
            Scalar::U64(u) => i64::try_from(*u).ok(),
            // `as` saturates; the range check keeps only exact conversions.
            Scalar::F64(f) => (f.is_finite() && f.fract() == 0.0 && (-9.0e18..=9.0e18).contains(f))
                .then_some(*f as i64),
            Scalar::Str(s) => s.trim().parse().ok(),
            Scalar::Bool(_) | Scalar::Null | Scalar::Nested => None,
        }
    }

    /// The text it holds: a string as it is, a number or a boolean as its
    /// JSON text; `None` for `null`, arrays and objects.
    pub fn text(self) -> Option<String> {
        match self {
            Scalar::Str(s) => Some(s.into_owned()),
            Scalar::I64(i) => Some(i.to_string()),
            Scalar::U64(u) => Some(u.to_string()),
            Scalar::F64(f) => serde_json::Number::from_f64(f).map(|n| n.to_string()),
            Scalar::Bool(b) => Some(b.to_string()),
            Scalar::Null | Scalar::Nested => None,
        }
    }

    /// [`text`](Self::text) as a [`CompactString`]: a short string or
    /// number is kept inline, without an allocation.
    pub fn compact(self) -> Option<CompactString> {
        match self {
            Scalar::Str(s) => Some(CompactString::from(s)),
            Scalar::I64(i) => Some(i.to_compact_string()),
            Scalar::U64(u) => Some(u.to_compact_string()),
            other => other.text().map(CompactString::from),
        }
    }

    /// The value of a [`Value`], read by the same visitor as text is,
    /// borrowing its string.
    pub fn of_value(v: &'a Value) -> Scalar<'a> {
        // The visitor takes every JSON value, so reading a tree cannot fail.
        Scalar::deserialize(v).unwrap_or(Scalar::Null)
    }

    /// True for `null` (or absent).
    pub fn is_null(&self) -> bool {
        matches!(self, Scalar::Null)
    }

    /// The JSON value it stands for; `None` for [`Scalar::Nested`], which
    /// keeps nothing of the array or object it was.
    pub fn to_value(&self) -> Option<Value> {
        Some(match self {
            Scalar::Str(s) => Value::String(s.as_ref().to_owned()),
            Scalar::I64(i) => Value::from(*i),
            Scalar::U64(u) => Value::from(*u),
            Scalar::F64(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Scalar::Bool(b) => Value::Bool(*b),
            Scalar::Null => Value::Null,
            Scalar::Nested => return None,
        })
    }

    /// The same value, its string borrowed from this one.
    pub fn borrowed(&self) -> Scalar<'_> {
        match self {
            Scalar::Str(s) => Scalar::Str(Cow::Borrowed(s)),
            Scalar::I64(i) => Scalar::I64(*i),
            Scalar::U64(u) => Scalar::U64(*u),
            Scalar::F64(f) => Scalar::F64(*f),
            Scalar::Bool(b) => Scalar::Bool(*b),
            Scalar::Null => Scalar::Null,
            Scalar::Nested => Scalar::Nested,
        }
    }

    /// A timestamp the way peers send it: an integer, any finite number
    /// truncated (saturating), or what [`Scalar::int`] reads from a string.
    pub fn time(&self) -> Option<i64> {
        match self {
            Scalar::I64(i) => Some(*i),
            // Beyond `i64` it saturates, as the float it is read as would.
            Scalar::U64(u) => Some(i64::try_from(*u).unwrap_or(i64::MAX)),
            Scalar::F64(f) => f.is_finite().then_some(*f as i64),
            other => other.int(),
        }
    }

    /// The string it holds, borrowed, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::I64(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::U64(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::F64(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Nested)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Nested)
    }
}

/// A field that must hold an id ([`Scalar::int`]), for derived decoders.
pub fn id<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    Scalar::deserialize(deserializer)?
        .int()
        .ok_or_else(|| de::Error::custom("not a numeric id"))
}

/// A text field ([`Scalar::text`], empty for what is no text), for derived
/// decoders.
pub fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Scalar::deserialize(deserializer)?
        .text()
        .unwrap_or_default())
}

/// A count ([`Scalar::int`]; 0 for what is no number or is negative), for
/// derived decoders.
pub fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i64, D::Error> {
    Ok(Scalar::deserialize(deserializer)?.int().unwrap_or(0).max(0))
}

/// An object's key, borrowed from the input where it has no escapes.
pub struct Key<'de>(pub Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v)))
    }
}

/// A key looked up by `.0` (a `match` over the keys read): its index,
/// `None` for any other (nothing is allocated for it).
#[derive(Clone, Copy)]
pub struct KeyIn<F>(pub F);

impl<'de, F: Fn(&str) -> Option<usize>> DeserializeSeed<'de> for KeyIn<F> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<F: Fn(&str) -> Option<usize>> Visitor<'_> for KeyIn<F> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok((self.0)(key))
    }
}

/// The field named `key` of `values`, read in the order of `keys` (a key
/// the decoder does not read is a programming error).
pub(super) fn field<'a, 'de>(
    keys: &[&str],
    values: &'a [Scalar<'de>],
    key: &str,
) -> &'a Scalar<'de> {
    let i = keys.iter().position(|k| *k == key).expect("a key read");
    &values[i]
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The same field read from its text and from a tree of that text.
    #[test]
    fn text_and_tree_read_alike() {
        for text in [
            "1",
            "-7",
            "0",
            "-0",
            "18446744073709551615",
            "9223372036854775807",
            "9223372036854775808",
            "1.0",
            "1.5",
            "1e3",
            "1e300",
            "-9e18",
            "9.1e18",
            "\" 42 \"",
            "\"0x10\"",
            "\"张三\"",
            "\"a\\nb\"",
            "\"\\u0041\"",
            "true",
            "false",
            "null",
            "[1]",
            "{\"a\":1}",
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            let s: Scalar<'_> = serde_json::from_str(text).unwrap();
            assert_eq!(s, Scalar::of_value(&v), "{text}");
            assert_eq!(s.int(), int_of(&v), "int of {text}");
            assert_eq!(s.clone().text(), str_of(&v), "text of {text}");
            if !matches!(v, Value::Array(_) | Value::Object(_)) {
                assert_eq!(s.to_value(), Some(v), "{text}");
            }
        }
    }

    #[test]
    fn ids_and_texts_as_peers_send_them() {
        assert_eq!(int_of(&json!(" 42 ")), Some(42));
        assert_eq!(int_of(&json!("-1834567890")), Some(-1_834_567_890));
        assert_eq!(int_of(&json!(-7)), Some(-7));
        assert_eq!(int_of(&json!(1e3)), Some(1000));
        assert_eq!(int_of(&json!(1.5)), None);
        assert_eq!(int_of(&json!(u64::MAX)), None);
        assert_eq!(int_of(&json!(f64::MAX)), None);
        assert_eq!(int_of(&json!(true)), None);
        assert_eq!(int_of(&json!("0x10")), None);
        assert_eq!(int_of(&json!("")), None);
        assert_eq!(str_of(&json!(1.5)).as_deref(), Some("1.5"));
        assert_eq!(str_of(&json!(12)).as_deref(), Some("12"));
        assert_eq!(str_of(&json!(false)).as_deref(), Some("false"));
        assert_eq!(str_of(&json!({})), None);
        assert_eq!(str_of(&json!(null)), None);
        // Timestamps: any finite number truncated, big ones saturated.
        let time = |text: &str| serde_json::from_str::<Scalar<'_>>(text).unwrap().time();
        assert_eq!(time("-1.5"), Some(-1));
        assert_eq!(time("1.7e9"), Some(1_700_000_000));
        assert_eq!(time("18446744073709551615"), Some(i64::MAX));
        assert_eq!(time("\"123\""), Some(123));
    }
}
