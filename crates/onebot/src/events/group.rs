//! Group notices of every flavor (`docs/group-actions.md` §8) → the
//! domain's group events:
//!
//! | notice | flavors | event |
//! |--------|---------|-------|
//! | `group_msg_emoji_like` | NapCat, LLOneBot (`is_add`), SnowLuma (`sub_type` `add`/`remove`) | `Reaction`: emoji `likes[0].emoji_id`, reactor `user_id` ‖ `operator_id` |
//! | `reaction` | Lagrange (`code`, `sub_type`, `operator_id`) | `Reaction` |
//! | `essence` (`sub_type` `add`/`delete`) | all | `Essence`: sender `sender_id` ‖ `user_id` |
//! | `group_ban` (`sub_type` `ban`/`lift_ban`) | all | `Mute`: `user_id` 0 is the whole group (duration 0) |
//! | `group_admin` (`sub_type` `set`/`unset`) | all | `AdminChanged` (operator 0: never reported) |
//! | `group_upload` (`file {id, name, size}`) | all | `GroupFileUploaded` |
//! | `notify` / `group_name` (`name_new`, operator `user_id`) | NapCat | `GroupNameChanged` |
//! | `group_name_change` (`name`, no operator) | Lagrange | `GroupNameChanged` |
//!
//! A notice of these types without a group, or with a `sub_type` (or
//! reaction direction, emoji, file id) outside these, is `None`: the
//! caller keeps it raw.

use serde_json::Value;

use super::{int, text};
use crate::ids;
use crate::model::int_of;
use onebot_gateway_domain::model::{InboundEvent, MuteTarget};

/// The group event of notice `notice_type` (`sub_type` already read), if
/// it is one of the table's.
pub(super) fn decode(frame: &Value, notice_type: &str, sub_type: &str) -> Option<InboundEvent> {
    let group_id = int(frame, "group_id");
    if group_id == 0 {
        return None;
    }
    let time = int(frame, "time");
    let user_id = int(frame, "user_id");
    let operator_id = int(frame, "operator_id");
    let message_id = || {
        frame
            .get("message_id")
            .and_then(ids::message_id_of)
            .unwrap_or(0)
    };
    Some(match (notice_type, sub_type) {
        ("group_msg_emoji_like", _) => {
            let added = match frame.get("is_add") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
                _ => direction(sub_type)?,
            };
            let emoji_id = frame
                .get("likes")
                .and_then(|l| l.get(0))
                .map(|like| text(like, "emoji_id"))
                .filter(|e| !e.is_empty())?;
            InboundEvent::Reaction {
                group_id,
                message_id: message_id(),
                user_id: if user_id != 0 { user_id } else { operator_id },
                emoji_id,
                added,
                time,
            }
        }
        ("reaction", _) => InboundEvent::Reaction {
            group_id,
            message_id: message_id(),
            user_id: if operator_id != 0 {
                operator_id
            } else {
                user_id
            },
            emoji_id: Some(text(frame, "code")).filter(|c| !c.is_empty())?,
            added: direction(sub_type)?,
            time,
        },
        ("essence", "add" | "delete") => InboundEvent::Essence {
            group_id,
            message_id: message_id(),
            sender_id: frame.get("sender_id").and_then(int_of).unwrap_or(user_id),
            operator_id,
            set: sub_type == "add",
            time,
        },
        ("group_ban", "ban" | "lift_ban") => {
            let muted = sub_type == "ban";
            // The whole-group mute has no end: its -1 (on) / 0 (off) is
            // not a duration.
            let (target, duration_secs) = if user_id == 0 {
                (MuteTarget::WholeGroup, 0)
            } else {
                (MuteTarget::Member(user_id), int(frame, "duration").max(0))
            };
            InboundEvent::Mute {
                group_id,
                target,
                operator_id,
                duration_secs,
                muted,
                time,
            }
        }
        ("group_admin", "set" | "unset") if user_id != 0 => InboundEvent::AdminChanged {
            group_id,
            user_id,
            operator_id: 0,
            set: sub_type == "set",
            time,
        },
        ("group_upload", _) => {
            let file = frame.get("file")?;
            InboundEvent::GroupFileUploaded {
                group_id,
                user_id,
                file_id: Some(text(file, "id")).filter(|id| !id.is_empty())?,
                name: text(file, "name"),
                size: file
                    .get("size")
                    .and_then(int_of)
                    .and_then(|s| u64::try_from(s).ok())
                    .unwrap_or(0),
                time,
            }
        }
        ("notify", "group_name") => InboundEvent::GroupNameChanged {
            group_id,
            name: text(frame, "name_new"),
            operator_id: user_id,
            time,
        },
        ("group_name_change", _) => InboundEvent::GroupNameChanged {
            group_id,
            name: text(frame, "name"),
            operator_id: 0,
            time,
        },
        _ => return None,
    })
}

