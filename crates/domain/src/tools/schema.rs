//! The tool catalogue: names, aliases, descriptions, input schemas and
//! details schemas (JSON Schema draft 2020-12), hints.
//!
//! Descriptions are written for a model: they state ordering, limits,
//! defaults and failures, and where the gateway differs from the tools it
//! replaces (the `snowluma_*` names). Input schemas describe what a model
//! should send; the tools accept more (a string `count` falls back to 20
//! rather than fail).

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::props::{address_rule, clamp_rule, message_model, strict_rules};

/// The JSON Schema dialect of every schema here.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// One of the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    /// `qq_get_history`.
    History,
    /// `qq_get_group_members`.
    Members,
    /// `qq_send`.
    Send,
    /// `qq_poke`.
    Poke,
    /// `qq_get_message`.
    GetMessage,
    /// `qq_recall`.
    Recall,
    /// `qq_get_forward`.
    Forward,
    /// `qq_get_media`.
    Media,
    /// `qq_search_messages`.
    Search,
    /// `qq_wait_messages`.
    Wait,
    /// `qq_get_approval`.
    Approval,
    /// `qq_react`.
    React,
    /// `qq_set_essence`.
    SetEssence,
    /// `qq_list_essence`.
    ListEssence,
    /// `qq_list_group_files`.
    ListGroupFiles,
    /// `qq_get_group_file`.
    GetGroupFile,
    /// `qq_mute`.
    Mute,
    /// `qq_kick`.
    Kick,
    /// `qq_set_card`.
    SetCard,
}

impl ToolName {
    /// Every tool, in listing order.
    pub const ALL: [ToolName; 19] = [
        ToolName::History,
        ToolName::Members,
        ToolName::Send,
        ToolName::Poke,
        ToolName::GetMessage,
        ToolName::Recall,
        ToolName::Forward,
        ToolName::Media,
        ToolName::Search,
        ToolName::Wait,
        ToolName::Approval,
        ToolName::React,
        ToolName::SetEssence,
        ToolName::ListEssence,
        ToolName::ListGroupFiles,
        ToolName::GetGroupFile,
        ToolName::Mute,
        ToolName::Kick,
        ToolName::SetCard,
    ];

