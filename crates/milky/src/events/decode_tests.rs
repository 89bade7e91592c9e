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
    let mute = event(
        "group_mute",
        json!({"group_id": 20000003, "user_id": 10002, "operator_id": 10003, "duration": 60}),
    );
    match decode("acc", 10001, &mute) {
        InboundEvent::Unknown {
            post_type,
            group_id,
            time,
            raw,
        } => {
            assert_eq!(
                (post_type.as_str(), group_id, time),
                ("group_mute", Some(20000003), 1700000000)
            );
            assert_eq!(serde_json::from_str::<Value>(raw.text()).unwrap(), mute);
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
