//! Test helpers of the domain: media samples recognised by their magic
//! numbers, and an in-test [`OneBotApi`] that records calls.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::{Notify, watch};

use crate::error::{Error, Result};
use crate::onebot::api::{AccountStatus, CallCtx, ChatRef, ConnState, HistoryPage, OneBotApi};
use crate::onebot::{Flavor, TransportKind};

/// Lowercase hex SHA-256.
pub(crate) fn sha_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `len` bytes of `kind` (`jpeg`, `png`, `gif`, `bmp`, `webp`, `mp4`, `mov`,
/// `webm`, `mkv`, `flv`, `avi`, `text`): the magic header, then
/// deterministic noise.
pub(crate) fn sample(kind: &str, len: usize) -> Vec<u8> {
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
pub(crate) fn png(len: usize) -> Vec<u8> {
    sample("png", len)
}
/// One recorded call of [`FakeApi`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Call {
    /// `send_group_msg`.
    Send { group_id: i64, message: Value },
    /// `upload_group_file`.
    Upload {
        group_id: i64,
        file: String,
        name: String,
    },
    /// `poke`.
    Poke { group_id: i64, user_id: i64 },
}

/// A scripted [`OneBotApi`]: records calls, answers from a script of
/// results (success by default), and publishes a status the test controls.
pub(crate) struct FakeApi {
    status: watch::Sender<AccountStatus>,
    calls: Mutex<Vec<Call>>,
    script: Mutex<VecDeque<Result<()>>>,
    next_id: Mutex<i64>,
    /// Notified on every call.
    pub(crate) called: Notify,
    /// When set, calls wait for a permit before answering.
    pub(crate) gate: Mutex<Option<Arc<tokio::sync::Semaphore>>>,
}

impl FakeApi {
    /// An online fake of `flavor`.
    pub(crate) fn new(flavor: Flavor) -> Arc<Self> {
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::Connected,
            transport: TransportKind::ForwardWs,
            online: true,
            self_id: 10_001,
            flavor: Some(flavor),
            ..AccountStatus::default()
        });
        Arc::new(Self {
            status,
            calls: Mutex::new(Vec::new()),
            script: Mutex::new(VecDeque::new()),
            next_id: Mutex::new(1000),
            called: Notify::new(),
            gate: Mutex::new(None),
        })
    }

    /// Sets the account online or offline.
    pub(crate) fn set_online(&self, online: bool) {
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

    /// Queues the results of the next calls (then success again).
    pub(crate) fn script(&self, results: impl IntoIterator<Item = Result<()>>) {
        self.script.lock().unwrap().extend(results);
    }

    /// Every call so far.
    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// Texts of the `send_group_msg` calls with one text segment.
    pub(crate) fn texts(&self) -> Vec<String> {
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

    async fn answer(&self, call: Call) -> Result<()> {
        self.calls.lock().unwrap().push(call);
        self.called.notify_waiters();
        let gate = self.gate.lock().unwrap().clone();
        if let Some(gate) = gate {
            gate.acquire().await.expect("gate open").forget();
        }
        self.script.lock().unwrap().pop_front().unwrap_or(Ok(()))
    }
}

#[async_trait::async_trait]
impl OneBotApi for FakeApi {
    fn status(&self) -> AccountStatus {
        self.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.status.subscribe()
    }

    async fn call(&self, action: &str, _params: Value, _ctx: CallCtx) -> Result<Value> {
        Err(Error::internal(format!("unexpected raw call {action}")))
    }

    async fn get_history(
        &self,
        _chat: ChatRef,
        _count: u32,
        _anchor: Option<i64>,
        _ctx: CallCtx,
    ) -> Result<HistoryPage> {
        Err(Error::internal("unexpected get_history"))
    }

    async fn get_group_member_list(
        &self,
        _group_id: i64,
        _no_cache: Option<bool>,
        _ctx: CallCtx,
    ) -> Result<Vec<Value>> {
        Err(Error::internal("unexpected get_group_member_list"))
    }

    async fn get_group_list(&self, _ctx: CallCtx) -> Result<Vec<Value>> {
        Err(Error::internal("unexpected get_group_list"))
    }

    async fn send_group_msg(&self, group_id: i64, message: Value, _ctx: CallCtx) -> Result<i64> {
        self.answer(Call::Send { group_id, message }).await?;
        let mut id = self.next_id.lock().unwrap();
        *id += 1;
        Ok(*id)
    }

    async fn upload_group_file(
        &self,
        group_id: i64,
        file: String,
        name: String,
        _ctx: CallCtx,
    ) -> Result<()> {
        self.answer(Call::Upload {
            group_id,
            file,
            name,
        })
        .await
    }

    async fn poke(&self, group_id: i64, user_id: i64, _ctx: CallCtx) -> Result<()> {
        self.answer(Call::Poke { group_id, user_id }).await
    }
}
