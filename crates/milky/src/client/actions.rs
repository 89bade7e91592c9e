//! The port's methods: each one API call (history pages through
//! `next_message_seq`), its request from [`crate::requests`] and its
//! answer decoded by [`crate::model`].

use serde_json::Value;

use super::MilkyClient;
use crate::ids::{MessageKey, Scene, key_of, mint_id};
use crate::model;
use crate::requests::{self, HISTORY_LIMIT, not_found};
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::{
    AccountStatus, ChatRef, EssencePage, GroupFiles, GroupInfo, GroupMember, MediaKind,
    MediaPayload, Message, ReceivedKind, ReceivedMedia,
};
use onebot_gateway_domain::ports::{
    HistoryPage, MediaSink, MediaStep, OutSegment, PeerApi, PeerMedia,
};

impl MilkyClient {
    fn key(&self, id: i64) -> Result<MessageKey> {
        key_of(&self.inner.id, id).ok_or_else(|| not_found(&self.inner.id, id))
    }

    /// The seq of `message_id` when it names a message of the group
    /// `group_id`; `MessageNotFound` otherwise.
    fn group_seq(&self, group_id: i64, message_id: i64) -> Result<i64> {
        let key = self.key(message_id)?;
        if key.chat() != ChatRef::Group(group_id) {
            return Err(not_found(&self.inner.id, message_id).with("group_id", group_id));
        }
        Ok(key.seq)
    }

    /// Calls an API whose answer carries nothing.
    async fn act(&self, api: &str, request: &Value, deadline: Deadline) -> Result<()> {
        self.inner.call_json(api, request, deadline).await.map(drop)
    }

    /// A message as `get_message` answers; `MessageNotFound` when the peer
    /// fails to find it.
    async fn read_message(&self, key: MessageKey, id: i64, deadline: Deadline) -> Result<Message> {
        let data = self
            .inner
            .call_json("get_message", &requests::get_message(key), deadline)
            .await
            .map_err(|e| missing(e, &self.inner.id, id))?;
        let mut message = model::message_answer(&self.inner.id, data)
            .ok_or_else(|| not_found(&self.inner.id, id))?;
        self.inner.name_own(std::slice::from_mut(&mut message));
        Ok(message)
    }
}

/// A peer's refusal to read a message (its retcode is the implementation's
/// own) means the message is not there.
fn missing(e: Error, account: &str, id: i64) -> Error {
    if e.kind == Kind::OnebotActionFailed {
        let mut nf = not_found(account, id);
        nf.metadata.extend(e.metadata);
        nf
    } else {
        e
    }
}

#[async_trait::async_trait]
impl PeerApi for MilkyClient {
    fn status(&self) -> AccountStatus {
        self.inner.status.borrow().clone()
    }

    fn self_id(&self) -> i64 {
        self.inner.status.borrow().self_id
    }

    fn watch_status(&self) -> tokio::sync::watch::Receiver<AccountStatus> {
        self.inner.status.subscribe()
    }

    async fn get_history(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        deadline: Deadline,
    ) -> Result<HistoryPage> {
        let (scene, peer) = Scene::of_chat(chat);
        let mut start = match anchor {
            None => None,
            Some(id) => {
                let key = self.key(id)?;
                if key.chat() != chat {
                    return Err(not_found(&self.inner.id, id));
                }
                match key.seq.checked_sub(1) {
                    Some(seq) if seq >= 0 => Some(seq),
                    _ => return Ok(HistoryPage::default()),
                }
            }
        };
        // Pages come oldest first; each older page goes in front.
        let mut pages: Vec<Vec<Message>> = Vec::new();
        let mut got = 0usize;
        let wanted = count as usize;
        let mut has_more = false;
        while got < wanted {
            let limit = (wanted - got).min(HISTORY_LIMIT as usize) as u32;
            let request = requests::history(scene, peer, start, limit);
            let data = self
                .inner
                .call_json("get_history_messages", &request, deadline)
                .await?;
            let decoded = model::page(&self.inner.id, data);
            let mut page: Vec<Message> = decoded
                .messages
                .into_iter()
                .filter(|m| m.chat == chat)
                .collect();
            let truncated = page.len() > wanted - got;
            if truncated {
                page.drain(..page.len() - (wanted - got));
            }
            got += page.len();
            pages.push(page);
            match decoded.next_message_seq {
                // A cursor that does not move back would page forever.
                Some(n) if start.is_none_or(|s| n < s) => {
                    has_more = true;
                    start = Some(n);
                }
                _ => {
                    has_more = truncated;
                    break;
                }
            }
        }
        let mut messages: Vec<Message> = pages.into_iter().rev().flatten().collect();
        self.inner.name_own(&mut messages);
        model::name_quotes(&mut messages);
        Ok(HistoryPage { messages, has_more })
    }

    async fn get_group_members(
        &self,
        group_id: i64,
        no_cache: Option<bool>,
        deadline: Deadline,
    ) -> Result<Vec<GroupMember>> {
        let data = self
            .inner
            .call_json(
                "get_group_member_list",
                &requests::member_list(group_id, no_cache),
                deadline,
            )
            .await?;
        Ok(model::members(data))
    }

