//! `qq_wait_messages` over the fake peer's gateway and its real event hub:
//! what returns at once, what wakes a waiting call, what is filtered, and
//! every failure row.

use std::time::Duration;

use serde_json::{Value, json};

use super::*;
use onebot_gateway_domain::caller::{Caller, TokenScope};
use onebot_gateway_domain::model::{InboundEvent, Segment};
use onebot_gateway_domain::ports::EventSink;

const BOT: i64 = 3_000_000_001;

fn message(chat: ChatRef, id: i64, user: i64, nick: &str, segments: Value) -> InboundEvent {
    let mut raw = json!({
        "self_id": BOT,
        "user_id": user,
        "time": shanghai("10:01:00"),
        "message_id": id,
        "sender": {"user_id": user, "nickname": nick, "card": "", "role": "member"},
        "message": segments,
        "message_format": "array",
        "post_type": "message",
    });
    match chat {
        ChatRef::Group(g) => {
            raw["message_type"] = json!("group");
            raw["group_id"] = json!(g);
        }
        ChatRef::Private(_) => raw["message_type"] = json!("private"),
    }
    InboundEvent::message(decode_message(&raw, Some(chat)).expect("a message"), false)
}

fn text(t: &str) -> Value {
    json!([{"type": "text", "data": {"text": t}}])
}

fn said(id: i64, t: &str) -> InboundEvent {
    message(ChatRef::Group(GROUP), id, 10001, "张三", text(t))
}

fn bot_said(id: i64, t: &str) -> InboundEvent {
    match message(ChatRef::Group(GROUP), id, BOT, "机器人", text(t)) {
        InboundEvent::Message { message, .. } => InboundEvent::message(message, true),
        other => other,
    }
}

fn with_bot_id(fake: &Arc<Fake>) {
    fake.update_status(|s| s.self_id = BOT);
}

fn sequences(out: &ToolOutput) -> Vec<u64> {
    out.details["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["sequence"].as_u64().unwrap())
        .collect()
}

/// Buffered messages after `afterSequence` come back at once, rendered in
/// the history format under their chat, with the peer's objects and the
/// last sequence looked at.
#[tokio::test(start_paused = true)]
async fn buffered_messages_return_at_once() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    gw.events.publish("default", said(1, "早"));
    gw.events.publish("default", said(2, "在吗"));
    gw.events.publish(
        "default",
        message(ChatRef::Private(10002), 3, 10002, "李四", text("私聊")),
    );
    let started = Instant::now();
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":1}"#).await;
    assert_eq!(started.elapsed(), Duration::ZERO, "no wait");
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "group:20000002:\n[10:01:00] 张三(10001): 在吗\nprivate:10002:\n[10:01:00] 李四(10002): 私聊"
    );
    assert_eq!(sequences(&out), [2, 3]);
    assert_eq!(out.details["lastSequence"], 3);
    assert_eq!(out.details["messages"][0]["target"], "group:20000002");
    assert_eq!(out.details["messages"][0]["message"]["messageId"], 2);
    // From the start of the buffer.
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":0}"#).await;
    assert_eq!(sequences(&out), [1, 2, 3]);
    assert_eq!(fake.calls(), vec![], "waiting never reaches the peer");
}

