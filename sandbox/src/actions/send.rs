//! `send_group_msg`, `send_private_msg`, `send_msg`.
//!
//! A successful send stores the message (so history and `get_msg` return it), marks the chat
//! observed, emits a `message_sent` event (if enabled) and replies `{message_id}`. Inline media
//! is decoded and recorded in [`received_media`](crate::SandboxControl::received_media); the
//! stored segment keeps only a file name, size and URL, never the payload.
//!
//! Quotes and mentions are stored as the flavor reports them back:
//!
//! | flavor    | `reply` to an unknown message       | `at` stored as    | `at` in private | `@all` without admin |
//! |-----------|-------------------------------------|-------------------|-----------------|----------------------|
//! | NapCat    | dropped, message sent               | `{qq}`            | dropped         | send fails           |
//! | LLOneBot  | dropped, message sent               | `{qq, name}`      | dropped         | dropped              |
//! | Lagrange  | the whole send fails, no text       | `{qq, name}`      | kept            | send fails           |
//! | SnowLuma  | dropped, message sent               | `{qq}`            | kept            | send fails           |
//! | go-cqhttp | sent as literal `[CQ:reply,id=…]` text, moved first | `{qq}` | kept       | dropped              |
//!
//! An all-`node` message becomes one merged-forward message whose bundle `get_forward_msg`
//! opens.

use serde_json::{Map, Value, json};

use crate::events;
use crate::fault::{self, Fault, FaultKind, Faults};
use crate::flavor::Flavor;
use crate::media::{self, DigestCache, MediaKind, MediaSource, ReceivedMedia};
use crate::message::{self, View};
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{ChatRef, ForwardNode, NewMessage, Role, World};

/// go-cqhttp's generic send failure.
fn gocq_send_failed() -> ActionError {
    ActionError::failed("请参考 go-cqhttp 端输出").with_code("SEND_MSG_API_ERROR")
}

fn target(name: &str, p: Params<'_>) -> Result<ChatRef, ActionError> {
    match name {
        "send_group_msg" => Ok(ChatRef::Group(p.req_int("group_id")?)),
        "send_private_msg" => Ok(ChatRef::Private(p.req_int("user_id")?)),
        _ => {
            let group_id = p.int("group_id")?;
            let user_id = p.int("user_id")?;
            match (p.str("message_type").as_deref(), group_id, user_id) {
                (Some("group"), Some(g), _) => Ok(ChatRef::Group(g)),
                (Some("private"), _, Some(u)) => Ok(ChatRef::Private(u)),
                (None | Some(""), Some(g), _) => Ok(ChatRef::Group(g)),
                (None | Some(""), None, Some(u)) => Ok(ChatRef::Private(u)),
                _ => Err(ActionError::failed("请指定正确的 group_id 或 user_id")),
            }
        }
    }
}

/// Checks the target exists (group, or a user the bot can reach).
fn check_target(
    shared: &Shared,
    chat: ChatRef,
    temp_group: Option<i64>,
) -> Result<(), ActionError> {
    let w = shared.world.lock();
    match chat {
        ChatRef::Group(g) => {
            if w.group(g).is_none() {
                return Err(
                    ActionError::failed(format!("群{g}不存在")).with_code("GROUP_NOT_FOUND")
                );
            }
        }
        ChatRef::Private(u) => {
            let reachable = w.friend(u).is_some()
                || temp_group
                    .and_then(|g| w.group(g))
                    .is_some_and(|g| g.member(u).is_some())
                || w.groups.iter().any(|g| g.member(u).is_some());
            if !reachable {
                return Err(
                    ActionError::failed(format!("用户{u}不存在")).with_code("USER_NOT_FOUND")
                );
            }
        }
    }
    Ok(())
}

