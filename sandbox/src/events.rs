//! Event payloads: meta events (lifecycle, heartbeat) and notices.
//! Message events are rendered by [`message::render`](crate::message::render).

use serde_json::{Value, json};

use crate::flavor::Flavor;

/// Wall-clock unix seconds (event `time`; not tokio time, which only drives timers).
pub(crate) fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// A lifecycle meta event (`connect`, `enable`, ...).
pub(crate) fn lifecycle(flavor: Flavor, self_id: i64, sub_type: &str) -> Value {
    match flavor {
        // go-cqhttp's handshake frame (server/websocket.go L163).
        Flavor::GoCqhttp => json!({
            "_post_method": 2,
            "meta_event_type": "lifecycle",
            "post_type": "meta_event",
            "self_id": self_id,
            "sub_type": sub_type,
            "time": now(),
        }),
        Flavor::SnowLuma => json!({
            "time": now(),
            "self_id": self_id,
            "post_type": "meta_event",
            "meta_event_type": "lifecycle",
            "sub_type": sub_type,
            "status": {"online": true, "good": true},
        }),
        _ => json!({
            "time": now(),
            "self_id": self_id,
            "post_type": "meta_event",
            "meta_event_type": "lifecycle",
            "sub_type": sub_type,
        }),
    }
}

/// A heartbeat meta event; `interval_ms` is the time to the next one.
pub(crate) fn heartbeat(self_id: i64, interval_ms: u64) -> Value {
    json!({
        "time": now(),
        "self_id": self_id,
        "post_type": "meta_event",
        "meta_event_type": "heartbeat",
        "status": {"online": true, "good": true},
        "interval": interval_ms,
    })
}

/// The frames sent right after a WebSocket connects on an event-capable path.
pub(crate) fn greetings(flavor: Flavor, self_id: i64, interval_ms: Option<u64>) -> Vec<Value> {
    let mut out = vec![lifecycle(flavor, self_id, "connect")];
    if flavor == Flavor::SnowLuma {
        // bootstrapMetaFrames: connect, enable, then one heartbeat.
        out.push(lifecycle(flavor, self_id, "enable"));
        out.push(heartbeat(self_id, interval_ms.unwrap_or(30_000)));
    }
    out
}

fn notice(self_id: i64, notice_type: &str, fields: Value) -> Value {
    let mut ev = json!({
        "time": now(),
        "self_id": self_id,
        "post_type": "notice",
        "notice_type": notice_type,
    });
    if let (Some(o), Value::Object(f)) = (ev.as_object_mut(), fields) {
        o.extend(f);
    }
    ev
}

/// A poke notice (`notify`/`poke`): `user_id` poked `target_id`, in `group_id` if any.
pub(crate) fn poke(self_id: i64, group_id: Option<i64>, user_id: i64, target_id: i64) -> Value {
    match group_id {
        Some(g) => notice(
            self_id,
            "notify",
            json!({"sub_type": "poke", "group_id": g, "user_id": user_id, "target_id": target_id}),
        ),
        None => notice(
            self_id,
            "notify",
            json!({"sub_type": "poke", "user_id": user_id, "sender_id": user_id, "target_id": target_id}),
        ),
    }
}

/// A member left (`group_decrease`, `leave`).
pub(crate) fn group_decrease(self_id: i64, group_id: i64, user_id: i64) -> Value {
    notice(
        self_id,
        "group_decrease",
        json!({"sub_type": "leave", "group_id": group_id, "operator_id": user_id, "user_id": user_id}),
    )
}

/// A member joined (`group_increase`, `approve`).
pub(crate) fn group_increase(self_id: i64, group_id: i64, user_id: i64) -> Value {
    notice(
        self_id,
        "group_increase",
        json!({"sub_type": "approve", "group_id": group_id, "operator_id": 0, "user_id": user_id}),
    )
}

/// A group card changed (`group_card`).
pub(crate) fn group_card(self_id: i64, group_id: i64, user_id: i64, new: &str, old: &str) -> Value {
    notice(
        self_id,
        "group_card",
        json!({"group_id": group_id, "user_id": user_id, "card_new": new, "card_old": old}),
    )
}

