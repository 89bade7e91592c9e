//! Behaviour axes: the sandbox can report one implementation's name and behave like another's,
//! the way forks, mocks and new versions drift from their family's conventions.
//!
//! | axis      | what it decides                                                               |
//! |-----------|-------------------------------------------------------------------------------|
//! | `name`    | `get_version_info`'s `app_name` / `app_version`                               |
//! | `ids`     | the shape of `message_id` and which seq fields message objects carry          |
//! | `history` | the history anchor parameter and its meaning, the window, the empty answer    |
//! | `id_form` | how ids and seqs are written: numbers, numeric strings, text, beyond `i64`    |
//! | `lenient` | unknown actions and unknown messages answered `ok` with empty data            |
//!
//! An axis left `None` follows the configured [`Flavor`]; everything not listed (retcodes, text
//! fields, echo, auth, the extension actions) always does.

use serde_json::{Value, json};

use crate::flavor::Flavor;

/// How the public ids and seqs are written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IdForm {
    /// JSON numbers (every real implementation).
    #[default]
    Number,
    /// Numeric strings, seqs included (`"message_id": "1834567890"`).
    NumericString,
    /// Non-numeric strings (`"msg-0000000080a1b2c3"`), as some forks use; seqs stay numbers.
    Text,
    /// JSON numbers beyond `i64` (64-bit unsigned ids, `9223372039002259456` and up).
    Wide,
}

/// The behaviour axes of a sandbox (see the module docs); `None` follows the flavor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Behaviour {
    /// Whose `app_name` and `app_version` to report.
    pub name: Option<Flavor>,
    /// Whose message ids and message-object seq fields to use.
    pub ids: Option<Flavor>,
    /// Whose history paging to imitate.
    pub history: Option<Flavor>,
    /// How ids are written.
    pub id_form: IdForm,
    /// Answer unknown actions, and `get_msg` of an unknown message, with `status: ok` and `{}`
    /// (what some mocks do) instead of the flavor's failure.
    pub lenient: bool,
}

impl Behaviour {
    /// Reports `name`'s identity and pages, numbers and shapes ids like `like`.
    pub fn named_like(name: Flavor, like: Flavor) -> Behaviour {
        Behaviour {
            name: Some(name),
            ids: Some(like),
            history: Some(like),
            ..Behaviour::default()
        }
    }
}

/// Error of [`IdForm::from_str`](std::str::FromStr): not a form name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown id form `{0}` (expected number, numeric-string, text or wide)")]
pub struct UnknownIdForm(pub String);

impl std::str::FromStr for IdForm {
    type Err = UnknownIdForm;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "number" => Ok(IdForm::Number),
            "numeric-string" | "string" => Ok(IdForm::NumericString),
            "text" => Ok(IdForm::Text),
            "wide" => Ok(IdForm::Wide),
            _ => Err(UnknownIdForm(s.to_owned())),
        }
    }
}

/// The bias that moves `Wide` ids past `i64::MAX`.
const WIDE_BASE: u64 = 1 << 63;
/// The bias that makes a signed 32-bit id non-negative before it is widened.
const WIDE_SHIFT: i64 = 1 << 31;

impl IdForm {
    /// `id` written in this form.
    pub(crate) fn id(self, id: i64) -> Value {
        match self {
            IdForm::Number => json!(id),
            IdForm::NumericString => json!(id.to_string()),
            IdForm::Text => json!(format!("msg-{:016x}", id as u64)),
            IdForm::Wide => json!(WIDE_BASE + (id + WIDE_SHIFT) as u64),
        }
    }

    /// A seq written in this form (only numeric strings change seqs).
    pub(crate) fn seq(self, seq: i64) -> Value {
        match self {
            IdForm::NumericString => json!(seq.to_string()),
            _ => json!(seq),
        }
    }

    /// Reads an id written in this form; `Ok(None)` for absent, `null`, `""` and `0`-like
    /// "latest" values, `Err(())` for anything this form cannot have written.
    pub(crate) fn parse(self, v: Option<&Value>) -> Result<Option<i64>, ()> {
        let v = match v {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => return Ok(None),
            Some(v) => v,
        };
        let numeric = || match v {
            Value::Number(n) => n.as_i64().ok_or(()),
            Value::String(s) => s.trim().parse::<i64>().map_err(drop),
            _ => Err(()),
        };
        match self {
            IdForm::Number | IdForm::NumericString => numeric().map(Some),
            IdForm::Text => match v {
                Value::String(s) => s
                    .strip_prefix("msg-")
                    .and_then(|hex| u64::from_str_radix(hex, 16).ok())
                    .map(|u| Some(u as i64))
                    .ok_or(()),
                // `0` still means "latest".
                _ if numeric() == Ok(0) => Ok(None),
                _ => Err(()),
            },
            IdForm::Wide => {
                let wide = match v {
                    Value::Number(n) => n.as_u64(),
                    Value::String(s) => s.trim().parse::<u64>().ok(),
                    _ => None,
                }
                .ok_or(())?;
                if wide == 0 {
                    return Ok(None);
                }
                wide.checked_sub(WIDE_BASE)
                    .map(|u| Some(u as i64 - WIDE_SHIFT))
                    .ok_or(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_back_what_it_wrote() {
        for form in [
            IdForm::Number,
            IdForm::NumericString,
            IdForm::Text,
            IdForm::Wide,
        ] {
            for id in [1, -1, 2_147_483_647, -2_147_483_648, 123_456] {
                let v = form.id(id);
                assert_eq!(form.parse(Some(&v)), Ok(Some(id)), "{form:?} {v}");
            }
            assert_eq!(form.parse(None), Ok(None));
            assert_eq!(form.parse(Some(&json!(""))), Ok(None));
        }
        assert!(IdForm::Wide.id(-5).as_u64().unwrap() > i64::MAX as u64);
        assert!(IdForm::Text.parse(Some(&json!(5))).is_err());
        assert_eq!(IdForm::Text.parse(Some(&json!(0))), Ok(None));
        assert_eq!(IdForm::NumericString.seq(7), json!("7"));
        assert_eq!(IdForm::Text.seq(7), json!(7));
    }
}