    /// The tool's name.
    pub fn name(self) -> &'static str {
        match self {
            ToolName::History => "qq_get_history",
            ToolName::Members => "qq_get_group_members",
            ToolName::Send => "qq_send",
            ToolName::Poke => "qq_poke",
            ToolName::GetMessage => "qq_get_message",
            ToolName::Recall => "qq_recall",
            ToolName::Forward => "qq_get_forward",
            ToolName::Media => "qq_get_media",
            ToolName::Search => "qq_search_messages",
            ToolName::Wait => "qq_wait_messages",
            ToolName::Approval => "qq_get_approval",
            ToolName::React => "qq_react",
            ToolName::SetEssence => "qq_set_essence",
            ToolName::ListEssence => "qq_list_essence",
            ToolName::ListGroupFiles => "qq_list_group_files",
            ToolName::GetGroupFile => "qq_get_group_file",
            ToolName::Mute => "qq_mute",
            ToolName::Kick => "qq_kick",
            ToolName::SetCard => "qq_set_card",
        }
    }

    /// A short human-readable name, for display.
    pub fn title(self) -> &'static str {
        match self {
            ToolName::History => "Read QQ chat history",
            ToolName::Members => "List QQ group members",
            ToolName::Send => "Send a QQ message",
            ToolName::Poke => "Poke a QQ group member",
            ToolName::GetMessage => "Read one QQ message",
            ToolName::Recall => "Recall a QQ message",
            ToolName::Forward => "Read a QQ forwarded message",
            ToolName::Media => "Get received QQ media",
            ToolName::Search => "Search archived QQ messages",
            ToolName::Wait => "Wait for new QQ messages",
            ToolName::Approval => "Check an action awaiting approval",
            ToolName::React => "React to a QQ group message",
            ToolName::SetEssence => "Mark a QQ group message as essence",
            ToolName::ListEssence => "List a QQ group's essence messages",
            ToolName::ListGroupFiles => "List a QQ group's files",
            ToolName::GetGroupFile => "Get a QQ group file",
            ToolName::Mute => "Mute a QQ group member or the whole group",
            ToolName::Kick => "Remove a member from a QQ group",
            ToolName::SetCard => "Set a QQ group member's card",
        }
    }

    /// Other names CallTool accepts (the names of the tools these replace).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            ToolName::History => &["snowluma_get_history"],
            ToolName::Members => &["snowluma_get_group_members"],
            ToolName::Send
            | ToolName::Poke
            | ToolName::GetMessage
            | ToolName::Recall
            | ToolName::Forward
            | ToolName::Media
            | ToolName::Search
            | ToolName::Wait
            | ToolName::Approval
            | ToolName::React
            | ToolName::SetEssence
            | ToolName::ListEssence
            | ToolName::ListGroupFiles
            | ToolName::GetGroupFile
            | ToolName::Mute
            | ToolName::Kick
            | ToolName::SetCard => &[],
        }
    }

    /// The tool called `name` (its name or an alias; exact match).
    pub fn resolve(name: &str) -> Option<ToolName> {
        ToolName::ALL
            .into_iter()
            .find(|t| t.name() == name || t.aliases().contains(&name))
    }

    /// True for the tools `tools.write_enabled = false` removes.
    pub fn writes(self) -> bool {
        match self {
            ToolName::History
            | ToolName::Members
            | ToolName::GetMessage
            | ToolName::Forward
            | ToolName::Media
            | ToolName::Search
            | ToolName::Wait
            | ToolName::Approval
            | ToolName::ListEssence
            | ToolName::ListGroupFiles
            | ToolName::GetGroupFile => false,
            ToolName::Send
            | ToolName::Poke
            | ToolName::Recall
            | ToolName::React
            | ToolName::SetEssence
            | ToolName::Mute
            | ToolName::Kick
            | ToolName::SetCard => true,
        }
    }

    /// True when the tool changes something other people see.
    pub fn destructive(self) -> bool {
        self.writes()
    }

    /// True when the tool may delete or overwrite something (MCP's
    /// `destructiveHint`): a recall removes a message for everyone, a kick
    /// a member; a mute or a card overwrites the member's state; a
    /// reaction or an essence mark can be removed (`remove`). Sends and
    /// pokes only add (a new message, a new poke).
    pub fn deletes(self) -> bool {
        matches!(
            self,
            ToolName::Recall
                | ToolName::React
                | ToolName::SetEssence
                | ToolName::Mute
                | ToolName::Kick
                | ToolName::SetCard
        )
    }

    /// True when calling again with the same arguments has no further
    /// effect (MCP's `idempotentHint`): every read tool, a recall and a
    /// kick (the message or member is gone after the first), a reaction,
    /// an essence mark and a card (set once, set again to the same); a
    /// send or poke repeated sends or pokes again, and a mute repeated
    /// starts its time again.
    pub fn idempotent(self) -> bool {
        !self.writes()
            || matches!(
                self,
                ToolName::Recall
                    | ToolName::React
                    | ToolName::SetEssence
                    | ToolName::Kick
                    | ToolName::SetCard
            )
    }

    /// True when the tool reaches beyond the gateway (MCP's
    /// `openWorldHint`): every tool reads from or writes to QQ, whose
    /// chats other people change, except the archive search and the
    /// approvals, which read only the gateway's own records.
    pub fn open_world(self) -> bool {
        !matches!(self, ToolName::Search | ToolName::Approval)
    }
}

/// A tool as ListTools shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Which tool.
    pub tool: ToolName,
    /// Short display name.
    pub title: &'static str,
    /// Description for the model.
    pub description: &'static str,
    /// JSON Schema of the arguments object.
    pub input_schema: Value,
    /// JSON Schema of the details object (ok and failed shapes).
    pub details_schema: Value,
    /// True when the tool only reads.
    pub read_only: bool,
    /// True when the tool changes something visible to other people.
    pub destructive: bool,
    /// True when the tool may delete or overwrite something.
    pub deletes: bool,
    /// True when repeating a call has no further effect.
    pub idempotent: bool,
    /// True when the tool reaches beyond the gateway (QQ).
    pub open_world: bool,
}

impl ToolSpec {
    /// The spec of `tool`.
    pub fn of(tool: ToolName) -> ToolSpec {
        ToolSpec {
            tool,
            title: tool.title(),
            description: description(tool),
            input_schema: input_schema(tool),
            details_schema: details_schema(tool),
            read_only: !tool.writes(),
            destructive: tool.destructive(),
            deletes: tool.deletes(),
            idempotent: tool.idempotent(),
            open_world: tool.open_world(),
        }
    }
}