/// A message the gateway read back after a reconnect (a backfilled message
/// event) comes in order with the live ones, marked: `backfilled: true` in
/// its details entry (absent on the others) and ` （重连后补回）` after its
/// line.
#[tokio::test(start_paused = true)]
async fn backfilled_messages_are_marked() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let backfilled = |event: InboundEvent| match event {
        InboundEvent::Message {
            message, self_sent, ..
        } => InboundEvent::Message {
            message,
            self_sent,
            backfilled: true,
        },
        other => other,
    };
    gw.events.publish("default", said(1, "断线前"));
    gw.events
        .publish("default", backfilled(said(2, "断线时说的")));
    gw.events.publish(
        "default",
        backfilled(message(
            ChatRef::Private(10002),
            3,
            10002,
            "李四",
            text("断线时的私聊"),
        )),
    );
    gw.events.publish("default", said(4, "重连后"));
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":0}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "group:20000002:\n[10:01:00] 张三(10001): 断线前\n[10:01:00] 张三(10001): 断线时说的 （重连后补回）\n\
         private:10002:\n[10:01:00] 李四(10002): 断线时的私聊 （重连后补回）\n\
         group:20000002:\n[10:01:00] 张三(10001): 重连后"
    );
    assert_eq!(sequences(&out), [1, 2, 3, 4]);
    let marks: Vec<Option<&Value>> = out.details["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m.get("backfilled"))
        .collect();
    assert_eq!(
        marks,
        [None, Some(&json!(true)), Some(&json!(true)), None],
        "only the backfilled ones carry it"
    );
    assert_eq!(
        out.details["messages"][1],
        json!({
            "sequence": 2,
            "target": "group:20000002",
            "backfilled": true,
            "message": {
                "messageId": 2,
                "time": "2026-10-19T10:01:00+08:00",
                "sender": {"userId": 10001},
                "text": "断线时说的",
            },
        })
    );
    // The details schema holds the mark to `true`.
    let schema = ToolSpec::of(ToolName::Wait).details_schema;
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let mut wrong = out.details.clone();
    wrong["messages"][0]["backfilled"] = json!(false);
    assert!(
        !validator.is_valid(&wrong),
        "false is left out, never written"
    );
}

/// Without `afterSequence` only what arrives after the call started
/// counts: a waiting call wakes on the next message.
#[tokio::test(start_paused = true)]
async fn a_waiting_call_wakes_on_the_next_message() {
    let fake = Fake::new();
    let gw = Arc::new(gateway(&fake));
    gw.events.publish("default", said(1, "旧消息"));
    let waiting = {
        let gw = gw.clone();
        tokio::spawn(async move { call(&gw, "qq_wait_messages", "{}").await })
    };
    // Let the call subscribe (it runs until it waits).
    tokio::task::yield_now().await;
    let started = Instant::now();
    gw.events.publish("default", said(2, "新消息"));
    let out = waiting.await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(out.text, "group:20000002:\n[10:01:00] 张三(10001): 新消息");
    assert_eq!(sequences(&out), [2]);
    assert_eq!(out.details["lastSequence"], 2);
}

