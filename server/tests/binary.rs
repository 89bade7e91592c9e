//! Drives the built `onebot-gateway` binary like an operator would: grpcurl
//! against `serve` on its embedded sandbox (list, describe, health), then
//! SIGTERM and a clean exit within the grace period.
//!
//! grpcurl comes from `scripts/install-tools.sh` (on PATH via
//! `scripts/env.sh`, or `.tools/go/bin`).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn grpcurl() -> PathBuf {
    let local = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.tools/go/bin/grpcurl");
    if local.exists() {
        return local;
    }
    PathBuf::from("grpcurl")
}

/// A running binary whose stderr lines are forwarded to a channel.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn start(args: &[&str], data_dir: &std::path::Path, env: &[(&str, &str)]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_onebot-gateway"))
            .args(args)
            .env("RUST_LOG", "info")
            .env("ONEBOT_GATEWAY__SERVER__DATA_DIR", data_dir)
            // Other tests run `serve` at the same time: not the fixed default.
            .env("ONEBOT_GATEWAY__SANDBOX__LISTEN", "127.0.0.1:0")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn onebot-gateway");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[gateway] {line}");
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Running { child, lines }
    }

    /// Waits for a log line containing `needle` and returns it.
    fn wait_line(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(needle) => return line,
                Ok(_) => continue,
                Err(e) => panic!("no log line with {needle:?}: {e}"),
            }
        }
    }

    fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    fn wait_exit(&mut self, within: Duration) -> std::process::ExitStatus {
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            // Drain log lines while waiting; the exit shows up as the end of
            // stderr (disconnected channel).
            match self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(_) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return self.child.wait().expect("wait");
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("did not exit within {within:?}");
                }
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address in a `... gRPC listening local=127.0.0.1:PORT` line.
fn addr_of(line: &str, key: &str) -> String {
    let start = line.find(key).expect("key in line") + key.len();
    line[start..]
        .split_whitespace()
        .next()
        .expect("address")
        .to_string()
}

fn run_grpcurl(args: &[&str]) -> String {
    let out = Command::new(grpcurl())
        .args(args)
        .output()
        .expect("grpcurl (install with scripts/install-tools.sh)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "grpcurl {args:?} failed: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn serve_on_sandbox_answers_grpcurl_and_exits_cleanly_on_sigterm() {
    serve_answers_grpcurl_and_exits_on_sigterm(&[]);
}

/// The same on one thread (`server.worker_threads = 1`: the current-thread
/// scheduler, the embedded sandbox on the same thread).
#[test]
fn serve_on_one_thread_answers_grpcurl_and_exits_cleanly_on_sigterm() {
    serve_answers_grpcurl_and_exits_on_sigterm(&[("ONEBOT_GATEWAY__SERVER__WORKER_THREADS", "1")]);
}

fn serve_answers_grpcurl_and_exits_on_sigterm(env: &[(&str, &str)]) {
    let data = tempfile::tempdir().expect("tempdir");
    let mut gw = Running::start(&["serve", "--listen", "127.0.0.1:0"], data.path(), env);
    let addr = addr_of(&gw.wait_line("gRPC listening"), "local=");

    let list = run_grpcurl(&["-plaintext", &addr, "list"]);
    for service in [
        "grpc.health.v1.Health",
        "onebot.gateway.v1.MessageService",
        "onebot.gateway.v1.GroupService",
        "onebot.gateway.v1.MediaService",
        "onebot.gateway.v1.AgentToolService",
        "onebot.gateway.v1.AccountService",
        "onebot.gateway.v1.EventService",
    ] {
        assert!(list.contains(service), "{service} missing from {list}");
    }
    let described = run_grpcurl(&[
        "-plaintext",
        &addr,
        "describe",
        "onebot.gateway.v1.MessageService",
    ]);
    assert!(described.contains("rpc GetHistory"), "{described}");
    assert!(
        described.contains("Reads one page"),
        "comments served: {described}"
    );

    let health = run_grpcurl(&["-plaintext", &addr, "grpc.health.v1.Health/Check"]);
    assert!(health.contains("SERVING"), "{health}");
    // A call that goes to the peer and back.
    let history = run_grpcurl(&[
        "-plaintext",
        "-d",
        r#"{"chat":{"group_id":20000003},"count":3}"#,
        &addr,
        "onebot.gateway.v1.MessageService/GetHistory",
    ]);
    let history: serde_json::Value = serde_json::from_str(&history).expect("grpcurl prints JSON");
    let messages = history["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 3, "{history}");

    gw.sigterm();
    let status = gw.wait_exit(Duration::from_secs(15));
    assert!(status.success(), "exit status {status}");
}

#[tokio::test]
async fn sandbox_subcommand_answers_a_raw_onebot_websocket_call() {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    let data = tempfile::tempdir().expect("tempdir");
    let peer = Running::start(&["sandbox", "--listen", "127.0.0.1:0"], data.path(), &[]);
    let line = tokio::task::spawn_blocking(move || {
        let line = peer.wait_line("OneBot sandbox ready");
        (peer, line)
    })
    .await
    .expect("join");
    let (_peer, line) = line;
    let ws_url = addr_of(&line, "ws=");

    let (mut ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
        .await
        .expect("connect to sandbox");
    ws.send(Message::text(
        r#"{"action":"get_group_member_list","params":{"group_id":20000002},"echo":"m1"}"#,
    ))
    .await
    .expect("send");
    let reply = loop {
        let frame = ws.next().await.expect("frame").expect("ws");
        let Message::Text(text) = frame else { continue };
        let value: serde_json::Value = serde_json::from_str(&text).expect("json");
        if value["echo"] == "m1" {
            break value;
        }
    };
    assert_eq!(reply["status"], "ok");
    let members = reply["data"].as_array().expect("member array");
    assert_eq!(members.len(), 120);
    assert_eq!(members[0]["user_id"], 10001);
    assert_eq!(members[0]["card"], "群主张三");
}
