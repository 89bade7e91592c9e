//! `qq_send`: [`Gateway::send_message`] (the SendMessage pipeline) with the
//! tool's arguments and details.

use schemars::JsonSchema;
use std::time::Duration;

use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{
    AccountId, MediaString, Mention, MessageId, OnBehalfOfArg, QqNumber, Target, account_rule,
    group_alias, media_rule, message_id_rule, on_behalf_of_rule, target_rule, user_alias,
};
use super::media_arg::{MediaArg, parse_media};
use super::output::{ToolOutput, domain_failure};
use super::texts::Failure;
use crate::call::CallCtx;
use crate::gateway::Gateway;
use crate::media::resolve::MediaSource;
use crate::model::ChatRef;
use crate::policy::OnBehalfOf;
use crate::write::send::{SendRequest, SendResult};
use onebot_gateway_config::Locale;

fn source(media: MediaArg) -> Option<MediaSource> {
    Some(match media {
        MediaArg::MediaId(id) => MediaSource::MediaId(id),
        MediaArg::Url(url) => MediaSource::Url(url),
        MediaArg::Path(path) => MediaSource::Path(path),
    })
}

/// The `properties` and `required` of the details' ok shape (the registry
/// adds `status`).
pub fn details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "userId": {"type": "integer", "minimum": 1},
            "chunks": {"type": "integer", "minimum": 0},
            "queued": {"type": "boolean"},
            "messageIds": {"type": "array", "items": {"type": "integer"}},
            "rateLimitWaitMs": {"type": "integer", "minimum": 0},
            "media": {
                "type": "object",
                "properties": {
                    "images": {"type": "integer", "minimum": 0, "maximum": 4},
                    "videos": {"type": "integer", "minimum": 0, "maximum": 1},
                    "voices": {"type": "integer", "minimum": 0, "maximum": 1},
                    "file": {"type": "string"}
                },
                "required": ["images", "videos", "voices", "file"],
                "additionalProperties": false
            }
        }),
        json!([
            "status",
            "chunks",
            "queued",
            "messageIds",
            "rateLimitWaitMs"
        ]),
    )
}

