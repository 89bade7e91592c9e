//! Strict reading of a Milky request body, as the schemas type it: integers are JSON integers
//! (never strings), QQ numbers lie in [10001, 4294967295], optional fields may be absent or
//! `null`. Every failure is a `-400` naming the field.

use serde_json::{Map, Value};

use super::MilkyError;
use crate::state::ChatRef;

/// Smallest QQ number (zUin).
pub(crate) const MIN_UIN: i64 = 10_001;
/// Largest QQ number (zUin).
pub(crate) const MAX_UIN: i64 = 4_294_967_295;

/// A request body's fields.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Body<'a>(pub &'a Map<String, Value>);

fn missing(key: &str) -> MilkyError {
    MilkyError::bad(format!("{key}: required"))
}

/// A message scene (`friend`, `group`, `temp`) and its peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scene {
    Friend,
    Group,
    Temp,
}

impl Scene {
    /// The chat the scene and peer name.
    pub(crate) fn chat(self, peer_id: i64) -> ChatRef {
        match self {
            Scene::Group => ChatRef::Group(peer_id),
            Scene::Friend | Scene::Temp => ChatRef::Private(peer_id),
        }
    }
}

impl<'a> Body<'a> {
    fn present(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    /// An optional non-negative integer.
    pub(crate) fn opt_u64(&self, key: &str) -> Result<Option<i64>, MilkyError> {
        match self.present(key) {
            None => Ok(None),
            Some(v) => {
                v.as_i64().filter(|n| *n >= 0).map(Some).ok_or_else(|| {
                    MilkyError::bad(format!("{key}: expected a non-negative integer"))
                })
            }
        }
    }

    /// A required non-negative integer.
    pub(crate) fn u64(&self, key: &str) -> Result<i64, MilkyError> {
        self.opt_u64(key)?.ok_or_else(|| missing(key))
    }

    /// A required QQ number.
    pub(crate) fn uin(&self, key: &str) -> Result<i64, MilkyError> {
        let v = self.present(key).ok_or_else(|| missing(key))?;
        v.as_i64()
            .filter(|n| (MIN_UIN..=MAX_UIN).contains(n))
            .ok_or_else(|| {
                MilkyError::bad(format!(
                    "{key}: expected a QQ number (an integer in [{MIN_UIN}, {MAX_UIN}])"
                ))
            })
    }

    /// A required string.
    pub(crate) fn string(&self, key: &str) -> Result<&'a str, MilkyError> {
        self.opt_string(key)?.ok_or_else(|| missing(key))
    }

    /// An optional string.
    pub(crate) fn opt_string(&self, key: &str) -> Result<Option<&'a str>, MilkyError> {
        match self.present(key) {
            None => Ok(None),
            Some(v) => v
                .as_str()
                .map(Some)
                .ok_or_else(|| MilkyError::bad(format!("{key}: expected a string"))),
        }
    }

    /// An optional boolean (absent and `null` are `false`).
    pub(crate) fn flag(&self, key: &str) -> Result<bool, MilkyError> {
        match self.present(key) {
            None => Ok(false),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| MilkyError::bad(format!("{key}: expected a boolean"))),
        }
    }

    /// An optional boolean with its default.
    pub(crate) fn flag_or(&self, key: &str, default: bool) -> Result<bool, MilkyError> {
        match self.present(key) {
            None => Ok(default),
            Some(_) => self.flag(key),
        }
    }

    /// An optional integer (any sign).
    pub(crate) fn opt_i64(&self, key: &str) -> Result<Option<i64>, MilkyError> {
        match self.present(key) {
            None => Ok(None),
            Some(v) => v
                .as_i64()
                .map(Some)
                .ok_or_else(|| MilkyError::bad(format!("{key}: expected an integer"))),
        }
    }

    /// A required array.
    pub(crate) fn array(&self, key: &str) -> Result<&'a Vec<Value>, MilkyError> {
        self.present(key)
            .ok_or_else(|| missing(key))?
            .as_array()
            .ok_or_else(|| MilkyError::bad(format!("{key}: expected an array")))
    }

    /// The required `message_scene`.
    pub(crate) fn scene(&self) -> Result<Scene, MilkyError> {
        match self.string("message_scene")? {
            "friend" => Ok(Scene::Friend),
            "group" => Ok(Scene::Group),
            "temp" => Ok(Scene::Temp),
            _ => Err(MilkyError::bad(
                "message_scene: expected one of friend, group, temp",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_types() {
        let v = json!({"g": 20000002, "s": "20000002", "small": 5, "n": null, "b": true, "seq": 0});
        let b = Body(v.as_object().unwrap());
        assert_eq!(b.uin("g").unwrap(), 20000002);
        assert!(b.uin("s").unwrap_err().message.starts_with("s:"));
        assert!(b.uin("small").is_err());
        assert!(b.uin("n").unwrap_err().message.contains("required"));
        assert_eq!(b.opt_u64("n").unwrap(), None);
        assert_eq!(b.u64("seq").unwrap(), 0);
        assert!(b.flag("b").unwrap());
        assert!(!b.flag("absent").unwrap());
        assert!(b.flag("g").is_err());
    }
}
