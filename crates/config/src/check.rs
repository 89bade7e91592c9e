//! Key paths and the range checks the sections share.
//!
//! A [`Key`] names one configuration key (`accounts.default.groups[2]`);
//! each check returns [`ConfigError::Invalid`] naming that key, so a
//! section's validation reads as a list of its keys and their rules.

use std::fmt::Display;
use std::ops::RangeInclusive;

/// A configuration error naming the offending key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A source could not be read or parsed.
    #[error("configuration: {0}")]
    Load(String),
    /// A value is out of range or inconsistent.
    #[error("configuration key `{key}`: {message}")]
    Invalid {
        /// Dotted key path, e.g. `accounts.default.ws_url`.
        key: String,
        /// What is wrong.
        message: String,
    },
}

/// A dotted key path such as `accounts.default.ws_url` or
/// `auth.tokens[0].groups[1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key(String);

impl Key {
    /// A top-level key or section.
    pub(super) fn new(name: &str) -> Key {
        Key(name.to_string())
    }

    /// The key `name` inside this one: `self.name`.
    pub(super) fn field(&self, name: &str) -> Key {
        Key(format!("{}.{name}", self.0))
    }

    /// Item `i` of this list: `self[i]`.
    pub(super) fn index(&self, i: usize) -> Key {
        Key(format!("{}[{i}]", self.0))
    }

    /// The error "this key: `message`".
    pub(super) fn invalid(&self, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            key: self.0.clone(),
            message: message.into(),
        }
    }

    /// Refuses the value with `message` unless `ok`.
    pub(super) fn ensure(&self, ok: bool, message: impl Into<String>) -> Result<(), ConfigError> {
        if ok {
            Ok(())
        } else {
            Err(self.invalid(message))
        }
    }

    /// Refuses zero: "must be positive".
    pub(super) fn positive<T: Default + PartialEq>(&self, value: T) -> Result<(), ConfigError> {
        self.ensure(value != T::default(), "must be positive")
    }

    /// Refuses values below `min`: "must be at least `min`".
    pub(super) fn at_least<T: PartialOrd + Display>(
        &self,
        value: T,
        min: T,
    ) -> Result<(), ConfigError> {
        self.ensure(value >= min, format!("must be at least {min}"))
    }

    /// Refuses values outside `range`: "must be in `lo..=hi`".
    pub(super) fn in_range<T: PartialOrd + Display>(
        &self,
        value: T,
        range: RangeInclusive<T>,
    ) -> Result<(), ConfigError> {
        let ok = range.contains(&value);
        let (lo, hi) = range.into_inner();
        self.ensure(ok, format!("must be in {lo}..={hi}"))
    }

    /// Refuses a value above its sibling key `bound` (whose value is
    /// `limit`): "must not exceed `bound`".
    pub(super) fn not_above<T: PartialOrd>(
        &self,
        value: T,
        bound: &str,
        limit: T,
    ) -> Result<(), ConfigError> {
        self.ensure(value <= limit, format!("must not exceed {bound}"))
    }

    /// Refuses an HTTP path that does not start with `/`.
    pub(super) fn url_path(&self, path: &str) -> Result<(), ConfigError> {
        self.ensure(path.starts_with('/'), "must start with `/`")
    }

    /// Refuses a group id that is not positive; the error names the item.
    pub(super) fn group_ids(&self, groups: &[i64]) -> Result<(), ConfigError> {
        for (i, g) in groups.iter().enumerate() {
            self.index(i).ensure(*g > 0, "group ids are positive")?;
        }
        Ok(())
    }

    /// Every QQ number in `users` is positive (the error names the index).
    pub(super) fn user_ids(&self, users: &[i64]) -> Result<(), ConfigError> {
        for (i, u) in users.iter().enumerate() {
            self.index(i).ensure(*u > 0, "QQ numbers are positive")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(r: Result<(), ConfigError>) -> (String, String) {
        match r {
            Err(ConfigError::Invalid { key, message }) => (key, message),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn paths_and_messages() {
        let k = Key::new("accounts").field("a");
        assert_eq!(
            refusal(k.field("groups").group_ids(&[1, 0])),
            (
                "accounts.a.groups[1]".into(),
                "group ids are positive".into()
            )
        );
        assert!(k.positive(1u32).is_ok());
        assert_eq!(refusal(k.positive(0usize)).1, "must be positive");
        assert!(k.at_least(1000u64, 1000).is_ok());
        assert_eq!(refusal(k.at_least(999u64, 1000)).1, "must be at least 1000");
        assert!(k.in_range(20_000usize, 1..=20_000).is_ok());
        assert_eq!(
            refusal(k.in_range(0usize, 1..=20_000)).1,
            "must be in 1..=20000"
        );
        assert!(k.not_above(5u64, "max", 5).is_ok());
        assert_eq!(
            refusal(k.not_above(6u64, "max", 5)).1,
            "must not exceed max"
        );
        assert_eq!(refusal(k.url_path("x")).1, "must start with `/`");
    }
}
