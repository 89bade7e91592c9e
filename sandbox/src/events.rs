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

/// A group file was uploaded (`group_upload`).
pub(crate) fn group_upload(
    self_id: i64,
    group_id: i64,
    user_id: i64,
    file_id: &str,
    name: &str,
    size: u64,
) -> Value {
    notice(
        self_id,
        "group_upload",
        json!({"group_id": group_id, "user_id": user_id,
               "file": {"id": file_id, "name": name, "size": size, "busid": 102}}),
    )
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
