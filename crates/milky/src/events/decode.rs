//! Milky events → domain events. Decoding never fails and never panics:
//! an event whose data cannot be read, and every kind the domain does not
//! model, becomes [`InboundEvent::Unknown`] with the whole event.
//!
//! - `message_receive` → `Message` (`self_sent` when the bot sent it);
//! - `message_recall` → `MessageRecalled` (the recalled message's id
//!   minted from its scene, peer and seq);
//! - `group_nudge` / `friend_nudge` → `Poke` (group 0 for a friend);
//! - `group_member_increase` / `group_member_decrease` → `MemberJoined` /
//!   `MemberLeft` (`leave`, `kick`, or `kick_me` when the bot was removed);
//! - `group_message_reaction` → `Reaction` (the message's id minted from
//!   the group and its seq; `face_id` as the emoji id, a face id or an
//!   emoji's code point);
//! - `group_essence_message_change` → `Essence` (no sender reported: 0);
//! - `group_mute` → `Mute` of the member (`duration` 0 = lifted);
//!   `group_whole_mute` → `Mute` of the whole group (duration 0, `is_mute`
//!   says on or off);
//! - `group_admin_change` → `AdminChanged`;
//! - `group_file_upload` → `GroupFileUploaded`;
//! - `group_name_change` → `GroupNameChanged`;
//! - `bot_offline` → `Lifecycle` `offline`.
//!
//! A group event without its group, or without the member or flag it is
//! about, stays `Unknown`.

use serde::de::MapAccess;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::ids::{MessageKey, Scene, mint_id};
use crate::model::wire::{Fields, Int, Str, raw_value, read, skip};
use crate::model::{self, int, text};
use onebot_gateway_domain::model::{InboundEvent, MuteTarget, RawJson};

/// An event's envelope.
#[derive(Default)]
struct EventIn<'de> {
    kind: Str,
    time: Int,
    self_id: Int,
    data: Option<&'de RawValue>,
}

impl<'de> Fields<'de> for EventIn<'de> {
    fn field<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "event_type" => self.kind = map.next_value()?,
            "time" => self.time = map.next_value()?,
            "self_id" => self.self_id = map.next_value()?,
            "data" => self.data = raw_value(map)?,
            _ => skip(map)?,
        }
        Ok(())
    }
}

/// Decodes one event of `account` from its JSON text, whose bot is
/// `self_id` (0 when not yet known); `None` when the text is not JSON.
pub fn decode(account: &str, self_id: i64, event: &str) -> Option<InboundEvent> {
    let envelope: EventIn<'_> = read(event)?;
    let kind = envelope.kind.0;
    let time = envelope.time.0.unwrap_or(0);
    let self_id = envelope.self_id.0.unwrap_or(self_id);
    let data_text = envelope.data.map_or("null", RawValue::get);
    // A message is read from its text; the other kinds are small.
    let data: Value = if kind == "message_receive" {
        Value::Null
    } else {
        serde_json::from_str(data_text).unwrap_or(Value::Null)
    };
    let data = &data;
    let known = match kind.as_str() {
        "message_receive" => model::message(account, data_text).map(|mut message| {
            model::name_quotes(std::slice::from_mut(&mut message));
            let self_sent = self_id != 0 && message.sender.user_id == self_id;
            InboundEvent::message(message, self_sent)
        }),
        "message_recall" => recall(account, data, time),
        "group_nudge" => Some(InboundEvent::Poke {
            group_id: int(data, "group_id").unwrap_or(0),
            user_id: int(data, "sender_id").unwrap_or(0),
            target_id: int(data, "receiver_id").unwrap_or(0),
            time,
        }),
        "friend_nudge" => int(data, "user_id").map(|friend| {
            let flag = |k| data.get(k).and_then(Value::as_bool).unwrap_or(false);
            let (user_id, target_id) = match (flag("is_self_send"), flag("is_self_receive")) {
                (true, true) => (self_id, self_id),
                (true, false) => (self_id, friend),
                (false, true) => (friend, self_id),
                (false, false) => (friend, friend),
            };
            InboundEvent::Poke {
                group_id: 0,
                user_id,
                target_id,
                time,
            }
        }),
        "group_member_increase" => {
            let operator = int(data, "operator_id")
                .or_else(|| int(data, "invitor_id"))
                .unwrap_or(0);
            match (int(data, "group_id"), int(data, "user_id")) {
                (Some(group_id), Some(user_id)) => Some(InboundEvent::MemberJoined {
                    group_id,
                    user_id,
                    operator_id: operator,
                    time,
                }),
                _ => None,
            }
        }
        "group_member_decrease" => match (int(data, "group_id"), int(data, "user_id")) {
            (Some(group_id), Some(user_id)) => {
                let operator = int(data, "operator_id").filter(|o| *o != 0 && *o != user_id);
                let sub_type = match operator {
                    None => "leave",
                    Some(_) if self_id != 0 && user_id == self_id => "kick_me",
                    Some(_) => "kick",
                };
                Some(InboundEvent::MemberLeft {
                    group_id,
                    user_id,
                    operator_id: operator.unwrap_or(user_id),
                    sub_type: sub_type.into(),
                    time,
                })
            }
            _ => None,
        },
        "bot_offline" => Some(InboundEvent::Lifecycle {
            sub_type: "offline".into(),
            time,
        }),
        other => group_notice(account, other, data, time),
    };
    Some(known.unwrap_or_else(|| {
        // An undecodable message's data is read for its group too.
        let data = if kind == "message_receive" {
            serde_json::from_str(data_text).unwrap_or(Value::Null)
        } else {
            data.clone()
        };
        InboundEvent::Unknown {
            group_id: int(&data, "group_id").or_else(|| {
                (text(&data, "message_scene") == "group")
                    .then(|| int(&data, "peer_id"))
                    .flatten()
            }),
            post_type: kind,
            time,
            raw: RawJson::from_text(event),
        }
    }))
}