/// A group file was uploaded (`group_upload`); Lagrange and go-cqhttp add the file's `url`.
pub(crate) fn group_upload(
    flavor: Flavor,
    self_id: i64,
    group_id: i64,
    user_id: i64,
    file: (&str, &str, u64),
    url: Option<&str>,
) -> Value {
    let (file_id, name, size) = file;
    let mut f = json!({"id": file_id, "name": name, "size": size, "busid": 102});
    if matches!(flavor, Flavor::Lagrange | Flavor::GoCqhttp) {
        f["url"] = json!(url.unwrap_or(""));
    }
    notice(
        self_id,
        "group_upload",
        json!({"group_id": group_id, "user_id": user_id, "file": f}),
    )
}

/// A member was kicked (`group_decrease`, `kick`) by `operator_id`.
pub(crate) fn group_kick(self_id: i64, group_id: i64, user_id: i64, operator_id: i64) -> Value {
    notice(
        self_id,
        "group_decrease",
        json!({"sub_type": "kick", "group_id": group_id, "operator_id": operator_id, "user_id": user_id}),
    )
}

/// A reaction to a group message, as `flavor` reports it: NapCat and LLOneBot
/// `group_msg_emoji_like` with `likes` and `is_add`, SnowLuma the same name with `sub_type`,
/// `operator_id` and `message_seq` instead of `is_add`, Lagrange `reaction` with `code`,
/// `operator_id`, `sub_type` and `count`; go-cqhttp none.
pub(crate) struct ReactionNotice<'a> {
    pub group_id: i64,
    pub user_id: i64,
    pub message_id: i64,
    pub message_seq: i64,
    pub emoji: &'a str,
    pub is_add: bool,
    /// Users with this reaction on the message now.
    pub count: usize,
}

pub(crate) fn reaction(flavor: Flavor, self_id: i64, r: &ReactionNotice<'_>) -> Option<Value> {
    let sub_type = if r.is_add { "add" } else { "remove" };
    Some(match flavor {
        Flavor::NapCat => notice(
            self_id,
            "group_msg_emoji_like",
            json!({"group_id": r.group_id, "user_id": r.user_id, "message_id": r.message_id,
                   "likes": [{"emoji_id": r.emoji, "count": r.count}], "is_add": r.is_add}),
        ),
        Flavor::LlOneBot => notice(
            self_id,
            "group_msg_emoji_like",
            json!({"group_id": r.group_id, "user_id": r.user_id, "message_id": r.message_id,
                   "likes": [{"emoji_id": r.emoji, "count": 1}], "is_add": r.is_add}),
        ),
        Flavor::SnowLuma => notice(
            self_id,
            "group_msg_emoji_like",
            json!({"sub_type": sub_type, "group_id": r.group_id, "user_id": r.user_id,
                   "operator_id": r.user_id, "message_id": r.message_id,
                   "message_seq": r.message_seq,
                   "likes": [{"emoji_id": r.emoji, "count": r.count}]}),
        ),
        Flavor::Lagrange => notice(
            self_id,
            "reaction",
            json!({"group_id": r.group_id, "message_id": r.message_id, "operator_id": r.user_id,
                   "sub_type": sub_type, "code": r.emoji, "count": r.count}),
        ),
        Flavor::GoCqhttp => return None,
    })
}

/// An essence change as `flavor` reports it (`essence`): NapCat and LLOneBot only ever report
/// `add` (with `user_id` = the sender), go-cqhttp not when the bot is the operator, SnowLuma with
/// `user_id`, `message_seq` and `random`.
pub(crate) struct EssenceNotice {
    pub group_id: i64,
    pub sender_id: i64,
    pub operator_id: i64,
    pub message_id: i64,
    pub message_seq: i64,
    pub random: i64,
    pub is_set: bool,
}

