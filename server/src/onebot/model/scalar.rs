//! A JSON value as the text decoders read a field: strings borrowed from
//! the text where it has no escapes, numbers and booleans as they are,
//! arrays and objects skipped. Read the same way as [`int_of`] and
//! [`str_of`] read a [`serde_json::Value`].
//!
//! [`int_of`]: super::value::int_of
//! [`str_of`]: super::value::str_of

use std::borrow::Cow;
use std::fmt;

use compact_str::{CompactString, ToCompactString as _};
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

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

    /// The value of a [`serde_json::Value`], borrowing its string.
    pub fn of_value(v: &'a serde_json::Value) -> Scalar<'a> {
        use serde_json::Value;
        match v {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => Scalar::U64(u),
                (None, Some(i), _) => Scalar::I64(i),
                (None, None, f) => Scalar::F64(f.unwrap_or(f64::NAN)),
            },
            Value::String(s) => Scalar::Str(Cow::Borrowed(s)),
            Value::Array(_) | Value::Object(_) => Scalar::Nested,
        }
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

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::onebot::model::value::{int_of, str_of};

    #[test]
    fn reads_like_int_of_and_str_of() {
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
            assert_eq!(s.int(), int_of(&v), "int of {text}");
            assert_eq!(s.clone().text(), str_of(&v), "text of {text}");
        }
    }
}