/// The group notices of the group actions; `None` for any other kind, and
/// for a notice without its group or the member or flag it is about.
fn group_notice(account: &str, kind: &str, data: &Value, time: i64) -> Option<InboundEvent> {
    let flag = |key: &str| data.get(key).and_then(Value::as_bool);
    let operator_id = int(data, "operator_id").unwrap_or(0);
    let group_id = int(data, "group_id")?;
    // The message a notice names by its seq in the group, minted as
    // message events mint it (0 without a seq).
    let message_id = || {
        int(data, "message_seq").map_or(0, |seq| {
            mint_id(
                account,
                MessageKey {
                    scene: Scene::Group,
                    peer: group_id,
                    seq,
                },
            )
        })
    };
    Some(match kind {
        "group_message_reaction" => InboundEvent::Reaction {
            group_id,
            message_id: message_id(),
            user_id: int(data, "user_id").unwrap_or(0),
            emoji_id: text(data, "face_id"),
            added: flag("is_add")?,
            time,
        },
        "group_essence_message_change" => InboundEvent::Essence {
            group_id,
            message_id: message_id(),
            sender_id: 0,
            operator_id,
            set: flag("is_set")?,
            time,
        },
        "group_mute" => {
            let duration = int(data, "duration").unwrap_or(0).max(0);
            InboundEvent::Mute {
                group_id,
                target: MuteTarget::Member(int(data, "user_id")?),
                operator_id,
                duration_secs: duration,
                muted: duration > 0,
                time,
            }
        }
        "group_whole_mute" => InboundEvent::Mute {
            group_id,
            target: MuteTarget::WholeGroup,
            operator_id,
            duration_secs: 0,
            muted: flag("is_mute")?,
            time,
        },
        "group_admin_change" => InboundEvent::AdminChanged {
            group_id,
            user_id: int(data, "user_id")?,
            operator_id,
            set: flag("is_set")?,
            time,
        },
        "group_file_upload" => InboundEvent::GroupFileUploaded {
            group_id,
            user_id: int(data, "user_id").unwrap_or(0),
            file_id: text(data, "file_id"),
            name: text(data, "file_name"),
            size: int(data, "file_size").unwrap_or(0).max(0).unsigned_abs(),
            time,
        },
        "group_name_change" => InboundEvent::GroupNameChanged {
            group_id,
            name: text(data, "new_group_name"),
            operator_id,
            time,
        },
        _ => return None,
    })
}

fn recall(account: &str, data: &Value, time: i64) -> Option<InboundEvent> {
    let scene = Scene::from_name(data.get("message_scene")?.as_str()?)?;
    let key = MessageKey {
        scene,
        peer: int(data, "peer_id")?,
        seq: int(data, "message_seq")?,
    };
    let operator = int(data, "operator_id")
        .or_else(|| int(data, "sender_id"))
        .unwrap_or(0);
    Some(InboundEvent::MessageRecalled {
        chat: key.chat(),
        message_id: mint_id(account, key),
        operator_id: operator,
        time,
    })
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
