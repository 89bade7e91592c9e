//! The arguments object of a tool call, and the accessors every tool's
//! argument struct is built from.
//!
//! Arguments arrive as a JSON object from a model, so parsing is lenient
//! where the tools' rules are lenient (`count`, `limit`, `noCache` fall back
//! to their defaults) and strict where they are strict (`target`,
//! `groupId`). Nothing here touches a peer: every [`ArgError`] is found
//! before any call. Numbers follow JavaScript ([`super::js`]).

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::js::{exact_int, js_number, positive_int, safe_positive};
use crate::config::DEFAULT_ACCOUNT;
use crate::domain::model::ChatRef;

/// Why a tool call's arguments were refused (before any peer call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// `arguments_json` is not valid JSON.
    BadJson(String),
    /// The arguments are valid JSON but not an object.
    NotObject,
    /// A required argument is absent (or `null`).
    Missing(&'static str),
    /// An argument has the wrong JSON type.
    WrongType {
        /// The argument.
        field: &'static str,
        /// What it must be.
        expected: Expected,
    },
    /// `target` is neither `group:<id>`, `private:<id>` nor bare digits.
    BadTarget(String),
    /// `groupId` does not convert to a finite number (`Number(x)` is NaN or
    /// infinite).
    NotFinite {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// An id is not a positive integer (in range).
    NotPositiveInteger {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// `messageSeq` is not an integer message id.
    BadMessageSeq(String),
    /// An event sequence (`afterSequence`) is not a non-negative integer.
    BadSequence {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// An entry of a chat list (`chats`) is not `group:<id>` or
    /// `private:<id>`.
    BadChat {
        /// The argument with its index (`chats[1]`).
        field: String,
        /// The entry as the caller sent it (JSON text).
        value: String,
    },
    /// A time is not ISO 8601 (`2026-11-30T18:00:00+08:00`,
    /// `2026-11-30 18:00`, `2026-11-30`).
    BadTime {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it.
        value: String,
    },
    /// A message id argument (`messageId`, `replyTo`) is not a non-zero
    /// integer.
    BadMessageId {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// Two arguments that exclude each other are both given.
    Exclusive(&'static str, &'static str),
    /// An array of ids (`mentions`) is not an array of positive integers.
    BadIdList {
        /// The argument.
        field: &'static str,
        /// The offending value as the caller sent it (JSON text).
        value: String,
    },
    /// A media string is neither `media:<id>`, an http(s) URL nor an
    /// absolute path.
    BadMedia {
        /// The argument with its index (`images[1]`, `file`).
        field: String,
        /// The string.
        value: String,
    },
}

/// The JSON type an argument must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A string.
    String,
    /// An array of strings.
    StringArray,
    /// A number or a numeric string.
    NumberOrNumericString,
}

/// One argument as parsed.
#[derive(Debug, Clone, PartialEq)]
enum Arg {
    /// Any JSON value but `null`.
    Json(Value),
    /// A JSON number literal outside the range of a double (`1e400`):
    /// `JSON.parse` makes it ±Infinity, `serde_json` refuses it.
    Infinite(String),
    /// An array or object holding such a number: present, but of no type
    /// any argument accepts.
    Opaque(String),
}

/// The arguments object of one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    fields: BTreeMap<String, Arg>,
    /// The account the call was routed for (`x-onebot-account`), which an
    /// absent `accountId` means.
    routed_account: Option<String>,
}

impl Args {
    /// Parses `arguments_json`; empty (or only white space) means `{}`. As
    /// with `JSON.parse`, a repeated key keeps its last value; `null`
    /// counts as absent.
    pub fn parse(json: &str) -> Result<Args, ArgError> {
        if json.trim().is_empty() {
            return Ok(Args::default());
        }
        // Raw values first: a number beyond f64 fails `Value` parsing, but
        // JavaScript reads it as Infinity, which the rules handle.
        let raw: Box<RawValue> =
            serde_json::from_str(json).map_err(|e| ArgError::BadJson(e.to_string()))?;
        let text = raw.get();
        if !text.starts_with('{') {
            return Err(ArgError::NotObject);
        }
        let object: Vec<(String, Box<RawValue>)> = serde_json::from_str::<RawObject>(text)
            .map_err(|e| ArgError::BadJson(e.to_string()))?
            .0;
        let mut fields = BTreeMap::new();
        for (key, raw) in object {
            let text = raw.get();
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Null) => {
                    fields.remove(&key);
                }
                Ok(value) => {
                    fields.insert(key, Arg::Json(value));
                }
                // The raw text is valid JSON, so the only failure left is a
                // number out of the double range, alone or nested.
                Err(_) if text.starts_with(['[', '{']) => {
                    fields.insert(key, Arg::Opaque(text.to_owned()));
                }
                Err(_) => {
                    fields.insert(key, Arg::Infinite(text.to_owned()));
                }
            }
        }
        Ok(Args {
            fields,
            routed_account: None,
        })
    }

    fn get(&self, key: &str) -> Option<&Arg> {
        self.fields.get(key)
    }

    fn json(&self, key: &str) -> Option<&Value> {
        match self.get(key) {
            Some(Arg::Json(v)) => Some(v),
            _ => None,
        }
    }

    /// These arguments of a call routed for `account` (`None` or empty: not
    /// routed): an absent `accountId` then means that account.
    pub fn routed_for(self, account: Option<String>) -> Self {
        Self {
            routed_account: account.filter(|a| !a.is_empty()),
            ..self
        }
    }

    /// `accountId`: a string; when absent or empty, the account the call
    /// was routed for, else `"default"`.
    pub fn account_id(&self) -> Result<String, ArgError> {
        match self.optional_string("accountId")? {
            Some(id) if !id.is_empty() => Ok(id),
            _ => Ok(self
                .routed_account
                .clone()
                .unwrap_or_else(|| DEFAULT_ACCOUNT.to_owned())),
        }
    }

    /// An optional string argument.
    pub fn optional_string(&self, field: &'static str) -> Result<Option<String>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(Value::String(s))) => Ok(Some(s.clone())),
            Some(_) => Err(ArgError::WrongType {
                field,
                expected: Expected::String,
            }),
        }
    }

    /// An optional array of strings; absent is empty.
    pub fn string_array(&self, field: &'static str) -> Result<Vec<String>, ArgError> {
        let wrong = ArgError::WrongType {
            field,
            expected: Expected::StringArray,
        };
        match self.get(field) {
            None => Ok(Vec::new()),
            Some(Arg::Json(Value::Array(items))) => items
                .iter()
                .map(|v| v.as_str().map(str::to_owned).ok_or(wrong.clone()))
                .collect(),
            Some(_) => Err(wrong),
        }
    }

    /// `count` / `limit`: absent or not a finite number
    /// (strings included) gives `default`; a number is truncated towards
    /// zero, then clamped to `[1, max]` (so 0 and negatives give 1).
    pub fn clamped(&self, field: &str, default: u32, max: u32) -> u32 {
        match self.json(field).and_then(Value::as_f64) {
            Some(n) if n.is_finite() => {
                let n = n.trunc();
                // Both bounds are small integers, so the cast is exact.
                n.clamp(1.0, f64::from(max)) as u32
            }
            _ => default,
        }
    }

    /// `noCache`: a boolean is passed on; anything else counts as unset.
    pub fn flag(&self, field: &str) -> Option<bool> {
        self.json(field).and_then(Value::as_bool)
    }

    /// `target` of `qq_get_history` (required).
    pub fn target(&self) -> Result<ChatRef, ArgError> {
        match self.get("target") {
            None => Err(ArgError::Missing("target")),
            Some(Arg::Json(Value::String(s))) => {
                parse_target(s).ok_or_else(|| ArgError::BadTarget(s.clone()))
            }
            Some(_) => Err(ArgError::WrongType {
                field: "target",
                expected: Expected::String,
            }),
        }
    }

    /// `messageSeq`: absent, or an integer message id (a JSON integer, or a
    /// string of decimal digits for ids a double cannot hold).
    pub fn message_seq(&self) -> Result<Option<i64>, ArgError> {
        match self.get("messageSeq") {
            None => Ok(None),
            Some(Arg::Json(v)) => exact_int(v)
                .or_else(|| v.as_str().and_then(signed_decimal_i64))
                .map(Some)
                .ok_or_else(|| ArgError::BadMessageSeq(v.to_string())),
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => {
                Err(ArgError::BadMessageSeq(text.clone()))
            }
        }
    }

    /// `groupId` of `qq_get_group_members` (required): a number, or a string
    /// converted with JavaScript `Number()`; it must be finite and then a
    /// positive integer.
    pub fn group_id_lenient(&self) -> Result<i64, ArgError> {
        const FIELD: &str = "groupId";
        match self.get(FIELD) {
            None => Err(ArgError::Missing(FIELD)),
            Some(Arg::Infinite(text)) => Err(ArgError::NotFinite {
                field: FIELD,
                value: text.clone(),
            }),
            Some(Arg::Json(Value::String(s))) => {
                let value = Value::String(s.clone()).to_string();
                let n = js_number(s);
                if !n.is_finite() {
                    return Err(ArgError::NotFinite {
                        field: FIELD,
                        value,
                    });
                }
                safe_positive(n).ok_or(ArgError::NotPositiveInteger {
                    field: FIELD,
                    value,
                })
            }
            Some(Arg::Json(v @ Value::Number(_))) => {
                positive_int(v).ok_or_else(|| ArgError::NotPositiveInteger {
                    field: FIELD,
                    value: v.to_string(),
                })
            }
            Some(Arg::Json(_) | Arg::Opaque(_)) => Err(ArgError::WrongType {
                field: FIELD,
                expected: Expected::NumberOrNumericString,
            }),
        }
    }

    /// An optional time (`since`, `until`): an ISO 8601 string, with an
    /// offset (`2026-11-30T18:00:00+08:00`, `...Z`) or without one
    /// (`2026-11-30T18:00`, `2026-11-30 18:00:00`, `2026-11-30`: a time in
    /// `tz`). Unix seconds.
    pub fn time(
        &self,
        field: &'static str,
        tz: &jiff::tz::TimeZone,
    ) -> Result<Option<i64>, ArgError> {
        let text = match self.get(field) {
            None => return Ok(None),
            Some(Arg::Json(Value::String(s))) => s.trim().to_owned(),
            Some(Arg::Json(v)) => {
                return Err(ArgError::BadTime {
                    field,
                    value: v.to_string(),
                });
            }
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => {
                return Err(ArgError::BadTime {
                    field,
                    value: text.clone(),
                });
            }
        };
        parse_time(&text, tz)
            .map(Some)
            .ok_or(ArgError::BadTime { field, value: text })
    }

    /// An optional message id (`messageId`, `replyTo`): a non-zero JSON
    /// integer, or a string of decimal digits for ids a double cannot hold
    /// (ids may be negative).
    pub fn message_id(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        let bad = |value: String| ArgError::BadMessageId { field, value };
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => exact_int(v)
                .or_else(|| v.as_str().and_then(signed_decimal_i64))
                .filter(|id| *id != 0)
                .map(Some)
                .ok_or_else(|| bad(v.to_string())),
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => Err(bad(text.clone())),
        }
    }

    /// An optional array of positive QQ numbers (`mentions`): JSON integers
    /// or strings of decimal digits; absent is empty.
    pub fn id_array(&self, field: &'static str) -> Result<Vec<i64>, ArgError> {
        let bad = |value: String| ArgError::BadIdList { field, value };
        match self.get(field) {
            None => Ok(Vec::new()),
            Some(Arg::Json(Value::Array(items))) => items
                .iter()
                .map(|v| {
                    positive_int(v)
                        .or_else(|| v.as_str().and_then(signed_decimal_i64).filter(|id| *id > 0))
                        .ok_or_else(|| bad(v.to_string()))
                })
                .collect(),
            Some(Arg::Json(v)) => Err(bad(v.to_string())),
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => Err(bad(text.clone())),
        }
    }

    /// A positive integer id given as a JSON integer (`userId`, and the
    /// optional `groupId` of the write tools).
    pub fn positive_id(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => {
                positive_int(v)
                    .map(Some)
                    .ok_or_else(|| ArgError::NotPositiveInteger {
                        field,
                        value: v.to_string(),
                    })
            }
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => Err(ArgError::NotPositiveInteger {
                field,
                value: text.clone(),
            }),
        }
    }

    /// An optional integer (any sign): a JSON integer, or a string of
    /// decimal digits for values a double cannot hold (`messageId`,
    /// `segmentIndex`).
    pub fn signed_int(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        let wrong = ArgError::WrongType {
            field,
            expected: Expected::NumberOrNumericString,
        };
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => exact_int(v)
                .or_else(|| v.as_str().and_then(signed_decimal_i64))
                .map(Some)
                .ok_or(wrong),
            Some(Arg::Infinite(_) | Arg::Opaque(_)) => Err(wrong),
        }
    }
}

