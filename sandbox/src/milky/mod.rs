//! The Milky 1.2 face of the sandbox: the same world (groups, members, friends, histories,
//! media, forwards) served as a Milky implementation when
//! [`SandboxConfig::protocol`](crate::SandboxConfig::protocol) is [`Protocol::Milky`](crate::Protocol::Milky).
//!
//! Transport (`http`): `POST /api/:api` with a JSON body (`{}` or empty when the API takes no
//! input), `Authorization: Bearer <token>` or `?access_token=`; HTTP 401 for a missing or wrong
//! token, 404 for an unknown API, 405 for another method than `POST`, 415 when the
//! Content-Type is not `application/json`, otherwise HTTP 200 with
//! `{"status":"ok","retcode":0,"data":{…}}` or `{"status":"failed","retcode":<code>,"message"}`.
//! Events (`stream`): `GET /event`, a WebSocket with `Upgrade: websocket` (one JSON event per
//! text frame), otherwise Server-Sent Events (`event: milky_event`, `data: <json>`, a blank
//! line; a `: heartbeat` comment every
//! [`heartbeat_interval`](crate::SandboxConfig::heartbeat_interval)). `GET /download` is the
//! media host the temp URLs point at; `POST /sandbox_inject_message` is the sandbox's own
//! injection (as on the OneBot face), whose messages arrive as `message_receive` events, and
//! `POST /sandbox_react`, `/sandbox_set_essence`, `/sandbox_mute`, `/sandbox_whole_mute`,
//! `/sandbox_set_admin`, `/sandbox_upload_group_file`, `/sandbox_rename_group` make a user act
//! (bodies as on the OneBot face, see `actions::simulate`), pushing the Milky events.
//!
//! Retcodes of failed calls:
//!
//! | retcode | meaning                                                                   |
//! |---------|---------------------------------------------------------------------------|
//! | -400    | invalid parameters: a missing field, a wrong type, a QQ number outside [10001, 4294967295], a bad `uri`; the message names the field |
//! | -404    | no such group, member, friend, message, forward bundle, resource or file  |
//! | -406    | refused by QQ's rules: a recall outside the window or without the rights, `@全体成员` without admin |
//! | -500    | a media `uri` could not be read (`http(s)://` fetch or `file://` read failed) |
//!
//! The bot's own messages (sends) join history and `get_message`, and are pushed as
//! `message_receive` events while [`report_self_message`](crate::SandboxConfig::report_self_message)
//! is on (acidify's `reportSelfMessage`, on by default). Layout: `params` (strict parameter reading), `entities` (groups,
//! members, friends, incoming messages), `segments` (stored ↔ Milky segments), `media` (`uri`
//! resolution), `api/` (one file per area, `api::call` routes), `events` (event bodies),
//! `record` (the JSONL recording), `http` (routing and the envelope), `stream` (WebSocket and
//! SSE event streams).

pub(crate) mod api;
pub(crate) mod entities;
pub(crate) mod events;
pub(crate) mod http;
mod media;
mod params;
pub(crate) mod record;
pub(crate) mod segments;
mod stream;

/// A failed Milky call: its retcode and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MilkyError {
    pub retcode: i64,
    pub message: String,
}

impl MilkyError {
    /// `-400`: invalid parameters.
    pub(crate) fn bad(message: impl Into<String>) -> Self {
        MilkyError {
            retcode: -400,
            message: message.into(),
        }
    }

    /// `-404`: the named thing does not exist.
    pub(crate) fn not_found(message: impl Into<String>) -> Self {
        MilkyError {
            retcode: -404,
            message: message.into(),
        }
    }

    /// `-406`: refused by QQ's rules.
    pub(crate) fn refused(message: impl Into<String>) -> Self {
        MilkyError {
            retcode: -406,
            message: message.into(),
        }
    }

    /// `-500`: media could not be read.
    pub(crate) fn media(message: impl Into<String>) -> Self {
        MilkyError {
            retcode: -500,
            message: message.into(),
        }
    }
}

/// What a Milky API handler returns.
pub(crate) type MilkyResult = Result<serde_json::Value, MilkyError>;
