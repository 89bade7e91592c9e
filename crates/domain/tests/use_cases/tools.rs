//! The tools over a recording fake `PeerApi`: every argument rule and
//! failure row of the four tools, each asserting what reached the peer
//! (nothing, for every refused call).

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::time::Instant;

use onebot_gateway_config::{AccountConfig, Config, Locale};
use onebot_gateway_domain::account::Account;
use onebot_gateway_domain::call::{CallCtx, Deadline};
use onebot_gateway_domain::detached::Detached;
use onebot_gateway_domain::error::{Error, Kind};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::model::{ChatRef, GroupInfo, Message};
use onebot_gateway_domain::ports::{HistoryPage, PeerApi};
use onebot_gateway_domain::tools::{ToolName, ToolOutput, ToolSpec};
use onebot_gateway_onebot::Flavor;
use onebot_gateway_onebot::model::{decode_members, decode_message};
use onebot_gateway_testkit::{Call, FakeApi};

const GROUP: i64 = 20_000_002;

mod group_tests;
mod wait_tests;

/// The shared fake with the example data (see [`Fake::new`]); its calls
/// are seen without the group-list reads of the group check (counted by
/// [`FakeApi::group_reads`]).
struct Fake(Arc<FakeApi>);

impl Fake {
    /// An online NapCat peer (bot id unknown) that answers with the example
    /// data: the three messages of the example group (newest first, so the
    /// tool must sort), a group of 120 members, the groups the bot is in,
    /// the private message -7 and the bundle `fw1`.
    fn new() -> Arc<Self> {
        let fake = FakeApi::new(Flavor::NapCat);
        fake.update_status(|s| s.self_id = 0);
        fake.set_history(|chat, _, _| {
            Ok(HistoryPage {
                messages: match chat {
                    ChatRef::Group(GROUP) => seed_messages()
                        .iter()
                        .filter_map(|m| decode_message(m, Some(chat)))
                        .collect(),
                    _ => Vec::new(),
                },
                has_more: false,
            })
        });
        fake.set_members_by(|group_id| {
            if group_id == GROUP {
                decode_members(seed_members())
            } else {
                Vec::new()
            }
        });
        // The example group, the sandbox group, an empty one, and groups 16
        // and 1000 (what `"0x10"` and `"1e3"` convert to).
        fake.set_group_list(Some(
            [GROUP, 20000003, 20000009, 16, 1000]
                .into_iter()
                .map(|group_id| GroupInfo {
                    group_id,
                    group_name: String::new(),
                    member_count: 0,
                    max_member_count: 0,
                    raw: Default::default(),
                })
                .collect(),
        ));
        for message in seed_messages()
            .iter()
            .chain([&private_message()])
            .filter_map(|m| decode_message(m, None))
        {
            fake.store(message);
        }
        fake.set_missing_message(
            Error::new(
                Kind::MessageNotFound,
                "get_msg: not found (retcode 1200): 消息不存在",
            )
            .with("peer_message", "消息不存在")
            .with("retcode", 1200),
        );
        fake.store_forward(
            "fw1",
            [
                json!({"sender": {"user_id": 10001, "nickname": "张三"}, "time": shanghai("09:00:00"),
                       "message_id": 0, "user_id": 10001, "message": "会议纪要第一条"}),
                json!({"sender": {"user_id": 10002, "nickname": "李四"}, "time": shanghai("09:01:00"),
                       "message_id": 0, "user_id": 10002,
                       "message": [{"type": "forward", "data": {"id": "fw-inner"}}]}),
            ]
            .iter()
            .filter_map(|m| decode_message(m, Some(ChatRef::Private(10001))))
            .collect(),
        );
        fake.set_missing_forward(
            Error::new(Kind::MessageNotFound, "get_forward_msg: not found")
                .with("peer_message", "ResId无效: 找不到相关的聊天记录"),
        );
        Arc::new(Self(fake))
    }

    /// The calls so far, without the group-list reads.
    fn calls(&self) -> Vec<Call> {
        let mut calls = self.0.calls();
        calls.retain(|c| *c != Call::Groups);
        calls
    }

    /// The calls so far, without the group-list reads, forgotten (the
    /// reads too).
    fn take_calls(&self) -> Vec<Call> {
        let mut calls = self.0.take_calls();
        calls.retain(|c| *c != Call::Groups);
        calls
    }
}

impl std::ops::Deref for Fake {
    type Target = FakeApi;

    fn deref(&self) -> &FakeApi {
        &self.0
    }
}

fn shanghai(hms: &str) -> i64 {
    format!("2026-10-19T{hms}+08:00")
        .parse::<jiff::Timestamp>()
        .unwrap()
        .as_second()
}

/// The peer's own message objects of the example group (NapCat shape).
fn seed_messages() -> Vec<Value> {
    let msg = |id: i64, hms: &str, user: i64, nick: &str, segs: Value| {
        json!({
            "self_id": 3_000_000_001i64,
            "user_id": user,
            "time": shanghai(hms),
            "message_id": id,
            "message_seq": id,
            "real_id": id,
            "message_type": "group",
            "group_id": GROUP,
            "sender": {"user_id": user, "nickname": nick, "card": "", "role": "member"},
            "message": segs,
            "message_format": "array",
            "post_type": "message",
        })
    };
    vec![
        msg(
            103,
            "10:00:05",
            10003,
            "王五",
            json!([{"type":"text","data":{"text":"昨天开会的记录发一下 "}},{"type":"forward","data":{"id":"fw1"}}]),
        ),
        msg(
            102,
            "09:58:40",
            10002,
            "李四",
            json!([{"type":"text","data":{"text":"早上好"}},{"type":"image","data":{"file":"a.jpg","url":"https://example.invalid/a.jpg"}}]),
        ),
        msg(
            101,
            "09:58:12",
            10001,
            "张三",
            json!([{"type":"text","data":{"text":"大家好"}}]),
        ),
    ]
}

/// The peer's one private message: -7, from user 10001.
fn private_message() -> Value {
    json!({
        "self_id": 3_000_000_001i64,
        "user_id": 10001,
        "time": shanghai("09:00:00"),
        "message_id": -7,
        "message_type": "private",
        "sender": {"user_id": 10001, "nickname": "张三"},
        "message": [{"type":"text","data":{"text":"在吗"}}],
        "post_type": "message",
    })
}

/// 120 member objects: 张三 (owner, card 群主张三), 李四 (admin, card
/// 管理员李四), 王五, then 成员4‥成员120.
fn seed_members() -> Vec<Value> {
    (1..=120)
        .map(|n| {
            let (nick, card, role) = match n {
                1 => ("张三".to_owned(), "群主张三".to_owned(), "owner"),
                2 => ("李四".to_owned(), "管理员李四".to_owned(), "admin"),
                3 => ("王五".to_owned(), String::new(), "member"),
                n => (format!("成员{n}"), String::new(), "member"),
            };
            json!({"group_id": GROUP, "user_id": 10000 + n, "nickname": nick, "card": card, "role": role, "level": "1"})
        })
        .collect()
}

/// A gateway with its write side open over a temporary data directory.
struct Env {
    gw: Gateway,
    dir: tempfile::TempDir,
    _stop: tokio_util::sync::DropGuard,
}

impl std::ops::Deref for Env {
    type Target = Gateway;

    fn deref(&self) -> &Gateway {
        &self.gw
    }
}

/// A gateway whose accounts `default` (whitelist: the example group),
/// `multi` (two whitelisted groups) and `nogroups` (none) are the fake, with
/// the member cache off (every list reaches the peer) and rate limits out of
/// the way; plus `nows`, an account without transport. Media roots:
/// `<temp>/media`.
fn gateway_with(fake: &Arc<Fake>, tweak: impl FnOnce(&mut Config)) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server.data_dir = dir.path().join("data");
    let media = dir.path().join("media");
    std::fs::create_dir_all(&media).unwrap();
    config.media.media_roots = vec![media];
    let account = |groups: Vec<i64>| AccountConfig {
        ws_url: Some("ws://127.0.0.1:1/".into()),
        groups,
        member_cache_ttl_secs: 0,
        rate_group_per_minute: 6000,
        rate_group_burst: 1000,
        rate_account_per_minute: 6000,
        rate_account_burst: 1000,
        rate_poke_per_minute: 6000,
        ..AccountConfig::default()
    };
    let mut default = account(vec![GROUP]);
    default.users = vec![10001];
    config.accounts.insert("default".into(), default);
    config
        .accounts
        .insert("multi".into(), account(vec![GROUP, 20_000_003]));
    config.accounts.insert("nogroups".into(), account(vec![]));
    config
        .accounts
        .insert("nows".into(), AccountConfig::default());
    tweak(&mut config);
    let accounts = config
        .accounts
        .iter()
        .map(|(id, c)| Account {
            id: id.clone(),
            config: c.clone(),
            peer: if c.has_transport() {
                fake.0.clone() as Arc<dyn PeerApi>
            } else {
                Arc::new(Detached::new(id))
            },
        })
        .collect();
    let stop = tokio_util::sync::CancellationToken::new();
    let gw = onebot_gateway_testkit::GatewayBuilder::new(config, accounts, stop.clone()).build();
    Env {
        gw,
        dir,
        _stop: stop.drop_guard(),
    }
}

fn gateway(fake: &Arc<Fake>) -> Env {
    gateway_with(fake, |_| {})
}

/// Calls a tool and checks the details against the tool's details schema
/// (an unknown tool's against the failed shape every schema shares).
async fn call(gw: &Gateway, name: &str, args: &str) -> ToolOutput {
    let out = gw
        .call_tool(name, args, CallCtx::anonymous())
        .await
        .expect("call_tool never fails for the call itself");
    let tool = ToolName::resolve(name).unwrap_or(ToolName::History);
    let schema = ToolSpec::of(tool).details_schema;
    let validator = jsonschema::draft202012::new(&schema).expect("details schema compiles");
    if let Err(e) = validator.validate(&out.details) {
        panic!(
            "{name} {args}: details do not match the schema: {e}\n{}",
            out.details
        );
    }
    assert_eq!(
        out.details["status"] == "failed",
        out.is_error,
        "{name} {args}"
    );
    out
}

