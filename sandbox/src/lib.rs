//! OneBot v11 sandbox peer: a fake QQ account behind a real OneBot v11 server, or, with
//! [`Protocol::Milky`], behind a Milky 1.2 server on the same seeded world.
//!
//! It speaks forward WebSocket (`/`, `/api`, `/event`) and the HTTP API on one TCP listener,
//! imitates one of five implementations ([`Flavor`]: NapCat, LLOneBot, Lagrange.OneBot,
//! SnowLuma, go-cqhttp) down to their retcodes, echo handling, id shapes and history anchors,
//! starts from deterministic seed data, and can be told to misbehave ([`Fault`]).
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use onebot_sandbox::{Flavor, Sandbox, SandboxConfig};
//! let sandbox = Sandbox::start(SandboxConfig::for_flavor(Flavor::NapCat)).await?;
//! println!("connect to {}", sandbox.ws_url());
//! let control = sandbox.control();
//! control.wait_connections(1).await;
//! sandbox.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # Layout
//!
//! - `flavor` — [`Flavor`] and small per-implementation facts (app names, fonts).
//! - `config` — [`SandboxConfig`].
//! - `behaviour` — [`Behaviour`]: report one implementation's name, behave like another's.
//! - `data` — deterministic seed: groups 20000002 / 20000003, friends, histories, 20000003's
//!   essence messages and group files.
//! - `state` — the world model (groups, members, friends, per-chat history, id index,
//!   reactions, essence, group files, whole-group mutes).
//! - `ops` — group operations both faces and the control endpoints share (QQ's rules, the
//!   change, the flavor's notice or the Milky event).
//! - `ids` — per-flavor `message_id` shapes derived from per-chat sequences.
//! - `cq` — CQ-code parsing and rendering.
//! - `message` — message input normalisation and per-flavor message objects.
//! - `media` — `base64://` / URL / path media sources, hashing, [`ReceivedMedia`].
//! - `files` — the media files and the loopback media host (signed, expiring URLs).
//! - `params` — lenient parameter access (numeric strings, string booleans).
//! - `response` — results and the per-flavor response frame (retcodes, text fields, echo).
//! - `actions` — one file per area: info, history, send, file, poke, recall, forward, group
//!   (reactions, essence, typing, moderation), group_file, simulate (the control endpoints
//!   that make a user act: `sandbox_react`, `sandbox_set_essence`, `sandbox_mute`,
//!   `sandbox_whole_mute`, `sandbox_set_admin`, `sandbox_upload_group_file`,
//!   `sandbox_rename_group`); `dispatch` routes.
//! - `exec` — per-request pipeline: record, action-level faults, dispatch, render.
//! - `events` — meta events and notices.
//! - `auth` — per-flavor token sources and outcomes.
//! - `server` — listener, hyper HTTP/1.1 serving, HTTP API.
//! - `ws` — WebSocket paths, upgrade, auth-failure forms, the session loop.
//! - `fault` — [`Fault`] switches.
//! - `shared` — state shared by connections and controls (action log, hub, kill switch).
//! - `control` — [`SandboxControl`], the test-facing handle.
//! - `milky/` — the Milky 1.2 face ([`Protocol::Milky`]) over the same world: `http` (routing,
//!   auth, the envelope), `stream` (events over WebSocket and SSE), `api/` (one file per area:
//!   info, message, send, recall, nudge, forward, file, group; `call` routes), `entities` (groups,
//!   members, friends, incoming messages), `segments` (stored ↔ Milky segments), `media`
//!   (`uri` resolution), `params` (strict request fields), `events`, `record` (the JSONL
//!   recording).

#![warn(missing_docs)]

mod actions;
mod auth;
mod behaviour;
mod config;
mod control;
mod cq;
mod data;
mod events;
mod exec;
mod fault;
mod files;
mod flavor;
mod ids;
mod media;
mod message;
mod milky;
mod ops;
mod params;
mod response;
mod server;
mod shared;
mod state;
mod ws;

use std::future::Future;
use std::net::SocketAddr;