/// `add` → true, `remove` → false.
fn direction(sub_type: &str) -> Option<bool> {
    match sub_type {
        "add" => Some(true),
        "remove" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{Decoded, decode as decode_frame};
    use super::*;

    fn event(frame: Value) -> InboundEvent {
        match decode_frame(&frame) {
            Decoded::Event(e) => e,
            other => panic!("{frame} gave {other:?}"),
        }
    }

    fn notice(fields: Value) -> Value {
        let mut frame = json!({"post_type": "notice", "time": 1700000000, "self_id": 42});
        for (k, v) in fields.as_object().expect("object") {
            frame[k] = v.clone();
        }
        frame
    }

    fn reaction(message_id: i64, user_id: i64, emoji: &str, added: bool) -> InboundEvent {
        InboundEvent::Reaction {
            group_id: 5,
            message_id,
            user_id,
            emoji_id: emoji.into(),
            added,
            time: 1700000000,
        }
    }

    #[test]
    fn reactions_of_every_flavor() {
        // NapCat, LLOneBot: is_add.
        let napcat = notice(json!({"notice_type": "group_msg_emoji_like", "group_id": 5,
            "user_id": 7, "message_id": -11, "likes": [{"emoji_id": "76", "count": 1}],
            "is_add": false}));
        assert_eq!(event(napcat), reaction(-11, 7, "76", false));
        let llonebot = notice(
            json!({"notice_type": "group_msg_emoji_like", "group_id": "5",
            "user_id": "7", "message_id": 11, "likes": [{"emoji_id": 128077, "count": 1}],
            "is_add": true}),
        );
        assert_eq!(event(llonebot), reaction(11, 7, "128077", true));
        // SnowLuma: sub_type, no is_add.
        for (sub, added) in [("add", true), ("remove", false)] {
            let snowluma = notice(
                json!({"notice_type": "group_msg_emoji_like", "sub_type": sub,
                "group_id": 5, "user_id": 7, "operator_id": 7, "message_id": 11,
                "message_seq": 300, "likes": [{"emoji_id": "76", "count": 2}]}),
            );
            assert_eq!(event(snowluma), reaction(11, 7, "76", added));
        }
        // Lagrange: `reaction`, code, operator_id.
        for (sub, added) in [("add", true), ("remove", false)] {
            let lagrange = notice(json!({"notice_type": "reaction", "sub_type": sub,
                "group_id": 5, "message_id": 11, "operator_id": 8, "code": "76", "count": 1}));
            assert_eq!(event(lagrange), reaction(11, 8, "76", added));
        }
    }

    #[test]
    fn essence_of_every_flavor() {
        let essence = |sender_id, set| InboundEvent::Essence {
            group_id: 5,
            message_id: 11,
            sender_id,
            operator_id: 9,
            set,
            time: 1700000000,
        };
        // NapCat, LLOneBot, SnowLuma: user_id is the sender too.
        let napcat = notice(
            json!({"notice_type": "essence", "sub_type": "add", "group_id": 5,
            "user_id": 3, "sender_id": 3, "operator_id": 9, "message_id": 11}),
        );
        assert_eq!(event(napcat), essence(3, true));
        // Lagrange, go-cqhttp: no user_id.
        let gocq = notice(
            json!({"notice_type": "essence", "sub_type": "delete", "group_id": 5,
            "sender_id": 4, "operator_id": 9, "message_id": 11}),
        );
        assert_eq!(event(gocq), essence(4, false));
        let only_user = notice(json!({"notice_type": "essence", "sub_type": "add",
            "group_id": 5, "user_id": 6, "operator_id": 9, "message_id": 11}));
        assert_eq!(event(only_user), essence(6, true));
    }

    #[test]
    fn mutes_of_members_and_of_the_whole_group() {
        let mute = |target, duration_secs, muted| InboundEvent::Mute {
            group_id: 5,
            target,
            operator_id: 9,
            duration_secs,
            muted,
            time: 1700000000,
        };
        let ban = notice(
            json!({"notice_type": "group_ban", "sub_type": "ban", "group_id": 5,
            "user_id": 7, "operator_id": 9, "duration": 600}),
        );
        assert_eq!(event(ban), mute(MuteTarget::Member(7), 600, true));
        let lift = notice(json!({"notice_type": "group_ban", "sub_type": "lift_ban",
            "group_id": 5, "user_id": 7, "operator_id": 9, "duration": 0}));
        assert_eq!(event(lift), mute(MuteTarget::Member(7), 0, false));
        // NapCat, LLOneBot, Lagrange: user_id 0 and duration -1 (on) / 0
        // (off); go-cqhttp: the raw duration.
        for duration in [-1, 0, 268435455] {
            let whole = notice(json!({"notice_type": "group_ban", "sub_type": "ban",
                "group_id": 5, "user_id": 0, "operator_id": 9, "duration": duration}));
            assert_eq!(event(whole), mute(MuteTarget::WholeGroup, 0, true));
        }
        let whole_off = notice(json!({"notice_type": "group_ban", "sub_type": "lift_ban",
            "group_id": 5, "user_id": 0, "operator_id": 9, "duration": 0}));
        assert_eq!(event(whole_off), mute(MuteTarget::WholeGroup, 0, false));
    }

    #[test]
    fn admins_uploads_and_group_names() {
        let admin = |sub| {
            event(notice(
                json!({"notice_type": "group_admin", "sub_type": sub, "group_id": 5, "user_id": 7}),
            ))
        };
        let expected = |set| InboundEvent::AdminChanged {
            group_id: 5,
            user_id: 7,
            operator_id: 0,
            set,
            time: 1700000000,
        };
        assert_eq!(admin("set"), expected(true));
        assert_eq!(admin("unset"), expected(false));
        // NapCat, LLOneBot, SnowLuma; Lagrange and go-cqhttp add url.
        let upload = notice(
            json!({"notice_type": "group_upload", "group_id": 5, "user_id": 7,
            "file": {"id": "/abc", "name": "a.txt", "size": 1024, "busid": 102,
                "url": "http://x"}}),
        );
        assert_eq!(
            event(upload),
            InboundEvent::GroupFileUploaded {
                group_id: 5,
                user_id: 7,
                file_id: "/abc".into(),
                name: "a.txt".into(),
                size: 1024,
                time: 1700000000,
            }
        );
        let napcat = notice(json!({"notice_type": "notify", "sub_type": "group_name",
            "group_id": 5, "user_id": 7, "name_new": "新群名"}));
        assert_eq!(
            event(napcat),
            InboundEvent::GroupNameChanged {
                group_id: 5,
                name: "新群名".into(),
                operator_id: 7,
                time: 1700000000,
            }
        );
        let lagrange = notice(json!({"notice_type": "group_name_change", "group_id": 5,
            "name": "新群名"}));
        assert_eq!(
            event(lagrange),
            InboundEvent::GroupNameChanged {
                group_id: 5,
                name: "新群名".into(),
                operator_id: 0,
                time: 1700000000,
            }
        );
    }

    #[test]
    fn malformed_group_notices_stay_raw() {
        for fields in [
            json!({"notice_type": "group_msg_emoji_like", "group_id": 5, "user_id": 7,
                "message_id": 1, "likes": [], "is_add": true}),
            json!({"notice_type": "group_msg_emoji_like", "group_id": 5, "user_id": 7,
                "message_id": 1, "likes": [{"emoji_id": "76"}]}),
            json!({"notice_type": "reaction", "sub_type": "add", "group_id": 5, "message_id": 1}),
            json!({"notice_type": "essence", "sub_type": "other", "group_id": 5}),
            json!({"notice_type": "group_ban", "sub_type": "ban", "user_id": 7}),
            json!({"notice_type": "group_admin", "sub_type": "promote", "group_id": 5,
                "user_id": 7}),
            json!({"notice_type": "group_upload", "group_id": 5, "user_id": 7}),
            json!({"notice_type": "notify", "sub_type": "input_status", "group_id": 0,
                "user_id": 7}),
            json!({"notice_type": "notify", "sub_type": "title", "group_id": 5, "user_id": 7}),
        ] {
            assert!(
                matches!(event(notice(fields.clone())), InboundEvent::Unknown { .. }),
                "{fields}"
            );
        }
    }
}
