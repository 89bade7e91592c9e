use serde_json::json;

use super::*;
use crate::ids::key_of;
use onebot_gateway_domain::model::ChatRef;

fn decode(account: &str, self_id: i64, event: &Value) -> InboundEvent {
    super::decode(account, self_id, &event.to_string()).unwrap()
}

fn event(kind: &str, data: Value) -> Value {
    json!({"event_type": kind, "time": 1700000000, "self_id": 10001, "data": data})
}

#[test]
fn modelled_events_decode() {
    let msg = event(
        "message_receive",
        json!({"message_scene": "group", "peer_id": 20000003,
        "message_seq": 9, "sender_id": 10001, "time": 1700000000,
        "segments": [{"type": "text", "data": {"text": "hi"}}],
        "group": {"group_id": 20000003, "group_name": "g", "member_count": 1, "max_member_count": 2,
            "remark": "", "created_time": 0, "description": "", "question": "", "announcement": ""},
        "group_member": {"user_id": 10001, "nickname": "bot", "sex": "unknown", "group_id": 20000003,
            "card": "", "title": "", "level": 1, "role": "member", "join_time": 0, "last_sent_time": 0}}),
    );
    match decode("acc", 0, &msg) {
        InboundEvent::Message {
            message, self_sent, ..
        } => {
            assert!(self_sent);
            assert_eq!(message.chat, ChatRef::Group(20000003));
        }
        other => panic!("{other:?}"),
    }
    let recall = event(
        "message_recall",
        json!({"message_scene": "friend", "peer_id": 10002,
        "message_seq": 4, "sender_id": 10002, "operator_id": 10002, "display_suffix": ""}),
    );
    let InboundEvent::MessageRecalled {
        chat,
        message_id,
        operator_id,
        time,
    } = decode("acc", 10001, &recall)
    else {
        panic!()
    };
    assert_eq!(
        (chat, operator_id, time),
        (ChatRef::Private(10002), 10002, 1700000000)
    );
    assert_eq!(key_of("acc", message_id).unwrap().seq, 4);
    let nudge = event(
        "group_nudge",
        json!({"group_id": 20000003, "sender_id": 10002, "receiver_id": 10001,
        "display_action": "戳了戳", "display_suffix": "", "display_action_img_url": ""}),
    );
    assert_eq!(
        decode("acc", 10001, &nudge),
        InboundEvent::Poke {
            group_id: 20000003,
            user_id: 10002,
            target_id: 10001,
            time: 1700000000
        }
    );
    let friend_nudge = event(
        "friend_nudge",
        json!({"user_id": 10002, "is_self_send": false, "is_self_receive": true,
        "display_action": "", "display_suffix": "", "display_action_img_url": ""}),
    );
    assert_eq!(
        decode("acc", 10001, &friend_nudge),
        InboundEvent::Poke {
            group_id: 0,
            user_id: 10002,
            target_id: 10001,
            time: 1700000000
        }
    );
    let joined = event(
        "group_member_increase",
        json!({"group_id": 20000003, "user_id": 10009, "operator_id": null, "invitor_id": 10002}),
    );
    assert_eq!(
        decode("acc", 10001, &joined),
        InboundEvent::MemberJoined {
            group_id: 20000003,
            user_id: 10009,
            operator_id: 10002,
            time: 1700000000
        }
    );
    let left = event(
        "group_member_decrease",
        json!({"group_id": 20000003, "user_id": 10009}),
    );
    assert!(
        matches!(decode("acc", 10001, &left), InboundEvent::MemberLeft { ref sub_type, operator_id: 10009, .. } if sub_type == "leave")
    );
    let kicked = event(
        "group_member_decrease",
        json!({"group_id": 20000003, "user_id": 10009, "operator_id": 10002}),
    );
    assert!(
        matches!(decode("acc", 10001, &kicked), InboundEvent::MemberLeft { ref sub_type, operator_id: 10002, .. } if sub_type == "kick")
    );
    let me = event(
        "group_member_decrease",
        json!({"group_id": 20000003, "user_id": 10001, "operator_id": 10002}),
    );
    assert!(
        matches!(decode("acc", 10001, &me), InboundEvent::MemberLeft { ref sub_type, .. } if sub_type == "kick_me")
    );
    let off = event("bot_offline", json!({"reason": "kicked"}));
    assert_eq!(
        decode("acc", 10001, &off),
        InboundEvent::Lifecycle {
            sub_type: "offline".into(),
            time: 1700000000
        }
    );
}

