//! Start-up configuration of a sandbox peer.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use crate::behaviour::Behaviour;
use crate::flavor::Flavor;

/// Default bot account of the sandbox.
pub const DEFAULT_SELF_ID: i64 = 3_889_000_000;
/// Default nickname of the bot account.
pub const DEFAULT_NICKNAME: &str = "沙盒机器人";

/// Which protocol the sandbox speaks on its listener.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Protocol {
    /// OneBot v11: forward WebSocket and the HTTP API, shaped by [`Flavor`].
    #[default]
    OneBot,
    /// Milky 1.2: `POST /api/:api` and events on `GET /event` (WebSocket or SSE).
    Milky,
}

/// A protocol name [`Protocol::from_str`](std::str::FromStr::from_str) does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown protocol {0:?}; expected onebot or milky")]
pub struct UnknownProtocol(pub String);

impl std::str::FromStr for Protocol {
    type Err = UnknownProtocol;

    /// `onebot` (or `onebot11`, `onebot-v11`) and `milky`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "onebot" | "onebot11" | "onebot-v11" => Ok(Protocol::OneBot),
            "milky" => Ok(Protocol::Milky),
            _ => Err(UnknownProtocol(s.to_owned())),
        }
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Protocol::OneBot => "onebot",
            Protocol::Milky => "milky",
        })
    }
}

/// How a [`Sandbox`](crate::Sandbox) is started.
///
/// Every field is public so callers can use struct-update syntax:
/// `SandboxConfig { flavor: Flavor::GoCqhttp, ..Default::default() }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxConfig {
    /// Address to listen on (HTTP and WebSocket share it). Port 0 picks a free port.
    pub listen: SocketAddr,
    /// The implementation to imitate.
    pub flavor: Flavor,
    /// Access token clients must present. `None` or an empty string disables auth
    /// (NapCat's empty `token` means "no auth" too).
    pub access_token: Option<String>,
    /// Heartbeat meta-event period on event-capable WebSocket connections; `None` sends none
    /// (go-cqhttp with heartbeats disabled).
    pub heartbeat_interval: Option<Duration>,
    /// The bot's own QQ number (`self_id`).
    pub self_id: i64,
    /// The bot's nickname (`get_login_info`).
    pub nickname: String,
    /// Emit `post_type: "message_sent"` events for the bot's own sends (NapCat `reportSelfMessage`);
    /// on the Milky face, `message_receive` events (acidify's `reportSelfMessage`).
    pub report_self_message: bool,
    /// NapCat's packet backend: when `false`, poke actions fail validation with
    /// `packetBackend发包能力不可用` (retcode 1400). Ignored by other flavors.
    pub packet_backend: bool,
    /// How long a media download key (and so every media URL signed with
    /// it) lives: two hours by default, like QQ's.
    pub media_url_ttl: Duration,
    /// NapCat's and LLOneBot's `enableLocalFile2Url`: `get_image`,
    /// `get_file` and `get_record` answer with `base64` too (off by
    /// default, as in both).
    pub local_file_to_url: bool,
    /// Axes on which the peer behaves like another implementation than `flavor` (its name, ids,
    /// history paging, id form, leniency); the default follows `flavor` everywhere.
    pub behaviour: Behaviour,
    /// The protocol served on `listen` (OneBot v11 by default); both faces share the world.
    pub protocol: Protocol,
    /// Milky only: a JSONL file that gets one line per API call
    /// (`{"kind":"call","api","request","response"}`, `response` null for a non-200 answer)
    /// and one per event sent (`{"kind":"event","event"}`), for schema validation.
    pub milky_record: Option<PathBuf>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        SandboxConfig {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            flavor: Flavor::NapCat,
            access_token: None,
            heartbeat_interval: Some(Duration::from_secs(30)),
            self_id: DEFAULT_SELF_ID,
            nickname: DEFAULT_NICKNAME.to_owned(),
            report_self_message: true,
            packet_backend: true,
            media_url_ttl: Duration::from_secs(2 * 3600),
            local_file_to_url: false,
            behaviour: Behaviour::default(),
            protocol: Protocol::OneBot,
            milky_record: None,
        }
    }
}

impl SandboxConfig {
    /// The default configuration for `flavor`.
    pub fn for_flavor(flavor: Flavor) -> Self {
        SandboxConfig {
            flavor,
            ..Default::default()
        }
    }

    /// The default configuration of a peer that reports `name`'s `app_name` and behaves like
    /// `like` (ids, seq fields, history paging); retcodes and the rest stay `like`'s too.
    pub fn named_like(name: Flavor, like: Flavor) -> Self {
        SandboxConfig {
            flavor: like,
            behaviour: Behaviour::named_like(name, like),
            ..Default::default()
        }
    }

    /// The default configuration of a Milky 1.2 peer.
    pub fn milky() -> Self {
        SandboxConfig {
            protocol: Protocol::Milky,
            ..Default::default()
        }
    }

    /// The effective token: `None` when auth is off.
    pub(crate) fn token(&self) -> Option<&str> {
        self.access_token.as_deref().filter(|t| !t.is_empty())
    }
}
