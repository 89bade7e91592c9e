//! Argument parsing of the agent tools, with the seeds' rules taken
//! literally.
//!
//! Arguments arrive as a JSON object from a model, so parsing is lenient
//! where the seeds are lenient (`count`, `limit`, `noCache` fall back to
//! their defaults) and strict where they are strict (`target`, `groupId`).
//! Nothing here touches a peer: every [`ArgError`] is found before any call.
//!
//! # Numbers
//! The seeds are JavaScript: `count`/`limit` are used when `typeof x ===
//! "number"` and finite, truncated towards zero, then clamped; `groupId`
//! strings go through `Number()`. [`js_number`] implements `Number(string)`
//! (ECMAScript `StringToNumber`): surrounding JS white space trimmed, empty
//! is 0, `0x`/`0o`/`0b` integers, `Infinity`, decimal literals with
//! exponents; anything else is NaN. A JSON number too large for a double
//! (`1e400`) is what `JSON.parse` makes Infinity: not finite.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::config::DEFAULT_ACCOUNT;
use crate::onebot::api::ChatRef;

/// `count` when absent or not a finite number.
pub const DEFAULT_COUNT: u32 = 20;
/// Largest `count`; larger numbers are clamped to it.
pub const MAX_COUNT: u32 = 100;
/// `limit` when absent or not a finite number.
pub const DEFAULT_LIMIT: u32 = 100;
/// Largest `limit`; larger numbers are clamped to it.
pub const MAX_LIMIT: u32 = 500;
/// Largest integer a JavaScript number holds exactly (`2^53 - 1`): ids
/// converted from strings above it would name a rounded, different id.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

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
        Ok(Args { fields })
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

    /// `accountId`: a string, `"default"` when absent or empty.
    pub fn account_id(&self) -> Result<String, ArgError> {
        match self.optional_string("accountId")? {
            Some(id) if !id.is_empty() => Ok(id),
            _ => Ok(DEFAULT_ACCOUNT.to_owned()),
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

    /// `count` / `limit` as seed 000 says: absent or not a finite number
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

/// A JSON number that is an integer in `i64` range, exactly (`20.0` counts,
/// as in JSON Schema).
fn exact_int(v: &Value) -> Option<i64> {
    let n = v.as_number()?;
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    let f = n.as_f64()?;
    // 2^63 is the first double outside i64; every double below it in
    // magnitude with no fraction converts exactly.
    (f.fract() == 0.0 && f.abs() < 9_223_372_036_854_775_808.0).then_some(f as i64)
}

/// A JSON number that is a positive integer.
fn positive_int(v: &Value) -> Option<i64> {
    exact_int(v).filter(|n| *n > 0)
}

/// A finite double that is an integer in `[1, MAX_SAFE_INTEGER]`.
fn safe_positive(n: f64) -> Option<i64> {
    (n.fract() == 0.0 && n >= 1.0 && n <= MAX_SAFE_INTEGER as f64).then_some(n as i64)
}

/// ECMAScript `StrWhiteSpaceChar`: WhiteSpace and LineTerminator.
fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// JavaScript `Number(s)` for a string (ECMAScript `StringToNumber`).
pub fn js_number(s: &str) -> f64 {
    let s = s.trim_matches(is_js_space);
    if s.is_empty() {
        return 0.0;
    }
    for (prefixes, radix) in [(["0x", "0X"], 16), (["0o", "0O"], 8), (["0b", "0B"], 2)] {
        if let Some(digits) = prefixes.iter().find_map(|p| s.strip_prefix(p)) {
            return radix_integer(digits, radix);
        }
    }
    let (sign, unsigned) = if let Some(rest) = s.strip_prefix('+') {
        (1.0, rest)
    } else if let Some(rest) = s.strip_prefix('-') {
        (-1.0, rest)
    } else {
        (1.0, s)
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    if !is_unsigned_decimal(unsigned) {
        return f64::NAN;
    }
    // The grammar is checked; Rust's parser rounds correctly (as ECMAScript
    // requires) and accepts every form the grammar allows.
    unsigned.parse::<f64>().map_or(f64::NAN, |n| sign * n)
}

/// `NonDecimalIntegerLiteral` digits (no separators) in `radix`, rounded to
/// the nearest double; NaN when empty or a digit is out of range.
fn radix_integer(digits: &str, radix: u32) -> f64 {
    if digits.is_empty() {
        return f64::NAN;
    }
    let mut exact: Option<u128> = Some(0);
    let mut approx = 0.0f64;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else {
            return f64::NAN;
        };
        exact = exact
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
        approx = approx * f64::from(radix) + f64::from(d);
    }
    // u128 → f64 rounds to nearest; beyond u128 the running double is close
    // enough for every use here (such ids are refused anyway).
    exact.map_or(approx, |v| v as f64)
}

/// `StrUnsignedDecimalLiteral` without `Infinity`: `1`, `1.`, `1.5`, `.5`,
/// each with an optional exponent `e[+-]?digits`.
fn is_unsigned_decimal(s: &str) -> bool {
    let (int, rest) = split_digits(s);
    let (frac, rest) = match rest.strip_prefix('.') {
        Some(r) => split_digits(r),
        None => ("", rest),
    };
    if int.is_empty() && frac.is_empty() {
        return false;
    }
    match rest.strip_prefix(['e', 'E']) {
        Some(r) => {
            let (exp, tail) = split_digits(r.strip_prefix(['+', '-']).unwrap_or(r));
            !exp.is_empty() && tail.is_empty()
        }
        None => rest.is_empty(),
    }
}

/// Splits leading ASCII digits off `s`.
fn split_digits(s: &str) -> (&str, &str) {
    s.find(|c: char| !c.is_ascii_digit())
        .map_or((s, ""), |i| s.split_at(i))
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

/// Parsed arguments of `qq_get_history`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryArgs {
    /// Account id.
    pub account_id: String,
    /// The chat.
    pub chat: ChatRef,
    /// Page size in `[1, 100]`.
    pub count: u32,
    /// Anchor message id.
    pub message_seq: Option<i64>,
}

impl HistoryArgs {
    /// Applies the rules of seed 000.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            chat: args.target()?,
            count: args.clamped("count", DEFAULT_COUNT, MAX_COUNT),
            message_seq: args.message_seq()?,
            account_id: args.account_id()?,
        })
    }
}