#[test]
fn other_events_stay_raw() {
    let request = event(
        "group_join_request",
        json!({"group_id": 20000003, "notification_seq": 5, "is_filtered": false,
        "initiator_id": 10009, "comment": "hi"}),
    );
    match decode("acc", 10001, &request) {
        InboundEvent::Unknown {
            post_type,
            group_id,
            time,
            raw,
        } => {
            assert_eq!(
                (post_type.as_str(), group_id, time),
                ("group_join_request", Some(20000003), 1700000000)
            );
            assert_eq!(serde_json::from_str::<Value>(raw.text()).unwrap(), request);
        }
        other => panic!("{other:?}"),
    }
    let pin = event(
        "peer_pin_change",
        json!({"message_scene": "group", "peer_id": 20000003, "is_pinned": true}),
    );
    assert!(matches!(
        decode("acc", 10001, &pin),
        InboundEvent::Unknown {
            group_id: Some(20000003),
            ..
        }
    ));
    let broken = event("message_receive", json!({"message_scene": "group"}));
    assert!(
        matches!(decode("acc", 10001, &broken), InboundEvent::Unknown { ref post_type, .. } if post_type == "message_receive")
    );
    assert!(matches!(
        decode("acc", 10001, &json!([1])),
        InboundEvent::Unknown { time: 0, .. }
    ));
}

