//! Test helpers of the domain: media samples recognised by their magic
//! numbers, the one fake [`PeerApi`] the tests share ([`FakeApi`]), and the
//! builder of a test gateway ([`GatewayBuilder`]).
//!
//! The fake records what a OneBot peer of its flavor would be sent: it
//! encodes messages and files with the adapter's own encoder
//! (`onebot::outgoing`), so the tests see the JSON, the base64 and the
//! shared-directory copies the real adapter produces.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::{Notify, watch};

use onebot_gateway_config::SharedDir;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, ConnState, EssenceEntry, EssencePage, GroupFiles, GroupInfo,
    GroupMember, MediaKind, MediaPayload, Message, TransportKind,
};
use onebot_gateway_domain::ports::{HistoryPage, OutSegment, PeerApi};
use onebot_gateway_onebot::{Flavor, outgoing};

/// Lowercase hex SHA-256.
pub fn sha_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `len` bytes of `kind` (`jpeg`, `png`, `gif`, `bmp`, `webp`, `mp4`, `mov`,
/// `webm`, `mkv`, `flv`, `avi`, the voices `mp3`, `wav`, `ogg`, `amr`,
/// `silk`, and `text`): the magic header, then deterministic noise.
pub fn sample(kind: &str, len: usize) -> Vec<u8> {
    let mut head: Vec<u8> = match kind {
        "jpeg" => vec![
            0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0,
        ],
        "png" => b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec(),
        "gif" => b"GIF89a".to_vec(),
        "bmp" => b"BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00".to_vec(),
        "webp" => b"RIFF\x24\x00\x00\x00WEBPVP8 ".to_vec(),
        "mp4" => b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2".to_vec(),
        "mov" => b"\x00\x00\x00\x14ftypqt  \x00\x00\x02\x00qt  ".to_vec(),
        "webm" => {
            let mut v = vec![
                0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x84,
            ];
            v.extend_from_slice(b"webm");
            v
        }
        "mkv" => {
            let mut v = vec![
                0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0x82, 0x88,
            ];
            v.extend_from_slice(b"matroska");
            v
        }
        "flv" => b"FLV\x01\x05\x00\x00\x00\x09".to_vec(),
        "avi" => b"RIFF\x24\x00\x00\x00AVI LIST".to_vec(),
        "mp3" => b"ID3\x04\x00\x00\x00\x00\x00\x00".to_vec(),
        "wav" => b"RIFF\x24\x00\x00\x00WAVEfmt ".to_vec(),
        "ogg" => b"OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00".to_vec(),
        "amr" => b"#!AMR\n".to_vec(),
        "silk" => b"\x02#!SILK_V3".to_vec(),
        "text" => Vec::new(),
        other => panic!("no sample of kind {other}"),
    };
    if kind == "text" {
        let line = b"plain words, no magic number here.\n";
        while head.len() < len {
            head.extend_from_slice(line);
        }
        head.truncate(len);
        return head;
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ len as u64;
    while head.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        head.extend_from_slice(&state.to_le_bytes());
    }
    head.truncate(len);
    head
}

/// A PNG sample of `len` bytes.
pub fn png(len: usize) -> Vec<u8> {
    sample("png", len)
}
/// One recorded call of [`FakeApi`].
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `get_history` (recorded when a history is set).
    History {
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
    },
    /// `send_group_msg`.
    Send { group_id: i64, message: Value },
    /// `send_private_msg`.
    SendPrivate { user_id: i64, message: Value },
    /// `upload_group_file`.
    Upload {
        group_id: i64,
        file: String,
        name: String,
    },
    /// `upload_private_file`.
    UploadPrivate {
        user_id: i64,
        file: String,
        name: String,
    },
    /// `poke`.
    Poke { group_id: i64, user_id: i64 },
    /// `get_msg`.
    GetMessage { message_id: i64 },
    /// `delete_msg`.
    Recall { message_id: i64 },
    /// `get_forward_msg`.
    Forward { forward_id: String },
    /// `get_group_list` (recorded when a list is set).
    Groups,
    /// `get_group_member_list` (recorded when a member list is set).
    Members {
        group_id: i64,
        no_cache: Option<bool>,
    },
    /// `set_msg_emoji_like` (`add`) or its removal.
    React {
        group_id: i64,
        message_id: i64,
        emoji_id: String,
        add: bool,
    },
    /// `set_essence_msg` (`set`) or `delete_essence_msg`.
    Essence {
        group_id: i64,
        message_id: i64,
        set: bool,
    },
    /// `get_essence_msg_list`, one page.
    ListEssence {
        group_id: i64,
        page: u32,
        page_size: u32,
    },
    /// `set_input_status`.
    Typing { user_id: i64 },
    /// `get_group_root_files` / `get_group_files_by_folder`.
    ListFiles {
        group_id: i64,
        folder_id: Option<String>,
    },
    /// `get_group_file_url`.
    FileUrl { group_id: i64, file_id: String },
    /// `set_group_ban`.
    Mute {
        group_id: i64,
        user_id: i64,
        duration_secs: u32,
    },
    /// `set_group_whole_ban`.
    MuteAll { group_id: i64, enable: bool },
    /// `set_group_kick`.
    Kick {
        group_id: i64,
        user_id: i64,
        reject_rejoin: bool,
    },
    /// `set_group_card`.
    SetCard {
        group_id: i64,
        user_id: i64,
        card: String,
    },
}