pub use actions::RECALL_WINDOW_SECS;
pub use behaviour::{Behaviour, IdForm, UnknownIdForm};
pub use config::{DEFAULT_NICKNAME, DEFAULT_SELF_ID, Protocol, SandboxConfig, UnknownProtocol};
pub use control::SandboxControl;
pub use cq::{escape_text, escape_value, parse as parse_cq, render as render_cq};
pub use data::{
    EXAMPLE_FORWARD, EXAMPLE_GROUP, EXAMPLE_NESTED_FORWARD, FRIEND_MESSAGES, FRIEND_WITH_HISTORY,
    FRIEND_WITHOUT_HISTORY, MISSING_QUOTE, SANDBOX_ESSENCE_SEQS, SANDBOX_FOLDER, SANDBOX_GROUP,
    SANDBOX_GROUP_FILES, SANDBOX_GROUP_MESSAGES, shanghai_time,
};
pub use fault::{Fault, FaultKind};
pub use files::{MEDIA_HOST, sample_media};
pub use flavor::{Flavor, UnknownFlavor};
pub use media::{MediaKind, MediaSource, ReceivedMedia};
use parking_lot::Mutex;
pub use response::Transport;
pub use server::MAX_PAYLOAD;
pub use shared::RecordedAction;
pub use state::{ChatRef, Role};

use server::ListenerTask;
use shared::Shared;

/// A running sandbox peer bound to a TCP address.
///
/// Dropping it stops the listener and drops every connection; prefer [`shutdown`](Self::shutdown).
pub struct Sandbox {
    control: SandboxControl,
    addr: SocketAddr,
    listener: Mutex<Option<ListenerTask>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("addr", &self.addr)
            .field("flavor", &self.control.flavor())
            .finish()
    }
}

impl Sandbox {
    /// Seeds the world and starts listening on `cfg.listen`.
    pub async fn start(cfg: SandboxConfig) -> std::io::Result<Sandbox> {
        let listen = cfg.listen;
        let shared = Shared::new(cfg);
        let (task, addr) = ListenerTask::bind(shared.clone(), listen)?;
        shared.world.lock().files.base =
            Some(format!("http://{}:{}", files::MEDIA_HOST, addr.port()));
        tracing::info!(%addr, flavor = %shared.cfg.flavor, protocol = ?shared.cfg.protocol, "sandbox listening");
        Ok(Sandbox {
            control: SandboxControl { shared },
            addr,
            listener: Mutex::new(Some(task)),
        })
    }

    /// The bound address (the real port when `listen` had port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `ws://<addr>/` (the Universal endpoint).
    pub fn ws_url(&self) -> String {
        format!("ws://{}/", self.addr)
    }

    /// `http://<addr>` (append `/<action>`).
    pub fn http_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://<addr>`, the Milky base URL (append `/api/<api>` or `/event`).
    pub fn milky_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A control handle (cheap to clone, usable from any task).
    pub fn control(&self) -> SandboxControl {
        self.control.clone()
    }

    /// Serves one extra connection over any byte stream (see [`SandboxControl::serve_io`]).
    pub async fn serve_io<IO>(&self, io: IO)
    where
        IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        self.control.serve_io(io).await;
    }

    /// "Kills" the peer: closes the listener and drops every connection. State is kept.
    pub async fn stop_listening(&self) {
        let task = self.listener.lock().take();
        if let Some(task) = task {
            task.stop().await;
            tracing::info!(addr = %self.addr, "OneBot sandbox stopped listening");
        }
        self.control.drop_connections();
    }

    /// "Restarts" the peer: listens on the same address again. No-op if already listening.
    pub async fn start_listening(&self) -> std::io::Result<()> {
        let mut slot = self.listener.lock();
        if slot.is_none() {
            let (task, _) = ListenerTask::bind(self.control.shared.clone(), self.addr)?;
            *slot = Some(task);
            tracing::info!(addr = %self.addr, "OneBot sandbox listening again");
        }
        Ok(())
    }

    /// Stops listening and drops every connection.
    pub async fn shutdown(self) {
        self.stop_listening().await;
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if let Some(task) = self.listener.lock().take() {
            task.abort();
        }
        self.control.drop_connections();
    }
}

/// Runs a sandbox until `shutdown` resolves (for `onebot-gateway sandbox`): starts it, logs
/// the listening address and endpoints, waits, then shuts it down.
pub async fn run_cli(
    cfg: SandboxConfig,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let milky = cfg.protocol == Protocol::Milky;
    let sandbox = Sandbox::start(cfg).await?;
    if milky {
        tracing::info!(
            milky = %sandbox.milky_url(),
            self_id = sandbox.control.config().self_id,
            "Milky sandbox ready"
        );
    } else {
        tracing::info!(
            ws = %sandbox.ws_url(),
            http = %sandbox.http_url(),
            self_id = sandbox.control.config().self_id,
            "OneBot sandbox ready"
        );
    }
    shutdown.await;
    sandbox.shutdown().await;
    tracing::info!("OneBot sandbox shut down");
    Ok(())
}
