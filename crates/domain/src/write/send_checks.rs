//! SendMessage's checks of the request itself, made before the peer or a
//! store is asked: the chat it goes to, its content, its quote and
//! mentions; and its idempotency fingerprint.

use sha2::{Digest, Sha256};

use super::send::{MAX_IMAGES, MAX_TEXT_CHARS, MAX_VIDEOS, MAX_VOICES, SendRequest};
use crate::account::Account;
use crate::delivery::lead::{Lead, MAX_MENTIONS};
use crate::delivery::outbound::{not_allowed, user_not_allowed};
use crate::error::{Error, Kind, Result};
use crate::media::resolve::MediaSource;
use crate::model::ChatRef;

/// Decides the target group: an explicit group must be whitelisted; none
/// means the one whitelisted group.
pub fn resolve_group(account: &Account, requested: Option<i64>) -> Result<i64> {
    let whitelist = &account.config.groups;
    match requested {
        Some(g) if g <= 0 => {
            Err(Error::invalid("group_id", "group_id must be positive").with("group_id", g))
        }
        Some(g) if whitelist.contains(&g) => Ok(g),
        Some(g) => Err(not_allowed(g)),
        None => match whitelist.as_slice() {
            [only] => Ok(*only),
            [] => Err(Error::new(
                Kind::GroupRequired,
                "group_id is required: this account has no whitelisted group",
            )
            .with("whitelist", "")
            .field("group_id")),
            several => {
                let list = several
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(",");
                Err(Error::new(
                    Kind::GroupRequired,
                    format!(
                        "group_id is required: this account whitelists several groups ({list})"
                    ),
                )
                .with("whitelist", list)
                .field("group_id"))
            }
        },
    }
}

/// Decides the target chat: a private chat's user must be in the `users`
/// whitelist; otherwise the group as [`resolve_group`] decides. Both a group
/// and a user is invalid.
pub fn resolve_chat(
    account: &Account,
    group_id: Option<i64>,
    user_id: Option<i64>,
) -> Result<ChatRef> {
    match (group_id, user_id) {
        (Some(g), Some(u)) => Err(Error::invalid(
            "user_id",
            "give group_id or user_id, not both: a message goes to one chat",
        )
        .with("group_id", g)
        .with("user_id", u)),
        (_, Some(u)) if u <= 0 => {
            Err(Error::invalid("user_id", "user_id must be positive").with("user_id", u))
        }
        (_, Some(u)) if account.config.users.contains(&u) => Ok(ChatRef::Private(u)),
        (_, Some(u)) => Err(user_not_allowed(u)),
        (g, None) => resolve_group(account, g).map(ChatRef::Group),
    }
}

/// Checks the content of a request; returns the sources, validated.
pub(super) struct Content {
    pub(super) text: String,
    pub(super) images: Vec<MediaSource>,
    pub(super) videos: Vec<MediaSource>,
    pub(super) file: Option<MediaSource>,
    pub(super) voices: Vec<MediaSource>,
    pub(super) lead: Lead,
}

impl Content {
    pub(super) fn has_media(&self) -> bool {
        !self.images.is_empty()
            || !self.videos.is_empty()
            || self.file.is_some()
            || !self.voices.is_empty()
    }
}

/// The quote and mentions of a request: a non-zero quoted id, at most
/// [`MAX_MENTIONS`] positive QQ numbers (duplicates mentioned once).
fn validate_lead(req: &SendRequest) -> Result<Lead> {
    if req.reply_to == Some(0) {
        return Err(Error::invalid(
            "reply_to_message_id",
            "reply_to_message_id must be a message id (not 0)",
        ));
    }
    if req.mentions.len() > MAX_MENTIONS {
        return Err(Error::invalid(
            "mention_user_ids",
            format!(
                "{} mentions; at most {MAX_MENTIONS} per message",
                req.mentions.len()
            ),
        )
        .with("count", req.mentions.len())
        .with("limit", MAX_MENTIONS));
    }
    let mut mentions: Vec<i64> = Vec::with_capacity(req.mentions.len());
    for (i, id) in req.mentions.iter().enumerate() {
        if *id <= 0 {
            return Err(Error::invalid(
                &format!("mention_user_ids[{i}]"),
                format!("mention_user_ids[{i}] must be a positive QQ number, got {id}"),
            )
            .with("user_id", id));
        }
        if !mentions.contains(id) {
            mentions.push(*id);
        }
    }
    Ok(Lead {
        reply_to: req.reply_to,
        mentions,
        mention_all: req.mention_all,
    })
}