const HISTORY: &str = concat!(
    "\
Read one page of a QQ group's or private chat's message history. Never throws.

Arguments:
- target (required): the chat, `group:<group number>`, `private:<QQ number>`, or bare digits (= a private chat). Aliases: groupId, userId.
- count: messages wanted. Default 20. ",
    clamp_rule!(100, 20),
    "
- anchorMessageId: page anchor, a message id (alias: messageSeq). The page holds only messages strictly older than the anchor (the anchor itself is never repeated, unlike the seed). To read further back, pass the previous page's details.nextAnchorMessageId.
- includeImages: true returns the page's images as image content after the text: at most 4, the newest first, each at most 2 MiB (larger or unfetchable ones are left out); the line of a message whose image is returned shows it as [图片#<n>], n being its place in the content (1 = the newest). Default false.
- accountId: gateway account, default \"default\".
",
    address_rule!(),
    " ",
    strict_rules!(),
    "

Result text: one line per message, oldest first: `[HH:mm:ss] name(QQ number): text` (time in the gateway's time zone, default Asia/Shanghai; name = group card, else nickname; images [图片], voice [语音], faces [表情], videos [视频], files [文件], merged forwards [合并转发], mentions @name, quotes [回复 name: text]). `（无历史消息）` when there is none.
details on success: {\"status\":\"ok\",\"target\":\"group:<id>\"|\"private:<id>\",\"count\":<messages returned>,\"senders\":[...],\"messages\":[...],\"nextAnchorMessageId\":<id> (only when older messages may exist)} (with includeImages also \"images\":[{\"n\",\"messageId\",\"segmentIndex\",\"mediaId\",\"mimeType\",\"size\"}]). ",
    message_model!(),
    "
On failure (bad target, account not configured, offline, QQ login refused the token, timeout, implementation error, history unsupported for this chat kind) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

const MEMBERS: &str = concat!(
    "\
List the members of a QQ group, in the implementation's order. Never throws.

Arguments:
- target (required): the group, `group:<group number>` (a private chat is refused: only groups have members). Alias: groupId, the group number (as seed 000: a number or a numeric string converted like JavaScript Number()).
- noCache: true fetches fresh data, bypassing the gateway's member cache; false is passed on to the implementation; any non-boolean counts as unset.
- limit: most members shown. Default 100. ",
    clamp_rule!(500, 100),
    "
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Result text: one line per member: `name(QQ number) — role` (name = group card, else nickname, else ?; role as reported: owner / admin / member, member when missing). When the group has more members than shown, a last line `（仅显示前 <shown> / 共 <total> 名成员）` follows: raise limit to see more. `（该群暂无成员信息）` when there are no members.
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"total\":<members in the group>,\"shown\":<members returned>,\"members\":[GroupMember: {\"userId\",\"nickname\",\"card\",\"role\",\"title\",\"level\",\"joinTime\",\"lastSentTime\"} (the gRPC API's JSON names; fields with a default value left out; times RFC 3339)]}.
On failure (bad target or groupId, account not configured, offline, token refused, timeout, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

const SEND: &str = concat!(
    "\
Send text, images, a video, a voice message and/or a file to a whitelisted QQ group or private chat, optionally quoting a message and mentioning members. Never throws.

Arguments (at least one of text, images, videos, voices, file, replyTo, mentions, mentionAll):
- target: the chat, `group:<group number>` (must be in the account's whitelist) or `private:<QQ number>` / bare digits (must be in the account's private whitelist, users; empty by default, which turns private sends off). Aliases: groupId, userId. Only when no chat argument is given at all does the message go to the account's only whitelisted group (several or none: refused).
- text: at most 20000 characters; long text is split into several messages at line or sentence boundaries, in order.
- images: up to 4 media strings (JPEG/PNG/GIF/BMP/WEBP, 10 MiB each by default).
- videos: up to 1 media string (MP4/MOV/WEBM/FLV/AVI/MKV, 30 MiB by default).
- voices: up to 1 media string sent as a voice message (语音; MP3/WAV/OGG/AMR/SILK, 10 MiB by default; the implementation converts it). The operator's policy action is send_voice.
- file: one media string sent as a group file (30 MiB by default); fileName: its display name (default: the upload's, URL's or path's name).
- replyTo: quote (reply to) this message id; the quote leads the first message.
- mentions: up to 20 QQ numbers to @ mention, after the quote and before the text (groups; most implementations drop mentions in private chats).
- mentionAll: true to @全体成员 (the bot must be a group admin; QQ's refusal comes back as the error).
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy decides by their role (bot owner, group owner, admin, member, stranger).
- accountId: gateway account, default \"default\".
",
    address_rule!(),
    " ",
    strict_rules!(),
    "
A media string is `media:<media_id>` (an id returned by MediaService.UploadMedia, or the mediaId of a received segment), an http(s) URL the gateway downloads (loopback and private addresses refused), or an absolute path on the gateway host. Unlike the seed, server paths work only under the media roots the operator configured (media.media_roots; off by default).

Order of delivery: text, images, video, file, voice (a voice message is always a message of its own). Everything is checked and every media source resolved before anything is sent: a call is sent whole or refused whole. While the account is offline a text-only send is queued and delivered in order on reconnect (queued: true); a send with media fails while offline.
details on success: {\"status\":\"ok\",\"groupId\":<number> (group sends) or \"userId\":<number> (private sends),\"chunks\":<text messages>,\"queued\":<bool>,\"messageIds\":[...],\"rateLimitWaitMs\":<how long the send waited for the rate limits before its first message>,\"media\":{\"images\":n,\"videos\":n,\"voices\":n,\"file\":\"name\"} (only when media were sent)}.
On failure (nothing to send, text too long, too many images, videos or voices, more than 20 mentions, group or user not whitelisted, no chat given with several whitelisted groups, media not found / too large / wrong type / forbidden, offline with media, bot muted, rate limited, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
An action the operator's policy holds for the bot owner's approval is not an error: details = {\"status\":\"pending_approval\",\"approvalId\":\"<id>\",\"actions\":[...]}; nothing was done yet (an MCP client that asked its user answers with \"status\":\"approval_decided\" and the approval's state). Tell the user it awaits approval and follow it with qq_get_approval; never send it again. A refusal by the policy is an error naming the rule and the roles it allows."
);

const POKE: &str = concat!(
    "\
Poke (戳一戳) a member of a whitelisted QQ group. Never throws.

Arguments:
- userId (required): QQ number of the member to poke (here userId is the member, not a chat).
- target: the group, `group:<group number>`, in the account's whitelist (a private chat is refused: pokes are in groups). Alias: groupId. Only when neither is given does the poke go to the account's only whitelisted group; target or groupId given as null or \"\" is refused, and the two naming different groups are refused.
- onBehalfOf: the QQ user you act for: {\"messageId\": <id>} of the message that asked you (preferred), or {\"userId\": <QQ number>}; the operator's policy decides by their role (bot owner, group owner, admin, member, stranger).
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

A poke is not a message: it is never queued (an offline account fails with 当前离线) and does not appear in history.
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"userId\":<number>}.
On failure (bad userId, group not whitelisted, no group given with several whitelisted groups, offline, the implementation cannot poke, rate limited, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}.
An action the operator's policy holds for the bot owner's approval is not an error: details = {\"status\":\"pending_approval\",\"approvalId\":\"<id>\",\"actions\":[...]}; nothing was done yet (an MCP client that asked its user answers with \"status\":\"approval_decided\" and the approval's state). Tell the user it awaits approval and follow it with qq_get_approval; never send it again. A refusal by the policy is an error naming the rule and the roles it allows."
);

const MEDIA: &str = concat!(
    "\
Get one received image, voice record, video or file of a QQ message. Never throws.

Arguments (one of):
- mediaId: the mediaId of an image, record, video or file segment (in the segments of the messages other tools return), or an UploadMedia id.
- messageId and segmentIndex: the message id and the 0-based index of the segment in the message (default 0).
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Received media are kept by the gateway when they arrive (images and voice records of whitelisted groups by default), so they outlive QQ's expiring links; anything else is fetched from QQ now.
Result: an image comes as image content after a text line `[图片] 媒体 <mediaId>：image，<mime type>，<size> 字节，文件名 <name>`; any other kind only as such a line (语音 / 视频 / 文件), use MediaService.DownloadMedia for its bytes. A voice record is the implementation's converted MP3 where it can convert.
details on success: {\"status\":\"ok\",\"mediaId\",\"kind\":\"image\"|\"record\"|\"video\"|\"file\",\"mimeType\",\"size\",\"sha256\",\"fileName\"}.
On failure (no mediaId or messageId, an unknown or expired media id, a segment that is not media, a message QQ no longer has, media QQ cannot deliver, too large, account not configured, offline) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

const SEARCH: &str = concat!(
    "\
Search the gateway's message archive of the QQ chats it serves (whitelisted groups and configured chats: every message received, sent or read there, kept 30 days by default). Never throws. Read-only.

Arguments (all optional):
- query: text to find inside the message text, case-insensitive; Chinese works as is (\"开会\" finds 明天下午开会). Absent or empty: every message.
- target: only this chat: `group:<group number>`, `private:<QQ number>`, or bare digits (= a private chat). Aliases: groupId, userId. Absent: every archived chat.
- since / until: ISO 8601 times, e.g. `2026-11-30T18:00:00+08:00`, `2026-11-30 18:00` or `2026-11-30` (without an offset: the gateway's time zone, default Asia/Shanghai). Messages at or after since and before until.
- senderId: only messages from this QQ number.
- limit: matches per page. Default 20. ",
    clamp_rule!(100, 20),
    "
- pageToken: details.nextPageToken of the previous result, for the next (older) matches; keep the other arguments the same.
- accountId: gateway account, default \"default\".
",
    address_rule!(),
    " ",
    strict_rules!(),
    "

Result text: the newest matches first page by page, each page oldest first, one line per message: `[HH:mm:ss] name(QQ number): text`; when the page spans several chats each line starts with its chat (`group:<id> `). `（没有找到匹配的消息）` when nothing matches. When older matches exist, a last line gives the pageToken.
details on success: {\"status\":\"ok\",\"count\":<matches returned>,\"senders\":[...],\"messages\":[... each also with its \"chat\":{\"groupId\"}|{\"userId\"}],\"nextPageToken\" (only when older matches exist)}. Recalled messages are left out. ",
    message_model!(),
    "
On failure (bad target, time, senderId or pageToken, account not configured, the archive turned off, the token may not read the chat) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

fn description(tool: ToolName) -> &'static str {
    match tool {
        ToolName::History => HISTORY,
        ToolName::Members => MEMBERS,
        ToolName::Send => SEND,
        ToolName::Poke => POKE,
        ToolName::GetMessage => super::get_message::DESCRIPTION,
        ToolName::Recall => super::recall::DESCRIPTION,
        ToolName::Forward => super::forward::DESCRIPTION,
        ToolName::Media => MEDIA,
        ToolName::Search => SEARCH,
        ToolName::Wait => super::wait::DESCRIPTION,
        ToolName::Approval => super::approval::DESCRIPTION,
        ToolName::React => super::react::DESCRIPTION,
        ToolName::SetEssence => super::essence::SET_DESCRIPTION,
        ToolName::ListEssence => super::essence::LIST_DESCRIPTION,
        ToolName::ListGroupFiles => super::group_files::LIST_DESCRIPTION,
        ToolName::GetGroupFile => super::group_files::GET_DESCRIPTION,
        ToolName::Mute => super::moderation::MUTE_DESCRIPTION,
        ToolName::Kick => super::moderation::KICK_DESCRIPTION,
        ToolName::SetCard => super::moderation::SET_CARD_DESCRIPTION,
    }
}

/// The argument names `tool` takes: exactly the `properties` of its input
/// schema (aliases included).
/// Derived once per process: every tool call checks its arguments by it.
pub fn accepted_keys(tool: ToolName) -> &'static [String] {
    static KEYS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        ToolName::ALL
            .iter()
            .map(|t| {
                input_schema(*t)["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect())
                    .unwrap_or_default()
            })
            .collect()
    });
    let index = ToolName::ALL
        .iter()
        .position(|t| *t == tool)
        .expect("every tool is in ToolName::ALL");
    &keys[index]
}

/// The JSON Schema of a tool's arguments, derived from its arguments
/// object ([`super::input`]).
fn input_schema(tool: ToolName) -> Value {
    use super::input::schema;
    match tool {
        ToolName::History => schema::<super::history::HistoryInput>(),
        ToolName::Members => schema::<super::members::MembersInput>(),
        ToolName::Send => schema::<super::send::SendInput>(),
        ToolName::Poke => schema::<super::poke::PokeInput>(),
        ToolName::GetMessage => schema::<super::get_message::GetMessageInput>(),
        ToolName::Recall => schema::<super::recall::RecallInput>(),
        ToolName::Forward => schema::<super::forward::ForwardInput>(),
        ToolName::Media => schema::<super::media::MediaInput>(),
        ToolName::Search => schema::<super::search::SearchInput>(),
        ToolName::Wait => schema::<super::wait::WaitInput>(),
        ToolName::Approval => schema::<super::approval::ApprovalInput>(),
        ToolName::React => schema::<super::react::ReactInput>(),
        ToolName::SetEssence => schema::<super::essence::SetEssenceInput>(),
        ToolName::ListEssence => schema::<super::essence::ListEssenceInput>(),
        ToolName::ListGroupFiles => schema::<super::group_files::ListGroupFilesInput>(),
        ToolName::GetGroupFile => schema::<super::group_files::GetGroupFileInput>(),
        ToolName::Mute => schema::<super::moderation::MuteInput>(),
        ToolName::Kick => schema::<super::moderation::KickInput>(),
        ToolName::SetCard => schema::<super::moderation::SetCardInput>(),
    }
}

/// The details of a write the policy held for approval: `pending_approval`
/// (nothing done yet), or, over MCP once the client's user answered,
/// `approval_decided` with where the approval ended (`qq_get_approval`'s
/// fields).
fn approval_shape() -> Value {
    json!({
        "type": "object",
        "properties": {
            "status": {"enum": ["pending_approval", "approval_decided"]},
            "approvalId": {"type": "string", "minLength": 1},
            "actions": {"type": "array", "items": {"type": "string"}},
            "state": {"enum": crate::policy::store::ApprovalState::ALL.map(|s| s.name())},
            "target": {"type": "string"},
            "messageIds": {"type": "array", "items": {"type": "integer"}},
            "decidedBy": {"type": "string"},
            "error": {"type": "string"}
        },
        "required": ["status", "approvalId", "actions"],
        "additionalProperties": false
    })
}

/// The JSON Schema of a tool's details: its ok shape or the failed shape
/// (and for write tools, the approval shape).
fn details_schema(tool: ToolName) -> Value {
    let (properties, required) = match tool {
        ToolName::History => super::history::details_properties(),
        ToolName::Members => super::members::details_properties(),
        ToolName::Send => super::send::details_properties(),
        ToolName::Poke => super::poke::details_properties(),
        ToolName::GetMessage => super::get_message::details_properties(),
        ToolName::Recall => super::recall::details_properties(),
        ToolName::Forward => super::forward::details_properties(),
        ToolName::Media => super::media::details_properties(),
        ToolName::Search => super::search::details_properties(),
        ToolName::Wait => super::wait::details_properties(),
        ToolName::Approval => super::approval::details_properties(),
        ToolName::React => super::react::details_properties(),
        ToolName::SetEssence => super::essence::set_details_properties(),
        ToolName::ListEssence => super::essence::list_details_properties(),
        ToolName::ListGroupFiles => super::group_files::list_details_properties(),
        ToolName::GetGroupFile => super::group_files::get_details_properties(),
        ToolName::Mute => super::moderation::mute_details_properties(),
        ToolName::Kick => super::moderation::kick_details_properties(),
        ToolName::SetCard => super::moderation::set_card_details_properties(),
    };
    let mut ok_properties = properties;
    if let Some(map) = ok_properties.as_object_mut() {
        map.insert("status".to_owned(), json!({"const": "ok"}));
    }
    let mut shapes = vec![
        json!({
            "type": "object",
            "properties": ok_properties,
            "required": required,
            "additionalProperties": false
        }),
        json!({
            "type": "object",
            "properties": {
                "status": {"const": "failed"},
                "error": {"type": "string", "minLength": 1}
            },
            "required": ["status", "error"],
            "additionalProperties": false
        }),
    ];
    if tool.writes() {
        shapes.push(approval_shape());
    }
    // `type: object` at the top too: MCP clients expect an output schema
    // to describe an object.
    json!({
        "$schema": DIALECT,
        "$defs": super::props::defs(),
        "type": "object",
        "oneOf": shapes
    })
}