/// Parsed arguments of `qq_get_group_members`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MembersArgs {
    /// Account id.
    pub account_id: String,
    /// The group.
    pub group_id: i64,
    /// Passed to the peer when a boolean.
    pub no_cache: Option<bool>,
    /// Members shown, in `[1, 500]`.
    pub limit: u32,
}

impl MembersArgs {
    /// Applies the rules of seed 000.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            group_id: args.group_id_lenient()?,
            no_cache: args.flag("noCache"),
            limit: args.clamped("limit", DEFAULT_LIMIT, MAX_LIMIT),
            account_id: args.account_id()?,
        })
    }
}

/// Parsed arguments of `qq_send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendArgs {
    /// Account id.
    pub account_id: String,
    /// Target group; `None` means the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// Text (may be empty).
    pub text: String,
    /// Images.
    pub images: Vec<MediaArg>,
    /// Videos.
    pub videos: Vec<MediaArg>,
    /// Group file.
    pub file: Option<MediaArg>,
    /// Display name of the file (may be empty).
    pub file_name: String,
}

impl SendArgs {
    /// Types and media strings; counts, lengths and the group are the send
    /// pipeline's (the same checks as `SendMessage`).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let media = |field: &'static str| -> Result<Vec<MediaArg>, ArgError> {
            args.string_array(field)?
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    parse_media(&s).ok_or_else(|| ArgError::BadMedia {
                        field: format!("{field}[{i}]"),
                        value: s,
                    })
                })
                .collect()
        };
        let file = match args.optional_string("file")? {
            None => None,
            Some(s) if s.is_empty() => None,
            Some(s) => Some(parse_media(&s).ok_or_else(|| ArgError::BadMedia {
                field: "file".to_owned(),
                value: s,
            })?),
        };
        Ok(Self {
            text: args.optional_string("text")?.unwrap_or_default(),
            images: media("images")?,
            videos: media("videos")?,
            file,
            file_name: args.optional_string("fileName")?.unwrap_or_default(),
            group_id: args.positive_id("groupId")?,
            account_id: args.account_id()?,
        })
    }
}

