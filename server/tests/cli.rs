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
    assert_eq!(stdout(&history).lines().count(), 3);

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
