//! A held action as an approval stores it: what to run and with whose
//! authority, serialized to JSON so it survives restarts.

use std::collections::BTreeSet;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use super::OnBehalfOf;
use crate::caller::{Caller, TokenScope};
use crate::error::{Error, Result};
use crate::media::resolve::MediaSource;
use crate::write::moderation::Moderation;
use crate::write::send::SendRequest;

/// What an approval runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Held {
    /// A SendMessage.
    Send(Box<HeldSend>),
    /// A RecallMessage.
    Recall {
        /// The message.
        message_id: i64,
    },
    /// A PokeMember.
    Poke {
        /// The group.
        group_id: i64,
        /// The member.
        user_id: i64,
    },
    /// A ReactToMessage.
    React {
        /// The message.
        message_id: i64,
        /// The emoji.
        emoji_id: String,
        /// Remove instead of add.
        remove: bool,
    },
    /// A SetEssence.
    Essence {
        /// The message.
        message_id: i64,
        /// Unmark instead of mark.
        remove: bool,
    },
    /// A SetTyping.
    Typing {
        /// The private chat's user.
        user_id: i64,
    },
    /// A moderation action.
    Moderate {
        /// The group.
        group_id: i64,
        /// What to do.
        op: Moderation,
    },
}

/// A SendMessage, its chat resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldSend {
    account_id: String,
    group_id: Option<i64>,
    user_id: Option<i64>,
    reply_to: Option<i64>,
    mentions: Vec<i64>,
    mention_all: bool,
    text: String,
    images: Vec<HeldSource>,
    videos: Vec<HeldSource>,
    #[serde(default)]
    voices: Vec<HeldSource>,
    file: Option<HeldSource>,
    file_name: String,
    idempotency_key: String,
}

/// A media source; inline bytes as base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
enum HeldSource {
    MediaId(String),
    Url(String),
    Path(String),
    Data(String),
}

impl HeldSource {
    fn of(source: &MediaSource) -> HeldSource {
        match source {
            MediaSource::MediaId(v) => HeldSource::MediaId(v.clone()),
            MediaSource::Url(v) => HeldSource::Url(v.clone()),
            MediaSource::Path(v) => HeldSource::Path(v.clone()),
            MediaSource::Data(v) => HeldSource::Data(STANDARD.encode(v)),
        }
    }

    fn source(&self) -> Result<MediaSource> {
        Ok(match self {
            HeldSource::MediaId(v) => MediaSource::MediaId(v.clone()),
            HeldSource::Url(v) => MediaSource::Url(v.clone()),
            HeldSource::Path(v) => MediaSource::Path(v.clone()),
            HeldSource::Data(v) => MediaSource::Data(
                STANDARD
                    .decode(v)
                    .map_err(|e| Error::internal(format!("a held media source: {e}")))?
                    .into(),
            ),
        })
    }
}

impl HeldSend {
    /// The request `req`, sent to the chat resolved for it.
    pub fn of(
        req: &SendRequest,
        account_id: &str,
        group_id: Option<i64>,
        user_id: Option<i64>,
    ) -> Self {
        let sources = |list: &[Option<MediaSource>]| {
            list.iter()
                .flatten()
                .map(HeldSource::of)
                .collect::<Vec<_>>()
        };
        HeldSend {
            account_id: account_id.to_owned(),
            group_id,
            user_id,
            reply_to: req.reply_to,
            mentions: req.mentions.clone(),
            mention_all: req.mention_all,
            text: req.text.clone(),
            images: sources(&req.images),
            videos: sources(&req.videos),
            voices: sources(&req.voices),
            file: req
                .file
                .as_ref()
                .and_then(|f| f.as_ref())
                .map(HeldSource::of),
            file_name: req.file_name.clone(),
            idempotency_key: req.idempotency_key.clone(),
        }
    }

