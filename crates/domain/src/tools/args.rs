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

pub use super::arg_error::{ArgError, Expected};
use super::js::{MAX_SAFE_INTEGER, exact_int, js_number, safe_integer, safe_positive, trim_js};
pub use super::media_arg::{MediaArg, parse_media};
use crate::model::ChatRef;
use crate::policy::OnBehalfOf;
use onebot_gateway_config::DEFAULT_ACCOUNT;

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
    /// `null`: absent for every argument but the chat arguments, which
    /// refuse it (a chat named as nothing is not "no chat").
    Null,
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
    /// counts as absent (except for [`Args::chat`] and
    /// [`Args::check_known`], which see the key).
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
                    fields.insert(key, Arg::Null);
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
        self.fields.get(key).filter(|a| !matches!(a, Arg::Null))
    }

    /// True when the object has `key`, whatever its value (`null` too).
    pub fn given(&self, key: &str) -> bool {
        self.fields.contains_key(key)
    }

    /// Refuses every key outside `accepted` (`null` values too), naming
    /// them and the accepted ones.
    pub fn check_known(&self, tool: &'static str, accepted: &[String]) -> Result<(), ArgError> {
        let keys: Vec<String> = self
            .fields
            .keys()
            .filter(|k| !accepted.contains(k))
            .cloned()
            .collect();
        if keys.is_empty() {
            Ok(())
        } else {
            Err(ArgError::Unknown {
                tool,
                keys,
                accepted: accepted.to_vec(),
            })
        }
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

    /// A strict boolean (`all` of `qq_mute`, where a default would
    /// decide what is done): absent or `null` is `None`, anything but a
    /// boolean is refused.
    pub fn boolean(&self, field: &'static str) -> Result<Option<bool>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(Value::Bool(b))) => Ok(Some(*b)),
            Some(_) => Err(ArgError::WrongType {
                field,
                expected: Expected::Boolean,
            }),
        }
    }

    /// The JSON text of an argument as the caller sent it (`null` for a
    /// null, empty when absent).
    fn raw_text(&self, key: &str) -> String {
        match self.fields.get(key) {
            None => String::new(),
            Some(Arg::Json(v)) => v.to_string(),
            Some(Arg::Infinite(text) | Arg::Opaque(text)) => text.clone(),
            Some(Arg::Null) => "null".to_owned(),
        }
    }

    /// The chat the arguments name: `target` (`group:<id>`, `private:<id>`,
    /// or bare digits, a private chat), or its aliases `groupId` (a group)
    /// and, when `user_is_chat`, `userId` (a private chat). `None` only when
    /// none of these keys is there at all: a key given as `null` or `""` is
    /// refused, as are `groupId` with `userId`, and a `target` and an alias
    /// naming different chats.
    pub fn chat(&self, user_is_chat: bool) -> Result<Option<ChatRef>, ArgError> {
        let mut named: Vec<(&'static str, String, ChatRef)> = Vec::new();
        if self.given("target") {
            let chat = match self.get("target") {
                None => return Err(ArgError::EmptyChat("target")),
                Some(Arg::Json(Value::String(s))) if trim_js(s).is_empty() => {
                    return Err(ArgError::EmptyChat("target"));
                }
                Some(Arg::Json(Value::String(s))) => {
                    parse_target(s).ok_or_else(|| ArgError::BadTarget(s.clone()))?
                }
                Some(_) => {
                    return Err(ArgError::WrongType {
                        field: "target",
                        expected: Expected::String,
                    });
                }
            };
            named.push(("target", self.raw_text("target"), chat));
        }
        let aliases: [(&'static str, ChatMaker); 2] =
            [("groupId", ChatRef::Group), ("userId", ChatRef::Private)];
        for (field, make) in aliases {
            if !self.given(field) || (field == "userId" && !user_is_chat) {
                continue;
            }
            match self.get(field) {
                None => return Err(ArgError::EmptyChat(field)),
                Some(Arg::Json(Value::String(s))) if trim_js(s).is_empty() => {
                    return Err(ArgError::EmptyChat(field));
                }
                _ => {}
            }
            if let Some(id) = self.qq_id(field)? {
                named.push((field, self.raw_text(field), make(id)));
            }
        }
        if named.iter().any(|n| n.0 == "groupId") && named.iter().any(|n| n.0 == "userId") {
            return Err(ArgError::Exclusive("groupId", "userId"));
        }
        if let Some((first, rest)) = named.split_first()
            && let Some(other) = rest.iter().find(|n| n.2 != first.2)
        {
            return Err(ArgError::Conflict {
                first: first.0,
                first_value: first.1.clone(),
                second: other.0,
                second_value: other.1.clone(),
            });
        }
        Ok(named.first().map(|n| n.2))
    }

    /// The group a group tool names: `target` (`group:<id>`) or its alias
    /// `groupId`, as [`Args::chat`] reads them (`userId` is never a chat
    /// here: it is the member); a private chat is refused for `tool`.
    /// `None` only when neither is given: the account's only whitelisted
    /// group.
    pub fn group(&self, tool: &'static str) -> Result<Option<i64>, ArgError> {
        match self.chat(false)? {
            Some(ChatRef::Group(id)) => Ok(Some(id)),
            Some(chat @ ChatRef::Private(_)) => Err(ArgError::GroupOnly {
                tool,
                target: chat.target(),
            }),
            None => Ok(None),
        }
    }

    /// The anchor of a history page: `anchorMessageId`, or its alias
    /// `messageSeq` (a message id either way, see [`Args::message_id`]);
    /// both given must agree.
    pub fn anchor(&self) -> Result<Option<i64>, ArgError> {
        let anchor = self.message_id("anchorMessageId")?;
        let seq = self.message_id("messageSeq")?;
        match (anchor, seq) {
            (Some(a), Some(s)) if a != s => Err(ArgError::Conflict {
                first: "anchorMessageId",
                first_value: self.raw_text("anchorMessageId"),
                second: "messageSeq",
                second_value: self.raw_text("messageSeq"),
            }),
            (a, s) => Ok(a.or(s)),
        }
    }

    /// An optional QQ number (`groupId`, `userId`, `senderId`): a JSON
    /// integer, or a string JavaScript `Number()` converts (white space
    /// around it is fine; `""` is 0); either way a positive safe integer
    /// (at most 2^53 - 1).
    pub fn qq_id(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => qq_number(field, v).map(Some),
            Some(Arg::Infinite(text)) => Err(ArgError::NotFinite {
                field,
                value: text.clone(),
            }),
            Some(Arg::Opaque(_) | Arg::Null) => Err(ArgError::WrongType {
                field,
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
            Some(_) => {
                return Err(ArgError::BadTime {
                    field,
                    value: self.raw_text(field),
                });
            }
        };
        parse_time(&text, tz)
            .map(Some)
            .ok_or(ArgError::BadTime { field, value: text })
    }

    /// An optional message id (`messageId`, `replyTo`, `anchorMessageId`):
    /// a non-zero integer (ids may be negative), as a JSON integer or a
    /// string: decimal digits are read exactly (ids beyond 2^53 too),
    /// anything else as JavaScript `Number()` converts it, which must give
    /// a safe integer.
    pub fn message_id(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => {
                message_id_value(v)
                    .map(Some)
                    .ok_or_else(|| ArgError::BadMessageId {
                        field,
                        value: v.to_string(),
                    })
            }
            Some(_) => Err(ArgError::BadMessageId {
                field,
                value: self.raw_text(field),
            }),
        }
    }

    /// `onBehalfOf`: an object with exactly one of `messageId` (a message
    /// id as [`Args::message_id`] takes one) and `userId` (a QQ number);
    /// absent is `None`.
    pub fn on_behalf_of(&self) -> Result<Option<OnBehalfOf>, ArgError> {
        let field = "onBehalfOf";
        let bad = || ArgError::BadOnBehalfOf {
            value: self.raw_text(field),
        };
        let object = match self.get(field) {
            None => return Ok(None),
            Some(Arg::Json(Value::Object(o))) => o,
            Some(_) => return Err(bad()),
        };
        let mut entries = object.iter();
        match (entries.next(), entries.next()) {
            (Some((key, v)), None) if key == "messageId" => message_id_value(v)
                .map(|id| Some(OnBehalfOf::Message(id)))
                .ok_or_else(bad),
            (Some((key, v)), None) if key == "userId" => qq_number(field, v)
                .map(|id| Some(OnBehalfOf::User(id)))
                .map_err(|_| bad()),
            _ => Err(bad()),
        }
    }

    /// An optional array of QQ numbers (`mentions`), each as
    /// [`Args::qq_id`] takes one; absent is empty.
    pub fn id_array(&self, field: &'static str) -> Result<Vec<i64>, ArgError> {
        let bad = |value: String| ArgError::BadIdList { field, value };
        match self.get(field) {
            None => Ok(Vec::new()),
            Some(Arg::Json(Value::Array(items))) => items
                .iter()
                .map(|v| qq_number(field, v).map_err(|_| bad(v.to_string())))
                .collect(),
            Some(_) => Err(bad(self.raw_text(field))),
        }
    }

    /// An optional integer (any sign): a JSON integer, or a string of
    /// decimal digits for values a double cannot hold (`segmentIndex`).
    pub fn signed_int(&self, field: &'static str) -> Result<Option<i64>, ArgError> {
        let wrong = ArgError::WrongType {
            field,
            expected: Expected::NumberOrNumericString,
        };
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => exact_int(v)
                .or_else(|| v.as_str().and_then(|s| signed_decimal_i64(trim_js(s))))
                .map(Some)
                .ok_or(wrong),
            Some(_) => Err(wrong),
        }
    }

    /// An optional event sequence number (`afterSequence`): a non-negative
    /// integer, as a JSON integer or a string (digits, or what JavaScript
    /// `Number()` makes a safe integer).
    pub fn sequence(&self, field: &'static str) -> Result<Option<u64>, ArgError> {
        let bad = |value: String| ArgError::BadSequence { field, value };
        match self.get(field) {
            None => Ok(None),
            Some(Arg::Json(v)) => {
                let n = match v {
                    Value::String(s) => {
                        let s = trim_js(s);
                        s.parse::<u64>()
                            .ok()
                            .filter(|_| !s.starts_with('+'))
                            .or_else(|| {
                                safe_integer(js_number(s)).and_then(|n| u64::try_from(n).ok())
                            })
                    }
                    _ => exact_int(v).and_then(|n| u64::try_from(n).ok()),
                };
                n.map(Some).ok_or_else(|| bad(v.to_string()))
            }
            Some(_) => Err(bad(self.raw_text(field))),
        }
    }

    /// An optional array of chats, each a `target` (`group:<id>`,
    /// `private:<id>`, bare digits = private); absent is empty. Duplicates
    /// are kept.
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
                    .and_then(parse_target)
                    .ok_or_else(|| ArgError::BadChat {
                        field: format!("{field}[{i}]"),
                        value: item.to_string(),
                    })
            })
            .collect()
    }
}

