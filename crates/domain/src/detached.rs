//! The peer of an account with no transport configured: it never touches
//! anything, reports `NotConfigured`, and refuses every call with
//! `AccountNotConfigured`.

use tokio::sync::watch;

use super::call::Deadline;
use super::model::{
    AccountStatus, ChatRef, ConnState, GroupInfo, GroupMember, MediaKind, MediaPayload, Message,
    ReceivedMedia,
};
use super::ports::{HistoryPage, MediaSink, MediaStep, OutSegment, PeerApi, PeerMedia};
use crate::error::{Error, Result};

/// An account without transport.
pub struct Detached {
    account_id: String,
    status: watch::Sender<AccountStatus>,
}

impl Detached {
    /// A detached peer for `account_id`.
    pub fn new(account_id: &str) -> Self {
        let (status, _) = watch::channel(AccountStatus {
            state: ConnState::NotConfigured,
            ..AccountStatus::default()
        });
        Self {
            account_id: account_id.to_string(),
            status,
        }
    }

    fn refuse<T>(&self) -> Result<T> {
        Err(Error::account_not_configured(&self.account_id))
    }
}

#[async_trait::async_trait]
impl PeerApi for Detached {
    fn status(&self) -> AccountStatus {
        self.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.status.subscribe()
    }

    async fn get_history(
        &self,
        _chat: ChatRef,
        _count: u32,
        _anchor: Option<i64>,
        _deadline: Deadline,
    ) -> Result<HistoryPage> {
        self.refuse()
    }

    async fn get_group_members(
        &self,
        _group_id: i64,
        _no_cache: Option<bool>,
        _deadline: Deadline,
    ) -> Result<Vec<GroupMember>> {
        self.refuse()
    }

    async fn get_groups(&self, _deadline: Deadline) -> Result<Vec<GroupInfo>> {
        self.refuse()
    }

    async fn send_message(
        &self,
        _chat: ChatRef,
        _segments: &[OutSegment<'_>],
        _deadline: Deadline,
    ) -> Result<i64> {
        self.refuse()
    }

    async fn upload_file(
        &self,
        _chat: ChatRef,
        _file: &MediaPayload,
        _name: &str,
        _deadline: Deadline,
    ) -> Result<()> {
        self.refuse()
    }

    async fn poke(&self, _group_id: i64, _user_id: i64, _deadline: Deadline) -> Result<()> {
        self.refuse()
    }

    async fn get_message(
        &self,
        _message_id: i64,
        _chat: Option<ChatRef>,
        _deadline: Deadline,
    ) -> Result<Message> {
        self.refuse()
    }

    async fn recall(&self, _message_id: i64, _deadline: Deadline) -> Result<()> {
        self.refuse()
    }

    async fn get_forward(&self, _forward_id: &str, _deadline: Deadline) -> Result<Vec<Message>> {
        self.refuse()
    }

    fn check_media(&self, _kind: MediaKind) -> Result<()> {
        self.refuse()
    }

    fn media_steps(&self, _media: &ReceivedMedia) -> Vec<MediaStep> {
        Vec::new()
    }

    async fn fetch_media(
        &self,
        _media: &ReceivedMedia,
        _step: MediaStep,
        _sink: &mut dyn MediaSink,
        _deadline: Deadline,
    ) -> Result<PeerMedia> {
        Err(Error::account_not_configured(&self.account_id))
    }

    async fn media_message(&self, _message_id: i64, _deadline: Deadline) -> Result<Message> {
        Err(Error::account_not_configured(&self.account_id))
    }
}
