//! The typed actions behind the port: each [`PeerApi`] method as the OneBot
//! action (and flavor rule) that carries it.

use serde_json::{Value, json};
use tokio::sync::watch;

use super::AccountClient;
use super::inner::{Inner, lock};
use crate::domain::call::Deadline;
use crate::domain::model::{
    AccountStatus, ChatRef, GroupInfo, GroupMember, MediaKind, MediaPayload,
};
use crate::domain::ports::{HistoryPage, OutSegment, PeerApi};
use crate::error::{Error, Kind, Result};
use crate::onebot::flavor::Flavor;
use crate::onebot::history;
use crate::onebot::model::{MemberList, decode_group, int_of, member_list};
use crate::onebot::outgoing::{self, object};

impl Inner {
    /// The real seq of `message_id` (cache, else `get_msg`).
    async fn resolve_seq(&self, chat: ChatRef, message_id: i64, deadline: Deadline) -> Result<i64> {
        if let Some(seq) = lock(&self.seqs).get(chat, message_id) {
            return Ok(seq);
        }
        let data = self
            .call_action("get_msg", json!({ "message_id": message_id }), deadline)
            .await?;
        let seq = history::raw_seq(&data).ok_or_else(|| {
            Error::new(
                Kind::OnebotProtocolError,
                format!("get_msg of message {message_id} reported no message_seq"),
            )
            .with("action", "get_msg")
            .with("message_id", message_id)
        })?;
        lock(&self.seqs).insert(chat, message_id, seq);
        Ok(seq)
    }

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

    /// Translates the anchor per flavor (NapCat short id in `message_seq`,
    /// Lagrange/SnowLuma `message_id`, LLOneBot/go-cqhttp real seq), drops
    /// the anchor row where the flavor includes it, and turns "empty" errors
    /// (NapCat) into an empty page. go-cqhttp private chats fail with
    /// `HistoryUnsupported`.
    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        deadline: Deadline,
    ) -> Result<HistoryPage> {
        let inner = &self.inner;
        // The flavor decides the request: make sure it is known.
        let action = match chat {
            ChatRef::Group(_) => "get_group_msg_history",
            ChatRef::Private(_) => "get_friend_msg_history",
        };
        inner.route(action, deadline).await?;
        let flavor = inner.flavor();
        history::check_supported(flavor, chat)?;
        let anchor_seq = match anchor {
            Some(a) if history::needs_seq(flavor) => {
                Some(inner.resolve_seq(chat, a, deadline).await?)
            }
            _ => None,
        };
        let (action, params) = history::request(flavor, chat, count, anchor, anchor_seq);
        let answer = inner.call_data(action, params, deadline).await;
        let page = history::page(flavor, chat, count, anchor, answer)?;
        let mut seqs = lock(&inner.seqs);
        for m in &page.messages {
            seqs.learn(m);
        }
        Ok(page)
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
        // The list is read from the answer's text in one pass; each member
        // keeps its own object as a slice of that text.
        let data = self
            .inner
            .call_data("get_group_member_list", params, deadline)
            .await?;
        match data.into_raw().map(member_list) {
            None => Ok(Vec::new()),
            Some(MemberList::Members(members)) => Ok(members),
            Some(MemberList::NotAnArray(kind)) => Err(not_an_array("get_group_member_list", kind)),
        }
    }

    async fn get_groups(&self, deadline: Deadline) -> Result<Vec<GroupInfo>> {
        let data = self
            .inner
            .call_action("get_group_list", json!({}), deadline)
            .await?;
        Ok(array_data("get_group_list", data)?
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
        Ok(data.get("message_id").and_then(int_of).unwrap_or(0))
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

fn array_data(action: &str, data: Value) -> Result<Vec<Value>> {
    match data {
        Value::Array(items) => Ok(items),
        Value::Null => Ok(Vec::new()),
        other => Err(not_an_array(action, json_kind(&other))),
    }
}

fn not_an_array(action: &str, kind: &str) -> Error {
    Error::new(
        Kind::OnebotProtocolError,
        format!("{action}: expected an array, got {kind}"),
    )
    .with("action", action)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