pub(crate) fn essence(flavor: Flavor, self_id: i64, e: &EssenceNotice) -> Option<Value> {
    let sub_type = if e.is_set { "add" } else { "delete" };
    let mut fields = json!({"sub_type": sub_type, "group_id": e.group_id,
        "sender_id": e.sender_id, "operator_id": e.operator_id, "message_id": e.message_id});
    match flavor {
        Flavor::NapCat | Flavor::LlOneBot if !e.is_set => return None,
        Flavor::NapCat | Flavor::LlOneBot => fields["user_id"] = json!(e.sender_id),
        Flavor::SnowLuma => {
            fields["user_id"] = json!(e.sender_id);
            fields["message_seq"] = json!(e.message_seq);
            fields["random"] = json!(e.random);
        }
        Flavor::GoCqhttp if e.operator_id == self_id => return None,
        Flavor::GoCqhttp | Flavor::Lagrange => {}
    }
    Some(notice(self_id, "essence", fields))
}

/// A member mute (`group_ban`): `ban` for a positive duration, `lift_ban` for 0.
pub(crate) fn group_ban(
    self_id: i64,
    group_id: i64,
    user_id: i64,
    operator_id: i64,
    duration: i64,
) -> Value {
    let sub_type = if duration > 0 { "ban" } else { "lift_ban" };
    notice(
        self_id,
        "group_ban",
        json!({"sub_type": sub_type, "group_id": group_id, "operator_id": operator_id,
               "user_id": user_id, "duration": duration}),
    )
}

/// QQ's raw duration of a whole-group mute, which go-cqhttp passes through.
pub(crate) const WHOLE_MUTE_RAW_DURATION: i64 = 268_435_455;

/// A whole-group mute (`group_ban` with `user_id` 0): `duration` -1 on, 0 off (go-cqhttp: the raw
/// duration). SnowLuma reports none.
pub(crate) fn whole_ban(
    flavor: Flavor,
    self_id: i64,
    group_id: i64,
    operator_id: i64,
    on: bool,
) -> Option<Value> {
    let duration = match (flavor, on) {
        (Flavor::SnowLuma, _) => return None,
        (_, false) => 0,
        (Flavor::GoCqhttp, true) => WHOLE_MUTE_RAW_DURATION,
        (_, true) => -1,
    };
    let sub_type = if on { "ban" } else { "lift_ban" };
    Some(notice(
        self_id,
        "group_ban",
        json!({"sub_type": sub_type, "group_id": group_id, "operator_id": operator_id,
               "user_id": 0, "duration": duration}),
    ))
}

/// An admin was set or unset (`group_admin`); no implementation reports the operator.
pub(crate) fn group_admin(self_id: i64, group_id: i64, user_id: i64, set: bool) -> Value {
    let sub_type = if set { "set" } else { "unset" };
    notice(
        self_id,
        "group_admin",
        json!({"sub_type": sub_type, "group_id": group_id, "user_id": user_id}),
    )
}

/// A group was renamed: NapCat `notify`/`group_name` with `name_new` and the operator as
/// `user_id`, Lagrange `group_name_change` with `name`; the others report none.
pub(crate) fn group_name(
    flavor: Flavor,
    self_id: i64,
    group_id: i64,
    operator_id: i64,
    name: &str,
) -> Option<Value> {
    match flavor {
        Flavor::NapCat => Some(notice(
            self_id,
            "notify",
            json!({"sub_type": "group_name", "group_id": group_id, "user_id": operator_id,
                   "name_new": name}),
        )),
        Flavor::Lagrange => Some(notice(
            self_id,
            "group_name_change",
            json!({"group_id": group_id, "name": name}),
        )),
        _ => None,
    }
}

/// A group message was recalled (`group_recall`): `user_id` wrote it, `operator_id` recalled it.
pub(crate) fn group_recall(
    self_id: i64,
    group_id: i64,
    user_id: i64,
    operator_id: i64,
    message_id: i64,
) -> Value {
    notice(
        self_id,
        "group_recall",
        json!({"group_id": group_id, "user_id": user_id, "operator_id": operator_id, "message_id": message_id}),
    )
}

/// A private message was recalled (`friend_recall`): `user_id` is the other side of the chat.
pub(crate) fn friend_recall(self_id: i64, user_id: i64, message_id: i64) -> Value {
    notice(
        self_id,
        "friend_recall",
        json!({"user_id": user_id, "message_id": message_id}),
    )
}
