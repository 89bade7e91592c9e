use serde_json::json;

use super::*;

/// [`classify_frame`] over a decoded answer, `data` decoded back.
fn classify(flavor: Flavor, via: Via, action: &str, frame: &Value) -> Result<Value> {
    classify_frame(flavor, via, action, Frame::from_value(frame.clone())).map(Data::into_value)
}

const NT: &str = "NTEvent serviceAndMethod:NodeIKernelMsgService/sendMsg ListenerName:NodeIKernelMsgListener/onMsgInfoListUpdate";

fn failed(retcode: i64, text: &str) -> Value {
    json!({"status":"failed","retcode":retcode,"data":null,"message":text,"wording":text})
}

fn kind(flavor: Flavor, via: Via, action: &str, frame: Value) -> Kind {
    classify(flavor, via, action, &frame).unwrap_err().kind
}

#[test]
fn unknown_messages_are_not_found_by_text_or_code() {
    use Flavor::*;
    let nf = |flavor, action: &str, frame: Value| kind(flavor, Via::Ws, action, frame);
    for text in [
        "消息不存在",
        "消息不存在或已被撤回: PromiseTimer",
        "消息123不存在",
        "message not found",
        "ResId无效: 找不到相关的聊天记录",
    ] {
        assert_eq!(
            nf(NapCat, "get_msg", failed(1200, text)),
            Kind::MessageNotFound,
            "{text}"
        );
        assert_eq!(
            nf(SnowLuma, "get_forward_msg", failed(100, text)),
            Kind::MessageNotFound
        );
    }
    let gocq =
        json!({"status":"failed","retcode":100,"msg":"MSG_NOT_FOUND","wording":"消息不存在"});
    assert_eq!(nf(GoCqhttp, "get_msg", gocq), Kind::MessageNotFound);
    let lagrange = json!({"status":"failed","retcode":200,"data":null});
    assert_eq!(
        nf(Lagrange, "get_msg", lagrange.clone()),
        Kind::MessageNotFound
    );
    let bare = json!({"status":"failed","retcode":1,"data":null});
    assert_eq!(nf(Lagrange, "get_forward_msg", bare), Kind::MessageNotFound);
    assert_eq!(
        nf(Lagrange, "delete_msg", lagrange),
        Kind::OnebotActionUnknown
    );
    // Other failures of the same actions keep their kinds.
    assert_eq!(
        nf(NapCat, "get_msg", failed(1200, "参数message_id不能为空")),
        Kind::OnebotActionFailed
    );
    assert_eq!(
        nf(NapCat, "get_msg", failed(1400, "消息不存在")),
        Kind::OnebotBadRequest
    );
    // A send's text never makes a "not found".
    assert_eq!(
        nf(NapCat, "send_group_msg", failed(1200, "群不存在")),
        Kind::OnebotActionFailed
    );
}

#[test]
fn a_refused_recall_is_a_failure_not_a_send_outcome() {
    let text = "Timeout: NTEvent serviceAndMethod:NodeIKernelMsgService/recallMsg ListenerName:NodeIKernelMsgListener/onMsgInfoListUpdate EventRet:\n{\"result\":7,\"errMsg\":\"decode failed!\"}";
    let e = classify(Flavor::NapCat, Via::Ws, "delete_msg", &failed(1200, text)).unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionFailed);
    assert_eq!(e.meta("peer_message"), Some(text));
    let bare = text.split(" EventRet").next().unwrap();
    assert_eq!(
        kind(Flavor::NapCat, Via::Ws, "delete_msg", failed(1200, bare)),
        Kind::OnebotActionFailed
    );
}

#[test]
fn success_and_async() {
    let ok = json!({"status":"ok","retcode":0,"data":{"message_id":5}});
    assert_eq!(
        classify_frame(
            Flavor::NapCat,
            Via::Ws,
            "send_group_msg",
            Frame::from_value(ok.clone())
        )
        .unwrap()
        .into_value(),
        json!({"message_id": 5})
    );
    assert_eq!(
        classify(Flavor::NapCat, Via::Ws, "send_group_msg", &ok).unwrap(),
        json!({"message_id":5})
    );
    let bare = json!({"retcode":0,"data":[1]});
    assert_eq!(
        classify(Flavor::Generic, Via::Ws, "x", &bare).unwrap(),
        json!([1])
    );
    let queued = json!({"status":"async","retcode":1,"data":null});
    assert_eq!(
        classify(Flavor::Generic, Via::Ws, "x", &queued).unwrap(),
        Value::Null
    );
}

