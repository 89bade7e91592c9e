//! [`SandboxControl`]: the test-facing handle to a running peer (faults, injection, inspection).

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite};

use crate::config::SandboxConfig;
use crate::data;
use crate::events;
use crate::fault::{Fault, FaultKind};
use crate::flavor::Flavor;
use crate::media::{MediaKind, ReceivedMedia};
use crate::message::{self, View};
use crate::milky;
use crate::ops;
use crate::server;
use crate::shared::{RecordedAction, Shared};
use crate::state::{ChatRef, Group, NewMessage, Role};

/// A cheap, cloneable handle to a sandbox's state, usable from any task.
///
/// Obtained from [`Sandbox::control`](crate::Sandbox::control), or from
/// [`SandboxControl::standalone`] for a peer without a listener (serve it with
/// [`serve_io`](SandboxControl::serve_io), e.g. over `tokio::io::duplex` with paused time).
#[derive(Clone)]
pub struct SandboxControl {
    pub(crate) shared: Arc<Shared>,
}

impl std::fmt::Debug for SandboxControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SandboxControl")
            .field("flavor", &self.shared.cfg.flavor)
            .field("connections", &self.connections())
            .finish()
    }
}

impl SandboxControl {
    /// A seeded peer with no listener; serve connections with [`serve_io`](Self::serve_io).
    /// `cfg.listen` is ignored.
    pub fn standalone(cfg: SandboxConfig) -> SandboxControl {
        SandboxControl {
            shared: Shared::new(cfg),
        }
    }

    /// The configuration the peer was started with.
    pub fn config(&self) -> &SandboxConfig {
        &self.shared.cfg
    }

    /// The imitated implementation.
    pub fn flavor(&self) -> Flavor {
        self.shared.cfg.flavor
    }