/// The arguments object of `qq_send` as a model sends it: the source of
/// its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendInput {
    #[doc = concat!("The chat; a group must be whitelisted, a private chat in the private whitelist. Omit every chat argument to send to the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = user_alias!()]
    pub user_id: Option<QqNumber>,
    /// Text to send (at most 20000 characters).
    #[schemars(length(max = 20000))]
    pub text: Option<String>,
    /// Up to 4 images.
    #[schemars(length(max = 4))]
    pub images: Option<Vec<MediaString>>,
    /// Up to 1 video.
    #[schemars(length(max = 1))]
    pub videos: Option<Vec<MediaString>>,
    /// Up to 1 voice message (MP3/WAV/OGG/AMR/SILK).
    #[schemars(length(max = 1))]
    pub voices: Option<Vec<MediaString>>,
    #[doc = media_rule!()]
    pub file: Option<MediaString>,
    /// Display name of the group file.
    pub file_name: Option<String>,
    #[doc = concat!("Quote (reply to) this message. ", message_id_rule!())]
    pub reply_to: Option<MessageId>,
    /// QQ numbers to @ mention (at most 20).
    #[schemars(length(max = 20))]
    pub mentions: Option<Vec<Mention>>,
    /// true: @全体成员 (needs admin rights).
    pub mention_all: Option<bool>,
    #[doc = on_behalf_of_rule!()]
    pub on_behalf_of: Option<OnBehalfOfArg>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_send`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendArgs {
    /// Account id.
    pub account_id: String,
    /// The chat (`target`, or its alias `groupId` / `userId`); `None` only
    /// when no chat argument was given at all: the account's only
    /// whitelisted group.
    pub chat: Option<ChatRef>,
    /// Quote this message.
    pub reply_to: Option<i64>,
    /// Mention these users.
    pub mentions: Vec<i64>,
    /// Mention everyone.
    pub mention_all: bool,
    /// Text (may be empty).
    pub text: String,
    /// Images.
    pub images: Vec<MediaArg>,
    /// Videos.
    pub videos: Vec<MediaArg>,
    /// Voice messages.
    pub voices: Vec<MediaArg>,
    /// Group file.
    pub file: Option<MediaArg>,
    /// Display name of the file (may be empty).
    pub file_name: String,
    /// Who the message is sent for.
    pub on_behalf_of: Option<OnBehalfOf>,
}

impl SendArgs {
    /// Types and media strings, ids, and the chat ([`Args::chat`]); counts,
    /// lengths and the whitelist are the send pipeline's (the same checks
    /// as `SendMessage`).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        let media = |field: &'static str| -> Result<Vec<MediaArg>, ArgError> {
            args.string_array(field)?
                .into_iter()
                .enumerate()
                .map(|(i, s)| {
                    parse_media(&s).ok_or_else(|| ArgError::BadMedia {
                        field: format!("{field}[{i}]"),
                        value: s,
                    })
                })
                .collect()
        };
        let file = match args.optional_string("file")? {
            None => None,
            Some(s) if s.is_empty() => None,
            Some(s) => Some(parse_media(&s).ok_or_else(|| ArgError::BadMedia {
                field: "file".to_owned(),
                value: s,
            })?),
        };
        Ok(Self {
            text: args.optional_string("text")?.unwrap_or_default(),
            images: media("images")?,
            videos: media("videos")?,
            voices: media("voices")?,
            file,
            file_name: args.optional_string("fileName")?.unwrap_or_default(),
            chat: args.chat(true)?,
            reply_to: args.message_id("replyTo")?,
            mentions: args.id_array("mentions")?,
            mention_all: args.flag("mentionAll").unwrap_or(false),
            account_id: args.account_id()?,
            on_behalf_of: args.on_behalf_of()?,
        })
    }
}

/// Runs the tool: one SendMessage request (no idempotency key), sent whole
/// or refused whole.
pub(super) async fn run(gw: &Gateway, args: &Args, ctx: CallCtx) -> Result<ToolOutput, Failure> {
    let args = SendArgs::parse(args).map_err(Failure::Args)?;
    let request = SendRequest {
        account_id: args.account_id.clone(),
        group_id: match args.chat {
            Some(ChatRef::Group(id)) => Some(id),
            _ => None,
        },
        user_id: match args.chat {
            Some(ChatRef::Private(id)) => Some(id),
            _ => None,
        },
        reply_to: args.reply_to,
        mentions: args.mentions,
        mention_all: args.mention_all,
        text: args.text,
        images: args.images.into_iter().map(source).collect(),
        videos: args.videos.into_iter().map(source).collect(),
        voices: args.voices.into_iter().map(source).collect(),
        file: args.file.map(source),
        file_name: args.file_name,
        idempotency_key: String::new(),
        on_behalf_of: args.on_behalf_of,
    };
    let sent = gw
        .send_message(request, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let mut details = json!({
        "status": "ok",
        "chunks": sent.chunks,
        "queued": sent.queued,
        "messageIds": sent.message_ids,
        "rateLimitWaitMs": u64::try_from(sent.rate_limit_wait.as_millis()).unwrap_or(u64::MAX),
    });
    match sent.chat() {
        ChatRef::Group(g) => details["groupId"] = json!(g),
        ChatRef::Private(u) => details["userId"] = json!(u),
    }
    if let Some(media) = &sent.media {
        details["media"] = json!({
            "images": media.images,
            "videos": media.videos,
            "voices": media.voices,
            "file": media.file,
        });
    }
    let text = summary(&sent, &args.account_id, gw.config.tools.locale);
    Ok(ToolOutput::ok(text, details))
}

/// One sentence saying what was sent (or queued) where.
fn summary(sent: &SendResult, account_id: &str, locale: Locale) -> String {
    let (where_zh, where_en) = match sent.chat() {
        ChatRef::Group(g) => (format!("群 {g}"), format!("group {g}")),
        ChatRef::Private(u) => (
            format!("QQ 用户 {u} 的私聊"),
            format!("the private chat with {u}"),
        ),
    };
    if sent.queued {
        return match locale {
            Locale::Zh => format!(
                "账号「{account_id}」当前离线：文本（{} 段）已进入发送队列，重连后按顺序发送到{where_zh}。",
                sent.chunks
            ),
            Locale::En => format!(
                "account {account_id:?} is offline: the text ({} messages) is queued and goes to {where_en} in order once it reconnects.",
                sent.chunks
            ),
        };
    }
    let mut parts_zh = Vec::new();
    let mut parts_en = Vec::new();
    if sent.chunks > 0 {
        parts_zh.push(format!("文本 {} 段", sent.chunks));
        parts_en.push(format!("{} text message(s)", sent.chunks));
    }
    if let Some(media) = &sent.media {
        if media.images > 0 {
            parts_zh.push(format!("图片 {} 张", media.images));
            parts_en.push(format!("{} image(s)", media.images));
        }
        if media.videos > 0 {
            parts_zh.push(format!("视频 {} 个", media.videos));
            parts_en.push(format!("{} video(s)", media.videos));
        }
        if !media.file.is_empty() {
            parts_zh.push(format!("文件「{}」", media.file));
            parts_en.push(format!("file {:?}", media.file));
        }
        if media.voices > 0 {
            parts_zh.push(format!("语音 {} 条", media.voices));
            parts_en.push(format!("{} voice message(s)", media.voices));
        }
    }
    let ids = sent
        .message_ids
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if parts_zh.is_empty() {
        // Only a quote or mentions.
        parts_zh.push("引用/@ 消息 1 条".to_owned());
        parts_en.push("1 quote/mention message".to_owned());
    }
    let waited = sent.rate_limit_wait;
    let mut text = match locale {
        Locale::Zh => format!(
            "已发送到{where_zh}：{}。消息 id：{}。",
            parts_zh.join("，"),
            if ids.is_empty() { "无" } else { &ids }
        ),
        Locale::En => format!(
            "sent to {where_en}: {}. Message ids: {}.",
            parts_en.join(", "),
            if ids.is_empty() { "none" } else { &ids }
        ),
    };
    if waited >= RATE_LIMIT_WAIT_SHOWN {
        let secs = waited.as_secs_f64();
        text.push_str(&match locale {
            Locale::Zh => format!("（为遵守发送频率限制，发送前等待了 {secs:.1} 秒。）"),
            Locale::En => format!(" (waited {secs:.1} s for the send rate limits first.)"),
        });
    }
    text
}

/// The shortest wait for the rate limits a send's text mentions.
const RATE_LIMIT_WAIT_SHOWN: Duration = Duration::from_millis(100);
