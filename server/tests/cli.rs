//! The client subcommands of the real binary against a real gateway (the
//! same binary's `serve` on its sandbox, on a free loopback port).

use std::net::TcpListener;
use std::process::{Child, Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_onebot-gateway");

/// A `serve` child process, killed on drop.
struct Gateway {
    child: Child,
    addr: String,
    _data: tempfile::TempDir,
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Gateway {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let data = tempfile::tempdir().unwrap();
    let child = Command::new(BIN)
        .args([
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--data-dir",
        ])
        .arg(data.path())
        // Other tests run `serve` at the same time: not the fixed default.
        .env("ONEBOT_GATEWAY__SANDBOX__LISTEN", "127.0.0.1:0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let gw = Gateway {
        child,
        addr: format!("http://127.0.0.1:{port}"),
        _data: data,
    };
    let ready = cli(&gw.addr, &["health", "--wait", "60s"]);
    assert!(ready.status.success(), "gateway not healthy: {ready:?}");
    gw
}

fn cli(addr: &str, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .args(["--addr", addr])
        .env_remove("ONEBOT_GATEWAY_TOKEN")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn health_and_accounts_render_as_text_and_json() {
    let gw = start();

    let health = cli(&gw.addr, &["health"]);
    assert!(health.status.success());
    assert_eq!(stdout(&health), "SERVING\n");

    let health = cli(&gw.addr, &["health", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&health)).unwrap();
    assert_eq!(
        value,
        serde_json::json!({"service": "", "status": "SERVING"})
    );

    let accounts = cli(&gw.addr, &["accounts", "--json"]);
    assert!(accounts.status.success(), "{accounts:?}");
    let value: serde_json::Value = serde_json::from_str(&stdout(&accounts)).unwrap();
    assert!(value["accounts"].is_array(), "{value}");

    let accounts = cli(&gw.addr, &["accounts"]);
    assert!(accounts.status.success(), "{accounts:?}");
    assert!(!stdout(&accounts).is_empty());
}

#[test]
fn errors_exit_non_zero_with_a_message() {
    // Nothing listens on port 1.
    let down = cli("http://127.0.0.1:1", &["accounts", "--json"]);
    assert_eq!(down.status.code(), Some(1));
    let err: serde_json::Value = serde_json::from_slice(&down.stderr).unwrap();
    assert!(err["error"]["message"].is_string(), "{err}");

    let bad = cli("not a url", &["health"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).starts_with("error: invalid address"));
}

#[test]
fn read_commands_render_the_sandbox_and_errors_carry_the_reason() {
    let gw = start();

    let history = cli(&gw.addr, &["history", "group:20000003", "-n", "3"]);
    assert!(history.status.success(), "{history:?}");
    // Three messages, then the older-page hint on a line of its own.
    let lines: Vec<String> = stdout(&history).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(
        lines[3].starts_with("(older messages: --anchor "),
        "{lines:?}"
    );

    let members = cli(&gw.addr, &["members", "20000003", "--limit", "2"]);
    assert!(members.status.success(), "{members:?}");
    assert_eq!(
        stdout(&members),
        "群主张三(10001) — owner\n管理员李四(10002) — admin\n（仅显示前 2 / 共 36 名成员）\n"
    );

    let groups = cli(&gw.addr, &["groups", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&groups)).unwrap();
    assert_eq!(value["groups"][0]["groupId"], 20000003);

    let bad = cli(&gw.addr, &["members", "0", "--json"]);
    assert_eq!(bad.status.code(), Some(1));
    let err: serde_json::Value = serde_json::from_slice(&bad.stderr).unwrap();
    assert_eq!(err["error"]["code"], "InvalidArgument");
    assert_eq!(err["error"]["reason"], "INVALID_REQUEST");
    assert_eq!(err["error"]["fieldViolations"][0]["field"], "group_id");

    let nope = cli(
        &gw.addr,
        &["history", "group:20000003", "--account", "nope"],
    );
    assert_eq!(nope.status.code(), Some(1));
    let text = String::from_utf8_lossy(&nope.stderr);
    assert!(
        text.starts_with("error: FailedPrecondition (ACCOUNT_NOT_CONFIGURED)"),
        "{text}"
    );
    assert!(text.contains("  account_id: nope"), "{text}");
}

/// A valid 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

#[test]
fn write_commands_send_poke_call_tools_and_follow_events() {
    let gw = start();
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("dot.png");
    std::fs::write(&image, PNG).unwrap();

    let sent = cli(
        &gw.addr,
        &[
            "send",
            "-g",
            "20000003",
            "hi from the cli",
            "--image",
            image.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(sent.status.success(), "{sent:?}");
    let value: serde_json::Value = serde_json::from_str(&stdout(&sent)).unwrap();
    assert_eq!(value["groupId"], 20000003);
    assert_eq!(value["media"]["images"], 1);
    let ids = value["messageIds"].as_array().unwrap().clone();
    assert_eq!(ids.len(), 2);

    let history = cli(&gw.addr, &["history", "group:20000003", "-n", "2"]);
    assert!(stdout(&history).contains("hi from the cli"), "{history:?}");
    // The older-page hint is a line of its own, after the messages.
    let lines: Vec<String> = stdout(&history).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines[2].starts_with("(older messages: --anchor "),
        "{lines:?}"
    );

    // Quote the image message and mention a member, read it back, recall it.
    let image_id = ids[1].as_i64().unwrap().to_string();
    let reply = cli(
        &gw.addr,
        &[
            "send",
            "-g",
            "20000003",
            "收到",
            "--reply-to",
            &image_id,
            "--mention",
            "10002",
            "--json",
        ],
    );
    assert!(reply.status.success(), "{reply:?}");
    let value: serde_json::Value = serde_json::from_str(&stdout(&reply)).unwrap();
    let reply_id = value["messageIds"][0].as_i64().unwrap().to_string();
    let message = cli(&gw.addr, &["message", &reply_id]);
    assert!(message.status.success(), "{message:?}");
    assert!(
        stdout(&message).contains("[回复 沙盒机器人: [图片]]@管理员李四收到"),
        "{}",
        stdout(&message)
    );
    // `events` prints the reply's event as the same line, after its chat:
    // the two sends before it and the reply are the group's three messages.
    let events = cli(
        &gw.addr,
        &[
            "events",
            "--after",
            "0",
            "--kind",
            "message",
            "--chat",
            "group:20000003",
            "--count",
            "3",
        ],
    );
    assert!(events.status.success(), "{events:?}");
    let printed = stdout(&events);
    let last = printed.lines().last().unwrap_or_default();
    let line = stdout(&message);
    let line = line.lines().find(|l| l.contains("收到")).expect("the line");
    assert!(
        last.starts_with('#') && last.ends_with(&format!(" group:20000003 (self) {line}")),
        "{printed}\n{line}"
    );
    let recalled = cli(&gw.addr, &["recall", &reply_id]);
    assert_eq!(stdout(&recalled), format!("recalled message {reply_id}\n"));
    let gone = cli(&gw.addr, &["message", &reply_id, "--json"]);
    assert_eq!(gone.status.code(), Some(1));
    let err: serde_json::Value = serde_json::from_slice(&gone.stderr).unwrap();
    assert_eq!(err["error"]["reason"], "MESSAGE_NOT_FOUND");
    let private = cli(&gw.addr, &["send", "--user", "10001", "私聊"]);
    assert!(
        stdout(&private).starts_with("sent to user 10001: message ids ["),
        "{private:?}"
    );
    let forward = cli(&gw.addr, &["forward", "7412580369852147963"]);
    assert!(
        stdout(&forward).ends_with("王五(10003): [合并转发]\n"),
        "{}",
        stdout(&forward)
    );

    let poke = cli(&gw.addr, &["poke", "10001", "-g", "20000003"]);
    assert_eq!(stdout(&poke), "poked 10001 in group 20000003\n");

    let tools = cli(&gw.addr, &["tools", "list"]);
    assert!(stdout(&tools).contains("qq_get_history"), "{tools:?}");
    let call = cli(
        &gw.addr,
        &[
            "tools",
            "call",
            "qq_get_group_members",
            r#"{"groupId":20000003,"limit":1}"#,
        ],
    );
    assert!(call.status.success(), "{call:?}");
    assert_eq!(
        stdout(&call),
        "群主张三(10001) — owner\n（仅显示前 1 / 共 36 名成员）\n"
    );
    let failed = cli(&gw.addr, &["tools", "call", "qq_get_group_members", "{}"]);
    assert_eq!(failed.status.code(), Some(1));

    let events = cli(
        &gw.addr,
        &["events", "--after", "0", "--kind", "poke", "--count", "1"],
    );
    assert!(events.status.success(), "{events:?}");
    assert!(
        stdout(&events).contains("poke in group 20000003: "),
        "{}",
        stdout(&events)
    );
}

#[test]
fn search_finds_a_send_and_purge_deletes_the_chat() {
    let gw = start();
    let sent = cli(&gw.addr, &["send", "-g", "20000003", "CLI 明天下午开会"]);
    assert!(sent.status.success(), "{sent:?}");

    let found = cli(
        &gw.addr,
        &[
            "search",
            "开会",
            "--chat",
            "group:20000003",
            "--since",
            "1h",
        ],
    );
    assert!(found.status.success(), "{found:?}");
    assert!(
        stdout(&found).contains("CLI 明天下午开会"),
        "{}",
        stdout(&found)
    );
    let json = cli(&gw.addr, &["search", "下午开会", "--json"]);
    let value: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
    assert_eq!(value["messages"][0]["text"], "CLI 明天下午开会");

    // On this machine's archive, beside the running gateway.
    let purged = Command::new(BIN)
        .args(["archive", "purge", "--chat", "group:20000003", "--data-dir"])
        .arg(gw._data.path())
        .output()
        .unwrap();
    assert!(purged.status.success(), "{purged:?}");
    let text = stdout(&purged);
    assert!(text.starts_with("purged group:20000003 from "), "{text}");
    assert!(!text.contains(" 0 messages"), "{text}");
    let after = cli(&gw.addr, &["search", "开会", "--chat", "group:20000003"]);
    assert_eq!(stdout(&after), "（没有找到匹配的消息）\n");

    let bad = Command::new(BIN)
        .args(["archive", "purge", "--user", "0", "--data-dir"])
        .arg(gw._data.path())
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--user must be a positive QQ number"));
}
