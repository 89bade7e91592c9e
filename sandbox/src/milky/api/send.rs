//! `send_group_message` and `send_private_message`.
//!
//! Outgoing segments: `text`, `mention{user_id}`, `mention_all` (the bot must be owner or
//! admin, else `-406`), `face{face_id}`, `reply{message_seq}` (a message of the same chat, else
//! `-404`), `image{uri}`, `record{uri}`, `video{uri}` (see `milky::media` for `uri`) and
//! `light_app{json_payload}` and `forward{messages: [{user_id, sender_name, segments}]}` (stored
//! as a merged-forward bundle that `get_forwarded_messages` opens; a quote inside it is a
//! `-400`); any other type is a `-400`. The message is stored in the world's
//! (OneBot-shaped) form, so both faces see it: it joins history and `get_message`, its media are
//! served by the media host and recorded as received media. The answer is its `message_seq` and
//! `time`. The bot's own message is pushed as `message_receive` (`sender_id` the bot) when
//! [`report_self_message`](crate::SandboxConfig::report_self_message) is on, as acidify's
//! `reportSelfMessage` (on by default) does. `send_private_message` reaches friends only
//! (`-404` otherwise).

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value, json};

use super::super::params::{Body, MAX_UIN, MIN_UIN};
use super::super::{MilkyError, MilkyResult, entities, events, media};
use crate::events::now;
use crate::media::{Loaded, MediaKind, ReceivedMedia};
use crate::shared::Shared;
use crate::state::{ChatRef, ForwardNode, NewMessage, Role, World};

/// One outgoing segment, checked.
enum Out {
    Text(String),
    Mention(i64),
    MentionAll,
    Face(String),
    Reply(i64),
    Media(MediaKind, Map<String, Value>, Loaded),
    LightApp(String),
    Forward(Vec<NodeOut>),
}

/// One message of an outgoing forward bundle.
struct NodeOut {
    user_id: i64,
    name: String,
    segments: Vec<Out>,
}

/// A segment's fields, with the field path for errors.
struct Seg<'a> {
    data: &'a Map<String, Value>,
    at: String,
}

impl Seg<'_> {
    fn err(&self, key: &str, what: &str) -> MilkyError {
        MilkyError::bad(format!("{}.data.{key}: {what}", self.at))
    }

    fn string(&self, key: &str) -> Result<String, MilkyError> {
        self.data
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| self.err(key, "expected a string"))
    }

    fn int(&self, key: &str, min: i64, max: i64) -> Result<i64, MilkyError> {
        self.data
            .get(key)
            .and_then(Value::as_i64)
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| self.err(key, &format!("expected an integer in [{min}, {max}]")))
    }
}

type Checked<'a> = Pin<Box<dyn Future<Output = Result<Out, MilkyError>> + Send + 'a>>;

/// The nodes of an outgoing `forward` segment (`at` is the segment's path).
async fn forward_nodes(s: &Seg<'_>) -> Result<Vec<NodeOut>, MilkyError> {
    let messages = s
        .data
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| s.err("messages", "expected an array"))?;
    let mut nodes = Vec::with_capacity(messages.len());
    for (n, m) in messages.iter().enumerate() {
        let at = format!("{}.data.messages[{n}]", s.at);
        let o = m
            .as_object()
            .ok_or_else(|| MilkyError::bad(format!("{at}: expected an object")))?;
        let node = Seg { data: o, at };
        let user_id = node.int("user_id", MIN_UIN, MAX_UIN)?;
        let name = node.string("sender_name")?;
        let segs = o
            .get("segments")
            .and_then(Value::as_array)
            .ok_or_else(|| node.err("segments", "expected an array"))?;
        let mut segments = Vec::with_capacity(segs.len());
        for (k, seg) in segs.iter().enumerate() {
            segments.push(check(format!("{}.segments[{k}]", node.at), seg).await?);
        }
        nodes.push(NodeOut {
            user_id,
            name,
            segments,
        });
    }
    if nodes.is_empty() {
        return Err(s.err("messages", "empty"));
    }
    Ok(nodes)
}