impl Args {
    /// An optional event sequence number: a JSON integer `>= 0`.
    pub fn sequence(&self, field: &'static str) -> Result<Option<u64>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => exact_int(v)
                .and_then(|n| u64::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| ArgError::BadSequence {
                    field,
                    value: v.to_string(),
                }),
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => Err(ArgError::BadSequence {
                field,
                value: text.clone(),
            }),
        }
    }

    /// An optional array of chats, each `group:<id>` or `private:<id>`
    /// (the prefix is required); absent is empty. Duplicates are kept.
    pub fn chats(&self, field: &'static str) -> Result<Vec<ChatRef>, ArgError> {
        let items = match self.get(field) {
            None => return Ok(Vec::new()),
            Some(Arg::Json(Value::Array(items))) => items,
            Some(_) => {
                return Err(ArgError::WrongType {
                    field,
                    expected: Expected::StringArray,
                });
            }
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                item.as_str()
                    .filter(|s| s.trim().starts_with("group:") || s.trim().starts_with("private:"))
                    .and_then(parse_target)
                    .ok_or_else(|| ArgError::BadChat {
                        field: format!("{field}[{i}]"),
                        value: item.to_string(),
                    })
            })
            .collect()
    }
}

/// Unix seconds of an ISO 8601 time: an instant with an offset, or a civil
/// date and time (or a date, at midnight) in `tz`.
pub fn parse_time(text: &str, tz: &jiff::tz::TimeZone) -> Option<i64> {
    if let Ok(ts) = text.parse::<jiff::Timestamp>() {
        return Some(ts.as_second());
    }
    let civil = text.parse::<jiff::civil::DateTime>().ok().or_else(|| {
        text.parse::<jiff::civil::Date>()
            .ok()
            .map(|d| d.to_datetime(jiff::civil::Time::midnight()))
    })?;
    civil
        .to_zoned_datetime(tz.clone())
        .ok()
        .map(|z| z.timestamp().as_second())
}