/// Resolves one media segment: records what was received and returns the stored form.
fn media_segment(
    shared: &Shared,
    kind: MediaKind,
    mut data: Map<String, Value>,
    chat: ChatRef,
    cache: &DigestCache<'_>,
    received: &mut Vec<ReceivedMedia>,
) -> Result<Map<String, Value>, ActionError> {
    // NapCat's source priority: url → file → path. Borrowed, not copied: it
    // may be a 40 MB base64 string.
    let source = ["url", "file", "path"]
        .iter()
        .find_map(|k| {
            data.get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        })
        .ok_or_else(|| ActionError::failed("识别URL失败, 缺少 file 参数"))?;
    let flavor = shared.cfg.flavor;
    let loaded = media::load(source, cache).map_err(|e| ActionError::failed(e.to_string()))?;
    if flavor == Flavor::GoCqhttp
        && kind == MediaKind::Video
        && loaded.source == MediaSource::Base64
    {
        // go-cqhttp: video `file` supports only http and file.
        return Err(gocq_send_failed());
    }
    let name = data.get("name").and_then(Value::as_str).map(str::to_owned);
    let (group_id, user_id) = match chat {
        ChatRef::Group(g) => (Some(g), None),
        ChatRef::Private(u) => (None, Some(u)),
    };
    let url = match (&loaded.source, &loaded.digest) {
        (MediaSource::Url(u), _) => u.clone(),
        (MediaSource::Path(p), _) => format!("file://{p}"),
        (MediaSource::Base64, Some(d)) => {
            format!(
                "https://multimedia.nt.qq.com.cn/download?fileid=sandbox-{}",
                d.sha256
            )
        }
        (MediaSource::Base64, None) => String::new(),
    };
    data.insert("file".into(), json!(loaded.stored_name(kind)));
    data.insert("url".into(), json!(url));
    data.remove("path");
    if let Some(d) = &loaded.digest {
        data.insert("file_size".into(), json!(d.len.to_string()));
    }
    // The bytes are kept: the stored segment is served (`get_image`, its
    // signed URL) as received media are.
    if let Some(kept) = shared.world.lock().files.keep(kind, &loaded) {
        data.extend(kept);
    }
    received.push(ReceivedMedia {
        kind,
        sha256: loaded.digest.as_ref().map(|d| d.sha256.clone()),
        len: loaded.digest.as_ref().map(|d| d.len),
        source: loaded.source,
        group_id,
        user_id,
        name,
    });
    Ok(data)
}

/// What a `reply` segment becomes.
enum Quote {
    /// Stored with this data.
    Keep(Map<String, Value>),
    /// Stored as this literal text (go-cqhttp's invalid CQ code).
    Text(String),
    /// Left out.
    Drop,
}

fn quote(w: &World, chat: ChatRef, data: &Map<String, Value>) -> Result<Quote, ActionError> {
    let p = Params(data);
    let id = p.int("id")?;
    let known = id
        .and_then(|id| w.find(id))
        .filter(|(found, _)| *found == chat)
        .map(|(_, m)| m.message_id);
    Ok(match (known, w.flavor) {
        (Some(id), _) => {
            let mut d = Map::new();
            d.insert("id".into(), json!(id.to_string()));
            Quote::Keep(d)
        }
        (None, Flavor::Lagrange) => return Err(ActionError::failed(String::new())),
        (None, Flavor::GoCqhttp) => {
            Quote::Text(format!("[CQ:reply,id={}]", p.str("id").unwrap_or_default()))
        }
        (None, _) => Quote::Drop,
    })
}

/// The text each flavor refuses an `@全体成员` with when the bot is no admin.
fn at_all_refused(flavor: Flavor) -> ActionError {
    match flavor {
        Flavor::SnowLuma => ActionError::failed("no permission to mention all members"),
        Flavor::Lagrange => ActionError::failed(String::new()),
        _ => ActionError::failed("发送失败：没有 @全体成员 的权限（需要群主或管理员）"),
    }
}