fn assert_failed(out: &ToolOutput, text: &str, what: &str) {
    assert!(out.is_error, "{what}: expected a failure, got {out:?}");
    assert_eq!(out.text, text, "{what}");
    assert_eq!(
        out.details,
        json!({"status": "failed", "error": text}),
        "{what}"
    );
}

fn history_call(chat: ChatRef, count: u32, anchor: Option<i64>) -> Vec<Call> {
    vec![Call::History {
        chat,
        count,
        anchor,
    }]
}

/// Every argument rule of `snowluma_get_history` / `qq_get_history`: what
/// reaches the peer, or the failure text with no call at all.
#[tokio::test]
async fn history_argument_rules() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let g = ChatRef::Group(GROUP);
    // (arguments, the call that must reach the peer)
    let reaching: Vec<(String, Vec<Call>)> = [
        (
            r#"{"target":"group:20000002","count":30}"#,
            history_call(g, 30, None),
        ),
        (r#"{"target":"group:20000002"}"#, history_call(g, 20, None)),
        (
            r#"{"target":"private:10001"}"#,
            history_call(ChatRef::Private(10001), 20, None),
        ),
        (
            r#"{"target":"10001"}"#,
            history_call(ChatRef::Private(10001), 20, None),
        ),
        (
            r#"{"target":" group:20000002 "}"#,
            history_call(g, 20, None),
        ),
        (
            r#"{"target":"group:20000002","messageSeq":12345}"#,
            history_call(g, 20, Some(12345)),
        ),
        (
            r#"{"target":"group:20000002","messageSeq":-7}"#,
            history_call(g, 20, Some(-7)),
        ),
        (
            r#"{"target":"group:20000002","messageSeq":"-7"}"#,
            history_call(g, 20, Some(-7)),
        ),
        (
            r#"{"target":"group:20000002","messageSeq":12.0}"#,
            history_call(g, 20, Some(12)),
        ),
        (
            r#"{"target":"group:20000002","messageSeq":null}"#,
            history_call(g, 20, None),
        ),
        (
            r#"{"target":"group:20000002","accountId":"default"}"#,
            history_call(g, 20, None),
        ),
        (
            r#"{"target":"group:20000002","accountId":""}"#,
            history_call(g, 20, None),
        ),
        (r#"{"groupId":20000002}"#, history_call(g, 20, None)),
        (r#"{"groupId":" 20000002 "}"#, history_call(g, 20, None)),
        (
            r#"{"userId":"10001"}"#,
            history_call(ChatRef::Private(10001), 20, None),
        ),
        (
            r#"{"target":"group:20000002","groupId":"20000002"}"#,
            history_call(g, 20, None),
        ),
        (
            r#"{"target":"10001","userId":10001}"#,
            history_call(ChatRef::Private(10001), 20, None),
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":12345}"#,
            history_call(g, 20, Some(12345)),
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":" 12345 "}"#,
            history_call(g, 20, Some(12345)),
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":"-9223372036854775807"}"#,
            history_call(g, 20, Some(-9_223_372_036_854_775_807)),
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":12345,"messageSeq":"12345"}"#,
            history_call(g, 20, Some(12345)),
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":null}"#,
            history_call(g, 20, None),
        ),
    ]
    .into_iter()
    .map(|(a, c)| (a.to_owned(), c))
    .chain(
        // count: absent → 20; a finite number truncated then clamped to
        // [1, 100]; anything else → 20 (expected values from node running the
        // rule `typeof v === "number" && isFinite(v) ? clamp(trunc(v)) : 20`
        // on `JSON.parse` of the same text).
        [
            ("null", 20),
            ("30", 30),
            ("0", 1),
            ("-0", 1),
            ("1", 1),
            ("100", 100),
            ("101", 100),
            ("-5", 1),
            ("0.5", 1),
            ("0.99", 1),
            ("1.9", 1),
            ("99.9", 99),
            ("100.5", 100),
            ("-0.5", 1),
            ("1e2", 100),
            ("1e300", 100),
            ("1e400", 20),
            ("-1e400", 20),
            ("12345678901234567890123", 100),
            ("\"30\"", 20),
            ("\"abc\"", 20),
            ("true", 20),
            ("false", 20),
            ("[]", 20),
            ("[30]", 20),
            ("{}", 20),
            ("{\"n\":1e400}", 20),
            ("[1e400]", 20),
        ]
        .into_iter()
        .map(|(count, n)| {
            (
                format!(r#"{{"target":"group:20000002","count":{count}}}"#),
                history_call(g, n, None),
            )
        }),
    )
    .collect();
    for (args, expected) in reaching {
        for name in ["qq_get_history", "snowluma_get_history"] {
            let out = call(&gw, name, &args).await;
            assert!(!out.is_error, "{name} {args}: {out:?}");
            assert_eq!(fake.take_calls(), expected, "{name} {args}");
        }
    }

    // Refused before any call to the peer.
    let refused = [
        (
            "{}",
            "参数不合法：缺少必填参数 target（group:<群号> 或 private:<QQ号>；别名 groupId / userId）。",
        ),
        (
            r#"{"target":null}"#,
            "参数不合法：target 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。",
        ),
        (
            r#"{"groupId":""}"#,
            "参数不合法：groupId 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。",
        ),
        (
            r#"{"target":"group:20000002","groupId":20000003}"#,
            "参数不合法：target \"group:20000002\" 与 groupId 20000003 指向不同的目标，请只给一个。",
        ),
        (
            r#"{"target":"group:20000002","userId":20000002}"#,
            "参数不合法：target \"group:20000002\" 与 userId 20000002 指向不同的目标，请只给一个。",
        ),
        (
            r#"{"groupId":20000002,"userId":10001}"#,
            "参数不合法：groupId 和 userId 只能给一个。",
        ),
        (
            r#"{"groupId":"abc"}"#,
            "参数不合法：groupId \"abc\" 无法转换成有限数字。",
        ),
        (
            r#"{"target":"group:20000002","anchorMessageId":1,"messageSeq":2}"#,
            "参数不合法：anchorMessageId 1 与 messageSeq 2 指向不同的目标，请只给一个。",
        ),
        (
            r#"{"target":"group:20000002","unknown":1,"alsoUnknown":null}"#,
            "参数不合法：qq_get_history 不接受参数 alsoUnknown、unknown。它接受的参数：accountId、anchorMessageId、count、groupId、includeImages、messageSeq、target、userId。",
        ),
        (
            r#"{"target":20000002}"#,
            "参数不合法：target 必须是字符串。",
        ),
        (
            r#"{"target":"group:abc"}"#,
            "参数不合法：target「group:abc」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"target":"channel:1"}"#,
            "参数不合法：target「channel:1」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"target":" "}"#,
            "参数不合法：target 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。",
        ),
        (
            r#"{"target":"group:0"}"#,
            "参数不合法：target「group:0」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"target":"snowluma:group:20000002"}"#,
            "参数不合法：target「snowluma:group:20000002」无法解析，应为 group:<群号>、private:<QQ号> 或纯数字 QQ 号（私聊）。",
        ),
        (
            r#"{"target":"group:20000002","messageSeq":1.5}"#,
            "参数不合法：messageSeq 必须是非 0 的整数消息 id（message_id），收到 1.5。",
        ),
        (
            r#"{"target":"group:20000002","messageSeq":"abc"}"#,
            "参数不合法：messageSeq 必须是非 0 的整数消息 id（message_id），收到 \"abc\"。",
        ),
        (
            r#"{"target":"group:20000002","messageSeq":true}"#,
            "参数不合法：messageSeq 必须是非 0 的整数消息 id（message_id），收到 true。",
        ),
        (
            r#"{"target":"group:20000002","accountId":7}"#,
            "参数不合法：accountId 必须是字符串。",
        ),
        (
            r#"{"target":"group:20000002","accountId":"nows"}"#,
            "账号「nows」未配置 ws_url/http_url，无法执行该操作。",
        ),
        (
            r#"{"target":"group:20000002","accountId":"nope"}"#,
            "账号「nope」未配置 ws_url/http_url，无法执行该操作。",
        ),
        ("[]", "参数不合法：参数必须是 JSON 对象。"),
    ];
    for (args, text) in refused {
        let out = call(&gw, "snowluma_get_history", args).await;
        assert_failed(&out, text, args);
        assert_eq!(fake.calls(), vec![], "{args} must not reach the peer");
    }
    let out = call(&gw, "qq_get_history", "{\"target\":").await;
    assert!(
        out.is_error && out.text.starts_with("参数不合法：不是有效的 JSON（"),
        "{out:?}"
    );
    assert_eq!(fake.calls(), vec![]);
}

/// Every argument rule of `snowluma_get_group_members` /
/// `qq_get_group_members`.
#[tokio::test]
async fn members_argument_rules() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let members = |group_id, no_cache| vec![Call::Members { group_id, no_cache }];
    // (arguments, the call that must reach the peer, members shown)
    let mut reaching: Vec<(String, Vec<Call>, usize)> = [
        (
            r#"{"groupId":20000002,"noCache":true,"limit":50}"#,
            members(GROUP, Some(true)),
            50,
        ),
        (r#"{"groupId":20000002}"#, members(GROUP, None), 100),
        (r#"{"target":"group:20000002"}"#, members(GROUP, None), 100),
        (
            r#"{"target":"group:20000002","groupId":"20000002"}"#,
            members(GROUP, None),
            100,
        ),
        (r#"{"groupId":"20000002"}"#, members(GROUP, None), 100),
        (r#"{"groupId":" 20000002 "}"#, members(GROUP, None), 100),
        (r#"{"groupId":"\t20000002\n"}"#, members(GROUP, None), 100),
        (r#"{"groupId":"20000002.0"}"#, members(GROUP, None), 100),
        (r#"{"groupId":"2.0000002e7"}"#, members(GROUP, None), 100),
        (r#"{"groupId":20000002.0}"#, members(GROUP, None), 100),
        (r#"{"groupId":2.0000002e7}"#, members(GROUP, None), 100),
        // Number("0x10") is 16, Number("1e3") 1000: odd, but JavaScript's.
        (r#"{"groupId":"0x10"}"#, members(16, None), 0),
        (r#"{"groupId":"1e3"}"#, members(1000, None), 0),
        (r#"{"groupId":"+20000002"}"#, members(GROUP, None), 100),
        (
            r#"{"groupId":20000002,"noCache":false}"#,
            members(GROUP, Some(false)),
            100,
        ),
        (
            r#"{"groupId":20000002,"noCache":"true"}"#,
            members(GROUP, None),
            100,
        ),
        (
            r#"{"groupId":20000002,"noCache":1}"#,
            members(GROUP, None),
            100,
        ),
        (
            r#"{"groupId":20000002,"noCache":null}"#,
            members(GROUP, None),
            100,
        ),
        (
            r#"{"groupId":20000002,"noCache":[true]}"#,
            members(GROUP, None),
            100,
        ),
    ]
    .into_iter()
    .map(|(a, c, n)| (a.to_owned(), c, n))
    .collect();
    // limit: absent → 100; numbers truncated, clamped to [1, 500]; anything
    // else → 100 (node, as for count). The group has 120 members.
    for (limit, n) in [
        ("null", 100),
        ("30", 30),
        ("0", 1),
        ("-0", 1),
        ("101", 101),
        ("-5", 1),
        ("0.99", 1),
        ("99.9", 99),
        ("1e300", 500),
        ("1e400", 100),
        ("-1e400", 100),
        ("\"50\"", 100),
        ("true", 100),
        ("[50]", 100),
    ] {
        reaching.push((
            format!(r#"{{"groupId":20000002,"limit":{limit}}}"#),
            members(GROUP, None),
            n.min(120),
        ));
    }
    for (args, expected, shown) in reaching {
        for name in ["qq_get_group_members", "snowluma_get_group_members"] {
            let out = call(&gw, name, &args).await;
            assert!(!out.is_error, "{name} {args}: {out:?}");
            assert_eq!(fake.take_calls(), expected, "{name} {args}");
            assert_eq!(out.details["shown"], json!(shown), "{name} {args}");
            assert_eq!(
                out.details["members"].as_array().map(Vec::len),
                Some(shown),
                "{name} {args}"
            );
        }
    }

    let not_finite = |v: &str| format!("参数不合法：groupId {v} 无法转换成有限数字。");
    let not_positive = |v: &str| format!("参数不合法：groupId 必须是正整数，收到 {v}。");
    let empty = "参数不合法：groupId 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。".to_owned();
    let refused = [
        (
            "{}",
            "参数不合法：缺少必填参数 target（group:<群号> 或 private:<QQ号>；别名 groupId）。"
                .to_owned(),
        ),
        (r#"{"groupId":null}"#, empty.clone()),
        (r#"{"groupId":""}"#, empty.clone()),
        (r#"{"groupId":"  "}"#, empty),
        (
            r#"{"target":"private:10001"}"#,
            "参数不合法：private:10001 是私聊，qq_get_group_members 只适用于群，请用 group:<群号>。"
                .to_owned(),
        ),
        (
            r#"{"target":"group:20000002","groupId":20000003}"#,
            "参数不合法：target \"group:20000002\" 与 groupId 20000003 指向不同的目标，请只给一个。"
                .to_owned(),
        ),
        (
            r#"{"groupId":20000002,"userId":10001}"#,
            "参数不合法：qq_get_group_members 不接受参数 userId。它接受的参数：accountId、groupId、limit、noCache、target。"
                .to_owned(),
        ),
        (r#"{"groupId":"abc"}"#, not_finite("\"abc\"")),
        (
            r#"{"groupId":"20000002abc"}"#,
            not_finite("\"20000002abc\""),
        ),
        (r#"{"groupId":"20,000,002"}"#, not_finite("\"20,000,002\"")),
        (r#"{"groupId":"Infinity"}"#, not_finite("\"Infinity\"")),
        (r#"{"groupId":"-0x10"}"#, not_finite("\"-0x10\"")),
        (r#"{"groupId":"１２"}"#, not_finite("\"１２\"")),
        (r#"{"groupId":1e400}"#, not_finite("1e400")),
        (
            r#"{"groupId":"20000002.5"}"#,
            not_positive("\"20000002.5\""),
        ),
        (r#"{"groupId":20000002.5}"#, not_positive("20000002.5")),
        (r#"{"groupId":-5}"#, not_positive("-5")),
        (r#"{"groupId":0}"#, not_positive("0")),
        (r#"{"groupId":"-5"}"#, not_positive("\"-5\"")),
        // Above 2^53 - 1 the string's digits would be rounded to another id.
        (
            r#"{"groupId":"9007199254740993"}"#,
            not_positive("\"9007199254740993\""),
        ),
        (
            r#"{"groupId":true}"#,
            "参数不合法：groupId 必须是数字或数字字符串。".to_owned(),
        ),
        (
            r#"{"groupId":[20000002]}"#,
            "参数不合法：groupId 必须是数字或数字字符串。".to_owned(),
        ),
        (
            r#"{"groupId":20000002,"accountId":"nows"}"#,
            "账号「nows」未配置 ws_url/http_url，无法执行该操作。".to_owned(),
        ),
    ];
    for (args, text) in refused {
        let out = call(&gw, "snowluma_get_group_members", args).await;
        assert_failed(&out, &text, args);
        assert_eq!(fake.calls(), vec![], "{args} must not reach the peer");
    }
}

/// The sample calls of the tools' specification: the rendered text and the
/// details exactly as specified (with the gateway's `target` without a
/// channel prefix, and the peer's own objects).
#[tokio::test]
async fn seed_samples_render_as_the_seed_shows() {
    let fake = Fake::new();
    let gw = gateway(&fake);

    let out = call(
        &gw,
        "snowluma_get_history",
        r#"{ "target": "group:20000002", "count": 30 }"#,
    )
    .await;
    assert!(!out.is_error);
    assert_eq!(
        out.text,
        "[09:58:12] 张三(10001): 大家好\n[09:58:40] 李四(10002): 早上好[图片]\n[10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]"
    );
    // The gateway's model: the gRPC JSON names, text-only messages without
    // segments, media by media id (no file names or URLs), senders once.
    let media_id = gw.received().ids().id("default", 102, 1);
    assert_eq!(
        out.details,
        json!({
            "status": "ok",
            "target": "group:20000002",
            "count": 3,
            "senders": [
                {"userId": 10001, "nickname": "张三", "role": "member"},
                {"userId": 10002, "nickname": "李四", "role": "member"},
                {"userId": 10003, "nickname": "王五", "role": "member"},
            ],
            "messages": [
                {"messageId": 101, "time": "2026-10-19T09:58:12+08:00", "sender": {"userId": 10001},
                 "text": "大家好"},
                {"messageId": 102, "time": "2026-10-19T09:58:40+08:00", "sender": {"userId": 10002},
                 "segments": [{"text": {"text": "早上好"}}, {"image": {"mediaId": media_id}}]},
                {"messageId": 103, "time": "2026-10-19T10:00:05+08:00", "sender": {"userId": 10003},
                 "segments": [{"text": {"text": "昨天开会的记录发一下 "}}, {"forward": {"id": "fw1"}}]},
            ],
        })
    );

    let out = call(&gw, "qq_get_history", r#"{"target":"private:10002"}"#).await;
    assert_eq!(out.text, "（无历史消息）");
    assert_eq!(
        out.details,
        json!({"status": "ok", "target": "private:10002", "count": 0, "senders": [], "messages": []})
    );

    let out = call(
        &gw,
        "snowluma_get_group_members",
        r#"{ "groupId": 20000002, "noCache": true, "limit": 50 }"#,
    )
    .await;
    assert!(!out.is_error);
    let lines: Vec<&str> = out.text.lines().collect();
    assert_eq!(lines.len(), 51);
    assert_eq!(
        &lines[..3],
        [
            "群主张三(10001) — owner",
            "管理员李四(10002) — admin",
            "王五(10003) — member"
        ]
    );
    assert_eq!(lines[3], "成员4(10004) — member");
    assert_eq!(lines[50], "（仅显示前 50 / 共 120 名成员）");
    assert_eq!(
        out.details,
        json!({
            "status": "ok",
            "groupId": 20000002,
            "total": 120,
            "shown": 50,
            "members": seed_members()[..50]
                .iter()
                .map(|m| {
                    let mut v = json!({
                        "userId": m["user_id"],
                        "nickname": m["nickname"],
                        "role": m["role"],
                        "level": "1",
                    });
                    if m["card"] != "" {
                        v["card"] = m["card"].clone();
                    }
                    v
                })
                .collect::<Vec<_>>(),
        })
    );

    let out = call(&gw, "qq_get_group_members", r#"{"groupId":20000009}"#).await;
    assert_eq!(out.text, "（该群暂无成员信息）");
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": 20000009, "total": 0, "shown": 0, "members": []})
    );
}

/// Seed 000's failure table: an unconfigured account, and a failed peer
/// call (connection, auth, timeout, the peer's own error, passed on
/// verbatim), for both read tools.
#[tokio::test]
async fn peer_failures_are_results_not_errors() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let peer_failed = Error::new(
        Kind::OnebotActionFailed,
        "get_group_msg_history failed: 群不存在",
    )
    .with("retcode", 1200)
    .with("peer_message", "群不存在");
    let rows = [
        (
            Error::new(Kind::AccountOffline, "account \"default\" is offline")
                .with("account_id", "default")
                .retry_after(std::time::Duration::from_millis(1500)),
            "账号「default」当前离线，请约 2 秒后重试。",
        ),
        (
            Error::new(Kind::OnebotAuthFailed, "refused").with("account_id", "default"),
            "账号「default」鉴权失败：OneBot 实现拒绝了 access_token，请检查配置。",
        ),
        (
            Error::new(Kind::OnebotTimeout, "timeout").with("timeout_ms", 30000),
            "请求超时：OneBot 实现在 30000 毫秒内没有响应。",
        ),
        (
            Error::new(Kind::OnebotConnectionLost, "lost"),
            "与 OneBot 实现的连接在请求过程中断开，请稍后重试。",
        ),
        (peer_failed, "OneBot 实现返回失败（retcode 1200）：群不存在"),
    ];
    for (err, text) in rows {
        fake.fail_with(Some(err.clone()));
        for (name, args) in [
            ("snowluma_get_history", r#"{"target":"group:20000002"}"#),
            ("snowluma_get_group_members", r#"{"groupId":20000002}"#),
        ] {
            let out = call(&gw, name, args).await;
            assert_failed(&out, text, &format!("{name} {:?}", err.kind));
            assert_eq!(
                fake.take_calls().len(),
                1,
                "{name}: one call reached the peer"
            );
        }
    }
    fake.fail_with(None);

    // The account that is not configured at all.
    let bare_dir = tempfile::tempdir().unwrap();
    let mut bare_config = Config::default();
    bare_config.server.data_dir = bare_dir.path().to_path_buf();
    let bare_stop = tokio_util::sync::CancellationToken::new();
    let _bare_guard = bare_stop.clone().drop_guard();
    let bare =
        onebot_gateway_testkit::GatewayBuilder::new(bare_config, Vec::new(), bare_stop).build();
    let out = call(
        &bare,
        "snowluma_get_history",
        r#"{"target":"group:20000002"}"#,
    )
    .await;
    assert_failed(
        &out,
        "账号「default」未配置 ws_url/http_url，无法执行该操作。",
        "unconfigured default",
    );
}

#[tokio::test]
async fn unknown_tools_and_english_texts() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(&gw, "qq_nope", "{}").await;
    assert_failed(
        &out,
        "未知工具「qq_nope」。可用工具：qq_get_history、qq_get_group_members、qq_send、qq_poke、qq_get_message、qq_recall、qq_get_forward、qq_get_media、qq_wait_messages、qq_get_approval、qq_react、qq_set_essence、qq_list_essence、qq_list_group_files、qq_get_group_file、qq_mute、qq_kick、qq_set_card。",
        "unknown",
    );
    // Names are exact.
    let out = call(&gw, "QQ_GET_HISTORY", r#"{"target":"1"}"#).await;
    assert!(out.is_error);
    assert_eq!(fake.calls(), vec![]);

    let en = gateway_with(&fake, |c| c.tools.locale = Locale::En);
    let out = call(&en, "qq_get_history", r#"{"target":"x"}"#).await;
    assert_failed(
        &out,
        "invalid arguments: cannot parse target \"x\"; use group:<group id>, private:<QQ number> or bare digits (a private chat).",
        "en target",
    );
    let out = call(
        &en,
        "qq_get_history",
        r#"{"target":"1","accountId":"nows"}"#,
    )
    .await;
    assert_failed(
        &out,
        "account \"nows\" has no ws_url/http_url configured; cannot do that.",
        "en account",
    );
    assert_eq!(fake.calls(), vec![]);
}

#[tokio::test]
async fn tools_disabled_and_read_only_deployments() {
    let fake = Fake::new();
    let off = gateway_with(&fake, |c| c.tools.enabled = false);
    assert_eq!(off.list_tools().unwrap_err().kind, Kind::ToolsDisabled);
    let err = off
        .call_tool("qq_get_history", r#"{"target":"1"}"#, CallCtx::anonymous())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::ToolsDisabled);

    let ro = gateway_with(&fake, |c| c.tools.write_enabled = false);
    let names: Vec<&str> = ro
        .list_tools()
        .unwrap()
        .iter()
        .map(|t| t.tool.name())
        .collect();
    assert_eq!(
        names,
        [
            "qq_get_history",
            "qq_get_group_members",
            "qq_get_message",
            "qq_get_forward",
            "qq_get_media",
            "qq_wait_messages",
            "qq_get_approval",
            "qq_list_essence",
            "qq_list_group_files",
            "qq_get_group_file"
        ]
    );
    for (name, args) in [
        ("qq_send", r#"{"text":"hi"}"#),
        ("qq_poke", r#"{"userId":10003}"#),
        ("qq_recall", r#"{"messageId":101}"#),
        ("qq_react", r#"{"messageId":101,"emojiId":"76"}"#),
        ("qq_set_essence", r#"{"messageId":101}"#),
        ("qq_mute", r#"{"userId":10003,"durationSecs":60}"#),
        ("qq_kick", r#"{"userId":10003}"#),
        ("qq_set_card", r#"{"userId":10003,"card":"x"}"#),
    ] {
        let out = call(&ro, name, args).await;
        assert_failed(
            &out,
            &format!("写操作工具 {name} 已被关闭（tools.write_enabled = false），本网关只读。"),
            name,
        );
    }
    let out = call(&ro, "qq_nope", "{}").await;
    assert_failed(
        &out,
        "未知工具「qq_nope」。可用工具：qq_get_history、qq_get_group_members、qq_get_message、qq_get_forward、qq_get_media、qq_wait_messages、qq_get_approval、qq_list_essence、qq_list_group_files、qq_get_group_file。",
        "unknown, read-only",
    );
    assert_eq!(fake.calls(), vec![]);
}

/// The caller's deadline is the one failure that is not a result.
#[tokio::test(start_paused = true)]
async fn the_callers_deadline_is_a_grpc_error() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    fake.fail_with(Some(Error::new(Kind::OnebotTimeout, "timeout")));
    let passed = CallCtx::new(
        onebot_gateway_domain::caller::Caller::anonymous(),
        Deadline::at(Instant::now()),
    );
    let err = gw
        .call_tool("qq_get_history", r#"{"target":"1"}"#, passed)
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::DeadlineExceeded);
    // The same peer timeout within the caller's deadline is a result.
    let ctx = CallCtx::anonymous().with_timeout(std::time::Duration::from_secs(5));
    let out = gw
        .call_tool("qq_get_history", r#"{"target":"1"}"#, ctx)
        .await
        .unwrap();
    assert_failed(&out, "请求超时：OneBot 实现没有响应。", "peer timeout");
}

/// Every schema is a valid draft 2020-12 schema, and the input schemas
/// accept and refuse what the descriptions say.
#[test]
fn schemas_are_valid_draft_2020_12() {
    for tool in ToolName::ALL {
        let spec = ToolSpec::of(tool);
        for schema in [&spec.input_schema, &spec.details_schema] {
            assert_eq!(
                schema["$schema"],
                onebot_gateway_domain::tools::schema::DIALECT,
                "{tool:?}"
            );
            if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
                panic!("{tool:?}: not a draft 2020-12 schema: {e}");
            }
        }
        assert_eq!(spec.read_only, !spec.destructive, "{tool:?}");
        assert!(!spec.description.is_empty());
    }
    // The meta-schema check bites.
    assert!(jsonschema::draft202012::meta::validate(&json!({"type": "strin"})).is_err());
    let cases: &[(ToolName, Value, bool)] = &[
        (
            ToolName::History,
            json!({"target": "group:20000002", "count": 30}),
            true,
        ),
        (
            ToolName::History,
            json!({"target": "private:10001", "messageSeq": -5, "accountId": "a"}),
            true,
        ),
        (
            ToolName::History,
            json!({"target": "10001", "messageSeq": "123", "count": 2.5}),
            true,
        ),
        (ToolName::History, json!({"groupId": "20000002"}), true),
        (
            ToolName::History,
            json!({"target": "group:1", "anchorMessageId": " -5 "}),
            true,
        ),
        (
            ToolName::History,
            json!({"target": "1", "anchorMessageId": 0}),
            false,
        ),
        (ToolName::History, json!({"target": "channel:1"}), false),
        (ToolName::History, json!({"target": 10001}), false),
        (
            ToolName::History,
            json!({"target": "1", "count": "30"}),
            false,
        ),
        (
            ToolName::History,
            json!({"target": "1", "messageSeq": "abc"}),
            false,
        ),
        (
            ToolName::History,
            json!({"target": "1", "extra": true}),
            false,
        ),
        (
            ToolName::Members,
            json!({"groupId": 20000002, "noCache": true, "limit": 50}),
            true,
        ),
        (ToolName::Members, json!({"groupId": "20000002"}), true),
        (ToolName::Members, json!({"target": "group:20000002"}), true),
        (ToolName::Members, json!({"userId": 1}), false),
        (
            ToolName::Send,
            json!({"target": "group:1", "text": "x"}),
            true,
        ),
        (
            ToolName::Send,
            json!({"groupId": "1", "mentions": ["2", 3]}),
            true,
        ),
        (
            ToolName::Send,
            json!({"text": "x", "chat": "group:1"}),
            false,
        ),
        (
            ToolName::Poke,
            json!({"userId": "10003", "target": "group:1"}),
            true,
        ),
        (ToolName::Poke, json!({"target": "group:1"}), false),
        (
            ToolName::Members,
            json!({"groupId": 20000002, "noCache": "yes"}),
            false,
        ),
        (ToolName::Members, json!({"groupId": 1.5}), false),
        (
            ToolName::Members,
            json!({"groupId": 1, "limit": "50"}),
            false,
        ),
    ];
    for (tool, args, valid) in cases {
        let validator = jsonschema::draft202012::new(&ToolSpec::of(*tool).input_schema).unwrap();
        assert_eq!(validator.is_valid(args), *valid, "{tool:?} {args}");
    }
}

/// Every domain kind has a text in both locales, and the peer's own words
/// are kept verbatim.
#[test]
fn every_kind_has_a_text() {
    use onebot_gateway_domain::tools::texts::error_text;
    for kind in Kind::ALL {
        let err = Error::new(*kind, "gateway message")
            .with("account_id", "a1")
            .with("peer_message", "对端原话 verbatim");
        let zh = error_text(&err, Locale::Zh);
        let en = error_text(&err, Locale::En);
        assert!(!zh.is_empty() && !en.is_empty(), "{kind:?}");
        assert_ne!(zh, en, "{kind:?}");
    }
    for kind in [
        Kind::OnebotActionFailed,
        Kind::OnebotBadRequest,
        Kind::OnebotActionUnsupported,
        Kind::BotMuted,
        Kind::RiskControlled,
        Kind::PokeUnsupported,
        Kind::MediaTransferFailed,
    ] {
        let err = Error::new(kind, "x").with("peer_message", "发送失败，原因：[风控] 1.2");
        assert!(
            error_text(&err, Locale::Zh).ends_with("：发送失败，原因：[风控] 1.2"),
            "{kind:?}"
        );
        assert!(
            error_text(&err, Locale::En).ends_with(": 发送失败，原因：[风控] 1.2"),
            "{kind:?}"
        );
    }
}

fn text_segment(text: &str) -> Value {
    json!([{"type": "text", "data": {"text": text}}])
}

/// Seed 004's `qq_send`: what reaches the peer for good calls, and every
/// failure row as a result, with no call for everything refused up front.
#[tokio::test]
async fn send_rules_and_failure_rows() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let media = gw.dir.path().join("media");
    let png = media.join("a.png");
    std::fs::write(&png, onebot_gateway_testkit::png(2000)).unwrap();
    let not_image = media.join("notes.png");
    std::fs::write(&not_image, onebot_gateway_testkit::sample("text", 500)).unwrap();
    let outside = gw.dir.path().join("outside.png");
    std::fs::write(&outside, onebot_gateway_testkit::png(2000)).unwrap();
    let png = png.to_str().unwrap().to_owned();

    // Text only: one message, the tool's details.
    let out = call(&gw, "qq_send", r#"{"text":"测试推送"}"#).await;
    assert!(!out.is_error, "{out:?}");
    let calls = fake.take_calls();
    assert_eq!(
        calls,
        vec![Call::Send {
            group_id: GROUP,
            message: text_segment("测试推送")
        }]
    );
    let id = out.details["messageIds"][0].as_i64().expect("a message id");
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": GROUP, "chunks": 1, "queued": false, "messageIds": [id], "rateLimitWaitMs": 0})
    );
    assert_eq!(
        out.text,
        format!("已发送到群 20000002：文本 1 段。消息 id：{id}。")
    );

    // An image under the media roots, to an explicit group: media counted.
    let args = json!({"text": "图", "images": [png], "groupId": GROUP}).to_string();
    let out = call(&gw, "qq_send", &args).await;
    assert!(!out.is_error, "{out:?}");
    let calls = fake.take_calls();
    assert_eq!(calls.len(), 2, "text then image: {calls:?}");
    assert!(
        matches!(&calls[1], Call::Send { group_id: GROUP, message } if message[0]["type"] == "image"),
        "{calls:?}"
    );
    assert_eq!(
        out.details["media"],
        json!({"images": 1, "videos": 0, "voices": 0, "file": ""})
    );
    assert_eq!(out.details["chunks"], 1);

    // A file with its display name.
    let args = json!({"file": png, "fileName": "报告.png"}).to_string();
    let out = call(&gw, "qq_send", &args).await;
    assert!(!out.is_error, "{out:?}");
    let calls = fake.take_calls();
    assert!(
        matches!(&calls[..], [Call::Upload { group_id: GROUP, name, .. }] if name == "报告.png"),
        "{calls:?}"
    );
    assert_eq!(
        out.details["media"],
        json!({"images": 0, "videos": 0, "voices": 0, "file": "报告.png"})
    );
    assert_eq!(out.details["messageIds"], json!([]));

    let many = |n: usize| json!(vec!["media:abc"; n]);
    let refused: Vec<(Value, String)> = vec![
        (
            json!({}),
            "内容为空：text、images、videos、file、replyTo、mentions 至少要提供一个。".into(),
        ),
        (
            json!({"text": ""}),
            "内容为空：text、images、videos、file、replyTo、mentions 至少要提供一个。".into(),
        ),
        (json!({"text": "字".repeat(20_001)}), "文本过长：单次最多 20000 个字符。".into()),
        (json!({"images": many(5)}), "图片过多：单次最多 4 张。".into()),
        (json!({"videos": many(2)}), "视频过多：单次最多 1 个。".into()),
        (
            json!({"text": "x", "groupId": 123}),
            "群 123 不在账号「default」的白名单中。".into(),
        ),
        (
            json!({"text": "x", "accountId": "multi"}),
            "账号「multi」有多个白名单群（20000002,20000003），请用 groupId 指定一个。".into(),
        ),
        (
            json!({"text": "x", "accountId": "nogroups"}),
            "账号「nogroups」没有白名单群（groups），无法发送或戳一戳。".into(),
        ),
        (
            json!({"text": "x", "accountId": "nows"}),
            "账号「nows」未配置 ws_url/http_url，无法执行该操作。".into(),
        ),
        (
            json!({"images": ["a.png"]}),
            "参数不合法：images[0]「a.png」不是 media:<id>（UploadMedia 返回的 id）、http(s) URL 或绝对路径。".into(),
        ),
        (
            json!({"file": "ftp://example.com/a.pdf"}),
            "参数不合法：file「ftp://example.com/a.pdf」不是 media:<id>（UploadMedia 返回的 id）、http(s) URL 或绝对路径。".into(),
        ),
        (json!({"images": "/a.png"}), "参数不合法：images 必须是字符串数组。".into()),
        (json!({"images": [1]}), "参数不合法：images 必须是字符串数组。".into()),
        (json!({"text": 1}), "参数不合法：text 必须是字符串。".into()),
        (
            json!({"text": "x", "groupId": "abc"}),
            "参数不合法：groupId \"abc\" 无法转换成有限数字。".into(),
        ),
        (
            json!({"text": "x", "target": "group:20000003"}),
            "群 20000003 不在账号「default」的白名单中。".into(),
        ),
        (
            json!({"text": "x", "target": null}),
            "参数不合法：target 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。".into(),
        ),
        (
            json!({"text": "x", "userId": ""}),
            "参数不合法：userId 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。".into(),
        ),
        (
            json!({"text": "x", "target": "group:20000002", "groupId": 20000003}),
            "参数不合法：target \"group:20000002\" 与 groupId 20000003 指向不同的目标，请只给一个。".into(),
        ),
        (
            json!({"text": "x", "target": "private:10001", "groupId": 20000002}),
            "参数不合法：target \"private:10001\" 与 groupId 20000002 指向不同的目标，请只给一个。".into(),
        ),
        (
            json!({"text": "x", "group": 20000002}),
            "参数不合法：qq_send 不接受参数 group。它接受的参数：accountId、file、fileName、groupId、images、mentionAll、mentions、onBehalfOf、replyTo、target、text、userId、videos、voices。".into(),
        ),
        (
            json!({"text": "x", "groupId": 0}),
            "参数不合法：groupId 必须是正整数，收到 0。".into(),
        ),
        (
            json!({"images": ["media:nope"]}),
            "媒体不存在或已过期，请重新调用 UploadMedia 上传。".into(),
        ),
    ];
    for (args, text) in &refused {
        let out = call(&gw, "qq_send", &args.to_string()).await;
        assert_failed(&out, text, &args.to_string());
        assert_eq!(fake.calls(), vec![], "{args} must not reach the peer");
    }

    // Media that fail when resolved: missing and outside the roots (one
    // answer: no existence oracle), not an image, too large, a forbidden
    // URL. Nothing is sent.
    let resolving = [
        (
            media.join("missing.png"),
            "路径不在允许的媒体目录（media.media_roots）之下，或不存在：",
        ),
        (
            outside,
            "路径不在允许的媒体目录（media.media_roots）之下，或不存在：",
        ),
        (not_image, "媒体格式不符："),
    ];
    for (path, prefix) in resolving {
        let args = json!({"text": "x", "images": [path]}).to_string();
        let out = call(&gw, "qq_send", &args).await;
        assert!(
            out.is_error && out.text.starts_with(prefix),
            "{args}: {out:?}"
        );
        assert_eq!(fake.calls(), vec![], "{args}");
    }
    let args = json!({"images": ["http://127.0.0.1:9/a.png"]}).to_string();
    let out = call(&gw, "qq_send", &args).await;
    assert!(
        out.is_error && out.text.starts_with("出于安全原因不允许访问该 URL"),
        "{out:?}"
    );
    let small = gateway_with(&fake, |c| c.media.image_max_bytes = 1000);
    let big = small.dir.path().join("media/big.png");
    std::fs::write(&big, onebot_gateway_testkit::png(2000)).unwrap();
    let out = call(&small, "qq_send", &json!({"images": [big]}).to_string()).await;
    assert!(
        out.is_error && out.text.starts_with("媒体超过大小上限："),
        "{out:?}"
    );
    let unrooted = gateway_with(&fake, |c| c.media.media_roots.clear());
    let out = call(&unrooted, "qq_send", &json!({"images": [png]}).to_string()).await;
    assert!(
        out.is_error
            && out.text.starts_with(
                "网关未开启服务器本地路径这种媒体来源（需要运维配置 media.media_roots）。"
            )
            && out.text.ends_with(
                "若要发送本机图片：先用 UploadMedia 上传，传 media:<id>；或通过 stdio 桥（onebot-gateway mcp）传本地绝对路径。"
            ),
        "{out:?}"
    );
    assert_eq!(fake.calls(), vec![]);

    // The peer's explicit failure, verbatim.
    fake.fail_with(Some(
        Error::new(Kind::OnebotActionFailed, "send_group_msg failed")
            .with("retcode", 1200)
            .with("peer_message", "发送消息失败"),
    ));
    let out = call(&gw, "qq_send", r#"{"text":"x"}"#).await;
    assert_failed(
        &out,
        "OneBot 实现返回失败（retcode 1200）：发送消息失败",
        "peer failure",
    );
    assert_eq!(fake.take_calls().len(), 1);
    fake.fail_with(None);

    // Offline: text is queued (queued: true), media are refused.
    fake.set_online(false);
    let out = call(&gw, "qq_send", r#"{"text":"稍后送达"}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.details,
        json!({"status": "ok", "groupId": GROUP, "chunks": 1, "queued": true, "messageIds": [], "rateLimitWaitMs": 0})
    );
    assert_eq!(
        out.text,
        "账号「default」当前离线：文本（1 段）已进入发送队列，重连后按顺序发送到群 20000002。"
    );
    let out = call(&gw, "qq_send", &json!({"images": [png]}).to_string()).await;
    assert!(
        out.is_error && out.text.starts_with("账号「default」当前离线"),
        "{out:?}"
    );
    assert_eq!(fake.calls(), vec![]);
}

/// Seed 004's `qq_poke`.
#[tokio::test]
async fn poke_rules_and_failure_rows() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    for (args, group) in [
        (r#"{"userId":10003}"#, GROUP),
        (r#"{"userId":10003,"groupId":20000002}"#, GROUP),
        (
            r#"{"userId":10003.0,"accountId":"multi","groupId":20000003}"#,
            20_000_003,
        ),
        (r#"{"userId":"10003","target":"group:20000002"}"#, GROUP),
        (r#"{"userId":" 10003 ","groupId":"20000002"}"#, GROUP),
        (
            r#"{"userId":10003,"target":"group:20000003","groupId":"20000003","accountId":"multi"}"#,
            20_000_003,
        ),
    ] {
        let out = call(&gw, "qq_poke", args).await;
        assert!(!out.is_error, "{args}: {out:?}");
        assert_eq!(
            fake.take_calls(),
            vec![Call::Poke {
                group_id: group,
                user_id: 10003
            }],
            "{args}"
        );
        assert_eq!(
            out.details,
            json!({"status": "ok", "groupId": group, "userId": 10003})
        );
        assert_eq!(out.text, format!("已在群 {group} 戳了 10003。"));
    }

    let bad_user = |v: &str| format!("参数不合法：userId 必须是正整数，收到 {v}。");
    let refused = [
        (r#"{}"#, "参数不合法：缺少必填参数 userId。".to_owned()),
        (r#"{"userId":0}"#, bad_user("0")),
        (r#"{"userId":-1}"#, bad_user("-1")),
        (r#"{"userId":1.5}"#, bad_user("1.5")),
        (
            r#"{"userId":true}"#,
            "参数不合法：userId 必须是数字或数字字符串。".to_owned(),
        ),
        (
            r#"{"userId":"abc"}"#,
            "参数不合法：userId \"abc\" 无法转换成有限数字。".to_owned(),
        ),
        (r#"{"userId":""}"#, bad_user("\"\"")),
        (
            r#"{"userId":1e400}"#,
            "参数不合法：userId 1e400 无法转换成有限数字。".to_owned(),
        ),
        (
            r#"{"userId":10003,"target":"private:10003"}"#,
            "参数不合法：private:10003 是私聊，qq_poke 只适用于群，请用 group:<群号>。".to_owned(),
        ),
        (
            r#"{"userId":10003,"target":null}"#,
            "参数不合法：target 不能为 null 或空字符串；请给出会话（group:<群号> 或 private:<QQ号>），或完全不给该参数。".to_owned(),
        ),
        (
            r#"{"userId":10003,"target":"group:20000002","groupId":20000003}"#,
            "参数不合法：target \"group:20000002\" 与 groupId 20000003 指向不同的目标，请只给一个。".to_owned(),
        ),
        (
            r#"{"userId":10003,"target":"group:20000003"}"#,
            "群 20000003 不在账号「default」的白名单中。".to_owned(),
        ),
        (
            r#"{"userId":10003,"groupId":123}"#,
            "群 123 不在账号「default」的白名单中。".to_owned(),
        ),
        (
            r#"{"userId":10003,"accountId":"multi"}"#,
            "账号「multi」有多个白名单群（20000002,20000003），请用 groupId 指定一个。".to_owned(),
        ),
        (
            r#"{"userId":10003,"accountId":"nows"}"#,
            "账号「nows」未配置 ws_url/http_url，无法执行该操作。".to_owned(),
        ),
    ];
    for (args, text) in refused {
        let out = call(&gw, "qq_poke", args).await;
        assert_failed(&out, &text, args);
        assert_eq!(fake.calls(), vec![], "{args} must not reach the peer");
    }

    // The implementation cannot poke; or fails with its own words.
    fake.fail_with(Some(
        Error::new(Kind::OnebotActionUnsupported, "group_poke unsupported")
            .with("retcode", 1404)
            .with("peer_message", "不支持的API group_poke"),
    ));
    let out = call(&gw, "qq_poke", r#"{"userId":10003}"#).await;
    assert_failed(
        &out,
        "协议端不支持戳一戳（group_poke）：不支持的API group_poke",
        "unsupported",
    );
    fake.fail_with(Some(
        Error::new(Kind::OnebotActionFailed, "group_poke failed")
            .with("retcode", 1200)
            .with("peer_message", "群(20000002)成员10003不存在"),
    ));
    let out = call(&gw, "qq_poke", r#"{"userId":10003}"#).await;
    assert_failed(
        &out,
        "OneBot 实现返回失败（retcode 1200）：群(20000002)成员10003不存在",
        "peer failure",
    );
    assert_eq!(fake.take_calls().len(), 2);
    fake.fail_with(None);

    // Offline: never queued.
    fake.set_online(false);
    let out = call(&gw, "qq_poke", r#"{"userId":10003}"#).await;
    assert_failed(
        &out,
        "账号「default」当前离线，请约 5 秒后重试。",
        "offline",
    );
    assert_eq!(fake.calls(), vec![]);
}

#[test]
fn get_media_arguments() {
    use onebot_gateway_domain::read::download::DownloadTarget;
    use onebot_gateway_domain::tools::args::{ArgError, Args};
    use onebot_gateway_domain::tools::media::MediaArgs;
    let parse = |json: &str| MediaArgs::parse(&Args::parse(json).unwrap());
    assert_eq!(
        parse(r#"{"mediaId":" r_x_1_0 "}"#).unwrap().target,
        DownloadTarget::MediaId("r_x_1_0".into())
    );
    assert_eq!(
        parse(r#"{"messageId":-12,"segmentIndex":2}"#)
            .unwrap()
            .target,
        DownloadTarget::Message {
            message_id: -12,
            segment_index: 2
        }
    );
    assert_eq!(
        parse(r#"{"messageId":"9007199254740993"}"#).unwrap().target,
        DownloadTarget::Message {
            message_id: 9_007_199_254_740_993,
            segment_index: 0
        }
    );
    assert_eq!(parse("{}").unwrap_err(), ArgError::Missing("mediaId"));
    assert!(matches!(
        parse(r#"{"messageId":1.5}"#).unwrap_err(),
        ArgError::BadMessageId {
            field: "messageId",
            ..
        }
    ));
    assert!(parse(r#"{"mediaId":3}"#).is_err());
    let spec = ToolSpec::of(ToolName::Media);
    assert!(spec.read_only && !spec.destructive);
    let ok = json!({"status": "ok", "mediaId": "r_a_1_0", "kind": "image", "mimeType": "image/png",
                    "size": 5, "sha256": "0".repeat(64), "fileName": ""});
    assert!(jsonschema::is_valid(&spec.details_schema, &ok));
}

/// `qq_send`'s private chats, quotes and mentions: what reaches the peer,
/// and the argument rules refused before any call.
#[tokio::test]
async fn send_private_quotes_and_mentions() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(
        &gw,
        "qq_send",
        r#"{"userId":10001,"text":"私聊","replyTo":"-7"}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.details["userId"], 10001);
    assert!(out.details.get("groupId").is_none());
    assert!(
        out.text
            .starts_with("已发送到QQ 用户 10001 的私聊：文本 1 段。"),
        "{}",
        out.text
    );
    let calls = fake.take_calls();
    assert_eq!(
        calls,
        [
            Call::GetMessage { message_id: -7 },
            Call::SendPrivate {
                user_id: 10001,
                message: json!([
                    {"type": "reply", "data": {"id": "-7"}},
                    {"type": "text", "data": {"text": "私聊"}}
                ])
            }
        ]
    );
    let out = call(
        &gw,
        "qq_send",
        r#"{"mentions":[10002,"10003"],"mentionAll":true}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.details["groupId"], GROUP);
    assert_eq!(
        fake.take_calls(),
        [Call::Send {
            group_id: GROUP,
            message: json!([
                {"type": "at", "data": {"qq": "10002"}},
                {"type": "at", "data": {"qq": "10003"}},
                {"type": "at", "data": {"qq": "all"}}
            ])
        }]
    );
    let refused = [
        (
            r#"{"groupId":20000002,"userId":10001,"text":"x"}"#,
            "参数不合法：groupId 和 userId 只能给一个。".to_owned(),
        ),
        (
            r#"{"userId":10002,"text":"x"}"#,
            "QQ 用户 10002 不在账号「default」的私聊白名单（users）中，不能私聊。".to_owned(),
        ),
        (
            r#"{"replyTo":0,"text":"x"}"#,
            "参数不合法：replyTo 必须是非 0 的整数消息 id（message_id），收到 0。".to_owned(),
        ),
        (
            r#"{"replyTo":"abc","text":"x"}"#,
            "参数不合法：replyTo 必须是非 0 的整数消息 id（message_id），收到 \"abc\"。".to_owned(),
        ),
        (
            r#"{"mentions":[1,-2]}"#,
            "参数不合法：mentions 必须是由正整数 QQ 号（数字或数字字符串）组成的数组，-2 不是。"
                .to_owned(),
        ),
        (
            r#"{"mentions":5}"#,
            "参数不合法：mentions 必须是由正整数 QQ 号（数字或数字字符串）组成的数组，5 不是。"
                .to_owned(),
        ),
        (
            &format!(r#"{{"mentions":{:?}}}"#, (1..=21).collect::<Vec<i64>>()),
            "参数不合法（mention_user_ids）：21 mentions; at most 20 per message".to_owned(),
        ),
    ];
    for (args, text) in refused {
        let out = call(&gw, "qq_send", args).await;
        assert_failed(&out, &text, args);
    }
    assert_eq!(fake.calls(), vec![]);
}

/// `qq_get_message`: the line with its quote resolved, the details, and
/// every failure row.
#[tokio::test]
async fn get_message_rules_and_rows() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(&gw, "qq_get_message", r#"{"messageId":102}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.text, "[09:58:40] 李四(10002): 早上好[图片]");
    assert_eq!(out.details["target"], "group:20000002");
    assert_eq!(out.details["message"]["messageId"], 102);
    assert_eq!(
        out.details["message"]["segments"][0],
        json!({"text": {"text": "早上好"}})
    );
    assert_eq!(
        out.details["senders"],
        json!([{"userId": 10002, "nickname": "李四", "role": "member"}])
    );
    assert_eq!(fake.take_calls(), [Call::GetMessage { message_id: 102 }]);
    for (args, text) in [
        (r#"{}"#, "参数不合法：缺少必填参数 messageId。"),
        (
            r#"{"messageId":1.5}"#,
            "参数不合法：messageId 必须是非 0 的整数消息 id（message_id），收到 1.5。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_get_message", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![]);
    let out = call(&gw, "qq_get_message", r#"{"messageId":"404"}"#).await;
    assert_failed(
        &out,
        "消息 404 不存在：协议端找不到它（已撤回、太旧或从未见过）。",
        "unknown id",
    );
    let out = call(
        &gw,
        "qq_get_message",
        r#"{"messageId":1,"accountId":"nows"}"#,
    )
    .await;
    assert_failed(
        &out,
        "账号「nows」未配置 ws_url/http_url，无法执行该操作。",
        "no transport",
    );
}

/// `qq_recall`: the write check, the whitelist, and what reaches the peer.
#[tokio::test]
async fn recall_rules_and_rows() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(&gw, "qq_recall", r#"{"messageId":101}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(out.text, "已撤回群 20000002 中的消息 101。");
    assert_eq!(
        out.details,
        json!({"status": "ok", "messageId": 101, "target": "group:20000002"})
    );
    assert_eq!(
        fake.take_calls(),
        [
            Call::GetMessage { message_id: 101 },
            Call::Recall { message_id: 101 }
        ]
    );
    // Not whitelisted for `nogroups`: refused after reading, before
    // recalling.
    let out = call(
        &gw,
        "qq_recall",
        r#"{"messageId":101,"accountId":"nogroups"}"#,
    )
    .await;
    assert_failed(
        &out,
        "群 20000002 不在账号「nogroups」的白名单中。",
        "not whitelisted",
    );
    assert_eq!(fake.take_calls(), [Call::GetMessage { message_id: 101 }]);
    // The peer's refusal, in its own words.
    fake.fail_with(None);
    let en = gateway_with(&fake, |c| c.tools.locale = Locale::En);
    let out = call(&en, "qq_recall", r#"{"messageId":101}"#).await;
    assert_eq!(out.text, "recalled message 101 in group 20000002.");
    fake.take_calls();
    let read_only =
        onebot_gateway_domain::caller::Caller::token(onebot_gateway_domain::caller::TokenScope {
            name: "ro".into(),
            accounts: None,
            write: false,
            groups: None,
            users: None,
        });
    let err = gw
        .call_tool(
            "qq_recall",
            r#"{"messageId":101}"#,
            CallCtx::new(read_only, Deadline::NONE),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::TokenScope);
    assert_eq!(fake.calls(), vec![]);
    assert!(ToolSpec::of(ToolName::Recall).destructive);
}

/// `qq_get_forward`: the nodes, a nested bundle left as [合并转发], and
/// the failure rows.
#[tokio::test]
async fn get_forward_rules_and_rows() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let out = call(&gw, "qq_get_forward", r#"{"forwardId":"fw1"}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        out.text,
        "[09:00:00] 张三(10001): 会议纪要第一条\n[09:01:00] 李四(10002): [合并转发]"
    );
    assert_eq!(out.details["count"], 2);
    assert_eq!(out.details["forwardId"], "fw1");
    assert_eq!(
        fake.take_calls(),
        [Call::Forward {
            forward_id: "fw1".into()
        }]
    );
    for (args, text) in [
        (r#"{}"#, "参数不合法：缺少必填参数 forwardId。"),
        (
            r#"{"forwardId":"  "}"#,
            "参数不合法：缺少必填参数 forwardId。",
        ),
        (r#"{"forwardId":5}"#, "参数不合法：forwardId 必须是字符串。"),
    ] {
        assert_failed(&call(&gw, "qq_get_forward", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![]);
    let out = call(&gw, "qq_get_forward", r#"{"forwardId":"gone"}"#).await;
    assert_failed(&out, "合并转发「gone」不存在或已过期。", "unknown bundle");
}

#[tokio::test]
async fn a_call_routed_for_an_account_acts_for_it_unless_the_arguments_name_another() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let routed = || CallCtx::anonymous().routed_for(Some("multi".into()));
    // 20000003 is whitelisted for `multi` only: the routed account is used.
    let out = gw
        .call_tool("qq_get_history", r#"{"target":"group:20000003"}"#, routed())
        .await
        .unwrap();
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        fake.take_calls(),
        history_call(ChatRef::Group(20_000_003), 20, None)
    );
    let out = gw
        .call_tool(
            "qq_get_history",
            r#"{"target":"group:20000003","accountId":"multi"}"#,
            routed(),
        )
        .await
        .unwrap();
    assert!(!out.is_error, "{out:?}");
    fake.take_calls();
    // The arguments name another account than the routing: refused before
    // the peer, naming both.
    let out = gw
        .call_tool(
            "qq_get_history",
            r#"{"target":"group:20000002","accountId":"default"}"#,
            routed(),
        )
        .await
        .unwrap();
    assert!(out.is_error, "{out:?}");
    assert!(
        out.text.contains("\"default\"") && out.text.contains("\"multi\""),
        "{}",
        out.text
    );
    assert_eq!(fake.calls(), vec![]);
}

/// A group the bot is not in (whitelisted or not): every tool that names
/// it fails with the group's text, and only the group list is read.
#[tokio::test]
async fn a_group_the_bot_is_not_in_fails_every_tool() {
    const ABSENT: i64 = 20_000_001;
    let fake = Fake::new();
    let gw = gateway_with(&fake, |c| {
        if let Some(a) = c.accounts.get_mut("default") {
            a.groups.push(ABSENT);
        }
    });
    let text =
        "机器人不在群 20000001 中（协议端的群列表里没有这个群），未执行任何操作：请检查群号。";
    for (name, args) in [
        ("qq_get_history", r#"{"target":"group:20000001"}"#),
        ("qq_get_group_members", r#"{"groupId":20000001}"#),
        ("qq_send", r#"{"groupId":20000001,"text":"hi"}"#),
        ("qq_poke", r#"{"groupId":20000001,"userId":10002}"#),
    ] {
        assert_failed(&call(&gw, name, args).await, text, name);
    }
    assert_eq!(fake.calls(), vec![]);
    assert_eq!(
        fake.group_reads(),
        1,
        "the misses share the rate-limited read"
    );
}

/// Every tool refuses an argument outside its input schema's `properties`
/// (a `null` one too), naming it and every argument it takes, before
/// anything reaches the peer; the schema says the same
/// (`additionalProperties: false` over exactly those names).
#[tokio::test]
async fn every_tool_refuses_unknown_arguments() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let en = gateway_with(&fake, |c| c.tools.locale = Locale::En);
    for tool in ToolName::ALL {
        let spec = ToolSpec::of(tool);
        let accepted: Vec<String> = spec.input_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert_eq!(
            accepted,
            onebot_gateway_domain::tools::schema::accepted_keys(tool),
            "{tool:?}"
        );
        assert_eq!(spec.input_schema["additionalProperties"], false);
        let validator = jsonschema::draft202012::new(&spec.input_schema).unwrap();
        assert!(!validator.is_valid(&json!({"bogus": 1})), "{tool:?}");
        let out = call(&gw, tool.name(), r#"{"bogus":1,"zzz":null}"#).await;
        assert_failed(
            &out,
            &format!(
                "参数不合法：{} 不接受参数 bogus、zzz。它接受的参数：{}。",
                tool.name(),
                accepted.join("、")
            ),
            tool.name(),
        );
        let out = call(&en, tool.name(), r#"{"bogus":1}"#).await;
        assert_failed(
            &out,
            &format!(
                "invalid arguments: {} takes no argument bogus; it takes: {}.",
                tool.name(),
                accepted.join(", ")
            ),
            tool.name(),
        );
        // Aliases are listed (and so accepted) where the tool takes them.
        let has = |k: &str| accepted.iter().any(|a| a == k);
        match tool {
            ToolName::History | ToolName::Search => {
                assert!(has("target") && has("groupId") && has("userId"), "{tool:?}");
            }
            ToolName::Send => assert!(has("target") && has("groupId") && has("userId")),
            ToolName::Members
            | ToolName::Poke
            | ToolName::ListEssence
            | ToolName::ListGroupFiles
            | ToolName::GetGroupFile
            | ToolName::Mute
            | ToolName::Kick
            | ToolName::SetCard => {
                assert!(has("target") && has("groupId"), "{tool:?}");
            }
            _ => {}
        }
        // userId is the member where a tool acts on one, never a chat.
        let user_is_member = matches!(
            tool,
            ToolName::Poke | ToolName::Mute | ToolName::Kick | ToolName::SetCard
        );
        for key in &accepted {
            let description = spec.input_schema["properties"][key]["description"]
                .as_str()
                .unwrap_or_default();
            if ["groupId", "messageSeq"].contains(&key.as_str())
                || (key == "userId" && !user_is_member)
            {
                assert!(
                    description.starts_with("Alias of"),
                    "{tool:?} {key}: {description}"
                );
            }
        }
        // The description states the rules.
        assert!(
            spec.description
                .contains("Every argument not listed above is refused"),
            "{tool:?}"
        );
    }
    assert_eq!(fake.calls(), vec![], "nothing reached the peer");
}

/// `target` names the chat of every tool that names one, ids may be
/// strings, and a send never falls back to the only whitelisted group when
/// a chat argument was given.
#[tokio::test]
async fn one_chat_address_and_string_ids() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    let sent = |chat: ChatRef, message: Value| match chat {
        ChatRef::Group(group_id) => Call::Send { group_id, message },
        ChatRef::Private(user_id) => Call::SendPrivate { user_id, message },
    };
    for (args, chat) in [
        (
            r#"{"target":"group:20000002","text":"x"}"#,
            ChatRef::Group(GROUP),
        ),
        (
            r#"{"target":" group:20000002 ","text":"x"}"#,
            ChatRef::Group(GROUP),
        ),
        (
            r#"{"target":"private:10001","text":"x"}"#,
            ChatRef::Private(10001),
        ),
        (r#"{"target":"10001","text":"x"}"#, ChatRef::Private(10001)),
        (r#"{"userId":"10001","text":"x"}"#, ChatRef::Private(10001)),
        (
            r#"{"groupId":" 20000002 ","text":"x"}"#,
            ChatRef::Group(GROUP),
        ),
        (
            r#"{"target":"group:20000002","groupId":20000002,"text":"x"}"#,
            ChatRef::Group(GROUP),
        ),
        (r#"{"text":"x"}"#, ChatRef::Group(GROUP)),
    ] {
        let out = call(&gw, "qq_send", args).await;
        assert!(!out.is_error, "{args}: {out:?}");
        assert_eq!(fake.take_calls(), [sent(chat, text_segment("x"))], "{args}");
    }
    // String message ids and QQ numbers.
    let out = call(
        &gw,
        "qq_send",
        r#"{"target":"group:20000002","replyTo":" 101 ","mentions":["10002"," 10003 "]}"#,
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        fake.take_calls(),
        [
            Call::GetMessage { message_id: 101 },
            Call::Send {
                group_id: GROUP,
                message: json!([
                    {"type": "reply", "data": {"id": "101"}},
                    {"type": "at", "data": {"qq": "10002"}},
                    {"type": "at", "data": {"qq": "10003"}}
                ])
            }
        ]
    );
    let out = call(&gw, "qq_get_message", r#"{"messageId":" 102 "}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(fake.take_calls(), [Call::GetMessage { message_id: 102 }]);
    let out = call(&gw, "qq_recall", r#"{"messageId":"101"}"#).await;
    assert!(!out.is_error, "{out:?}");
    assert_eq!(
        fake.take_calls(),
        [
            Call::GetMessage { message_id: 101 },
            Call::Recall { message_id: 101 }
        ]
    );
    for (args, text) in [
        (
            r#"{"messageId":""}"#,
            "参数不合法：messageId 必须是非 0 的整数消息 id（message_id），收到 \"\"。",
        ),
        (
            r#"{"messageId":"1x"}"#,
            "参数不合法：messageId 必须是非 0 的整数消息 id（message_id），收到 \"1x\"。",
        ),
    ] {
        assert_failed(&call(&gw, "qq_get_message", args).await, text, args);
    }
    assert_eq!(fake.calls(), vec![]);

    // The arguments of the other chat tools.
    use onebot_gateway_domain::tools::args::Args;
    use onebot_gateway_domain::tools::search::SearchArgs;
    use onebot_gateway_domain::tools::wait::WaitArgs;
    let parse = |json: &str| Args::parse(json).unwrap();
    let tz = jiff::tz::TimeZone::UTC;
    let search = SearchArgs::parse(
        &parse(r#"{"groupId":"20000002","senderId":" 10001 "}"#),
        &tz,
    )
    .unwrap();
    assert_eq!(
        (search.chat, search.sender_id),
        (Some(ChatRef::Group(GROUP)), Some(10001))
    );
    let search = SearchArgs::parse(&parse(r#"{"target":"10001"}"#), &tz).unwrap();
    assert_eq!(search.chat, Some(ChatRef::Private(10001)));
    let wait = WaitArgs::parse(&parse(r#"{"afterSequence":"7","chats":["group:1","2"]}"#)).unwrap();
    assert_eq!(wait.after_sequence, Some(7));
    assert_eq!(wait.chats, [ChatRef::Group(1), ChatRef::Private(2)]);
    let wait = WaitArgs::parse(&parse(r#"{"target":"group:1"}"#)).unwrap();
    assert_eq!(wait.chats, [ChatRef::Group(1)]);
    assert!(WaitArgs::parse(&parse(r#"{"target":"group:1","chats":["group:1"]}"#)).is_err());
    assert!(WaitArgs::parse(&parse(r#"{"afterSequence":"-1"}"#)).is_err());
}

/// With `includeImages` the text keeps what replies quote, exactly as the
/// plain history renders it.
#[test]
fn marked_history_keeps_quotes() {
    use onebot_gateway_domain::render;
    let mut messages: Vec<Message> = seed_messages()
        .iter()
        .rev()
        .filter_map(|m| decode_message(m, Some(ChatRef::Group(GROUP))))
        .collect();
    let quoted = messages[0].clone();
    messages[2]
        .segments
        .insert(0, onebot_gateway_domain::model::Segment::reply("101"));
    messages[1].segments.insert(
        0,
        onebot_gateway_domain::model::Segment::Reply {
            id: "101".into(),
            quoted: Some(Box::new(quoted)),
        },
    );
    let tz = jiff::tz::TimeZone::get("Asia/Shanghai").unwrap();
    for locale in [Locale::Zh, Locale::En] {
        let marked =
            onebot_gateway_domain::tools::media::marked_history(&messages, &[], &tz, locale);
        assert_eq!(marked, render::history_in(&messages, &tz, locale));
    }
    let marked =
        onebot_gateway_domain::tools::media::marked_history(&messages, &[], &tz, Locale::Zh);
    assert!(
        marked.contains("李四(10002): [回复 张三: 大家好]早上好[图片]"),
        "{marked}"
    );
    assert!(marked.contains("王五(10003): [回复]昨天"), "{marked}");
}

/// The details of history, a message, members and a forward bundle carry
/// none of the peer's own fields.
#[tokio::test]
async fn details_carry_no_onebot_fields() {
    let fake = Fake::new();
    let gw = gateway(&fake);
    for (name, args) in [
        ("qq_get_history", r#"{"target":"group:20000002"}"#),
        ("qq_get_message", r#"{"messageId":102}"#),
        ("qq_get_group_members", r#"{"target":"group:20000002"}"#),
        ("qq_get_forward", r#"{"forwardId":"fw1"}"#),
    ] {
        let out = call(&gw, name, args).await;
        assert!(!out.is_error, "{name}: {out:?}");
        let text = out.details.to_string();
        for raw in [
            "raw_message",
            "message_format",
            "real_id",
            "message_id",
            "user_id",
            "\"url\"",
            "\"file\":\"",
            "example.invalid",
            "post_type",
        ] {
            assert!(!text.contains(raw), "{name}: {raw} in {text}");
        }
    }
}

/// A send that waited for the rate limits says how long, in its text and
/// its details; one that did not wait says nothing of it.
#[tokio::test(start_paused = true)]
async fn a_send_says_how_long_it_waited_for_the_rate_limits() {
    let fake = Fake::new();
    let gw = gateway_with(&fake, |c| {
        if let Some(a) = c.accounts.get_mut("default") {
            a.rate_group_burst = 1;
            a.rate_group_per_minute = 20;
        }
    });
    let first = call(&gw, "qq_send", r#"{"target":"group:20000002","text":"a"}"#).await;
    assert!(!first.is_error, "{first:?}");
    assert_eq!(first.details["rateLimitWaitMs"], 0);
    assert!(!first.text.contains("等待"), "{}", first.text);
    let second = call(&gw, "qq_send", r#"{"target":"group:20000002","text":"b"}"#).await;
    assert!(!second.is_error, "{second:?}");
    let waited = second.details["rateLimitWaitMs"].as_u64().unwrap();
    assert!((2900..=3000).contains(&waited), "{second:?}");
    assert!(
        second
            .text
            .ends_with("（为遵守发送频率限制，发送前等待了 3.0 秒。）"),
        "{}",
        second.text
    );
}