/// Parsed arguments of `qq_poke`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PokeArgs {
    /// Account id.
    pub account_id: String,
    /// Target group; `None` means the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// Member to poke.
    pub user_id: i64,
}

impl PokeArgs {
    /// Applies the rules of seed 004: `userId` a positive integer.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            user_id: args
                .positive_id("userId")?
                .ok_or(ArgError::Missing("userId"))?,
            group_id: args.positive_id("groupId")?,
            account_id: args.account_id()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Number(s)` as node 22 computes it (the expected values were produced
    /// by running `Number(s)` in node for each input).
    #[test]
    fn js_number_matches_javascript() {
        let cases: &[(&str, f64)] = &[
            ("", 0.0),
            ("  ", 0.0),
            (" 20000002 ", 20000002.0),
            ("\u{9}\u{a}\u{b}\u{c}\u{d} 7 \u{2028}\u{2029}", 7.0),
            ("\u{a0}12\u{feff}", 12.0),
            ("\u{3000}12\u{3000}", 12.0),
            ("\u{85} 12", f64::NAN),
            ("\u{180e}12", f64::NAN),
            ("12\u{200b}", f64::NAN),
            ("0x10", 16.0),
            ("0X1f", 31.0),
            ("0o17", 15.0),
            ("0O17", 15.0),
            ("0b101", 5.0),
            ("0B11", 3.0),
            ("-0x10", f64::NAN),
            ("+0x10", f64::NAN),
            ("0x", f64::NAN),
            ("0x1g", f64::NAN),
            ("0b2", f64::NAN),
            ("0o8", f64::NAN),
            ("0x10 ", 16.0),
            (" 0b1 ", 1.0),
            ("0xFFFFFFFFFFFFFFFFFFFF", 1.2089258196146292e24),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e+3", 1000.0),
            ("1e-3", 0.001),
            ("1e", f64::NAN),
            ("e3", f64::NAN),
            ("1e+", f64::NAN),
            ("5e", f64::NAN),
            ("1.", 1.0),
            (".5", 0.5),
            (".", f64::NAN),
            ("+.5", 0.5),
            ("-.5e1", -5.0),
            ("+", f64::NAN),
            ("-", f64::NAN),
            ("+-1", f64::NAN),
            ("--1", f64::NAN),
            ("Infinity", f64::INFINITY),
            ("+Infinity", f64::INFINITY),
            ("-Infinity", f64::NEG_INFINITY),
            ("infinity", f64::NAN),
            ("inf", f64::NAN),
            ("NaN", f64::NAN),
            ("Infinity1", f64::NAN),
            ("12abc", f64::NAN),
            ("1_000", f64::NAN),
            ("1,000", f64::NAN),
            ("00012", 12.0),
            ("-0", -0.0),
            ("0", 0.0),
            ("1 2", f64::NAN),
            ("\u{ff11}\u{ff12}", f64::NAN),
            ("\u{661}\u{662}", f64::NAN),
            ("20000002.5", 20000002.5),
            ("20000002.0", 20000002.0),
            ("9007199254740993", 9007199254740992.0),
            ("1e400", f64::INFINITY),
            ("-1e400", f64::NEG_INFINITY),
            ("0.1e-400", 0.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("0.0000001", 1e-7),
            ("0x1.8", f64::NAN),
            ("1e1.5", f64::NAN),
            (".e1", f64::NAN),
            ("0.e1", 0.0),
        ];
        for (input, expected) in cases {
            let got = js_number(input);
            if expected.is_nan() {
                assert!(got.is_nan(), "Number({input:?}) = {got}, want NaN");
            } else {
                assert_eq!(got, *expected, "Number({input:?})");
                assert_eq!(
                    got.is_sign_negative(),
                    expected.is_sign_negative(),
                    "sign of Number({input:?})"
                );
            }
        }
    }

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