/// What an `at` segment becomes (`None`: left out).
fn mention(
    w: &World,
    chat: ChatRef,
    data: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, ActionError> {
    let flavor = w.flavor;
    let qq = Params(data).str("qq").unwrap_or_default();
    let qq = qq.trim();
    let group = match chat {
        ChatRef::Group(g) => g,
        ChatRef::Private(_) if matches!(flavor, Flavor::NapCat | Flavor::LlOneBot) => {
            return Ok(None);
        }
        ChatRef::Private(_) => 0,
    };
    let mut d = Map::new();
    if qq == "all" {
        let admin = matches!(w.role(group, w.self_id), Some(Role::Owner | Role::Admin));
        if !admin {
            return match flavor {
                Flavor::LlOneBot | Flavor::GoCqhttp => Ok(None),
                _ => Err(at_all_refused(flavor)),
            };
        }
        d.insert("qq".into(), json!("all"));
        return Ok(Some(d));
    }
    d.insert("qq".into(), json!(qq));
    if matches!(flavor, Flavor::LlOneBot | Flavor::Lagrange)
        && let Ok(user) = qq.parse::<i64>()
    {
        let s = w.sender_for(chat, user);
        let name = if s.card.is_empty() {
            s.nickname
        } else {
            s.card
        };
        d.insert("name".into(), json!(name));
    }
    Ok(Some(d))
}

/// A `node` segment of a sent bundle.
fn node(data: &Map<String, Value>, now: i64) -> Result<ForwardNode, ActionError> {
    let p = Params(data);
    let user_id = p
        .int("user_id")?
        .or(p.int("uin")?)
        .ok_or_else(|| ActionError::bad_params("node 缺少 user_id"))?;
    let nickname = p
        .str("nickname")
        .or_else(|| p.str("name"))
        .unwrap_or_default();
    let segments = data
        .get("content")
        .and_then(|c| message::normalize(c, false))
        .unwrap_or_default();
    Ok(ForwardNode {
        user_id,
        nickname,
        time: now,
        segments,
    })
}

/// A send's segments taken apart: what is stored, the pokes go-cqhttp sends as segments, the
/// forward nodes, the inline media the peer received.
struct Parts {
    stored: Vec<Value>,
    pokes: Vec<i64>,
    nodes: Vec<ForwardNode>,
    received: Vec<ReceivedMedia>,
}

/// Takes a send's segments apart as the flavor stores them (quotes and mentions checked, media
/// decoded into `received`).
fn take_apart(
    shared: &Shared,
    chat: ChatRef,
    segments: Vec<Value>,
    cache: &DigestCache<'_>,
) -> Result<Parts, ActionError> {
    let flavor = shared.cfg.flavor;
    let mut stored = Vec::new();
    let mut pokes = Vec::new();
    let mut nodes = Vec::new();
    let mut received = Vec::new();
    for seg in segments {
        // Taken apart, not copied: `data` may hold a 40 MB base64 string.
        let Value::Object(mut seg) = seg else {
            continue;
        };
        let kind = seg
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let data = match seg.remove("data") {
            Some(Value::Object(d)) => d,
            _ => Map::new(),
        };
        if flavor == Flavor::GoCqhttp
            && kind == "poke"
            && let ChatRef::Group(_) = chat
        {
            let qq = Params(&data).int("qq")?;
            pokes.push(qq.ok_or_else(|| ActionError::bad_params("poke 缺少 qq"))?);
            continue;
        }
        if kind == "node" {
            nodes.push(node(&data, events::now())?);
            continue;
        }
        if kind == "reply" {
            match quote(&shared.world.lock(), chat, &data)? {
                Quote::Keep(d) => stored.push(json!({"type": "reply", "data": d})),
                Quote::Text(t) => stored.push(json!({"type": "text", "data": {"text": t}})),
                Quote::Drop => {}
            }
            continue;
        }
        if kind == "at" {
            if let Some(d) = mention(&shared.world.lock(), chat, &data)? {
                stored.push(json!({"type": "at", "data": d}));
            }
            continue;
        }
        let data = match MediaKind::from_segment_type(&kind) {
            Some(mk) => media_segment(shared, mk, data, chat, cache, &mut received)?,
            None => data,
        };
        stored.push(json!({"type": kind, "data": data}));
    }
    Ok(Parts {
        stored,
        pokes,
        nodes,
        received,
    })
}

/// go-cqhttp moves the quote to the front (literal quotes included).
fn quotes_first(stored: Vec<Value>) -> Vec<Value> {
    let is_quote = |s: &Value| {
        s["type"] == "reply"
            || s["data"]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("[CQ:reply,"))
    };
    let (mut quotes, rest): (Vec<Value>, Vec<Value>) = stored.into_iter().partition(is_quote);
    quotes.extend(rest);
    quotes
}