/// The top-level object as ordered raw entries (duplicates kept; the last
/// one wins when inserted).
struct RawObject(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for RawObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawObject;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<RawObject, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                    entries.push(entry);
                }
                Ok(RawObject(entries))
            }
        }
        d.deserialize_map(Visitor)
    }
}

/// Parses a chat target: `group:<id>`, `private:<id>`, or bare digits (a
/// private chat). The id is ASCII digits naming a positive `i64`;
/// surrounding white space is ignored. `None` for anything else.
pub fn parse_target(s: &str) -> Option<ChatRef> {
    let s = s.trim();
    let (make, digits): (fn(i64) -> ChatRef, &str) = if let Some(id) = s.strip_prefix("group:") {
        (ChatRef::Group, id)
    } else if let Some(id) = s.strip_prefix("private:") {
        (ChatRef::Private, id)
    } else {
        (ChatRef::Private, s)
    };
    decimal_i64(digits).filter(|id| *id > 0).map(make)
}

/// ASCII decimal digits (no sign, no white space) as an `i64`.
fn decimal_i64(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// An optional `-` and ASCII decimal digits as an `i64` (message ids are
/// negative on SnowLuma).
fn signed_decimal_i64(s: &str) -> Option<i64> {
    match s.strip_prefix('-') {
        Some(digits) => decimal_i64(digits).map(|n| -n),
        None => decimal_i64(s),
    }
}

/// A media string of `qq_send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaArg {
    /// `media:<id>`: an upload from `MediaService.UploadMedia`.
    MediaId(String),
    /// An `http://` or `https://` URL.
    Url(String),
    /// An absolute path on the gateway host (only under the media roots).
    Path(String),
}