/// Checks one segment at path `at`; media `uri`s are resolved here, before the world is
/// locked.
fn check(at: String, seg: &Value) -> Checked<'_> {
    Box::pin(async move {
        let o = seg
            .as_object()
            .ok_or_else(|| MilkyError::bad(format!("{at}: expected a segment object")))?;
        let kind = o
            .get("type")
            .and_then(Value::as_str)
            .ok_or_else(|| MilkyError::bad(format!("{at}.type: expected a string")))?;
        let empty = Map::new();
        let data = match o.get("data") {
            Some(Value::Object(d)) => d,
            None if kind == "mention_all" => &empty,
            _ => return Err(MilkyError::bad(format!("{at}.data: expected an object"))),
        };
        let s = Seg { data, at };
        Ok(match kind {
            "text" => Out::Text(s.string("text")?),
            "mention" => Out::Mention(s.int("user_id", MIN_UIN, MAX_UIN)?),
            "mention_all" => Out::MentionAll,
            "face" => Out::Face(s.string("face_id")?),
            "reply" => Out::Reply(s.int("message_seq", 0, i64::MAX)?),
            "light_app" => Out::LightApp(s.string("json_payload")?),
            "forward" => Out::Forward(forward_nodes(&s).await?),
            "image" | "record" | "video" => {
                let uri = s.string("uri")?;
                let mk = MediaKind::from_segment_type(kind).unwrap_or(MediaKind::Image);
                let loaded = media::resolve(&uri, &format!("{}.data.uri", s.at)).await?;
                let mut extra = Map::new();
                if mk == MediaKind::Image {
                    let sticker = data.get("sub_type").and_then(Value::as_str) == Some("sticker");
                    extra.insert("sub_type".into(), json!(i64::from(sticker)));
                    let summary = data.get("summary").and_then(Value::as_str).unwrap_or("");
                    extra.insert("summary".into(), json!(summary));
                }
                Out::Media(mk, extra, loaded)
            }
            other => {
                return Err(MilkyError::bad(format!(
                    "{}.type: unsupported segment type {other:?}",
                    s.at
                )));
            }
        })
    })
}

/// Where a segment is being stored.
struct Target<'a> {
    chat: ChatRef,
    self_id: i64,
    /// False inside a forward bundle (no quotes there).
    quotes: bool,
    received: &'a mut Vec<ReceivedMedia>,
}