#[test]
fn per_flavor_retcodes() {
    use Flavor::*;
    let cases = [
        (
            NapCat,
            Via::Ws,
            "get_msg",
            failed(1400, "bad"),
            Kind::OnebotBadRequest,
        ),
        (
            NapCat,
            Via::Http(200),
            "get_msg",
            failed(400, "bad"),
            Kind::OnebotBadRequest,
        ),
        (
            NapCat,
            Via::Ws,
            "nope",
            failed(1404, "不支持的API nope"),
            Kind::OnebotActionUnsupported,
        ),
        (
            NapCat,
            Via::Http(200),
            "nope",
            failed(200, "不支持的API nope"),
            Kind::OnebotActionUnsupported,
        ),
        (
            NapCat,
            Via::Ws,
            "get_msg",
            failed(1200, "消息不存在"),
            Kind::MessageNotFound,
        ),
        (
            NapCat,
            Via::Http(200),
            "get_msg",
            failed(200, "消息不存在"),
            Kind::MessageNotFound,
        ),
        (
            NapCat,
            Via::Ws,
            "get_msg",
            failed(1403, "token验证失败"),
            Kind::OnebotAuthFailed,
        ),
        (
            LlOneBot,
            Via::Ws,
            "x",
            failed(1200, "boom"),
            Kind::OnebotActionFailed,
        ),
        (
            GoCqhttp,
            Via::Ws,
            "nope",
            failed(404, "API不存在"),
            Kind::OnebotActionUnsupported,
        ),
        (
            GoCqhttp,
            Via::Ws,
            "get_msg",
            failed(100, "消息不存在"),
            Kind::MessageNotFound,
        ),
        (
            SnowLuma,
            Via::Ws,
            "get_msg",
            json!({"status":"failed","retcode":100,"wording":"x"}),
            Kind::OnebotActionFailed,
        ),
        (
            SnowLuma,
            Via::Ws,
            "x",
            json!({"status":"failed","retcode":1400,"wording":"x"}),
            Kind::OnebotBadRequest,
        ),
        (
            Lagrange,
            Via::Ws,
            "get_group_member_list",
            json!({"status":"failed","retcode":1}),
            Kind::OnebotActionFailed,
        ),
        (
            Lagrange,
            Via::Ws,
            "x",
            json!({"status":"failed","retcode":7}),
            Kind::OnebotActionUnknown,
        ),
        (
            NapCat,
            Via::Ws,
            "x",
            json!({"status":"weird","retcode":0}),
            Kind::OnebotActionUnknown,
        ),
        (
            SnowLuma,
            Via::Http(401),
            "x",
            json!({"status":"failed","retcode":1401}),
            Kind::OnebotAuthFailed,
        ),
    ];
    for (flavor, via, action, frame, want) in cases {
        assert_eq!(
            kind(flavor, via, action, frame.clone()),
            want,
            "{flavor} {via:?} {frame}"
        );
    }
}

#[test]
fn napcat_send_failures() {
    let checker = |result: i64, msg: &str| {
        format!(
            "EventChecker Failed: {NT} EventRet:\n{{\n    \"result\": {result},\n    \"errMsg\": \"{msg}\"\n}}"
        )
    };
    let timeout = |body: &str| format!("Timeout: {NT} EventRet:\n{body}");
    let cases = [
        (
            checker(110, "发送失败，你已被移出该群，请重新加群。"),
            Kind::RemovedFromGroup,
        ),
        (
            checker(-1, "rich media transfer failed"),
            Kind::MediaTransferFailed,
        ),
        (checker(1, ""), Kind::BotMuted),
        (
            timeout("{\n    \"result\": 1,\n    \"errMsg\": \"\"\n}"),
            Kind::BotMuted,
        ),
        (
            timeout("{\n    \"result\": 0,\n    \"errMsg\": \"\"\n}"),
            Kind::SendOutcomeUnknown,
        ),
        (timeout("{}"), Kind::SendOutcomeUnknown),
        (checker(5, "other"), Kind::OnebotActionFailed),
    ];
    for (text, want) in cases {
        let err = classify(
            Flavor::NapCat,
            Via::Ws,
            "send_group_msg",
            &failed(1200, &text),
        )
        .unwrap_err();
        assert_eq!(err.kind, want, "{text}");
        assert_eq!(err.meta("peer_message"), Some(text.as_str()));
        assert_eq!(err.meta("retcode"), Some("1200"));
        assert_eq!(err.meta("action"), Some("send_group_msg"));
        assert!(err.message.contains(&text), "{}", err.message);
    }
}