/// The group-action notices, each in its official Milky 1.2 shape.
#[test]
fn group_notices_decode() {
    let seq_id = |seq| {
        mint_id(
            "acc",
            MessageKey {
                scene: Scene::Group,
                peer: 20000003,
                seq,
            },
        )
    };
    let cases = [
        (
            event(
                "group_message_reaction",
                json!({"group_id": 20000003, "user_id": 10002, "message_seq": 77,
                "face_id": "76", "reaction_type": "face", "is_add": true}),
            ),
            InboundEvent::Reaction {
                group_id: 20000003,
                message_id: seq_id(77),
                user_id: 10002,
                emoji_id: "76".into(),
                added: true,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_message_reaction",
                json!({"group_id": 20000003, "user_id": 10002, "message_seq": 78,
                "face_id": "128076", "reaction_type": "emoji", "is_add": false}),
            ),
            InboundEvent::Reaction {
                group_id: 20000003,
                message_id: seq_id(78),
                user_id: 10002,
                emoji_id: "128076".into(),
                added: false,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_essence_message_change",
                json!({"group_id": 20000003, "message_seq": 77, "operator_id": 10003, "is_set": true}),
            ),
            InboundEvent::Essence {
                group_id: 20000003,
                message_id: seq_id(77),
                sender_id: 0,
                operator_id: 10003,
                set: true,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_essence_message_change",
                json!({"group_id": 20000003, "message_seq": 77, "operator_id": 10003, "is_set": false}),
            ),
            InboundEvent::Essence {
                group_id: 20000003,
                message_id: seq_id(77),
                sender_id: 0,
                operator_id: 10003,
                set: false,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_mute",
                json!({"group_id": 20000003, "user_id": 10002, "operator_id": 10003, "duration": 600}),
            ),
            InboundEvent::Mute {
                group_id: 20000003,
                target: MuteTarget::Member(10002),
                operator_id: 10003,
                duration_secs: 600,
                muted: true,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_mute",
                json!({"group_id": 20000003, "user_id": 10002, "operator_id": 10003, "duration": 0}),
            ),
            InboundEvent::Mute {
                group_id: 20000003,
                target: MuteTarget::Member(10002),
                operator_id: 10003,
                duration_secs: 0,
                muted: false,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_whole_mute",
                json!({"group_id": 20000003, "operator_id": 10003, "is_mute": true}),
            ),
            InboundEvent::Mute {
                group_id: 20000003,
                target: MuteTarget::WholeGroup,
                operator_id: 10003,
                duration_secs: 0,
                muted: true,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_whole_mute",
                json!({"group_id": 20000003, "operator_id": 10003, "is_mute": false}),
            ),
            InboundEvent::Mute {
                group_id: 20000003,
                target: MuteTarget::WholeGroup,
                operator_id: 10003,
                duration_secs: 0,
                muted: false,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_admin_change",
                json!({"group_id": 20000003, "user_id": 10002, "operator_id": 10004, "is_set": true}),
            ),
            InboundEvent::AdminChanged {
                group_id: 20000003,
                user_id: 10002,
                operator_id: 10004,
                set: true,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_admin_change",
                json!({"group_id": 20000003, "user_id": 10002, "operator_id": 10004, "is_set": false}),
            ),
            InboundEvent::AdminChanged {
                group_id: 20000003,
                user_id: 10002,
                operator_id: 10004,
                set: false,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_file_upload",
                json!({"group_id": 20000003, "user_id": 10002, "file_id": "/abc-123",
                "file_name": "报告.pdf", "file_size": 123456}),
            ),
            InboundEvent::GroupFileUploaded {
                group_id: 20000003,
                user_id: 10002,
                file_id: "/abc-123".into(),
                name: "报告.pdf".into(),
                size: 123456,
                time: 1700000000,
            },
        ),
        (
            event(
                "group_name_change",
                json!({"group_id": 20000003, "new_group_name": "新群名", "operator_id": 10003}),
            ),
            InboundEvent::GroupNameChanged {
                group_id: 20000003,
                name: "新群名".into(),
                operator_id: 10003,
                time: 1700000000,
            },
        ),
    ];
    for (raw, want) in cases {
        assert_eq!(decode("acc", 10001, &raw), want, "{raw}");
    }
    // The reacted-to message's id names the group and seq the event did.
    let InboundEvent::Reaction { message_id, .. } = decode(
        "acc",
        10001,
        &event(
            "group_message_reaction",
            json!({"group_id": 20000003, "user_id": 10002, "message_seq": 5,
            "face_id": "76", "reaction_type": "face", "is_add": true}),
        ),
    ) else {
        panic!()
    };
    assert_eq!(
        key_of("acc", message_id),
        Some(MessageKey {
            scene: Scene::Group,
            peer: 20000003,
            seq: 5
        })
    );
}

#[test]
fn group_notices_without_their_subject_stay_raw() {
    for (kind, data) in [
        (
            "group_mute",
            json!({"user_id": 10002, "operator_id": 10003, "duration": 60}),
        ),
        (
            "group_mute",
            json!({"group_id": 20000003, "operator_id": 10003, "duration": 60}),
        ),
        (
            "group_whole_mute",
            json!({"group_id": 20000003, "operator_id": 10003}),
        ),
        (
            "group_message_reaction",
            json!({"group_id": 20000003, "user_id": 10002, "message_seq": 5, "face_id": "76"}),
        ),
        (
            "group_essence_message_change",
            json!({"group_id": 20000003, "message_seq": 5}),
        ),
        (
            "group_admin_change",
            json!({"group_id": 20000003, "is_set": true}),
        ),
        (
            "group_name_change",
            json!({"new_group_name": "x", "operator_id": 1}),
        ),
    ] {
        let raw = event(kind, data);
        assert!(
            matches!(decode("acc", 10001, &raw), InboundEvent::Unknown { ref post_type, .. } if post_type == kind),
            "{raw}"
        );
    }
}
