//! The typed actions behind the port: each [`PeerApi`] method as the OneBot
//! action (and flavor rule) that carries it.

use serde_json::{Value, json};
use tokio::sync::watch;

use super::AccountClient;
use super::inner::Inner;
use crate::domain::call::Deadline;
use crate::domain::model::{
    AccountStatus, ChatRef, GroupInfo, GroupMember, MediaKind, MediaPayload,
};
use crate::domain::ports::{HistoryPage, OutSegment, PeerApi};
use crate::error::Result;
use crate::onebot::answer;
use crate::onebot::flavor::Flavor;
use crate::onebot::ids;
use crate::onebot::model::{decode_group, decode_members};
use crate::onebot::outgoing::{self, object};

impl Inner {
    /// The send action of `chat` with its target parameter.
    fn send_action(chat: ChatRef) -> (&'static str, (&'static str, Value)) {
        match chat {
            ChatRef::Group(id) => ("send_group_msg", ("group_id", json!(id))),
            ChatRef::Private(id) => ("send_private_msg", ("user_id", json!(id))),
        }
    }
}

#[async_trait::async_trait]
impl PeerApi for AccountClient {
    fn status(&self) -> AccountStatus {
        self.inner.status.borrow().clone()
    }

    fn watch_status(&self) -> watch::Receiver<AccountStatus> {
        self.inner.status.subscribe()
    }

    /// In the style the adapter learned from the peer (a probe on connect,
    /// then every page), whatever the flavor; a page that does not fit its
    /// anchor is corrected before it is returned. A peer without the
    /// chat kind's history action fails with `HistoryUnsupported`.
    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        deadline: Deadline,
    ) -> Result<HistoryPage> {
        self.inner.history_page(chat, count, anchor, deadline).await
    }

    async fn get_group_members(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        deadline: Deadline,
    ) -> Result<Vec<GroupMember>> {
        let mut params = json!({ "group_id": group_id });
        if let (Some(nc), Some(o)) = (no_cache, params.as_object_mut()) {
            o.insert("no_cache".into(), json!(nc));
        }
        let data = self
            .inner
            .call_action("get_group_member_list", params, deadline)
            .await?;
        Ok(decode_members(answer::list(
            "get_group_member_list",
            data,
            false,
        )?))
    }

    async fn get_groups(&self, deadline: Deadline) -> Result<Vec<GroupInfo>> {
        let data = self
            .inner
            .call_action("get_group_list", json!({}), deadline)
            .await?;
        Ok(answer::list("get_group_list", data, true)?
            .iter()
            .filter_map(decode_group)
            .collect())
    }

    /// Send failures are classified (NapCat `EventRet` results, risk
    /// control, unknown outcomes).
    async fn send_message(
        &self,
        chat: ChatRef,
        segments: &[OutSegment<'_>],
        deadline: Deadline,
    ) -> Result<i64> {
        let inner = &self.inner;
        let encoded =
            outgoing::message(inner.flavor(), inner.cfg.shared_dir.as_ref(), segments).await?;
        let (action, target) = Inner::send_action(chat);
        let data = inner
            .call_action(
                action,
                object([target, ("message", encoded.message)]),
                deadline,
            )
            .await?;
        // go-cqhttp answers a poke segment with message_id 0; a peer that
        // reports none gets 0 too (the send itself succeeded).
        Ok(data
            .get("message_id")
            .and_then(ids::message_id_of)
            .unwrap_or(0))
    }

    async fn upload_file(
        &self,
        chat: ChatRef,
        file: &MediaPayload,
        name: &str,
        deadline: Deadline,
    ) -> Result<()> {
        let inner = &self.inner;
        let (file, _copy) =
            outgoing::upload_file(inner.flavor(), inner.cfg.shared_dir.as_ref(), file, name)
                .await?;
        let (action, target) = match chat {
            ChatRef::Group(id) => ("upload_group_file", ("group_id", json!(id))),
            ChatRef::Private(id) => ("upload_private_file", ("user_id", json!(id))),
        };
        inner
            .call_action(
                action,
                object([
                    target,
                    ("file", Value::String(file)),
                    ("name", Value::String(name.to_owned())),
                ]),
                deadline,
            )
            .await
            .map(drop)
    }

    /// By the flavor's path: `group_poke`, or a `poke` segment on
    /// go-cqhttp.
    async fn poke(&self, group_id: i64, user_id: i64, deadline: Deadline) -> Result<()> {
        let inner = &self.inner;
        inner.route("group_poke", deadline).await?;
        match inner.flavor() {
            // go-cqhttp pokes with a message segment (`[CQ:poke,qq=…]`).
            Flavor::GoCqhttp => inner
                .call_action(
                    "send_group_msg",
                    json!({
                        "group_id": group_id,
                        "message": [{ "type": "poke", "data": { "qq": user_id.to_string() } }],
                    }),
                    deadline,
                )
                .await
                .map(drop),
            _ => inner
                .call_action(
                    "group_poke",
                    json!({ "group_id": group_id, "user_id": user_id }),
                    deadline,
                )
                .await
                .map(drop),
        }
    }

    fn check_media(&self, kind: MediaKind) -> Result<()> {
        let inner = &self.inner;
        outgoing::check_media(inner.flavor(), inner.cfg.shared_dir.as_ref(), kind)
    }
}