    /// Serves one connection (HTTP or WebSocket) over any byte stream; resolves when the
    /// connection ends (after the WebSocket session, if it was upgraded).
    pub async fn serve_io<IO>(&self, io: IO)
    where
        IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        server::serve_conn(self.shared.clone(), io).await;
    }

    /// Activates a fault (replacing an active one of the same kind).
    pub fn set_fault(&self, f: Fault) {
        tracing::debug!(fault = ?f, "fault set");
        self.shared.faults.send_modify(|faults| faults.set(f));
    }

    /// Deactivates the fault of this kind, if any.
    pub fn clear_fault(&self, kind: FaultKind) {
        self.shared
            .faults
            .send_if_modified(|faults| faults.clear(kind));
    }

    /// Deactivates every fault.
    pub fn clear_faults(&self) {
        self.shared
            .faults
            .send_if_modified(|faults| faults.clear_all());
    }

    /// The active faults.
    pub fn faults(&self) -> Vec<Fault> {
        self.shared.faults().list()
    }

    /// Closes every connection (WebSocket and HTTP) abruptly, without a close frame.
    /// The listener keeps accepting.
    pub fn drop_connections(&self) {
        self.shared.hub.kill_all();
    }

    /// Every action received since the last [`clear_actions`](Self::clear_actions), in order.
    pub fn actions(&self) -> Vec<RecordedAction> {
        self.shared.log.all()
    }

    /// Resolves with the first recorded action named `name` (exact, or after `_async` /
    /// `_rate_limited` stripping) since the last clear — immediately if there already is one.
    pub async fn wait_for_action(&self, name: &str) -> RecordedAction {
        self.shared.log.wait_for(name).await
    }

    /// Resolves once `done` holds for the actions recorded since the last
    /// clear (immediately if it already does).
    pub async fn wait_actions(&self, done: impl Fn(&[RecordedAction]) -> bool) {
        self.shared.log.wait_until(done).await
    }

    /// Forgets recorded actions.
    pub fn clear_actions(&self) {
        self.shared.log.clear();
    }

    /// Media received through sends and uploads, in order.
    pub fn received_media(&self) -> Vec<ReceivedMedia> {
        self.shared.media.lock().clone()
    }

    /// Forgets received media.
    pub fn clear_media(&self) {
        self.shared.media.lock().clear();
    }

    /// Pushes a raw event to every event-capable connection (on the Milky face: every event
    /// stream, as given and unrecorded).
    pub fn inject_event(&self, ev: Value) {
        self.shared.emit(&ev);
    }

    fn inject(&self, chat: ChatRef, user_id: i64, message: Value) -> i64 {
        inject_message(&self.shared, chat, user_id, message)
    }

    /// Stores a group message from `user_id` (sender record from the member list) and emits the
    /// message event. `message` is a segment array, one segment, or a CQ string. Returns its id.
    pub fn inject_group_message(&self, group_id: i64, user_id: i64, message: Value) -> i64 {
        self.inject(ChatRef::Group(group_id), user_id, message)
    }

    /// Stores a private message from `user_id` and emits the message event. Returns its id.
    pub fn inject_private_message(&self, user_id: i64, message: Value) -> i64 {
        self.inject(ChatRef::Private(user_id), user_id, message)
    }

    /// Removes a member and emits `group_decrease`. Returns `false` if there was no such member.
    pub fn remove_member(&self, group_id: i64, user_id: i64) -> bool {
        let removed = {
            let mut w = self.shared.world.lock();
            match w.group_mut(group_id) {
                Some(g) => {
                    let before = g.members.len();
                    g.members.retain(|m| m.user_id != user_id);
                    g.members.len() != before
                }
                None => false,
            }
        };
        if removed && self.shared.milky() {
            let data = milky::events::member_change(group_id, user_id);
            milky::events::emit(&self.shared, "group_member_decrease", data);
        } else if removed {
            let self_id = self.shared.cfg.self_id;
            self.shared
                .emit(&events::group_decrease(self_id, group_id, user_id));
        }
        removed
    }

    /// Appends a member (role member, no card) and emits `group_increase`. Returns `false` if the
    /// group does not exist or the user is already a member.
    pub fn add_member(&self, group_id: i64, user_id: i64, nickname: &str) -> bool {
        let added = {
            let mut w = self.shared.world.lock();
            match w.group_mut(group_id) {
                Some(g) if g.member(user_id).is_none() => {
                    g.members.push(data::member(
                        user_id,
                        nickname,
                        "",
                        Role::Member,
                        events::now(),
                    ));
                    true
                }
                _ => false,
            }
        };
        if added && self.shared.milky() {
            let data = milky::events::member_change(group_id, user_id);
            milky::events::emit(&self.shared, "group_member_increase", data);
        } else if added {
            let self_id = self.shared.cfg.self_id;
            self.shared
                .emit(&events::group_increase(self_id, group_id, user_id));
        }
        added
    }

    /// Makes the bot a member of a new group `group_id` called `name` (the
    /// bot its only member, so `get_group_list` lists it from now on) and,
    /// when `announce`, emits the bot's own `group_increase`, as a peer
    /// reports a group the bot was added to. Returns `false` if the bot is
    /// already in the group.
    pub fn join_group(&self, group_id: i64, name: &str, announce: bool) -> bool {
        let self_id = self.shared.cfg.self_id;
        {
            let mut w = self.shared.world.lock();
            if w.group(group_id).is_some() {
                return false;
            }
            let bot = data::member(self_id, &w.nickname, "", Role::Member, events::now());
            w.groups.push(Group {
                group_id,
                name: name.to_owned(),
                max_member_count: 200,
                members: vec![bot],
            });
        }
        if announce && self.shared.milky() {
            let data = milky::events::member_change(group_id, self_id);
            milky::events::emit(&self.shared, "group_member_increase", data);
        } else if announce {
            self.shared
                .emit(&events::group_increase(self_id, group_id, self_id));
        }
        true
    }

    /// Changes a member's card and emits `group_card` (nothing on the Milky face, which has no
    /// such event). Returns `false` if there is no such member.
    pub fn set_card(&self, group_id: i64, user_id: i64, card: &str) -> bool {
        crate::ops::apply_card(&self.shared, group_id, user_id, card).is_some()
    }

    /// `user_id` adds (or removes) the reaction `emoji` (a face id or an emoji) to the group
    /// message `message_id`; the flavor's reaction notice (Milky: `group_message_reaction`) is
    /// pushed when it changed something. `Err` with the refusal's text.
    pub fn react(
        &self,
        message_id: i64,
        user_id: i64,
        emoji: &str,
        add: bool,
    ) -> Result<(), String> {
        ops::react(&self.shared, message_id, user_id, emoji, add).map_err(|e| e.text())
    }

    /// `operator_id` (an admin or the owner) marks or unmarks the group message `message_id` as
    /// essence, pushing the flavor's `essence` notice where it has one.
    pub fn set_essence(&self, message_id: i64, operator_id: i64, on: bool) -> Result<(), String> {
        ops::set_essence(&self.shared, message_id, operator_id, on).map_err(|e| e.text())
    }

    /// `operator_id` mutes `user_id` for `duration` seconds (0 lifts), as QQ's rules allow.
    pub fn mute_member(
        &self,
        group_id: i64,
        operator_id: i64,
        user_id: i64,
        duration: i64,
    ) -> Result<(), String> {
        ops::mute(&self.shared, group_id, operator_id, user_id, duration).map_err(|e| e.text())
    }

    /// `operator_id` (an admin or the owner) turns the whole-group mute on or off.
    pub fn mute_group(&self, group_id: i64, operator_id: i64, on: bool) -> Result<(), String> {
        ops::whole_mute(&self.shared, group_id, operator_id, on).map_err(|e| e.text())
    }

    /// The group's owner makes `user_id` an admin (or a member again).
    pub fn set_admin(&self, group_id: i64, user_id: i64, on: bool) -> Result<(), String> {
        ops::set_admin(&self.shared, group_id, user_id, on).map_err(|e| e.text())
    }

    /// `user_id` uploads `bytes` as `name` to the root of the group's files; returns its
    /// `file_id` (`get_group_file_url` serves the bytes).
    pub fn upload_group_file(
        &self,
        group_id: i64,
        user_id: i64,
        name: &str,
        bytes: Vec<u8>,
    ) -> Result<String, String> {
        let loaded = crate::media::Loaded {
            source: crate::media::MediaSource::Base64,
            digest: Some(crate::media::digest(&bytes)),
            bytes: Some(bytes.into()),
        };
        ops::upload(&self.shared, group_id, user_id, name, "/", &loaded, true)
            .map(|f| f.file_id)
            .map_err(|e| e.text())
    }

    /// `operator_id` (an admin or the owner) renames the group.
    pub fn rename_group(&self, group_id: i64, operator_id: i64, name: &str) -> Result<(), String> {
        ops::rename(&self.shared, group_id, operator_id, name).map_err(|e| e.text())
    }

    /// Recalls a message as `operator_id` would (its author, or a group admin): it leaves
    /// history and `get_msg`, and the flavor's recall notice is emitted. Returns `false` for an
    /// unknown or already recalled id. No permission check: this is the other side acting.
    pub fn recall_message(&self, message_id: i64, operator_id: i64) -> bool {
        let self_id = self.shared.cfg.self_id;
        let notice = {
            let mut w = self.shared.world.lock();
            let Some((chat, m)) = w.find_mut(message_id) else {
                return false;
            };
            if m.recalled {
                return false;
            }
            m.recalled = true;
            let (author, seq) = (m.sender.user_id, m.seq);
            if self.shared.milky() {
                Err(milky::events::recall(&w, chat, seq, author, operator_id))
            } else {
                Ok(match chat {
                    ChatRef::Group(g) => {
                        events::group_recall(self_id, g, author, operator_id, message_id)
                    }
                    ChatRef::Private(u) => events::friend_recall(self_id, u, message_id),
                })
            }
        };
        match notice {
            Ok(onebot) => self.shared.emit(&onebot),
            Err(data) => milky::events::emit(&self.shared, "message_recall", data),
        }
        true
    }

    /// Moves a stored message `secs` seconds into the past (to test QQ's recall window).
    /// Returns `false` for an unknown id.
    pub fn age_message(&self, message_id: i64, secs: i64) -> bool {
        let mut w = self.shared.world.lock();
        match w.find_mut(message_id) {
            Some((_, m)) => {
                m.time -= secs;
                true
            }
            None => false,
        }
    }

    /// The nodes of a stored merged-forward bundle as `(user_id, segments)`, for assertions;
    /// `None` for an unknown id.
    pub fn forward_nodes(&self, forward_id: &str) -> Option<Vec<(i64, Vec<Value>)>> {
        let w = self.shared.world.lock();
        w.forwards.get(forward_id).map(|nodes| {
            nodes
                .iter()
                .map(|n| (n.user_id, n.segments.clone()))
                .collect()
        })
    }

    /// Milky: emits `bot_offline` with `reason` (the peer keeps serving). No-op on OneBot.
    pub fn bot_offline(&self, reason: &str) {
        if self.shared.milky() {
            let data = serde_json::json!({ "reason": reason });
            milky::events::emit(&self.shared, "bot_offline", data);
        }
    }

    /// The `message_seq` (per-chat sequence, from 1) of a stored message id, recalled ones too.
    pub fn message_seq(&self, message_id: i64) -> Option<i64> {
        self.shared
            .world
            .lock()
            .find_any(message_id)
            .map(|(_, m)| m.seq)
    }

    /// Number of open (authenticated) WebSocket connections (and, on Milky, event streams).
    pub fn connections(&self) -> usize {
        self.shared.hub.count()
    }

    /// Resolves once at least `n` WebSocket connections are open.
    pub async fn wait_connections(&self, n: usize) {
        self.shared.hub.wait_count(n).await;
    }

    /// Resolves once at most `n` WebSocket connections are open.
    pub async fn wait_connections_at_most(&self, n: usize) {
        self.shared.hub.wait_count_where(|c| c <= n).await;
    }

    /// The stored history of a chat as the flavor renders it (old → new); empty if unknown.
    pub fn messages(&self, chat: ChatRef) -> Vec<Value> {
        let w = self.shared.world.lock();
        w.chat(chat)
            .map(|c| {
                c.messages
                    .iter()
                    .filter(|m| !m.recalled)
                    .map(|m| message::render(&w, chat, m, View::History))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Stores `bytes` as media the peer "received" and returns a segment
    /// for [`inject_group_message`](Self::inject_group_message) (or a
    /// private one): `{"type": <kind>, "data": {"file": <name>, "file_size",
    /// …}}`. Rendered messages give it a URL on the sandbox's media host,
    /// signed with the current download key; `get_image` / `get_record` /
    /// `get_file` and the stream downloads answer it per flavor.
    pub fn store_media(&self, kind: MediaKind, bytes: Vec<u8>, name: &str) -> Value {
        let digest = crate::media::digest(&bytes);
        let ext = name.rsplit_once('.').map_or("bin", |(_, e)| e);
        let file = format!("{}.{ext}", &digest.sha256[..16]);
        let file_id = format!("/{}", &digest.sha256[..32]);
        let len = bytes.len();
        self.shared
            .world
            .lock()
            .files
            .put(kind, &file, Some(&file_id), bytes.into());
        let kind_name = match kind {
            MediaKind::Image => "image",
            MediaKind::Video => "video",
            MediaKind::Record => "record",
            MediaKind::File => "file",
        };
        let mut data = json!({"file": file, "file_size": len.to_string()});
        match kind {
            MediaKind::Image => {
                data["summary"] = json!("");
                data["sub_type"] = json!(0);
            }
            MediaKind::File => {
                data["name"] = json!(name);
                data["file_id"] = json!(file_id);
            }
            _ => {}
        }
        json!({"type": kind_name, "data": data})
    }

    /// The bytes of a stored media file (`file` name or `file_id`), seeded
    /// ones generated.
    pub fn media_bytes(&self, file: &str) -> Option<Vec<u8>> {
        self.shared
            .world
            .lock()
            .files
            .get(file)
            .map(|f| f.bytes().to_vec())
    }

    /// Takes the media host down (every download answers HTTP 503 "media
    /// service unavailable", a CDN outage) or brings it back.
    pub fn set_media_host_down(&self, down: bool) {
        self.shared.world.lock().files.down = down;
    }

    /// Retires the media host's download key: every media URL rendered so
    /// far answers "download url has expired" from now on (new renders, and
    /// `nc_get_rkey` / `get_rkey`, use the next key).
    pub fn expire_media_urls(&self) {
        self.shared.world.lock().files.expire();
    }
}

/// Stores a message from `user_id` in `chat` (segments, a CQ string or plain text) and emits
/// its message event. Returns its id.
/// A media segment of an injected message whose `file` carries the bytes
/// (`base64://…`, or a local file the sandbox can read), stored and named
/// as received media are; any other segment as it is.
fn keep_media(files: &mut crate::files::Files, mut seg: Value) -> Value {
    let Some(kind) = seg
        .get("type")
        .and_then(Value::as_str)
        .and_then(MediaKind::from_segment_type)
    else {
        return seg;
    };
    let Some(file) = seg.pointer("/data/file").and_then(Value::as_str) else {
        return seg;
    };
    if files.get(file).is_some() {
        return seg;
    }
    let Ok(loaded) = crate::media::load(file, &crate::media::DigestCache::default()) else {
        return seg;
    };
    if let (Some(kept), Some(data)) = (
        files.keep(kind, &loaded),
        seg.get_mut("data").and_then(Value::as_object_mut),
    ) {
        data.remove("url");
        data.remove("path");
        data.extend(kept);
    }
    seg
}

pub(crate) fn inject_message(shared: &Shared, chat: ChatRef, user_id: i64, message: Value) -> i64 {
    let segments = message::normalize(&message, false)
        .unwrap_or_else(|| vec![json!({"type": "text", "data": {"text": message.to_string()}})]);
    let (id, ev) = {
        let mut w = shared.world.lock();
        let segments = segments
            .into_iter()
            .map(|seg| keep_media(&mut w.files, seg))
            .collect();
        w.observe(chat);
        let sender = w.sender_for(chat, user_id);
        let self_sent = user_id == w.self_id;
        let m = w
            .push(
                chat,
                NewMessage {
                    time: events::now(),
                    sender,
                    segments,
                    self_sent,
                },
            )
            .clone();
        // Ok: the OneBot event; Err: the Milky `message_receive` data.
        let ev = if shared.milky() {
            milky::entities::incoming(&w, chat, &m).map(Err)
        } else {
            Some(Ok(message::render(&w, chat, &m, View::Event)))
        };
        (m.message_id, ev)
    };
    match ev {
        Some(Ok(onebot)) => shared.emit(&onebot),
        Some(Err(data)) => milky::events::emit(shared, "message_receive", data),
        None => {}
    }
    id
}
