//! Bearer-token authentication and token scopes (no tonic here).
//!
//! [`Authenticator`] holds the configured tokens (`[[auth.tokens]]`) and
//! resolves a presented bearer token to a [`Caller`] in constant time:
//! tokens are compared as SHA-256 digests with `subtle`, over every
//! configured token, so neither the position of a match nor the length of a
//! token shows in the timing. Token values never appear in logs, errors or
//! `Debug` output; a token is known by its `name`.
//!
//! The gRPC layer (`grpc::auth`) puts the [`Caller`] into the request's
//! extensions, and each handler passes it to the domain inside the call's
//! [`CallCtx`](crate::CallCtx), where the use cases check it (see
//! [`crate::caller`]). With no token configured every caller is
//! [`Caller::anonymous`], allowed everything.

use std::fmt;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::caller::{Caller, TokenScope};
use crate::error::{Error, Kind};
use onebot_gateway_config::{Access, AuthConfig};

/// A configured token: its digest and scope.
struct Entry {
    digest: [u8; 32],
    caller: Caller,
}

/// The configured tokens; resolves presented bearer tokens to callers.
pub struct Authenticator {
    entries: Vec<Entry>,
}

impl fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authenticator")
            .field(
                "tokens",
                &self
                    .entries
                    .iter()
                    .map(|e| e.caller.token_name().unwrap_or_default())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why a request carries no usable token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rejection {
    /// No `authorization` metadata.
    Missing,
    /// `authorization` is not `Bearer <token>`.
    Malformed,
    /// The token matches no configured token.
    Invalid,
}

impl Rejection {
    /// The `Unauthenticated` error to answer with.
    pub fn error(self) -> Error {
        let (message, why) = match self {
            Rejection::Missing => ("a bearer token is required", "missing"),
            Rejection::Malformed => (
                "the authorization metadata must be `Bearer <token>`",
                "malformed",
            ),
            Rejection::Invalid => ("the bearer token is not valid", "invalid"),
        };
        Error::new(Kind::Unauthenticated, message).with("reason", why)
    }
}

impl Authenticator {
    /// Resolves every `[[auth.tokens]]` value (inline, from its file, or from
    /// the environment through `env`) into an authenticator; `None` when no
    /// token is configured (authentication off). Errors name the key.
    pub fn from_config(
        config: &AuthConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, onebot_gateway_config::ConfigError> {
        use onebot_gateway_config::ConfigError;
        if config.tokens.is_empty() {
            return Ok(None);
        }
        let mut entries: Vec<Entry> = Vec::with_capacity(config.tokens.len());
        for (i, t) in config.tokens.iter().enumerate() {
            let bad = |k: &str, message: String| ConfigError::Invalid {
                key: format!("auth.tokens[{i}].{k}"),
                message,
            };
            let value = if let Some(v) = &t.value {
                v.expose().trim().to_string()
            } else if let Some(path) = &t.value_file {
                std::fs::read_to_string(path)
                    .map_err(|e| bad("value_file", format!("reading {}: {e}", path.display())))?
                    .trim()
                    .to_string()
            } else if let Some(var) = &t.value_env {
                env(var)
                    .ok_or_else(|| bad("value_env", format!("variable {var} is not set")))?
                    .trim()
                    .to_string()
            } else {
                return Err(bad(
                    "value",
                    "set exactly one of value, value_file and value_env".into(),
                ));
            };
            if value.is_empty() {
                return Err(bad("value", "the token is empty".into()));
            }
            if !value.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(bad(
                    "value",
                    "tokens are printable ASCII without spaces (they travel in gRPC metadata)"
                        .into(),
                ));
            }
            if value.len() < 16 {
                tracing::warn!(
                    token = %t.name,
                    "bearer token is shorter than 16 characters; use a long random token"
                );
            }
            let digest: [u8; 32] = Sha256::digest(value.as_bytes()).into();
            if entries.iter().any(|e| e.digest == digest) {
                return Err(bad(
                    "value",
                    "the same token value is configured twice".into(),
                ));
            }
            let accounts = if t.accounts.iter().any(|a| a == "*") {
                None
            } else {
                Some(t.accounts.iter().cloned().collect())
            };
            let scope = TokenScope {
                name: t.name.clone(),
                accounts,
                write: t.access == Access::ReadWrite,
                groups: t.groups.as_ref().map(|g| g.iter().copied().collect()),
                users: t.users.as_ref().map(|u| u.iter().copied().collect()),
            };
            entries.push(Entry {
                digest,
                caller: Caller::token(scope),
            });
        }
        Ok(Some(Self { entries }))
    }

    /// Names of the configured tokens.
    pub fn token_names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().filter_map(|e| e.caller.token_name())
    }

    /// Resolves the value of an `authorization` header.
    pub fn authenticate(&self, authorization: Option<&[u8]>) -> Result<Caller, Rejection> {
        let header = authorization.ok_or(Rejection::Missing)?;
        let token = bearer_token(header).ok_or(Rejection::Malformed)?;
        self.lookup(token).ok_or(Rejection::Invalid)
    }

    /// The caller whose token is `token`, compared in constant time against
    /// every configured token.
    fn lookup(&self, token: &[u8]) -> Option<Caller> {
        let presented: [u8; 32] = Sha256::digest(token).into();
        let mut found: Option<&Caller> = None;
        for entry in &self.entries {
            // No early exit: every entry is compared whatever matched.
            let hit: bool = entry.digest.ct_eq(&presented).into();
            if hit {
                found = Some(&entry.caller);
            }
        }
        found.cloned()
    }
}

