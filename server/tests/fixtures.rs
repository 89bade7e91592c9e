//! Replays the recorded corpus under `tests/fixtures/onebot/` (frames from
//! public documentation of real implementations, redacted) through the
//! adapter's decoders: every event frame decodes to the expected typed
//! event or a clean unknown, every segment to its kind, every answer to its
//! data or error, every history answer to its messages.

use std::path::PathBuf;

use onebot_gateway_domain::error::Kind;
use onebot_gateway_domain::model::{ChatRef, InboundEvent, MuteTarget, Segment};
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::events::{Decoded, decode};
use onebot_gateway_onebot::frame::Frame;
use onebot_gateway_onebot::history::page;
use onebot_gateway_onebot::history::profile::HistoryProfile;
use onebot_gateway_onebot::model::{PeerSegment, decode_message, decode_segment};
use onebot_gateway_onebot::retcode::{Via, classify_frame};
use serde_json::Value;

fn corpus(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/onebot")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn entries<'a>(v: &'a Value, key: &str) -> &'a Vec<Value> {
    v[key].as_array().unwrap_or_else(|| panic!("no {key}"))
}

fn chat_of(target: &str) -> ChatRef {
    match target.split_once(':') {
        Some(("group", id)) => ChatRef::Group(id.parse().unwrap()),
        Some(("private", id)) => ChatRef::Private(id.parse().unwrap()),
        _ => panic!("bad chat {target}"),
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not an int: {v}"))
}

#[test]
fn every_recorded_event_decodes_to_its_event_or_a_clean_unknown() {
    let corpus = corpus("events.json");
    let frames = entries(&corpus, "frames");
    assert!(frames.len() >= 25);
    for entry in frames {
        let (frame, want) = (&entry["frame"], &entry["expect"]);
        let what = format!("{} ({})", entry["note"], entry["source"]);
        let decoded = decode(frame);
        match (want["event"].as_str().unwrap(), decoded) {
            ("heartbeat", Decoded::Heartbeat { interval_ms }) => {
                assert_eq!(
                    interval_ms,
                    Some(int(&want["interval_ms"]) as u64),
                    "{what}"
                )
            }
            ("lifecycle", Decoded::Event(InboundEvent::Lifecycle { sub_type, .. })) => {
                assert_eq!(sub_type, want["sub_type"].as_str().unwrap(), "{what}")
            }
            (
                "message",
                Decoded::Event(InboundEvent::Message {
                    message, self_sent, ..
                }),
            ) => {
                assert_eq!(
                    message.chat,
                    chat_of(want["chat"].as_str().unwrap()),
                    "{what}"
                );
                assert_eq!(message.message_id, int(&want["message_id"]), "{what}");
                assert_eq!(message.sender.user_id, int(&want["sender"]), "{what}");
                assert_eq!(self_sent, want["self_sent"].as_bool().unwrap(), "{what}");
                if let Some(seq) = want.get("message_seq") {
                    assert_eq!(message.message_seq, Some(int(seq)), "{what}");
                }
                let kinds: Vec<&str> = message.segments.iter().map(Segment::kind).collect();
                let expected: Vec<&str> = entries(want, "segments")
                    .iter()
                    .map(|k| k.as_str().unwrap())
                    .collect();
                assert_eq!(kinds, expected, "{what}");
                if let Some(reply) = want.get("reply_to") {
                    let quoted = message.segments.iter().find_map(|s| match s {
                        Segment::Reply { id, .. } => Some(id.clone()),
                        _ => None,
                    });
                    assert_eq!(quoted.as_deref(), reply.as_str(), "{what}");
                }
                assert_eq!(
                    serde_json::from_str::<Value>(message.raw.text()).unwrap(),
                    *frame,
                    "{what}: the raw object is the frame"
                );
            }
            (
                "member_joined",
                Decoded::Event(InboundEvent::MemberJoined {
                    group_id, user_id, ..
                }),
            )
            | (
                "member_left",
                Decoded::Event(InboundEvent::MemberLeft {
                    group_id, user_id, ..
                }),
            )
            | (
                "poke",
                Decoded::Event(InboundEvent::Poke {
                    group_id, user_id, ..
                }),
            ) => {
                assert_eq!(
                    (group_id, user_id),
                    (int(&want["group_id"]), int(&want["user_id"])),
                    "{what}"
                )
            }
            (
                "mute",
                Decoded::Event(InboundEvent::Mute {
                    group_id,
                    target: MuteTarget::Member(user_id),
                    duration_secs,
                    muted: true,
                    ..
                }),
            ) => assert_eq!(
                (group_id, user_id, duration_secs),
                (
                    int(&want["group_id"]),
                    int(&want["user_id"]),
                    int(&want["duration_secs"])
                ),
                "{what}"
            ),
            (
                "group_file_uploaded",
                Decoded::Event(InboundEvent::GroupFileUploaded {
                    group_id,
                    user_id,
                    file_id,
                    size,
                    ..
                }),
            ) => assert_eq!(
                (group_id, user_id, file_id.as_str(), size as i64),
                (
                    int(&want["group_id"]),
                    int(&want["user_id"]),
                    want["file_id"].as_str().unwrap(),
                    int(&want["size"])
                ),
                "{what}"
            ),
            ("unknown", Decoded::Event(InboundEvent::Unknown { post_type, raw, .. })) => {
                assert_eq!(post_type, want["post_type"].as_str().unwrap(), "{what}");
                assert_eq!(
                    serde_json::from_str::<Value>(raw.text()).unwrap(),
                    *frame,
                    "{what}"
                );
            }
            (kind, other) => panic!("{what}: expected {kind}, decoded {other:?}"),
        }
    }
}

#[test]
fn every_recorded_segment_decodes_to_its_kind() {
    let corpus = corpus("segments.json");
    for entry in entries(&corpus, "segments") {
        let seg = decode_segment(&entry["segment"]).unwrap_or_else(|| panic!("{entry}"));
        // Read from its text, `data` first (as serde_json writes a tree)
        // and `type` first (as NapCat writes it), it is the same segment.
        let (kind, data) = (&entry["segment"]["type"], &entry["segment"]["data"]);
        for text in [
            entry["segment"].to_string(),
            format!(r#"{{"type":{kind},"data":{data}}}"#),
        ] {
            let read: PeerSegment = serde_json::from_str(&text).unwrap();
            assert_eq!(read.0.as_ref(), Some(&seg), "{text}");
        }
        let want = entry["expect"].as_str().unwrap();
        match want.strip_prefix("unknown:") {
            Some(kind) => assert!(
                matches!(&seg, Segment::Unknown { kind: k, .. } if k == kind),
                "{entry}: {seg:?}"
            ),
            None => {
                assert_eq!(seg.kind(), want, "{entry}");
                assert!(!matches!(seg, Segment::Unknown { .. }), "{entry}");
            }
        }
    }
}

fn flavor(v: &Value) -> Flavor {
    Flavor::from_name(v.as_str().unwrap()).unwrap()
}

fn via(v: &Value) -> Via {
    match v.as_str().unwrap() {
        "ws" => Via::Ws,
        "http" => Via::Http(200),
        other => Via::Http(other.strip_prefix("http:").unwrap().parse().unwrap()),
    }
}

#[test]
fn every_recorded_answer_maps_through_the_retcode_table() {
    let corpus = corpus("answers.json");
    for entry in entries(&corpus, "answers") {
        let got = classify_frame(
            flavor(&entry["flavor"]),
            via(&entry["via"]),
            entry["action"].as_str().unwrap(),
            Frame::from_value(entry["frame"].clone()),
        );
        let want = &entry["expect"];
        match (want.get("ok"), got) {
            (Some(data), Ok(got)) => assert_eq!(got.into_value(), *data, "{entry}"),
            (None, Err(e)) => {
                assert_eq!(
                    format!("{:?}", e.kind),
                    want["error"].as_str().unwrap(),
                    "{entry}"
                );
                if let Some(text) = want.get("peer_message") {
                    assert_eq!(e.meta("peer_message"), text.as_str(), "{entry}");
                }
            }
            (_, got) => panic!("{entry}: got {got:?}"),
        }
    }
}

#[test]
fn every_recorded_history_answer_decodes_to_its_messages() {
    let corpus = corpus("history.json");
    for entry in entries(&corpus, "pages") {
        let flavor = flavor(&entry["flavor"]);
        let chat = chat_of(entry["chat"].as_str().unwrap());
        let answer = match entry.get("error") {
            Some(frame) => classify_frame(
                flavor,
                Via::Ws,
                "get_group_msg_history",
                Frame::from_value(frame.clone()),
            ),
            None => Ok(Frame::from_value(
                serde_json::json!({"status": "ok", "retcode": 0, "data": entry["data"]}),
            )
            .into_data()),
        };
        assert!(
            entry.get("error").is_none()
                || answer
                    .as_ref()
                    .is_err_and(|e| e.kind == Kind::OnebotActionFailed)
        );
        let fetched = page(&HistoryProfile::assumed(flavor), chat, 20, None, answer)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        let ids: Vec<i64> = fetched.page.messages.iter().map(|m| m.message_id).collect();
        let want: Vec<i64> = entries(entry, "expect_ids").iter().map(int).collect();
        assert_eq!(ids, want, "{entry}");
        assert!(fetched.page.messages.iter().all(|m| m.chat == chat));
        // Each message read from the page's text is the message its own
        // entry decodes to as a tree.
        for m in &fetched.page.messages {
            let tree: Value = serde_json::from_str(m.raw.text()).unwrap();
            assert_eq!(
                decode_message(&tree, Some(chat)).as_ref(),
                Some(m),
                "{entry}"
            );
        }
    }
}