impl Call {
    /// True for the group actions that change something (reactions,
    /// essence, typing, moderation): what a refused call must never send.
    pub fn is_group_action(&self) -> bool {
        matches!(
            self,
            Call::React { .. }
                | Call::Essence { .. }
                | Call::Typing { .. }
                | Call::Mute { .. }
                | Call::MuteAll { .. }
                | Call::Kick { .. }
                | Call::SetCard { .. }
        )
    }
}

/// What `get_history` answers: `(chat, count, anchor)` to a page.
pub type HistoryFn = dyn Fn(ChatRef, u32, Option<i64>) -> Result<HistoryPage> + Send + Sync;

/// What `get_group_members` answers for a group.
pub type MembersFn = dyn Fn(i64) -> Vec<GroupMember> + Send + Sync;

/// A scripted [`PeerApi`]: records calls, answers from canned data (history,
/// members, groups, messages, forwards) and a script of results (success by
/// default), and publishes a status the test controls.
///
/// A read whose answer is not set (history, members, groups) fails as an
/// unexpected call and is not recorded. Every recorded call but
/// `get_message` and `get_forward` notifies [`FakeApi::called`], waits at
/// [`FakeApi::gate`] and takes the next scripted result; `get_message` waits
/// at [`FakeApi::lookup_gate`]. A failure set with [`FakeApi::fail_with`]
/// answers every recorded call.
pub struct FakeApi {
    flavor: Flavor,
    shared_dir: Mutex<Option<SharedDir>>,
    status: watch::Sender<AccountStatus>,
    calls: Mutex<Vec<Call>>,
    script: Mutex<VecDeque<Result<()>>>,
    fail: Mutex<Option<Error>>,
    next_id: Mutex<i64>,
    stored: Mutex<HashMap<i64, Message>>,
    missing_message: Mutex<Error>,
    forwards: Mutex<HashMap<String, Vec<Message>>>,
    missing_forward: Mutex<Error>,
    history: Mutex<Option<Arc<HistoryFn>>>,
    groups: Mutex<Option<Vec<GroupInfo>>>,
    members: Mutex<Option<Arc<MembersFn>>>,
    essence: Mutex<Vec<EssenceEntry>>,
    files: Mutex<HashMap<String, GroupFiles>>,
    file_urls: Mutex<HashMap<String, String>>,
    unsupported: Mutex<Vec<String>>,
    /// Notified on every call that takes a scripted result.
    pub called: Notify,
    /// When set, calls wait for a permit before answering.
    pub gate: Mutex<Option<Arc<tokio::sync::Semaphore>>>,
    /// When set, `get_message` waits for a permit before answering.
    pub lookup_gate: Mutex<Option<Arc<tokio::sync::Semaphore>>>,
}