/// One checked segment in the world's stored form (`at` its path, for errors).
fn to_stored(w: &mut World, t: &mut Target<'_>, at: &str, out: Out) -> Result<Value, MilkyError> {
    let chat = t.chat;
    Ok(match out {
        Out::Text(text) => json!({"type": "text", "data": {"text": text}}),
        Out::Mention(u) => json!({"type": "at", "data": {"qq": u.to_string()}}),
        Out::MentionAll => {
            let ChatRef::Group(g) = chat else {
                return Err(MilkyError::bad(format!(
                    "{at}.type: mention_all is for groups"
                )));
            };
            if !matches!(w.role(g, t.self_id), Some(Role::Owner | Role::Admin)) {
                return Err(MilkyError::refused(format!(
                    "{at}: mentioning everyone needs the owner or an admin"
                )));
            }
            json!({"type": "at", "data": {"qq": "all"}})
        }
        Out::Face(id) => json!({"type": "face", "data": {"id": id}}),
        Out::Reply(_) if !t.quotes => {
            return Err(MilkyError::bad(format!(
                "{at}.type: no quotes in a forward"
            )));
        }
        Out::Reply(seq) => {
            let m = w
                .chat(chat)
                .and_then(|c| c.messages.get(usize::try_from(seq - 1).ok()?))
                .filter(|m| !m.recalled)
                .ok_or_else(|| {
                    MilkyError::not_found(format!("{at}.data.message_seq: no message {seq}"))
                })?;
            json!({"type": "reply", "data": {"id": m.message_id.to_string()}})
        }
        Out::LightApp(payload) => json!({"type": "json", "data": {"data": payload}}),
        Out::Forward(nodes) => {
            let quotes = std::mem::replace(&mut t.quotes, false);
            let mut bundle = Vec::with_capacity(nodes.len());
            for (n, node) in nodes.into_iter().enumerate() {
                let mut segments = Vec::with_capacity(node.segments.len());
                for (k, seg) in node.segments.into_iter().enumerate() {
                    let at = format!("{at}.data.messages[{n}].segments[{k}]");
                    segments.push(to_stored(w, t, &at, seg)?);
                }
                bundle.push(ForwardNode {
                    user_id: node.user_id,
                    nickname: node.name,
                    time: now(),
                    segments,
                });
            }
            t.quotes = quotes;
            let id = format!("sandbox-forward-{}-{}", now(), w.forwards.len());
            w.forwards.insert(id.clone(), bundle);
            json!({"type": "forward", "data": {"id": id}})
        }
        Out::Media(kind, mut data, loaded) => {
            if let Some(kept) = w.files.keep(kind, &loaded) {
                data.extend(kept);
            }
            let (group_id, user_id) = match chat {
                ChatRef::Group(g) => (Some(g), None),
                ChatRef::Private(u) => (None, Some(u)),
            };
            t.received.push(ReceivedMedia {
                kind,
                sha256: loaded.digest.as_ref().map(|d| d.sha256.clone()),
                len: loaded.digest.as_ref().map(|d| d.len),
                source: loaded.source,
                group_id,
                user_id,
                name: None,
            });
            let name = match kind {
                MediaKind::Image => "image",
                MediaKind::Record => "record",
                MediaKind::Video => "video",
                MediaKind::File => "file",
            };
            json!({"type": name, "data": data})
        }
    })
}

/// Stores the checked segments in `chat` as the bot's message; its seq and time.
fn store(shared: &Shared, chat: ChatRef, outs: Vec<Out>) -> Result<(i64, i64), MilkyError> {
    let self_id = shared.cfg.self_id;
    let mut w = shared.world.lock();
    match chat {
        ChatRef::Group(g) if w.group(g).is_none() => {
            return Err(MilkyError::not_found(format!(
                "group_id: group {g} not found"
            )));
        }
        ChatRef::Private(u) if w.friend(u).is_none() => {
            return Err(MilkyError::not_found(format!(
                "user_id: {u} is not a friend"
            )));
        }
        _ => {}
    }
    let mut received = Vec::new();
    let mut target = Target {
        chat,
        self_id,
        quotes: true,
        received: &mut received,
    };
    let mut stored = Vec::with_capacity(outs.len());
    for (i, out) in outs.into_iter().enumerate() {
        stored.push(to_stored(
            &mut w,
            &mut target,
            &format!("message[{i}]"),
            out,
        )?);
    }
    if stored.is_empty() {
        return Err(MilkyError::bad("message: empty"));
    }
    w.observe(chat);
    let sender = w.sender_for(chat, self_id);
    let time = now();
    let m = w.push(
        chat,
        NewMessage {
            time,
            sender,
            segments: stored,
            self_sent: true,
        },
    );
    let seq = m.seq;
    let event = if shared.cfg.report_self_message {
        let m = m.clone();
        entities::incoming(&w, chat, &m)
    } else {
        None
    };
    drop(w);
    shared.media.lock().extend(received);
    if let Some(data) = event {
        events::emit(shared, "message_receive", data);
    }
    Ok((seq, time))
}

pub(super) async fn send(shared: &Shared, b: Body<'_>, group: bool) -> MilkyResult {
    let chat = if group {
        ChatRef::Group(b.uin("group_id")?)
    } else {
        ChatRef::Private(b.uin("user_id")?)
    };
    let segments = b.array("message")?;
    let mut outs = Vec::with_capacity(segments.len());
    for (i, seg) in segments.iter().enumerate() {
        outs.push(check(format!("message[{i}]"), seg).await?);
    }
    let (seq, time) = store(shared, chat, outs)?;
    Ok(json!({"message_seq": seq, "time": time.max(0)}))
}