/// The token of `Bearer <token>` (scheme case-insensitive, one or more
/// spaces), or `None`.
fn bearer_token(header: &[u8]) -> Option<&[u8]> {
    const SCHEME: &[u8] = b"bearer";
    let (scheme, rest) = header.split_at_checked(SCHEME.len())?;
    if !scheme.eq_ignore_ascii_case(SCHEME) {
        return None;
    }
    let token = rest.trim_ascii();
    let separated = rest.first() == Some(&b' ');
    (separated && !token.is_empty() && !token.contains(&b' ')).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ChatRef;
    use onebot_gateway_config::TokenConfig;

    fn token(name: &str, value: &str, accounts: &[&str], access: Access) -> TokenConfig {
        TokenConfig::inline(name, value, accounts, access)
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn auth(tokens: Vec<TokenConfig>) -> Authenticator {
        Authenticator::from_config(
            &AuthConfig {
                tokens,
                ..AuthConfig::default()
            },
            &no_env,
        )
        .unwrap()
        .unwrap()
    }

    #[test]
    fn no_tokens_means_no_authenticator() {
        assert!(
            Authenticator::from_config(&AuthConfig::default(), &no_env)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn resolves_tokens_and_rejects_the_rest() {
        let a = auth(vec![
            token("a", "token-a-0123456789", &["default"], Access::ReadOnly),
            token("b", "token-b-0123456789", &["*"], Access::ReadWrite),
        ]);
        let caller = a.authenticate(Some(b"Bearer token-a-0123456789")).unwrap();
        assert_eq!(caller.token_name(), Some("a"));
        assert!(!caller.can_write());
        let caller = a
            .authenticate(Some(b"bearer   token-b-0123456789"))
            .unwrap();
        assert_eq!(caller.token_name(), Some("b"));
        assert!(caller.can_write() && caller.allows_account("anything"));

        assert_eq!(a.authenticate(None).unwrap_err(), Rejection::Missing);
        for bad in [
            &b"token-a-0123456789"[..],
            b"Basic abc",
            b"Bearer",
            b"Bearer ",
            b"Bearer a b",
        ] {
            assert_eq!(
                a.authenticate(Some(bad)).unwrap_err(),
                Rejection::Malformed,
                "{bad:?}"
            );
        }
        for wrong in [
            &b"Bearer token-a-012345678"[..],
            b"Bearer token-a-01234567890",
            b"Bearer x",
        ] {
            assert_eq!(a.authenticate(Some(wrong)).unwrap_err(), Rejection::Invalid);
        }
        assert_eq!(Rejection::Invalid.error().kind, Kind::Unauthenticated);
    }

    #[test]
    fn scopes_check_account_write_group_and_private_chats() {
        let mut t = token(
            "g",
            "token-g-0123456789",
            &["default", "b"],
            Access::ReadOnly,
        );
        t.groups = Some(vec![1, 2]);
        let caller = auth(vec![t])
            .authenticate(Some(b"Bearer token-g-0123456789"))
            .unwrap();
        assert!(caller.check_account("").is_ok());
        assert!(caller.check_account("b").is_ok());
        let e = caller.check_account("c").unwrap_err();
        assert_eq!(e.kind, Kind::TokenScope);
        assert_eq!(e.meta("scope"), Some("account"));
        assert_eq!(e.meta("account_id"), Some("c"));
        assert_eq!(e.meta("token"), Some("g"));
        assert_eq!(
            caller.check_write().unwrap_err().meta("scope"),
            Some("write")
        );
        assert!(caller.check_group(2).is_ok());
        assert_eq!(
            caller.check_group(3).unwrap_err().meta("scope"),
            Some("group")
        );
        assert!(caller.check_chat(ChatRef::Group(1)).is_ok());
        assert_eq!(
            caller
                .check_chat(ChatRef::Private(5))
                .unwrap_err()
                .meta("scope"),
            Some("private")
        );

        let anon = Caller::anonymous();
        assert!(anon.check_account("x").is_ok() && anon.check_write().is_ok());
        assert!(anon.check_chat(ChatRef::Private(5)).is_ok());
        assert_eq!(anon.token_name(), None);
    }

    #[test]
    fn values_come_from_files_and_env_and_never_show() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("tok");
        std::fs::write(&file, "file-token-0123456789\n").unwrap();
        let mut from_file = token("f", "", &["*"], Access::ReadOnly);
        from_file.value = None;
        from_file.value_file = Some(file);
        let mut from_env = token("e", "", &["*"], Access::ReadOnly);
        from_env.value = None;
        from_env.value_env = Some("GW_TOKEN".into());
        let env = |k: &str| (k == "GW_TOKEN").then(|| "env-token-0123456789".to_string());
        let a = Authenticator::from_config(
            &AuthConfig {
                tokens: vec![from_file.clone(), from_env.clone()],
                ..AuthConfig::default()
            },
            &env,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            a.authenticate(Some(b"Bearer file-token-0123456789"))
                .unwrap()
                .token_name(),
            Some("f")
        );
        assert_eq!(
            a.authenticate(Some(b"Bearer env-token-0123456789"))
                .unwrap()
                .token_name(),
            Some("e")
        );
        let shown = format!(
            "{a:?} {:?}",
            a.authenticate(Some(b"Bearer env-token-0123456789"))
        );
        assert!(!shown.contains("token-0123456789"), "{shown}");

        let err = Authenticator::from_config(
            &AuthConfig {
                tokens: vec![from_env],
                ..AuthConfig::default()
            },
            &no_env,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("auth.tokens[0].value_env"), "{err}");

        let dup = Authenticator::from_config(
            &AuthConfig {
                tokens: vec![
                    token("x", "same-token-0123456789", &["*"], Access::ReadOnly),
                    token("y", "same-token-0123456789", &["*"], Access::ReadOnly),
                ],
                ..AuthConfig::default()
            },
            &no_env,
        )
        .unwrap_err()
        .to_string();
        assert!(
            dup.contains("auth.tokens[1].value") && !dup.contains("same-token"),
            "{dup}"
        );
    }
}
