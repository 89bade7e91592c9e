//! The typed actions behind the port: each [`PeerApi`] method as the OneBot
//! action (and flavor rule) that carries it.

use serde_json::{Value, json};
use tokio::sync::watch;

use super::AccountClient;
use super::group;
use super::inner::Inner;
use super::routing::ReadData;
use crate::answer;
use crate::flavor::Flavor;
use crate::frame::{Data, FrameText};
use crate::ids;
use crate::model::{
    MemberList, decode_forward, decode_group, decode_message, int_of, member_list,
    member_list_of_frame,
};
use crate::outgoing::{self, object};
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, EssencePage, GroupFiles, GroupInfo, GroupMember, MediaKind,
    MediaPayload, Message, ReceivedMedia,
};
use onebot_gateway_domain::ports::{
    HistoryPage, MediaSink, MediaStep, OutSegment, PeerApi, PeerMedia,
};

impl Inner {
    /// `get_msg` of `message_id`, decoded. The chat is the one the answer
    /// names; for the bot's own private messages (whose answer names the
    /// bot) the other side (`target_id`); else, for peers that name none
    /// (Lagrange), the chat the id was seen in, else `hint`. A message the
    /// peer keeps as recalled (LLOneBot `status: deleted`) is not found.
    pub(super) async fn read_message(
        &self,
        message_id: i64,
        hint: Option<ChatRef>,
        deadline: Deadline,
    ) -> Result<Message> {
        let data = self
            .call_action("get_msg", json!({ "message_id": message_id }), deadline)
            .await?;
        // `ok` with `null` or `{}`: the peer does not have the message.
        let data = answer::object("get_msg", data, || format!("message {message_id}"))?;
        if data.get("status").and_then(Value::as_str) == Some("deleted") {
            return Err(Error::new(
                Kind::MessageNotFound,
                format!("get_msg: message {message_id} was recalled"),
            )
            .with("action", "get_msg")
            .with("message_id", message_id));
        }
        let self_id = self.status.borrow().self_id;
        let learned = self.seqs.lock().chat_of(message_id);
        let decoded = decode_message(&data, None)
            .map(|mut m| {
                if m.chat == ChatRef::Private(self_id)
                    && let Some(peer) = data.get("target_id").and_then(int_of)
                {
                    m.chat = ChatRef::Private(peer);
                }
                m
            })
            .or_else(|| decode_message(&data, learned.or(hint)));
        let message = decoded.ok_or_else(|| {
            Error::new(
                Kind::OnebotProtocolError,
                format!(
                    "get_msg of message {message_id}: the answer names no sender, id or chat the gateway can use"
                ),
            )
            .with("action", "get_msg")
            .with("message_id", message_id)
        })?;
        self.seqs.lock().learn(&message);
        Ok(message)
    }