/// The send failures a fault stands for before anything is stored: risk control and the send
/// event checker.
fn refuse_by_fault(faults: &Faults, flavor: Flavor, chat: ChatRef) -> Result<(), ActionError> {
    if faults.has(FaultKind::RiskControl) {
        tracing::warn!(?chat, "群消息发送失败: 账号可能被风控.");
        return Err(match flavor {
            Flavor::GoCqhttp => gocq_send_failed(),
            _ => ActionError::failed(fault::timeout_text()),
        });
    }
    if let Some(Fault::SendEventChecker { result, err_msg }) =
        faults.get(FaultKind::SendEventChecker)
    {
        let text = fault::event_checker_text(*result, err_msg);
        return Err(match flavor {
            Flavor::GoCqhttp => ActionError::failed(text).with_code("SEND_MSG_API_ERROR"),
            _ => ActionError::failed(text),
        });
    }
    Ok(())
}

/// Stores the bot's message in `chat`, marks the chat observed, emits its `message_sent` event
/// when enabled; the stored message's id.
fn store(shared: &Shared, chat: ChatRef, stored: Vec<Value>) -> i64 {
    let self_id = shared.cfg.self_id;
    let (message_id, event) = {
        let mut w = shared.world.lock();
        w.observe(chat);
        let sender = w.sender_for(chat, self_id);
        let m = w.push(
            chat,
            NewMessage {
                time: events::now(),
                sender,
                segments: stored,
                self_sent: true,
            },
        );
        let m = m.clone();
        let event = shared
            .cfg
            .report_self_message
            .then(|| message::render(&w, chat, &m, View::Event));
        (m.message_id, event)
    };
    if let Some(ev) = event {
        shared.emit(&ev);
    }
    message_id
}

pub(super) fn send(
    shared: &Shared,
    name: &str,
    p: Params<'_>,
    cache: &DigestCache<'_>,
) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let chat = target(name, p)?;
    let message = p
        .raw("message")
        .ok_or_else(|| ActionError::bad_params("缺少参数 message"))?;
    let auto_escape = p.bool("auto_escape").unwrap_or(false);
    let segments = message::normalize(message, auto_escape)
        .ok_or_else(|| ActionError::bad_params("message 格式错误"))?;
    check_target(shared, chat, p.int("group_id")?)?;

    let Parts {
        mut stored,
        pokes,
        nodes,
        received,
    } = take_apart(shared, chat, segments, cache)?;
    if flavor == Flavor::GoCqhttp {
        stored = quotes_first(stored);
    }
    let forward_id = match (nodes.is_empty(), stored.is_empty()) {
        (true, _) => None,
        // An all-node message becomes one merged-forward message.
        (false, true) => {
            let id = format!("sandbox-forward-{}-{}", events::now(), nodes.len());
            stored.push(json!({"type": "forward", "data": {"id": id}}));
            shared.world.lock().forwards.insert(id.clone(), nodes);
            Some(id)
        }
        (false, false) => {
            return Err(ActionError::failed(
                "消息体无法解析, 请检查是否发送了不支持的消息类型",
            ));
        }
    };
    if stored.is_empty() && pokes.is_empty() {
        return Err(match flavor {
            Flavor::GoCqhttp => ActionError::failed("消息为空").with_code("EMPTY_MSG_ERROR"),
            _ => ActionError::failed("消息体无法解析, 请检查是否发送了不支持的消息类型"),
        });
    }
    // The peer did receive the bytes, whatever the send outcome below.
    shared.media.lock().extend(received);

    let faults = shared.faults();
    refuse_by_fault(&faults, flavor, chat)?;

    let self_id = shared.cfg.self_id;
    for target in pokes {
        if let ChatRef::Group(g) = chat {
            shared.emit(&events::poke(self_id, Some(g), self_id, target));
        }
    }
    let message_id = if stored.is_empty() {
        0
    } else {
        store(shared, chat, stored)
    };
    if faults.has(FaultKind::SendTimeout) {
        // Ambiguous outcome: stored and announced, but reported as a failure.
        return Err(match flavor {
            Flavor::GoCqhttp => {
                ActionError::failed(fault::timeout_text()).with_code("SEND_MSG_API_ERROR")
            }
            _ => ActionError::failed(fault::timeout_text()),
        });
    }
    let mut data = json!({"message_id": shared.cfg.behaviour.id_form.id(message_id)});
    if let (Some(id), Some(o)) = (forward_id, data.as_object_mut())
        && flavor == Flavor::NapCat
    {
        o.insert("res_id".into(), json!(id));
        o.insert("forward_id".into(), json!(id));
    }
    Ok(data)
}