    /// The request to run.
    pub fn request(&self, on_behalf_of: Option<OnBehalfOf>) -> Result<SendRequest> {
        let sources = |list: &[HeldSource]| {
            list.iter()
                .map(|s| s.source().map(Some))
                .collect::<Result<Vec<_>>>()
        };
        Ok(SendRequest {
            account_id: self.account_id.clone(),
            group_id: self.group_id,
            user_id: self.user_id,
            reply_to: self.reply_to,
            mentions: self.mentions.clone(),
            mention_all: self.mention_all,
            text: self.text.clone(),
            images: sources(&self.images)?,
            videos: sources(&self.videos)?,
            voices: sources(&self.voices)?,
            file: self
                .file
                .as_ref()
                .map(|f| f.source().map(Some))
                .transpose()?,
            file_name: self.file_name.clone(),
            idempotency_key: self.idempotency_key.clone(),
            on_behalf_of,
        })
    }
}

/// The caller's authority, kept with the held action: the approved action
/// runs with the same token scope (and media ownership) as the call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct HeldScope {
    name: String,
    accounts: Option<BTreeSet<String>>,
    write: bool,
    groups: Option<BTreeSet<i64>>,
    users: Option<BTreeSet<i64>>,
}

/// The stored payload of an approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    /// What to run.
    pub action: Held,
    /// The requester named by the call.
    on_behalf_of: Option<(String, i64)>,
    /// The token's scope; `None` for a caller without a token.
    scope: Option<HeldScope>,
}

impl Payload {
    /// The payload of `action` asked for by `caller` on behalf of
    /// `on_behalf_of`.
    pub fn new(action: Held, caller: &Caller, on_behalf_of: Option<OnBehalfOf>) -> Self {
        Payload {
            action,
            on_behalf_of: on_behalf_of.map(|o| match o {
                OnBehalfOf::Message(id) => ("message".to_owned(), id),
                OnBehalfOf::User(id) => ("user".to_owned(), id),
            }),
            scope: caller.token_scope().map(|s| HeldScope {
                name: s.name.clone(),
                accounts: s.accounts.clone(),
                write: s.write,
                groups: s.groups.clone(),
                users: s.users.clone(),
            }),
        }
    }

    /// The stored JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The payload of stored JSON.
    pub fn parse(json: &str) -> Result<Payload> {
        serde_json::from_str(json)
            .map_err(|e| Error::internal(format!("a stored approval does not parse: {e}")))
    }

    /// The requester the call named.
    pub fn on_behalf_of(&self) -> Option<OnBehalfOf> {
        self.on_behalf_of
            .as_ref()
            .map(|(kind, id)| match kind.as_str() {
                "message" => OnBehalfOf::Message(*id),
                _ => OnBehalfOf::User(*id),
            })
    }

    /// The caller the approved action runs as.
    pub fn caller(&self) -> Caller {
        match &self.scope {
            None => Caller::anonymous(),
            Some(s) => Caller::token(TokenScope {
                name: s.name.clone(),
                accounts: s.accounts.clone(),
                write: s.write,
                groups: s.groups.clone(),
                users: s.users.clone(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_send_round_trips_with_its_scope() {
        let req = SendRequest {
            account_id: "a".into(),
            text: "hi".into(),
            mention_all: true,
            images: vec![Some(MediaSource::Data(bytes::Bytes::from_static(
                b"\x89PNG",
            )))],
            file: Some(Some(MediaSource::Url("https://example.com/f".into()))),
            ..SendRequest::default()
        };
        let scope = TokenScope {
            name: "agent".into(),
            accounts: None,
            write: true,
            groups: Some([1].into()),
            users: None,
        };
        let payload = Payload::new(
            Held::Send(Box::new(HeldSend::of(&req, "a", Some(1), None))),
            &Caller::token(scope),
            Some(OnBehalfOf::Message(7)),
        );
        let back = Payload::parse(&payload.to_json()).unwrap();
        assert_eq!(back, payload);
        assert_eq!(back.on_behalf_of(), Some(OnBehalfOf::Message(7)));
        assert_eq!(back.caller().token_name(), Some("agent"));
        let Held::Send(send) = back.action else {
            panic!("not a send")
        };
        let again = send.request(None).unwrap();
        assert_eq!(again.images, req.images);
        assert_eq!(again.file, req.file);
        assert_eq!(again.group_id, Some(1));
    }
}
