//! Decoding inbound event frames into [`InboundEvent`]s.
//!
//! Decoding never fails and never panics: a message that cannot be decoded
//! and any `post_type`/`notice_type` we do not model become
//! [`InboundEvent::Unknown`] with the raw frame. Heartbeats feed the
//! connection's watchdog and are not published. Group notices (reactions,
//! essence, mutes, admins, uploads, group names) are decoded in `group`.

use serde_json::Value;

mod group;

use super::model::{decode_message, int_of, raw_of_value};
use onebot_gateway_domain::model::{ChatRef, InboundEvent};

/// What a frame with a `post_type` means.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// A heartbeat meta event announcing the next one `interval_ms` later
    /// (`None` when it carries no usable interval).
    Heartbeat {
        /// Milliseconds to the next heartbeat.
        interval_ms: Option<u64>,
    },
    /// An event to publish.
    Event(InboundEvent),
}

/// True when `frame` is an event (it has a `post_type`), not an action reply.
pub fn is_event(frame: &Value) -> bool {
    frame.get("post_type").is_some()
}

fn int(frame: &Value, key: &str) -> i64 {
    frame.get(key).and_then(int_of).unwrap_or(0)
}

fn text(frame: &Value, key: &str) -> String {
    match frame.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Decodes one event frame (a JSON object with `post_type`).
pub fn decode(frame: &Value) -> Decoded {
    let post_type = text(frame, "post_type");
    let unknown = || {
        Decoded::Event(InboundEvent::Unknown {
            post_type: post_type.clone(),
            group_id: frame.get("group_id").and_then(int_of),
            time: frame.get("time").and_then(int_of).unwrap_or(0),
            raw: raw_of_value(frame),
        })
    };
    let time = int(frame, "time");
    match post_type.as_str() {
        "message" | "message_sent" => match decode_message(frame, None) {
            Some(message) => {
                Decoded::Event(InboundEvent::message(message, post_type == "message_sent"))
            }
            None => unknown(),
        },
        "meta_event" => match text(frame, "meta_event_type").as_str() {
            "heartbeat" => Decoded::Heartbeat {
                interval_ms: frame
                    .get("interval")
                    .and_then(int_of)
                    .and_then(|i| u64::try_from(i).ok())
                    .filter(|i| *i > 0),
            },
            "lifecycle" => Decoded::Event(InboundEvent::Lifecycle {
                sub_type: text(frame, "sub_type"),
                time,
            }),
            _ => unknown(),
        },
        "notice" => {
            let group_id = int(frame, "group_id");
            let user_id = int(frame, "user_id");
            match text(frame, "notice_type").as_str() {
                "notify" if text(frame, "sub_type") == "poke" => {
                    Decoded::Event(InboundEvent::Poke {
                        group_id,
                        user_id,
                        target_id: int(frame, "target_id"),
                        time,
                    })
                }
                "group_increase" => Decoded::Event(InboundEvent::MemberJoined {
                    group_id,
                    user_id,
                    operator_id: int(frame, "operator_id"),
                    time,
                }),
                "group_decrease" => Decoded::Event(InboundEvent::MemberLeft {
                    group_id,
                    user_id,
                    operator_id: int(frame, "operator_id"),
                    sub_type: text(frame, "sub_type"),
                    time,
                }),
                "group_card" => Decoded::Event(InboundEvent::CardChanged {
                    group_id,
                    user_id,
                    card_new: text(frame, "card_new"),
                    card_old: text(frame, "card_old"),
                    time,
                }),
                // A recall notice without a usable message id or chat is
                // kept raw.
                "group_recall" | "friend_recall" => {
                    let message_id = frame.get("message_id").and_then(int_of);
                    let group = text(frame, "notice_type") == "group_recall";
                    let chat = if group {
                        (group_id != 0).then_some(ChatRef::Group(group_id))
                    } else {
                        (user_id != 0).then_some(ChatRef::Private(user_id))
                    };
                    match (message_id, chat) {
                        (Some(message_id), Some(chat)) => {
                            let operator = int(frame, "operator_id");
                            Decoded::Event(InboundEvent::MessageRecalled {
                                chat,
                                message_id,
                                operator_id: if operator != 0 { operator } else { user_id },
                                time,
                            })
                        }
                        _ => unknown(),
                    }
                }
                "bot_offline" => Decoded::Event(InboundEvent::Lifecycle {
                    sub_type: "offline".into(),
                    time,
                }),
                notice_type => group::decode(frame, notice_type, &text(frame, "sub_type"))
                    .map_or_else(unknown, Decoded::Event),
            }
        }
        _ => unknown(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use onebot_gateway_domain::model::ChatRef;

    #[test]
    fn decodes_the_modelled_events() {
        let msg = json!({"post_type":"message","message_type":"group","group_id":20000003,
            "message_id":-5,"user_id":10001,"time":1700000000,
            "sender":{"user_id":10001,"nickname":"张三","card":""},
            "message":[{"type":"text","data":{"text":"hi"}}]});
        match decode(&msg) {
            Decoded::Event(InboundEvent::Message {
                message, self_sent, ..
            }) => {
                assert!(!self_sent);
                assert_eq!(message.message_id, -5);
                assert_eq!(message.chat, ChatRef::Group(20000003));
            }
            other => panic!("{other:?}"),
        }
        let sent = json!({"post_type":"message_sent","message_type":"private","target_id":42,
            "message_id":7,"user_id":1,"sender":{"user_id":1},"message":"hi"});
        assert!(matches!(
            decode(&sent),
            Decoded::Event(InboundEvent::Message {
                self_sent: true,
                ..
            })
        ));
        let poke = json!({"post_type":"notice","notice_type":"notify","sub_type":"poke",
            "group_id":"7","user_id":1,"target_id":2,"time":3});
        assert_eq!(
            decode(&poke),
            Decoded::Event(InboundEvent::Poke {
                group_id: 7,
                user_id: 1,
                target_id: 2,
                time: 3
            })
        );
        let left = json!({"post_type":"notice","notice_type":"group_decrease","sub_type":"kick",
            "group_id":7,"user_id":1,"operator_id":9,"time":3});
        assert!(matches!(
            decode(&left),
            Decoded::Event(InboundEvent::MemberLeft { operator_id: 9, ref sub_type, .. }) if sub_type == "kick"
        ));
        let hb = json!({"post_type":"meta_event","meta_event_type":"heartbeat","interval":5000});
        assert_eq!(
            decode(&hb),
            Decoded::Heartbeat {
                interval_ms: Some(5000)
            }
        );
        let off = json!({"post_type":"notice","notice_type":"bot_offline","time":1});
        assert_eq!(
            decode(&off),
            Decoded::Event(InboundEvent::Lifecycle {
                sub_type: "offline".into(),
                time: 1
            })
        );
    }

    #[test]
    fn recall_notices_become_recalls() {
        let group = json!({"post_type":"notice","notice_type":"group_recall","group_id":7,
            "user_id":1,"operator_id":2,"message_id":"-5","time":3});
        assert_eq!(
            decode(&group),
            Decoded::Event(InboundEvent::MessageRecalled {
                chat: ChatRef::Group(7),
                message_id: -5,
                operator_id: 2,
                time: 3
            })
        );
        let friend = json!({"post_type":"notice","notice_type":"friend_recall",
            "user_id":9,"message_id":11,"time":4});
        assert_eq!(
            decode(&friend),
            Decoded::Event(InboundEvent::MessageRecalled {
                chat: ChatRef::Private(9),
                message_id: 11,
                operator_id: 9,
                time: 4
            })
        );
        for bad in [
            json!({"post_type":"notice","notice_type":"group_recall","group_id":7}),
            json!({"post_type":"notice","notice_type":"friend_recall","message_id":1}),
        ] {
            assert!(matches!(
                decode(&bad),
                Decoded::Event(InboundEvent::Unknown { .. })
            ));
        }
    }

    #[test]
    fn anything_else_is_unknown_and_never_panics() {
        for frame in [
            json!({"post_type":"request","request_type":"friend"}),
            json!({"post_type":"message","message_type":"group"}),
            json!({"post_type":5}),
            json!({"post_type":"notice","notice_type":["x"]}),
            json!({"post_type":"meta_event","meta_event_type":"heartbeat","interval":"-3"}),
        ] {
            match decode(&frame) {
                Decoded::Event(InboundEvent::Unknown { raw, .. }) => {
                    assert_eq!(raw.text(), frame.to_string())
                }
                Decoded::Heartbeat { interval_ms: None } => {}
                other => panic!("{frame} gave {other:?}"),
            }
        }
    }
}