    /// Refuses a quote of a message the peer does not know, on the flavors
    /// that mishandle one: go-cqhttp posts the quote as literal CQ-code
    /// text, Lagrange fails the whole send without a word. Any other answer
    /// lets the send go on (the check is a courtesy, not a gate).
    async fn check_quote(&self, segments: &[OutSegment<'_>]) -> Result<()> {
        if !matches!(self.flavor(), Flavor::GoCqhttp | Flavor::Lagrange) {
            return Ok(());
        }
        let quoted = segments.iter().find_map(|s| match s {
            OutSegment::Reply(id) => Some(*id),
            _ => None,
        });
        let Some(id) = quoted else {
            return Ok(());
        };
        match self
            .read_message(id, None, Deadline::after(self.cfg.request_timeout()))
            .await
        {
            Err(e) if e.kind == Kind::MessageNotFound => Err(Error::new(
                Kind::MessageNotFound,
                format!(
                    "the quoted message {id} is unknown to {}; nothing was sent",
                    self.flavor()
                ),
            )
            .with("message_id", id)
            .with("flavor", self.flavor().name())
            .field("reply_to_message_id")),
            _ => Ok(()),
        }
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

    fn self_id(&self) -> i64 {
        self.inner.status.borrow().self_id
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
        // The list is read from the answer's text in one pass; each member
        // keeps its own object as a slice of that text.
        let list = self
            .inner
            .call_reading("get_group_member_list", params, deadline, &Members)
            .await?;
        match list {
            MemberList::Nothing => Err(answer::lacks("get_group_member_list")),
            MemberList::Members(members) => Ok(members),
            MemberList::NotAnArray(kind) => Err(Error::new(
                Kind::OnebotProtocolError,
                format!("get_group_member_list: expected an array, got {kind}"),
            )
            .with("action", "get_group_member_list")),
        }
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
        inner.check_quote(segments).await?;
        let encoded =
            outgoing::message(inner.flavor(), inner.cfg.shared_dir.as_ref(), segments).await?;
        let (action, target) = Inner::send_action(chat);
        let data = inner
            .call_action_with(
                action,
                object([target, ("message", encoded.message)]),
                &encoded.media,
                deadline,
            )
            .await?;
        // go-cqhttp answers a poke segment with message_id 0; a peer that
        // reports none gets 0 too (the send itself succeeded).
        let id = data
            .get("message_id")
            .and_then(ids::message_id_of)
            .unwrap_or(0);
        if id != 0 {
            // Remembered for peers whose get_msg names no chat (recalls).
            inner.seqs.lock().learn_chat(chat, id);
        }
        Ok(id)
    }

    async fn upload_file(
        &self,
        chat: ChatRef,
        file: &MediaPayload,
        name: &str,
        deadline: Deadline,
    ) -> Result<()> {
        let inner = &self.inner;
        let file = outgoing::upload_file(inner.flavor(), inner.cfg.shared_dir.as_ref(), file, name)
            .await?;
        let (action, target) = match chat {
            ChatRef::Group(id) => ("upload_group_file", ("group_id", json!(id))),
            ChatRef::Private(id) => ("upload_private_file", ("user_id", json!(id))),
        };
        let params = object([
            target,
            ("file", file.file),
            ("name", Value::String(name.to_owned())),
        ]);
        let media: Vec<_> = file.media.into_iter().collect();
        let sent = inner
            .call_action_with(action, params, &media, deadline)
            .await;
        // The shared copy lives until the peer has answered.
        drop(file.copy);
        sent.map(drop)
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

    async fn get_message(
        &self,
        message_id: i64,
        chat: Option<ChatRef>,
        deadline: Deadline,
    ) -> Result<Message> {
        self.inner.read_message(message_id, chat, deadline).await
    }

    /// `delete_msg`. Every flavor answers a refusal as a failure with its
    /// own text (NapCat `Timeout: NTEvent … recallMsg`, go-cqhttp
    /// `RECALL_API_ERROR`, Lagrange a bare 200); some answer `ok` without
    /// confirming (LLOneBot 8, SnowLuma), which the recall notice settles.
    async fn recall(&self, message_id: i64, deadline: Deadline) -> Result<()> {
        self.inner
            .call_action("delete_msg", json!({ "message_id": message_id }), deadline)
            .await
            .map(drop)
    }

    /// `get_forward_msg` with the id as both `id` and `message_id` (NapCat
    /// takes the carrying message's id in either, Lagrange only `id`, the
    /// others either).
    async fn get_forward(&self, forward_id: &str, deadline: Deadline) -> Result<Vec<Message>> {
        let data = self
            .inner
            .call_action(
                "get_forward_msg",
                json!({ "id": forward_id, "message_id": forward_id }),
                deadline,
            )
            .await?;
        Ok(decode_forward(&data))
    }

    fn check_media(&self, kind: MediaKind) -> Result<()> {
        let inner = &self.inner;
        outgoing::check_media(inner.flavor(), inner.cfg.shared_dir.as_ref(), kind)
    }

    /// By flavor: see the table of `client::media`.
    fn media_steps(&self, media: &ReceivedMedia) -> Vec<MediaStep> {
        super::media::steps(self.inner.flavor(), media)
    }

    async fn fetch_media(
        &self,
        media: &ReceivedMedia,
        step: MediaStep,
        sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        self.inner.fetch_media(media, step, sink, deadline).await
    }

    /// `get_msg`.
    async fn media_message(&self, message_id: i64, deadline: Deadline) -> Result<Message> {
        self.inner.media_message(message_id, deadline).await
    }

    /// The flavor's name, as the account's status names it.
    fn implementation(&self) -> String {
        self.inner.flavor().name().to_string()
    }

    /// By flavor: see the table of `client::group`.
    async fn react(
        &self,
        group_id: i64,
        message_id: i64,
        emoji_id: &str,
        add: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let request =
            group::react_request(self.inner.flavor(), group_id, message_id, emoji_id, add)?;
        self.inner.send_request(request, deadline).await.map(drop)
    }

    async fn set_essence(
        &self,
        _group_id: i64,
        message_id: i64,
        set: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let request = group::essence_request(message_id, set);
        self.inner.send_request(request, deadline).await.map(drop)
    }

    /// `get_essence_msg_list` answers the whole list; it is paged here.
    async fn list_essence(
        &self,
        group_id: i64,
        page: u32,
        page_size: u32,
        deadline: Deadline,
    ) -> Result<EssencePage> {
        self.inner
            .list_essence(group_id, page, page_size, deadline)
            .await
    }

    async fn set_typing(&self, user_id: i64, deadline: Deadline) -> Result<()> {
        let request = group::typing_request(self.inner.flavor(), user_id)?;
        self.inner.send_request(request, deadline).await.map(drop)
    }

    async fn list_group_files(
        &self,
        group_id: i64,
        folder_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<GroupFiles> {
        self.inner
            .list_group_files(group_id, folder_id, deadline)
            .await
    }

    async fn group_file_url(
        &self,
        group_id: i64,
        file_id: &str,
        deadline: Deadline,
    ) -> Result<String> {
        self.inner.group_file_url(group_id, file_id, deadline).await
    }

    async fn mute_member(
        &self,
        group_id: i64,
        user_id: i64,
        duration_secs: u32,
        deadline: Deadline,
    ) -> Result<()> {
        let request = group::mute_request(group_id, user_id, duration_secs);
        self.inner.send_request(request, deadline).await.map(drop)
    }

    async fn mute_all(&self, group_id: i64, enable: bool, deadline: Deadline) -> Result<()> {
        let request = group::mute_all_request(group_id, enable);
        self.inner.send_request(request, deadline).await.map(drop)
    }

    async fn kick_member(
        &self,
        group_id: i64,
        user_id: i64,
        reject_rejoin: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let request = group::kick_request(group_id, user_id, reject_rejoin);
        self.inner.send_request(request, deadline).await.map(drop)
    }

    async fn set_member_card(
        &self,
        group_id: i64,
        user_id: i64,
        card: &str,
        deadline: Deadline,
    ) -> Result<()> {
        self.inner
            .set_member_card(group_id, user_id, card, deadline)
            .await
    }
}

/// A member list, read in the same pass as the reply when the connection
/// hands it over undecoded.
struct Members;

impl ReadData for Members {
    type Out = MemberList;

    fn data(&self, data: Data) -> MemberList {
        data.into_raw().map_or(MemberList::Nothing, member_list)
    }

    fn frame(&self, text: &FrameText) -> Option<(Value, MemberList)> {
        member_list_of_frame(text.clone())
    }
}