/// Nothing before the timeout: `（无新消息）` and the account's latest
/// sequence; `timeoutSecs` is clamped to [1, 60], 30 by default.
#[tokio::test(start_paused = true)]
async fn timeouts_and_their_clamping() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    gw.events.publish("default", said(1, "a"));
    // A poke is an event too: it moves lastSequence but wakes no one.
    gw.events.publish(
        "default",
        InboundEvent::Poke {
            group_id: GROUP,
            user_id: 10001,
            target_id: BOT,
            time: 0,
        },
    );
    for (args, secs) in [
        (r#"{}"#, 30),
        (r#"{"timeoutSecs":5.9}"#, 5),
        (r#"{"timeoutSecs":0}"#, 1),
        (r#"{"timeoutSecs":999}"#, 60),
        (r#"{"timeoutSecs":"10"}"#, 30),
    ] {
        let started = Instant::now();
        let out = call(&gw, "qq_wait_messages", args).await;
        assert_eq!(started.elapsed(), Duration::from_secs(secs), "{args}");
        assert!(!out.is_error);
        assert_eq!(out.text, "（无新消息）");
        assert_eq!(
            out.details,
            json!({"status": "ok", "senders": [], "messages": [], "lastSequence": 2}),
            "{args}"
        );
    }
    // Filtered-out events after afterSequence still move it on.
    let out = call(
        &gw,
        "qq_wait_messages",
        r#"{"afterSequence":1,"timeoutSecs":1}"#,
    )
    .await;
    assert_eq!(out.details["lastSequence"], 2);
    // An account that never had an event.
    let out = call(
        &gw,
        "qq_wait_messages",
        r#"{"accountId":"multi","timeoutSecs":1}"#,
    )
    .await;
    assert_eq!(out.details["lastSequence"], 0);
}

/// `mentionedOnly`: an @ of the bot, a reply to a buffered message of the
/// bot, or a private message; never the bot's own messages.
#[tokio::test(start_paused = true)]
async fn mentions_replies_private_and_own_messages() {
    let fake = Fake::new();
    with_bot_id(&fake);
    let gw = gateway(&fake);
    let events = [
        said(1, "随便聊聊"),
        bot_said(2, "我是机器人"),
        message(
            ChatRef::Group(GROUP),
            3,
            10002,
            "李四",
            json!([{"type":"at","data":{"qq": BOT.to_string()}},{"type":"text","data":{"text":" 你好"}}]),
        ),
        message(
            ChatRef::Group(GROUP),
            4,
            10003,
            "王五",
            json!([{"type":"at","data":{"qq":"10001"}},{"type":"text","data":{"text":" 不是你"}}]),
        ),
        message(
            ChatRef::Group(GROUP),
            5,
            10003,
            "王五",
            json!([{"type":"reply","data":{"id":"2"}},{"type":"text","data":{"text":"回复机器人"}}]),
        ),
        message(
            ChatRef::Group(GROUP),
            6,
            10003,
            "王五",
            json!([{"type":"reply","data":{"id":"1"}},{"type":"text","data":{"text":"回复张三"}}]),
        ),
        message(ChatRef::Private(10004), 7, 10004, "赵六", text("私聊")),
    ];
    for e in events {
        gw.events.publish("default", e);
    }
    let all = call(&gw, "qq_wait_messages", r#"{"afterSequence":0}"#).await;
    assert_eq!(sequences(&all), [1, 3, 4, 5, 6, 7], "never the bot's own");
    let mentioned = call(
        &gw,
        "qq_wait_messages",
        r#"{"afterSequence":0,"mentionedOnly":true}"#,
    )
    .await;
    assert_eq!(sequences(&mentioned), [3, 5, 7]);
    assert_eq!(mentioned.details["lastSequence"], 7);
    assert_eq!(
        mentioned.text,
        "group:20000002:\n[10:01:00] 李四(10002): @3000000001 你好\n[10:01:00] 王五(10003): [回复]回复机器人\nprivate:10004:\n[10:01:00] 赵六(10004): 私聊"
    );
}

/// A reply whose quote the gateway resolved to a message of the bot counts
/// as a mention even when that message is no longer buffered; a resolved
/// quote of someone else does not.
#[tokio::test(start_paused = true)]
async fn a_resolved_quote_of_the_bot_is_a_mention() {
    let fake = Fake::new();
    with_bot_id(&fake);
    let gw = gateway(&fake);
    let quoting = |id: i64, quoted: InboundEvent| {
        let InboundEvent::Message {
            message: quoted, ..
        } = quoted
        else {
            unreachable!("a message")
        };
        let InboundEvent::Message { mut message, .. } =
            message(ChatRef::Group(GROUP), id, 10003, "王五", text("回复"))
        else {
            unreachable!("a message")
        };
        message.segments.insert(
            0,
            Segment::Reply {
                id: quoted.message_id.to_string(),
                quoted: Some(Box::new(quoted)),
            },
        );
        InboundEvent::message(message, false)
    };
    gw.events
        .publish("default", quoting(1, bot_said(90, "很久以前")));
    gw.events
        .publish("default", quoting(2, said(91, "张三说的")));
    let mentioned = call(
        &gw,
        "qq_wait_messages",
        r#"{"afterSequence":0,"mentionedOnly":true}"#,
    )
    .await;
    assert_eq!(sequences(&mentioned), [1]);
    assert_eq!(mentioned.details["lastSequence"], 2);
}

/// `chats` narrows the wait; a token limited to some groups waits only on
/// them and may not name others.
#[tokio::test(start_paused = true)]
async fn chats_and_token_scopes() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    gw.events.publish("default", said(1, "a"));
    gw.events.publish(
        "default",
        message(ChatRef::Group(20_000_003), 2, 10001, "张三", text("b")),
    );
    gw.events.publish(
        "default",
        message(ChatRef::Private(10002), 3, 10002, "李四", text("c")),
    );
    let out = call(
        &gw,
        "qq_wait_messages",
        r#"{"afterSequence":0,"chats":["group:20000003","private:10002"]}"#,
    )
    .await;
    assert_eq!(sequences(&out), [2, 3]);

    let scoped = Caller::token(TokenScope {
        name: "ro".into(),
        accounts: None,
        write: false,
        groups: Some([GROUP].into_iter().collect()),
        users: None,
    });
    let ctx = || CallCtx::new(scoped.clone(), Deadline::NONE);
    let out = gw
        .call_tool("qq_wait_messages", r#"{"afterSequence":0}"#, ctx())
        .await
        .unwrap();
    assert_eq!(sequences(&out), [1], "only the token's groups");
    let err = gw
        .call_tool(
            "qq_wait_messages",
            r#"{"afterSequence":0,"chats":["group:20000003"]}"#,
            ctx(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::TokenScope);

    // A token limited to private chats waits only on them.
    let private = Caller::token(TokenScope {
        name: "friend".into(),
        accounts: None,
        write: false,
        groups: None,
        users: Some([10002].into_iter().collect()),
    });
    let out = gw
        .call_tool(
            "qq_wait_messages",
            r#"{"afterSequence":0}"#,
            CallCtx::new(private, Deadline::NONE),
        )
        .await
        .unwrap();
    assert_eq!(sequences(&out), [3], "only the token's private chats");
}

/// Resume points outside the buffer, and bad arguments, are failed
/// results that say what to do.
#[tokio::test(start_paused = true)]
async fn failure_rows() {
    let fake = Fake::new();
    let gw = gateway_with(&fake, |c| c.events.buffer_size = 2);
    for i in 1..=5 {
        gw.events.publish("default", said(i, "x"));
    }
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":1}"#).await;
    assert_failed(
        &out,
        "续传位置 1 早于事件缓冲区（最早保留的事件序号为 4），其后的部分事件已不在缓冲区中；请不带序号重新开始。",
        "gap",
    );
    // Still inside: 3 is just before the oldest buffered event.
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":3}"#).await;
    assert_eq!(sequences(&out), [4, 5]);
    let out = call(&gw, "qq_wait_messages", r#"{"afterSequence":9}"#).await;
    assert!(out.is_error);
    assert!(
        out.text
            .contains("after_sequence 9 is ahead of the newest event 5"),
        "{}",
        out.text
    );
    for (args, text) in [
        (
            r#"{"afterSequence":-1}"#,
            "参数不合法：afterSequence 必须是非负整数（事件序号），收到 -1。",
        ),
        (
            r#"{"afterSequence":"x3"}"#,
            "参数不合法：afterSequence 必须是非负整数（事件序号），收到 \"x3\"。",
        ),
        (
            r#"{"afterSequence":1.5}"#,
            "参数不合法：afterSequence 必须是非负整数（事件序号），收到 1.5。",
        ),
        (
            r#"{"chats":["group:x"]}"#,
            "参数不合法：chats[0] \"group:x\" 应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"chats":["group:1"],"target":"group:1"}"#,
            "参数不合法：target 和 chats 只能给一个。",
        ),
        (
            r#"{"chats":["group:1", 5]}"#,
            "参数不合法：chats[1] 5 应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"accountId":"nows"}"#,
            "账号「nows」未配置 ws_url/http_url，无法执行该操作。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_wait_messages", args).await, text, args);
    }
    let out = call(&gw, "qq_wait_messages", r#"{"chats":"group:1"}"#).await;
    assert!(out.is_error && out.text.contains("chats"), "{}", out.text);
}

/// The input schema accepts and refuses what the description says.
#[test]
fn the_input_schema() {
    let schema = ToolSpec::of(ToolName::Wait).input_schema;
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    for (args, valid) in [
        (json!({}), true),
        (
            json!({"afterSequence": 0, "chats": ["group:1", "private:2"], "mentionedOnly": true, "timeoutSecs": 5}),
            true,
        ),
        (json!({"afterSequence": -1}), false),
        (json!({"chats": ["1"]}), true),
        (json!({"chats": ["channel:1"]}), false),
        (json!({"afterSequence": "3", "target": "group:1"}), true),
        (json!({"mentionedOnly": "yes"}), false),
        (json!({"other": 1}), false),
    ] {
        assert_eq!(validator.is_valid(&args), valid, "{args}");
    }
}