/// A QQ number given as a JSON value: an integer, or a string converted by
/// JavaScript `Number()`; a positive safe integer either way.
fn qq_number(field: &'static str, v: &Value) -> Result<i64, ArgError> {
    let not_positive = || ArgError::NotPositiveInteger {
        field,
        value: v.to_string(),
    };
    match v {
        Value::String(s) => {
            let n = js_number(s);
            if !n.is_finite() {
                return Err(ArgError::NotFinite {
                    field,
                    value: v.to_string(),
                });
            }
            safe_positive(n).ok_or_else(not_positive)
        }
        Value::Number(_) => exact_int(v)
            .filter(|n| (1..=MAX_SAFE_INTEGER).contains(n))
            .ok_or_else(not_positive),
        _ => Err(ArgError::WrongType {
            field,
            expected: Expected::NumberOrNumericString,
        }),
    }
}

/// A message id given as a JSON value (see [`Args::message_id`]); `None`
/// when it is not one (0 included).
fn message_id_value(v: &Value) -> Option<i64> {
    match v {
        Value::String(s) => {
            let s = trim_js(s);
            signed_decimal_i64(s).or_else(|| safe_integer(js_number(s)))
        }
        _ => exact_int(v),
    }
    .filter(|id| *id != 0)
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

/// Makes the chat an alias names from its id.
type ChatMaker = fn(i64) -> ChatRef;

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
            args.qq_id("groupId"),
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
