//! The conversions of `convert.rs`, checked on decoded peer objects.

use serde_json::json;

use super::*;
use onebot_gateway_onebot::model::{decode_member, decode_message, segments_of};

#[test]
fn every_segment_kind_converts() {
    use pb::segment::Kind;
    let segs = segments_of(
        &json!([
            {"type": "text", "data": {"text": "t"}},
            {"type": "at", "data": {"qq": "all"}},
            {"type": "at", "data": {"qq": 10001, "name": "张三"}},
            {"type": "face", "data": {"id": "14"}},
            {"type": "image", "data": {"file": "f", "url": "u", "file_size": "5", "summary": "s"}},
            {"type": "record", "data": {"file": "f", "url": "u"}},
            {"type": "video", "data": {"file": "f", "url": "u"}},
            {"type": "file", "data": {"file": "f", "name": "n", "file_size": 7, "url": "u"}},
            {"type": "reply", "data": {"id": "-3"}},
            {"type": "forward", "data": {"id": "fw"}},
            {"type": "json", "data": {"data": "{}"}},
            {"type": "xml", "data": {"data": "<x/>"}},
            {"type": "poke", "data": {"type": "1", "id": "2"}},
            {"type": "mface", "data": {"k": 1}},
        ]),
        None,
    );
    let kinds: Vec<Kind> = segs.into_iter().map(|s| segment(s).kind.unwrap()).collect();
    assert_eq!(
        kinds,
        vec![
            Kind::Text(pb::TextSegment { text: "t".into() }),
            Kind::At(pb::AtSegment {
                user_id: 0,
                all: true,
                name: String::new()
            }),
            Kind::At(pb::AtSegment {
                user_id: 10001,
                all: false,
                name: "张三".into()
            }),
            Kind::Face(pb::FaceSegment { id: "14".into() }),
            Kind::Image(pb::ImageSegment {
                file: "f".into(),
                url: "u".into(),
                file_size: 5,
                summary: "s".into(),
                media_id: String::new()
            }),
            Kind::Record(pb::RecordSegment {
                file: "f".into(),
                url: "u".into(),
                media_id: String::new()
            }),
            Kind::Video(pb::VideoSegment {
                file: "f".into(),
                url: "u".into(),
                media_id: String::new()
            }),
            Kind::File(pb::FileSegment {
                file: "f".into(),
                name: "n".into(),
                file_size: 7,
                url: "u".into(),
                media_id: String::new()
            }),
            Kind::Reply(pb::ReplySegment {
                id: "-3".into(),
                quoted: None
            }),
            Kind::Forward(pb::ForwardSegment { id: "fw".into() }),
            Kind::Json(pb::JsonSegment { data: "{}".into() }),
            Kind::Xml(pb::XmlSegment {
                data: "<x/>".into()
            }),
            Kind::Poke(pb::PokeSegment {
                r#type: "1".into(),
                id: "2".into()
            }),
            Kind::Unknown(pb::UnknownSegment {
                r#type: "mface".into(),
                data_json: "{\"k\":1}".into()
            }),
        ]
    );
}

#[test]
fn chat_message_carries_text_seq_time_and_chat() {
    let msg = decode_message(
        &json!({"message_type": "private", "message_id": -7, "real_seq": "88", "time": 1700000000,
                "user_id": 10001, "sender": {"user_id": 10001, "nickname": "张三", "card": "", "role": ""},
                "message": "[CQ:reply,id=1]看\n[CQ:image,file=a]"}),
        None,
    )
    .unwrap();
    let pb = chat_message(msg);
    assert_eq!(pb.message_id, -7);
    assert_eq!(pb.message_seq, Some(88));
    assert_eq!(pb.time, Some(timestamp_secs(1_700_000_000)));
    assert_eq!(pb.sender.unwrap().nickname, "张三");
    assert_eq!(pb.text, "看 [图片]");
    assert_eq!(pb.segments.len(), 3);
    assert_eq!(chat_ref(pb.chat.as_ref()), Some(ChatRef::Private(10001)));
}

#[test]
fn a_resolved_quote_converts_one_level_deep() {
    let quoted = decode_message(
        &json!({"message_type": "group", "group_id": 5, "message_id": 1, "user_id": 2,
                "sender": {"user_id": 2, "nickname": "张三"}, "message": "大家好"}),
        None,
    )
    .unwrap();
    let mut msg = quoted.clone();
    msg.message_id = 3;
    msg.segments = vec![
        Segment::Reply {
            id: "1".into(),
            quoted: Some(Box::new(quoted)),
        },
        Segment::Text("好".into()),
    ];
    let pb = chat_message(msg);
    assert_eq!(pb.text, "好", "text omits the reply");
    let Some(pb::segment::Kind::Reply(reply)) = &pb.segments[0].kind else {
        panic!("{:?}", pb.segments[0]);
    };
    let q = reply.quoted.as_ref().unwrap();
    assert_eq!((q.message_id, q.text.as_str()), (1, "大家好"));
}

#[test]
fn chat_round_trip_and_unset() {
    for c in [ChatRef::Group(5), ChatRef::Private(-1)] {
        assert_eq!(chat_ref(Some(&chat(c))), Some(c));
    }
    assert_eq!(chat_ref(Some(&pb::Chat { kind: None })), None);
    assert_eq!(chat_ref(None), None);
}

#[test]
fn members_and_groups_saturate_counts() {
    let m = group_member(decode_member(
        &json!({"user_id": 1, "join_time": 1700000000, "level": 5}),
    ));
    assert_eq!(
        (m.user_id, m.role.as_str(), m.level.as_str()),
        (1, "member", "5")
    );
    assert_eq!(m.join_time, Some(timestamp_secs(1_700_000_000)));
    assert_eq!(m.last_sent_time, None);
    let g = group(&GroupEntry {
        group_id: 1,
        group_name: "g".into(),
        member_count: i64::MAX,
        max_member_count: 500,
        whitelisted: true,
        joined: true,
        raw: None,
    });
    assert_eq!((g.member_count, g.max_member_count), (i32::MAX, 500));
    assert_eq!(count_i32(usize::MAX), i32::MAX);
    let t = timestamp_system(SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(1500));
    assert_eq!((t.seconds, t.nanos), (1, 500_000_000));
}