impl FakeApi {
    /// An online fake of `flavor` (bot 10001).
    pub fn new(flavor: Flavor) -> Arc<Self> {
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::Connected,
            transport: TransportKind::ForwardWs,
            online: true,
            self_id: 10_001,
            profile: Some(flavor.name()),
            ..AccountStatus::default()
        });
        Arc::new(Self {
            flavor,
            shared_dir: Mutex::new(None),
            status,
            calls: Mutex::new(Vec::new()),
            script: Mutex::new(VecDeque::new()),
            fail: Mutex::new(None),
            next_id: Mutex::new(1000),
            stored: Mutex::new(HashMap::new()),
            missing_message: Mutex::new(Error::new(Kind::MessageNotFound, "消息不存在")),
            forwards: Mutex::new(HashMap::new()),
            missing_forward: Mutex::new(Error::new(
                Kind::MessageNotFound,
                "ResId无效: 找不到相关的聊天记录",
            )),
            history: Mutex::new(None),
            groups: Mutex::new(None),
            members: Mutex::new(None),
            essence: Mutex::new(Vec::new()),
            files: Mutex::new(HashMap::new()),
            file_urls: Mutex::new(HashMap::new()),
            unsupported: Mutex::new(Vec::new()),
            called: Notify::new(),
            gate: Mutex::new(None),
            lookup_gate: Mutex::new(None),
        })
    }

    /// Uses `dir` as the account's shared directory (go-cqhttp media).
    pub fn set_shared_dir(&self, dir: Option<SharedDir>) {
        *self.shared_dir.lock().unwrap() = dir;
    }

    /// Sets the account online or offline.
    pub fn set_online(&self, online: bool) {
        self.status.send_modify(|s| {
            s.online = online;
            s.state = if online {
                ConnState::Connected
            } else {
                ConnState::Backoff
            };
            s.transport = if online {
                TransportKind::ForwardWs
            } else {
                TransportKind::None
            };
        });
    }

    /// Changes the published status.
    pub fn update_status(&self, change: impl FnOnce(&mut AccountStatus)) {
        self.status.send_modify(change);
    }

    /// Queues the results of the next calls (then success again).
    pub fn script(&self, results: impl IntoIterator<Item = Result<()>>) {
        self.script.lock().unwrap().extend(results);
    }

    /// Every recorded call fails with `err` until it is `None` again.
    pub fn fail_with(&self, err: Option<Error>) {
        *self.fail.lock().unwrap() = err;
    }

    /// Makes `message` known to `get_message` (by its id).
    pub fn store(&self, message: Message) {
        self.stored
            .lock()
            .unwrap()
            .insert(message.message_id, message);
    }

    /// What `get_message` fails with for an id it does not know.
    pub fn set_missing_message(&self, err: Error) {
        *self.missing_message.lock().unwrap() = err;
    }

    /// Makes the bundle `forward_id` known to `get_forward`.
    pub fn store_forward(&self, forward_id: &str, nodes: Vec<Message>) {
        self.forwards
            .lock()
            .unwrap()
            .insert(forward_id.to_owned(), nodes);
    }

    /// What `get_forward` fails with for a bundle it does not know.
    pub fn set_missing_forward(&self, err: Error) {
        *self.missing_forward.lock().unwrap() = err;
    }

    /// Sets what `get_history` answers.
    pub fn set_history(
        &self,
        history: impl Fn(ChatRef, u32, Option<i64>) -> Result<HistoryPage> + Send + Sync + 'static,
    ) {
        *self.history.lock().unwrap() = Some(Arc::new(history));
    }

    /// Sets the groups `get_groups` lists, named `群<id>` (`None`: it
    /// fails).
    pub fn set_groups(&self, groups: Option<&[i64]>) {
        self.set_group_list(groups.map(|groups| {
            groups
                .iter()
                .map(|&group_id| GroupInfo {
                    group_id,
                    group_name: format!("群{group_id}"),
                    member_count: 3,
                    max_member_count: 200,
                    raw: Default::default(),
                })
                .collect()
        }));
    }

    /// Sets what `get_groups` answers (`None`: it fails).
    pub fn set_group_list(&self, groups: Option<Vec<GroupInfo>>) {
        *self.groups.lock().unwrap() = groups;
    }

    /// Sets the member list `get_group_members` answers for every group
    /// (`None`: it fails).
    pub fn set_members(&self, members: Option<Vec<GroupMember>>) {
        *self.members.lock().unwrap() =
            members.map(|members| Arc::new(move |_| members.clone()) as Arc<MembersFn>);
    }

    /// Sets what `get_group_members` answers, by group.
    pub fn set_members_by(
        &self,
        members: impl Fn(i64) -> Vec<GroupMember> + Send + Sync + 'static,
    ) {
        *self.members.lock().unwrap() = Some(Arc::new(members));
    }

    /// Sets the essence messages `list_essence` pages through (every group).
    pub fn set_essence(&self, entries: Vec<EssenceEntry>) {
        *self.essence.lock().unwrap() = entries;
    }

    /// Sets what `list_group_files` answers for a folder (`None`: the
    /// root); a folder not set is empty.
    pub fn set_group_files(&self, folder_id: Option<&str>, files: GroupFiles) {
        self.files
            .lock()
            .unwrap()
            .insert(folder_id.unwrap_or("/").to_owned(), files);
    }

    /// Sets the URL `group_file_url` answers for `file_id`; an unknown file
    /// fails with `MediaNotFound`.
    pub fn set_file_url(&self, file_id: &str, url: &str) {
        self.file_urls
            .lock()
            .unwrap()
            .insert(file_id.to_owned(), url.to_owned());
    }

    /// Makes the group action `action` (`react`, `essence`, `list_essence`,
    /// `typing`, `list_group_files`, `download_group_file`, `mute`,
    /// `mute_all`, `kick`, `set_card`) fail as an implementation without it
    /// does: `NotSupportedByImplementation`, before anything is sent (not
    /// recorded).
    pub fn set_unsupported(&self, action: &str) {
        self.unsupported.lock().unwrap().push(action.to_owned());
    }

    /// The group actions recorded so far (see [`Call::is_group_action`]).
    pub fn group_actions(&self) -> Vec<Call> {
        self.calls()
            .into_iter()
            .filter(Call::is_group_action)
            .collect()
    }

    /// Every call so far.
    pub fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// Every call so far, forgotten.
    pub fn take_calls(&self) -> Vec<Call> {
        std::mem::take(&mut *self.calls.lock().unwrap())
    }

    /// How many times the group list was read.
    pub fn group_reads(&self) -> usize {
        self.calls
            .lock()
            .unwrap()
            .iter()
            .filter(|c| **c == Call::Groups)
            .count()
    }

    /// Texts of the `send_group_msg` calls with one text segment.
    pub fn texts(&self) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Send { message, .. } => message
                    .get(0)
                    .filter(|s| s["type"] == "text")
                    .and_then(|s| s["data"]["text"].as_str().map(str::to_string)),
                _ => None,
            })
            .collect()
    }

    fn supports(&self, action: &str) -> Result<()> {
        if self.unsupported.lock().unwrap().iter().any(|a| a == action) {
            return Err(Error::not_supported(&self.implementation(), action));
        }
        Ok(())
    }

    fn record(&self, call: Call) {
        self.calls.lock().unwrap().push(call);
    }

    fn failure(&self) -> Result<()> {
        match self.fail.lock().unwrap().clone() {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    async fn answer(&self, call: Call) -> Result<()> {
        self.record(call);
        self.called.notify_waiters();
        let gate = self.gate.lock().unwrap().clone();
        if let Some(gate) = gate {
            gate.acquire().await.expect("gate open").forget();
        }
        self.failure()?;
        self.script.lock().unwrap().pop_front().unwrap_or(Ok(()))
    }
}

#[async_trait::async_trait]
impl PeerApi for FakeApi {
    fn status(&self) -> AccountStatus {
        self.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.status.subscribe()
    }

    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        _deadline: Deadline,
    ) -> Result<HistoryPage> {
        let Some(history) = self.history.lock().unwrap().clone() else {
            return Err(Error::internal("unexpected get_history"));
        };
        self.answer(Call::History {
            chat,
            count,
            anchor,
        })
        .await?;
        history(chat, count, anchor)
    }

    async fn get_group_members(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        _deadline: Deadline,
    ) -> Result<Vec<GroupMember>> {
        let Some(members) = self.members.lock().unwrap().clone() else {
            return Err(Error::internal("unexpected get_group_members"));
        };
        self.answer(Call::Members { group_id, no_cache }).await?;
        Ok(members(group_id))
    }

    async fn get_groups(&self, _deadline: Deadline) -> Result<Vec<GroupInfo>> {
        let Some(groups) = self.groups.lock().unwrap().clone() else {
            return Err(Error::internal("unexpected get_groups"));
        };
        self.answer(Call::Groups).await?;
        Ok(groups)
    }
    async fn send_message(
        &self,
        chat: ChatRef,
        segments: &[OutSegment<'_>],
        _deadline: Deadline,
    ) -> Result<i64> {
        let shared = self.shared_dir.lock().unwrap().clone();
        let mut encoded = outgoing::message(self.flavor, shared.as_ref(), segments).await?;
        outgoing::inline_media(&mut encoded.message, &encoded.media).await?;
        let message = encoded.message.clone();
        self.answer(match chat {
            ChatRef::Group(group_id) => Call::Send { group_id, message },
            ChatRef::Private(user_id) => Call::SendPrivate { user_id, message },
        })
        .await?;
        let mut id = self.next_id.lock().unwrap();
        *id += 1;
        Ok(*id)
    }

    async fn upload_file(
        &self,
        chat: ChatRef,
        file: &MediaPayload,
        name: &str,
        _deadline: Deadline,
    ) -> Result<()> {
        let shared = self.shared_dir.lock().unwrap().clone();
        let mut sent = outgoing::upload_file(self.flavor, shared.as_ref(), file, name).await?;
        let media: Vec<_> = sent.media.iter().cloned().collect();
        outgoing::inline_media(&mut sent.file, &media).await?;
        let file = match sent.file {
            serde_json::Value::String(file) => file,
            other => other.to_string(),
        };
        let name = name.to_owned();
        self.answer(match chat {
            ChatRef::Group(group_id) => Call::Upload {
                group_id,
                file,
                name,
            },
            ChatRef::Private(user_id) => Call::UploadPrivate {
                user_id,
                file,
                name,
            },
        })
        .await
    }

    async fn poke(&self, group_id: i64, user_id: i64, _deadline: Deadline) -> Result<()> {
        self.answer(Call::Poke { group_id, user_id }).await
    }

    async fn get_message(
        &self,
        message_id: i64,
        _chat: Option<ChatRef>,
        _deadline: Deadline,
    ) -> Result<Message> {
        self.record(Call::GetMessage { message_id });
        let gate = self.lookup_gate.lock().unwrap().clone();
        if let Some(gate) = gate {
            gate.acquire().await.expect("gate open").forget();
        }
        self.failure()?;
        let found = self.stored.lock().unwrap().get(&message_id).cloned();
        found.ok_or_else(|| self.missing_message.lock().unwrap().clone())
    }

    async fn recall(&self, message_id: i64, _deadline: Deadline) -> Result<()> {
        self.answer(Call::Recall { message_id }).await
    }

    async fn get_forward(&self, forward_id: &str, _deadline: Deadline) -> Result<Vec<Message>> {
        self.record(Call::Forward {
            forward_id: forward_id.to_owned(),
        });
        self.failure()?;
        let found = self.forwards.lock().unwrap().get(forward_id).cloned();
        found.ok_or_else(|| self.missing_forward.lock().unwrap().clone())
    }

    fn check_media(&self, kind: MediaKind) -> Result<()> {
        let shared = self.shared_dir.lock().unwrap().clone();
        outgoing::check_media(self.flavor, shared.as_ref(), kind)
    }

    fn media_steps(
        &self,
        _media: &onebot_gateway_domain::model::ReceivedMedia,
    ) -> Vec<onebot_gateway_domain::ports::MediaStep> {
        Vec::new()
    }

    async fn fetch_media(
        &self,
        _media: &onebot_gateway_domain::model::ReceivedMedia,
        _step: onebot_gateway_domain::ports::MediaStep,
        _sink: &mut dyn onebot_gateway_domain::ports::MediaSink,
        _deadline: Deadline,
    ) -> Result<onebot_gateway_domain::ports::PeerMedia> {
        Err(Error::internal("unexpected fetch_media"))
    }

    async fn media_message(
        &self,
        _message_id: i64,
        _deadline: Deadline,
    ) -> Result<onebot_gateway_domain::model::Message> {
        Err(Error::internal("unexpected media_message"))
    }

    fn implementation(&self) -> String {
        self.flavor.name().to_owned()
    }

    async fn react(
        &self,
        group_id: i64,
        message_id: i64,
        emoji_id: &str,
        add: bool,
        _deadline: Deadline,
    ) -> Result<()> {
        self.supports("react")?;
        self.answer(Call::React {
            group_id,
            message_id,
            emoji_id: emoji_id.to_owned(),
            add,
        })
        .await
    }

    async fn set_essence(
        &self,
        group_id: i64,
        message_id: i64,
        set: bool,
        _deadline: Deadline,
    ) -> Result<()> {
        self.supports("essence")?;
        self.answer(Call::Essence {
            group_id,
            message_id,
            set,
        })
        .await
    }

    async fn list_essence(
        &self,
        group_id: i64,
        page: u32,
        page_size: u32,
        _deadline: Deadline,
    ) -> Result<EssencePage> {
        self.supports("list_essence")?;
        self.answer(Call::ListEssence {
            group_id,
            page,
            page_size,
        })
        .await?;
        let all = self.essence.lock().unwrap().clone();
        let size = page_size.max(1) as usize;
        let start = (page as usize).saturating_mul(size).min(all.len());
        let end = start.saturating_add(size).min(all.len());
        Ok(EssencePage {
            entries: all[start..end].to_vec(),
            is_end: end >= all.len(),
        })
    }

    async fn set_typing(&self, user_id: i64, _deadline: Deadline) -> Result<()> {
        self.supports("typing")?;
        self.answer(Call::Typing { user_id }).await
    }

    async fn list_group_files(
        &self,
        group_id: i64,
        folder_id: Option<&str>,
        _deadline: Deadline,
    ) -> Result<GroupFiles> {
        self.supports("list_group_files")?;
        self.answer(Call::ListFiles {
            group_id,
            folder_id: folder_id.map(str::to_owned),
        })
        .await?;
        let files = self
            .files
            .lock()
            .unwrap()
            .get(folder_id.unwrap_or("/"))
            .cloned();
        Ok(files.unwrap_or_default())
    }

    async fn group_file_url(
        &self,
        group_id: i64,
        file_id: &str,
        _deadline: Deadline,
    ) -> Result<String> {
        self.supports("download_group_file")?;
        self.answer(Call::FileUrl {
            group_id,
            file_id: file_id.to_owned(),
        })
        .await?;
        let url = self.file_urls.lock().unwrap().get(file_id).cloned();
        url.ok_or_else(|| {
            Error::new(Kind::MediaNotFound, format!("no group file {file_id}"))
                .with("peer_message", "file not found")
        })
    }

    async fn mute_member(
        &self,
        group_id: i64,
        user_id: i64,
        duration_secs: u32,
        _deadline: Deadline,
    ) -> Result<()> {
        self.supports("mute")?;
        self.answer(Call::Mute {
            group_id,
            user_id,
            duration_secs,
        })
        .await
    }

    async fn mute_all(&self, group_id: i64, enable: bool, _deadline: Deadline) -> Result<()> {
        self.supports("mute_all")?;
        self.answer(Call::MuteAll { group_id, enable }).await
    }

    async fn kick_member(
        &self,
        group_id: i64,
        user_id: i64,
        reject_rejoin: bool,
        _deadline: Deadline,
    ) -> Result<()> {
        self.supports("kick")?;
        self.answer(Call::Kick {
            group_id,
            user_id,
            reject_rejoin,
        })
        .await
    }

    async fn set_member_card(
        &self,
        group_id: i64,
        user_id: i64,
        card: &str,
        _deadline: Deadline,
    ) -> Result<()> {
        self.supports("set_card")?;
        self.answer(Call::SetCard {
            group_id,
            user_id,
            card: card.to_owned(),
        })
        .await
    }
}

/// A tiny HTTP/1.1 file server on 127.0.0.1 for the URLs a fake peer
/// hands out (group files): each path answers `200` with its bytes, any
/// other path `404`. Stops when dropped. A gateway fetching from it needs
/// `media.allow_private_urls` and `127.0.0.1` in `media.peer_url_hosts`
/// (it is a loopback address).
pub struct FileServer {
    addr: std::net::SocketAddr,
    hits: Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl FileServer {
    /// Serves `files` (path, bytes), e.g. `("/notes.txt", b"...")`.
    pub async fn start(files: Vec<(String, Vec<u8>)>) -> FileServer {
        use std::sync::atomic::Ordering;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("bind a loopback port");
        let addr = listener.local_addr().expect("local address");
        let files: Arc<HashMap<String, Vec<u8>>> = Arc::new(files.into_iter().collect());
        let hits = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = hits.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let files = files.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    counter.fetch_add(1, Ordering::SeqCst);
                    let line = String::from_utf8_lossy(&head)
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let path = line.split(' ').nth(1).unwrap_or("/").to_owned();
                    let answer = match files.get(&path) {
                        Some(body) => {
                            let mut a = format!(
                                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                                body.len()
                            )
                            .into_bytes();
                            a.extend_from_slice(body);
                            a
                        }
                        None => b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                            .to_vec(),
                    };
                    let _ = sock.write_all(&answer).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        FileServer { addr, hits, task }
    }

    /// The URL of `path` (which starts with `/`).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// How many requests were answered.
    pub fn hits(&self) -> usize {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A group member of `role` (`owner`, `admin`, `member`) named `u<id>`.
pub fn member(user_id: i64, role: &str) -> GroupMember {
    GroupMember {
        user_id: Some(user_id),
        nickname: format!("u{user_id}").into(),
        role: role.into(),
        ..GroupMember::default()
    }
}

/// A test gateway over some accounts, its write side open in
/// `config.server.data_dir` (URLs fetched through the system resolver).
/// `shutdown` stops its background tasks and event streams.
pub struct GatewayBuilder {
    config: onebot_gateway_config::Config,
    accounts: Vec<onebot_gateway_domain::account::Account>,
    shutdown: tokio_util::sync::CancellationToken,
    archive: bool,
}

impl GatewayBuilder {
    /// A gateway over `accounts` with an in-memory event hub and no archive.
    pub fn new(
        config: onebot_gateway_config::Config,
        accounts: Vec<onebot_gateway_domain::account::Account>,
        shutdown: tokio_util::sync::CancellationToken,
    ) -> Self {
        Self {
            config,
            accounts,
            shutdown,
            archive: false,
        }
    }

    /// With `on`, the durable parts too: the event hub over a journal and
    /// the message archive (both SQLite files in the data directory), the
    /// archive's ingest task running and sent messages recorded.
    pub fn archive(mut self, on: bool) -> Self {
        self.archive = on;
        self
    }

    /// The gateway.
    pub fn build(self) -> onebot_gateway_domain::gateway::Gateway {
        use onebot_gateway_domain::archive::recorder::SentRecorder;
        use onebot_gateway_domain::archive::service::{Archive, ArchiveParts};
        use onebot_gateway_domain::delivery::side::{WriteParts, WriteSide};
        use onebot_gateway_domain::events::EventHub;
        use onebot_gateway_domain::media::staging::MediaStore;
        use onebot_gateway_store::state::StateStore;
        let Self {
            config,
            accounts,
            shutdown,
            archive,
        } = self;
        let data_dir = config.server.data_dir.clone();
        let store = Arc::new(StateStore::open(&data_dir).expect("store"));
        let media =
            MediaStore::open(&data_dir, store.clone(), config.media.clone()).expect("staging");
        let urls = Arc::new(onebot_gateway_fetch::Fetcher::new(
            &config.media,
            media.clone(),
            Arc::new(onebot_gateway_fetch::SystemLookup),
        ));
        let accounts: Vec<Arc<onebot_gateway_domain::account::Account>> =
            accounts.into_iter().map(Arc::new).collect();
        let (events, archive, recorder) = if archive {
            let journal: Arc<dyn onebot_gateway_domain::journal::EventJournal> = Arc::new(
                onebot_gateway_store::journal::SqliteJournal::open(&data_dir).expect("journal"),
            );
            let events = EventHub::durable(
                config.events.buffer_size,
                config.events.buffer_bytes,
                shutdown.clone(),
                shutdown.clone(),
                journal,
                true,
            )
            .expect("event hub");
            let journal = events.journal().expect("durable hub").clone();
            let archive_store: Arc<dyn onebot_gateway_domain::archive::store::ArchiveStore> =
                Arc::new(
                    onebot_gateway_store::sqlite::SqliteArchive::open(&data_dir).expect("archive"),
                );
            let (archive, inputs) = Archive::new(ArchiveParts {
                config: config.archive.clone(),
                store: archive_store,
                journal: journal.clone(),
                accounts: accounts.clone(),
                checkpoint: journal.opened_checkpoint(),
            });
            tokio::spawn(onebot_gateway_domain::archive::ingest::run(
                archive.clone(),
                inputs,
                shutdown.clone(),
            ));
            let recorder = SentRecorder::new(journal, Arc::new(archive.chats().clone()));
            (events, Some(archive), Some(recorder))
        } else {
            let events = Arc::new(EventHub::bounded(
                config.events.buffer_size,
                config.events.buffer_bytes,
                shutdown.clone(),
            ));
            (events, None, None)
        };
        let received_store = onebot_gateway_domain::media::received::ReceivedStore::open(
            &data_dir,
            store.clone(),
            config.media.capture.clone(),
        )
        .expect("received store");
        let received = onebot_gateway_domain::media::download::Received::new(
            received_store.clone(),
            urls.clone(),
            config.media.clone(),
        );
        let write = WriteSide::open(WriteParts {
            config: &config,
            queue: store.clone(),
            idempotency: store,
            media,
            urls,
            accounts: &accounts,
            recorder,
            shutdown: shutdown.clone(),
            received: Some(received_store),
        })
        .expect("write side");
        let inbound = onebot_gateway_domain::inbound::Inbound::new(
            events.clone(),
            Arc::new(onebot_gateway_domain::quotes::Quotes::default()),
            shutdown,
        );
        inbound.attach(&accounts);
        onebot_gateway_domain::gateway::Gateway::new(onebot_gateway_domain::gateway::GatewayParts {
            config: Arc::new(config),
            accounts,
            events,
            inbound,
            write,
            received,
            archive,
            governance: Some(Arc::new(
                onebot_gateway_store::governance::sqlite::SqliteGovernance::open(&data_dir)
                    .expect("governance store"),
            )),
            leadership: None,
        })
        .expect("gateway")
    }
}