/// Checks the content of `req` (see the module docs of [`super::send`]);
/// returns it validated.
pub(super) fn validate_content(req: &SendRequest) -> Result<Content> {
    let has_text = !req.text.trim().is_empty();
    let has_media = !req.images.is_empty()
        || !req.videos.is_empty()
        || req.file.is_some()
        || !req.voices.is_empty();
    let has_lead = req.reply_to.is_some() || !req.mentions.is_empty() || req.mention_all;
    if !has_text && !has_media && !has_lead {
        return Err(Error::new(
            Kind::EmptyMessage,
            "nothing to send: give text, images, videos, a voice, a file, a quote or mentions",
        ));
    }
    let chars = req.text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(Error::new(
            Kind::TextTooLong,
            format!("text is {chars} characters; at most {MAX_TEXT_CHARS}"),
        )
        .with("length", chars)
        .with("limit", MAX_TEXT_CHARS)
        .field("text"));
    }
    if req.images.len() > MAX_IMAGES {
        return Err(Error::new(
            Kind::TooManyImages,
            format!("{} images; at most {MAX_IMAGES}", req.images.len()),
        )
        .with("count", req.images.len())
        .with("limit", MAX_IMAGES)
        .field("images"));
    }
    if req.videos.len() > MAX_VIDEOS {
        return Err(Error::new(
            Kind::TooManyVideos,
            format!("{} videos; at most {MAX_VIDEOS}", req.videos.len()),
        )
        .with("count", req.videos.len())
        .with("limit", MAX_VIDEOS)
        .field("videos"));
    }
    if req.voices.len() > MAX_VOICES {
        return Err(Error::invalid(
            "voices",
            format!("{} voices; at most {MAX_VOICES}", req.voices.len()),
        )
        .with("count", req.voices.len())
        .with("limit", MAX_VOICES));
    }
    let check = |field: String, s: &Option<MediaSource>| -> Result<MediaSource> {
        match s {
            None => Err(Error::invalid(
                &field,
                "set one of media_id, url, path or data",
            )),
            Some(s) => s.validate(&field).map(|()| s.clone()),
        }
    };
    let images = req
        .images
        .iter()
        .enumerate()
        .map(|(i, s)| check(format!("images[{i}]"), s))
        .collect::<Result<Vec<_>>>()?;
    let videos = req
        .videos
        .iter()
        .enumerate()
        .map(|(i, s)| check(format!("videos[{i}]"), s))
        .collect::<Result<Vec<_>>>()?;
    let file = match &req.file {
        None => None,
        Some(s) => Some(check("file".into(), s)?),
    };
    let voices = req
        .voices
        .iter()
        .enumerate()
        .map(|(i, s)| check(format!("voices[{i}]"), s))
        .collect::<Result<Vec<_>>>()?;
    let lead = validate_lead(req)?;
    Ok(Content {
        lead,
        text: if has_text {
            req.text.clone()
        } else {
            String::new()
        },
        images,
        videos,
        file,
        voices,
    })
}

/// A stable digest of what a request asks for (its idempotency identity).
pub(super) fn fingerprint(account_id: &str, req: &SendRequest) -> String {
    let mut h = Sha256::new();
    let mut field = |tag: &str, bytes: &[u8]| {
        h.update(tag.as_bytes());
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field("account", account_id.as_bytes());
    field("group", format!("{:?}", req.group_id).as_bytes());
    // Fields added later enter only when set, so the identity of a request
    // without them is what it always was.
    if let Some(user) = req.user_id {
        field("user", user.to_string().as_bytes());
    }
    if let Some(reply) = req.reply_to {
        field("reply_to", reply.to_string().as_bytes());
    }
    for m in &req.mentions {
        field("mention", m.to_string().as_bytes());
    }
    if req.mention_all {
        field("mention_all", b"true");
    }
    field("text", req.text.as_bytes());
    let mut source = |tag: &str, s: &Option<MediaSource>| match s {
        None => field(tag, b"none"),
        Some(MediaSource::MediaId(v)) => field(&format!("{tag}/id"), v.as_bytes()),
        Some(MediaSource::Url(v)) => field(&format!("{tag}/url"), v.as_bytes()),
        Some(MediaSource::Path(v)) => field(&format!("{tag}/path"), v.as_bytes()),
        Some(MediaSource::Data(v)) => field(&format!("{tag}/data"), &Sha256::digest(v)),
    };
    for s in &req.images {
        source("image", s);
    }
    for s in &req.videos {
        source("video", s);
    }
    if let Some(s) = &req.file {
        source("file", s);
    }
    for s in &req.voices {
        source("voice", s);
    }
    field("file_name", req.file_name.as_bytes());
    hex::encode(h.finalize())
}