    async fn get_groups(&self, deadline: Deadline) -> Result<Vec<GroupInfo>> {
        let data = self
            .inner
            .call_json("get_group_list", &serde_json::json!({}), deadline)
            .await?;
        Ok(model::groups(data))
    }

    async fn send_message(
        &self,
        chat: ChatRef,
        segments: &[OutSegment<'_>],
        deadline: Deadline,
    ) -> Result<i64> {
        // The media's one-time URLs live until this call ends.
        let mut uris = self.media_uris();
        let (api, body) = requests::send(&self.inner.id, chat, segments, &mut uris)?;
        let data = self.inner.call(api, body, deadline).await?.value();
        drop(uris);
        let (scene, peer) = Scene::of_chat(chat);
        Ok(model::int(&data, "message_seq").map_or(0, |seq| {
            mint_id(&self.inner.id, MessageKey { scene, peer, seq })
        }))
    }

    async fn upload_file(
        &self,
        chat: ChatRef,
        file: &MediaPayload,
        name: &str,
        deadline: Deadline,
    ) -> Result<()> {
        // The file's one-time URL lives until this call ends.
        let mut uris = self.media_uris();
        let (api, body) = requests::upload(chat, file, name, &mut uris);
        let done = self.inner.call(api, body, deadline).await.map(drop);
        drop(uris);
        done
    }

    async fn poke(&self, group_id: i64, user_id: i64, deadline: Deadline) -> Result<()> {
        self.inner
            .call_json(
                "send_group_nudge",
                &requests::group_nudge(group_id, user_id),
                deadline,
            )
            .await
            .map(drop)
    }

    async fn get_message(
        &self,
        message_id: i64,
        _chat: Option<ChatRef>,
        deadline: Deadline,
    ) -> Result<Message> {
        let key = self.key(message_id)?;
        self.read_message(key, message_id, deadline).await
    }

    async fn recall(&self, message_id: i64, deadline: Deadline) -> Result<()> {
        let key = self.key(message_id)?;
        let (api, request) = requests::recall(key);
        self.inner
            .call_json(api, &request, deadline)
            .await
            .map(drop)
    }

    async fn get_forward(&self, forward_id: &str, deadline: Deadline) -> Result<Vec<Message>> {
        let data = self
            .inner
            .call_json(
                "get_forwarded_messages",
                &requests::forwarded(forward_id),
                deadline,
            )
            .await
            .map_err(|e| {
                if e.kind == Kind::OnebotActionFailed {
                    let mut nf = Error::new(
                        Kind::MessageNotFound,
                        format!("the forward bundle {forward_id:?} is unknown or expired"),
                    )
                    .with("forward_id", forward_id);
                    nf.metadata.extend(e.metadata);
                    nf
                } else {
                    e
                }
            })?;
        Ok(model::forwarded_list(&self.inner.id, data))
    }

    fn check_media(&self, _kind: MediaKind) -> Result<()> {
        // Images, videos, voice and files all go by `uri`.
        Ok(())
    }

    fn media_steps(&self, media: &ReceivedMedia) -> Vec<MediaStep> {
        if media.url.is_empty() {
            vec![MediaStep::Lookup]
        } else {
            vec![MediaStep::SegmentUrl, MediaStep::Lookup]
        }
    }

    async fn fetch_media(
        &self,
        media: &ReceivedMedia,
        step: MediaStep,
        _sink: &mut dyn MediaSink,
        deadline: Deadline,
    ) -> Result<PeerMedia> {
        if step != MediaStep::Lookup {
            return Err(Error::new(
                Kind::UnsupportedByPeer,
                format!("a Milky peer has no {} step", step.name()),
            )
            .with("step", step.name()));
        }
        let (api, request, key) = match (media.kind, media.chat) {
            (ReceivedKind::File, ChatRef::Group(g)) => (
                "get_group_file_download_url",
                requests::group_file_url(g, &media.file),
                "download_url",
            ),
            (ReceivedKind::File, ChatRef::Private(u)) => (
                "get_private_file_download_url",
                requests::private_file_url(u, &media.file, &file_hash(media)),
                "download_url",
            ),
            _ => (
                "get_resource_temp_url",
                requests::resource_temp_url(&media.file),
                "url",
            ),
        };
        let data = self.inner.call_json(api, &request, deadline).await?.value();
        match model::text(&data, key) {
            url if !url.is_empty() => Ok(PeerMedia::Url(url)),
            _ => Err(Error::new(
                Kind::OnebotProtocolError,
                format!("{api} answered without a {key}"),
            )
            .with("action", api)),
        }
    }

    async fn media_message(&self, message_id: i64, deadline: Deadline) -> Result<Message> {
        let key = key_of(&self.inner.id, message_id).ok_or_else(|| media_not_found(message_id))?;
        self.read_message(key, message_id, deadline)
            .await
            .map_err(|e| {
                if e.kind == Kind::MessageNotFound {
                    media_not_found(message_id)
                } else {
                    e
                }
            })
    }

    fn implementation(&self) -> String {
        let status = self.inner.status.borrow();
        match status.implementation.trim() {
            "" => "Milky".to_string(),
            name => format!("Milky ({name})"),
        }
    }

    async fn react(
        &self,
        group_id: i64,
        message_id: i64,
        emoji_id: &str,
        add: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let seq = self.group_seq(group_id, message_id)?;
        let (reaction, kind) = requests::reaction_of(emoji_id).ok_or_else(|| {
            Error::invalid(
                "emoji_id",
                format!(
                    "emoji_id {emoji_id:?} is neither a QQ face id nor a Unicode emoji (its code point in decimal, or the emoji itself)"
                ),
            )
        })?;
        let request = requests::group_reaction(group_id, seq, &reaction, kind, add);
        self.act("send_group_message_reaction", &request, deadline)
            .await
    }

    async fn set_essence(
        &self,
        group_id: i64,
        message_id: i64,
        set: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let seq = self.group_seq(group_id, message_id)?;
        let request = requests::group_essence(group_id, seq, set);
        self.act("set_group_essence_message", &request, deadline)
            .await
    }

    async fn list_essence(
        &self,
        group_id: i64,
        page: u32,
        page_size: u32,
        deadline: Deadline,
    ) -> Result<EssencePage> {
        let request = requests::group_essence_list(group_id, page, page_size);
        let data = self
            .inner
            .call_json("get_group_essence_messages", &request, deadline)
            .await?;
        let mut page = model::essence_page(&self.inner.id, group_id, data);
        // Entries name their senders; quotes are named from them.
        let mut messages: Vec<Message> = page.entries.iter().map(|e| e.message.clone()).collect();
        model::name_quotes(&mut messages);
        for (entry, message) in page.entries.iter_mut().zip(messages) {
            entry.message = message;
        }
        Ok(page)
    }

    async fn set_typing(&self, _user_id: i64, _deadline: Deadline) -> Result<()> {
        // Milky 1.2 has no typing-status API.
        Err(Error::not_supported(&self.implementation(), "typing"))
    }

    async fn list_group_files(
        &self,
        group_id: i64,
        folder_id: Option<&str>,
        deadline: Deadline,
    ) -> Result<GroupFiles> {
        let request = requests::group_files(group_id, folder_id);
        let data = self
            .inner
            .call_json("get_group_files", &request, deadline)
            .await?;
        Ok(model::group_files(&data.value()))
    }

    async fn group_file_url(
        &self,
        group_id: i64,
        file_id: &str,
        deadline: Deadline,
    ) -> Result<String> {
        let api = "get_group_file_download_url";
        let data = self
            .inner
            .call_json(api, &requests::group_file_url(group_id, file_id), deadline)
            .await
            .map_err(|e| {
                // The peer's refusal (its retcode is its own) means the
                // file is not there.
                if e.kind == Kind::OnebotActionFailed {
                    let mut nf = Error::new(
                        Kind::MediaNotFound,
                        format!("group {group_id} has no file {file_id:?}"),
                    )
                    .with("group_id", group_id)
                    .with("file_id", file_id);
                    nf.metadata.extend(e.metadata);
                    nf
                } else {
                    e
                }
            })?
            .value();
        match model::text(&data, "download_url") {
            url if !url.is_empty() => Ok(url),
            _ => Err(Error::new(
                Kind::OnebotProtocolError,
                format!("{api} answered without a download_url"),
            )
            .with("action", api)),
        }
    }

    async fn mute_member(
        &self,
        group_id: i64,
        user_id: i64,
        duration_secs: u32,
        deadline: Deadline,
    ) -> Result<()> {
        let request = requests::member_mute(group_id, user_id, duration_secs);
        self.act("set_group_member_mute", &request, deadline).await
    }

    async fn mute_all(&self, group_id: i64, enable: bool, deadline: Deadline) -> Result<()> {
        let request = requests::whole_mute(group_id, enable);
        self.act("set_group_whole_mute", &request, deadline).await
    }

    async fn kick_member(
        &self,
        group_id: i64,
        user_id: i64,
        reject_rejoin: bool,
        deadline: Deadline,
    ) -> Result<()> {
        let request = requests::kick_member(group_id, user_id, reject_rejoin);
        self.act("kick_group_member", &request, deadline).await
    }

    async fn set_member_card(
        &self,
        group_id: i64,
        user_id: i64,
        card: &str,
        deadline: Deadline,
    ) -> Result<()> {
        let request = requests::member_card(group_id, user_id, card);
        self.act("set_group_member_card", &request, deadline).await
    }
}

fn media_not_found(message_id: i64) -> Error {
    Error::new(
        Kind::MediaNotFound,
        format!("the Milky implementation does not know message {message_id}"),
    )
    .with("message_id", message_id)
}

/// The `file_hash` of a private file segment, read from the message's own
/// object at the media's index (empty when it has none).
fn file_hash(media: &ReceivedMedia) -> String {
    serde_json::from_str::<Value>(media.raw.text())
        .ok()
        .and_then(|m| {
            m.get("segments")?
                .get(media.index)?
                .get("data")?
                .get("file_hash")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default()
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