/// Classifies a media string: `media:<id>`, an http(s) URL (scheme case
/// ignored), or an absolute path; `None` for anything else (relative paths,
/// other schemes, empty ids).
pub fn parse_media(s: &str) -> Option<MediaArg> {
    if let Some(id) = s.strip_prefix("media:") {
        return (!id.trim().is_empty()).then(|| MediaArg::MediaId(id.to_owned()));
    }
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return Some(MediaArg::Url(s.to_owned()));
    }
    std::path::Path::new(s)
        .is_absolute()
        .then(|| MediaArg::Path(s.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets() {
        let cases: &[(&str, Option<ChatRef>)] = &[
            ("group:20000002", Some(ChatRef::Group(20_000_002))),
            ("private:10001", Some(ChatRef::Private(10_001))),
            ("10001", Some(ChatRef::Private(10_001))),
            (" group:20000002 ", Some(ChatRef::Group(20_000_002))),
            ("group:020000002", Some(ChatRef::Group(20_000_002))),
            ("group:", None),
            ("group:0", None),
            ("private:0", None),
            ("0", None),
            ("group:-1", None),
            ("group:+1", None),
            ("group: 1", None),
            ("group:1.5", None),
            ("group:1e3", None),
            ("group:abc", None),
            ("Group:1", None),
            ("snowluma:group:20000002", None),
            ("channel:1", None),
            ("", None),
            ("abc", None),
            ("group:9223372036854775807", Some(ChatRef::Group(i64::MAX))),
            ("group:9223372036854775808", None),
            ("１２", None),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_target(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn media_strings() {
        use MediaArg::*;
        let cases: &[(&str, Option<MediaArg>)] = &[
            ("media:abc123", Some(MediaId("abc123".into()))),
            ("media:", None),
            ("media:  ", None),
            (
                "http://example.com/a.png",
                Some(Url("http://example.com/a.png".into())),
            ),
            (
                "HTTPS://example.com/a.png",
                Some(Url("HTTPS://example.com/a.png".into())),
            ),
            ("https://", Some(Url("https://".into()))),
            ("/abs/path/a.png", Some(Path("/abs/path/a.png".into()))),
            ("a.png", None),
            ("./a.png", None),
            ("../a.png", None),
            ("ftp://example.com/a.png", None),
            ("file:///etc/passwd", None),
            ("base64://AAAA", None),
            ("", None),
            ("Media:abc", None),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_media(input), *expected, "{input:?}");
        }
    }

    #[test]
    fn parse_objects_like_json_parse() {
        assert_eq!(Args::parse("").unwrap(), Args::default());
        assert_eq!(Args::parse("  \n").unwrap(), Args::default());
        assert_eq!(Args::parse("{}").unwrap(), Args::default());
        let spaced = Args::parse(" \n {\"count\": 5} \t").unwrap();
        assert_eq!(spaced.clamped("count", 20, 100), 5);
        for not_object in ["[]", "1", "\"x\"", "null", "true"] {
            assert_eq!(
                Args::parse(not_object),
                Err(ArgError::NotObject),
                "{not_object}"
            );
        }
        for bad in [
            "{",
            "{\"a\":}",
            "{'a':1}",
            "{\"a\":1} x",
            "{\"a\":NaN}",
            "{\"a\":Infinity}",
        ] {
            assert!(
                matches!(Args::parse(bad), Err(ArgError::BadJson(_))),
                "{bad}"
            );
        }
        // The last of repeated keys wins; null is absent.
        let args = Args::parse(r#"{"count":5,"count":7,"limit":3,"limit":null}"#).unwrap();
        assert_eq!(args.clamped("count", 20, 100), 7);
        assert_eq!(args.clamped("limit", 100, 500), 100);
        // Numbers beyond a double are Infinity, as JSON.parse reads them.
        let args = Args::parse(r#"{"count":1e400,"groupId":-1e400,"images":[1e400]}"#).unwrap();
        assert_eq!(args.clamped("count", 20, 100), 20);
        assert_eq!(
            args.group_id_lenient(),
            Err(ArgError::NotFinite {
                field: "groupId",
                value: "-1e400".into()
            })
        );
        assert_eq!(
            args.string_array("images"),
            Err(ArgError::WrongType {
                field: "images",
                expected: Expected::StringArray
            })
        );
    }
}
