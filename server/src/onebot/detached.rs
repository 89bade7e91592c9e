//! The adapter of an account with no transport configured: it never touches
//! a peer, reports `NotConfigured`, and refuses every call with
//! `AccountNotConfigured`.

use serde_json::Value;
use tokio::sync::watch;

use super::api::{AccountStatus, CallCtx, ChatRef, ConnState, HistoryPage, OneBotApi};
use crate::error::{Error, Result};

/// An account without transport.
pub struct Detached {
    account_id: String,
    status: watch::Sender<AccountStatus>,
}

impl Detached {
    /// A detached adapter for `account_id`.
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
impl OneBotApi for Detached {
    fn status(&self) -> AccountStatus {
        self.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.status.subscribe()
    }

    async fn call(&self, _action: &str, _params: Value, _ctx: CallCtx) -> Result<Value> {
        self.refuse()
    }

    async fn get_history(
        &self,
        _chat: ChatRef,
        _count: u32,
        _anchor: Option<i64>,
        _ctx: CallCtx,
    ) -> Result<HistoryPage> {
        self.refuse()
    }

    async fn get_group_member_list(
        &self,
        _group_id: i64,
        _no_cache: Option<bool>,
        _ctx: CallCtx,
    ) -> Result<Vec<Value>> {
        self.refuse()
    }

    async fn get_group_list(&self, _ctx: CallCtx) -> Result<Vec<Value>> {
        self.refuse()
    }

    async fn send_group_msg(&self, _group_id: i64, _message: Value, _ctx: CallCtx) -> Result<i64> {
        self.refuse()
    }

    async fn upload_group_file(
        &self,
        _group_id: i64,
        _file: String,
        _name: String,
        _ctx: CallCtx,
    ) -> Result<()> {
        self.refuse()
    }

    async fn poke(&self, _group_id: i64, _user_id: i64, _ctx: CallCtx) -> Result<()> {
        self.refuse()
    }
}