#[test]
fn risk_control_and_poke() {
    let gocq = json!({"status":"failed","retcode":100,"msg":"SEND_MSG_API_ERROR",
        "wording":"请参考 go-cqhttp 端输出","message":"请参考 go-cqhttp 端输出"});
    let err = classify(Flavor::GoCqhttp, Via::Ws, "send_group_msg", &gocq).unwrap_err();
    assert_eq!(err.kind, Kind::RiskControlled);
    assert_eq!(err.meta("peer_message"), Some("请参考 go-cqhttp 端输出"));
    assert_eq!(
        kind(
            Flavor::NapCat,
            Via::Ws,
            "group_poke",
            failed(1400, "packetBackend发包能力不可用，请检查配置")
        ),
        Kind::PokeUnsupported
    );
    assert_eq!(
        kind(
            Flavor::SnowLuma,
            Via::Ws,
            "group_poke",
            json!({"status":"failed","retcode":1404,"wording":"unknown action"})
        ),
        Kind::PokeUnsupported
    );
    assert_eq!(
        kind(
            Flavor::Lagrange,
            Via::Ws,
            "group_poke",
            json!({"status":"failed","retcode":1})
        ),
        Kind::OnebotActionFailed
    );
}

#[test]
fn every_familys_error_conventions() {
    use Flavor::*;
    // retcode -1 with only `msg`.
    assert_eq!(
        kind(
            Generic,
            Via::Ws,
            "get_msg",
            json!({"status":"failed","retcode":-1,"msg":"消息不存在"})
        ),
        Kind::MessageNotFound
    );
    let e = classify(
        NapCat,
        Via::Ws,
        "get_msg",
        &json!({"status":"failed","retcode":-1,"msg":"not here"}),
    )
    .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("peer_message")),
        (Kind::OnebotActionFailed, Some("not here"))
    );
    // `wording` without `message`.
    let e = classify(
        SnowLuma,
        Via::Ws,
        "x",
        &json!({"status":"failed","retcode":100,"wording":"w"}),
    )
    .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("peer_message")),
        (Kind::OnebotActionFailed, Some("w"))
    );
    // String retcodes, any status case.
    let e = classify(
        GoCqhttp,
        Via::Ws,
        "x",
        &json!({"status":"FAILED","retcode":"404","msg":"API_NOT_FOUND"}),
    )
    .unwrap_err();
    assert_eq!(e.kind, Kind::OnebotActionUnsupported);
    assert_eq!(
        classify(
            Generic,
            Via::Ws,
            "x",
            &json!({"status":"OK","retcode":"0","data":[1]})
        )
        .unwrap(),
        json!([1])
    );
    // `status` missing: the retcode decides; with neither, the data.
    assert_eq!(
        classify(
            Generic,
            Via::Ws,
            "x",
            &json!({"retcode":"0","data":{"a":1}})
        )
        .unwrap(),
        json!({"a":1})
    );
    assert_eq!(
        classify(Generic, Via::Ws, "x", &json!({"data":{"a":1}})).unwrap(),
        json!({"a":1})
    );
    assert_eq!(
        kind(Generic, Via::Ws, "x", json!({"retcode":100,"message":"m"})),
        Kind::OnebotActionFailed
    );
    assert_eq!(
        kind(Generic, Via::Ws, "x", json!({})),
        Kind::OnebotActionUnknown
    );
    // `data` a string: the text of a failure.
    let e = classify(
        Lagrange,
        Via::Ws,
        "x",
        &json!({"status":"failed","retcode":1,"data":"group not found"}),
    )
    .unwrap_err();
    assert_eq!(e.meta("peer_message"), Some("group not found"));
    // ... and, on success, handed over for the action to refuse.
    assert_eq!(
        classify(
            NapCat,
            Via::Ws,
            "get_msg",
            &json!({"status":"ok","retcode":0,"data":"x"})
        )
        .unwrap(),
        json!("x")
    );
}

#[test]
fn text_fields_and_actions() {
    assert_eq!(
        peer_text(&json!({"message":"","wording":"w","msg":"m"})),
        "w"
    );
    assert_eq!(peer_text(&json!({"msg":"m"})), "m");
    assert_eq!(peer_text(&json!({})), "");
    assert!(is_send_action("send_group_msg_async"));
    assert!(!is_send_action("send_like"));
    assert_eq!(base_action("get_msg_rate_limited"), "get_msg");
}
