//! The binary as an agent developer meets it in the first hour: `serve` on
//! its embedded sandbox, `sandbox inject` to make a user speak (text,
//! pictures, privately), pictures downloaded byte-exact, `send -` from
//! stdin, a closed output pipe, the texts of an unreachable gateway and a
//! missing token, the rate-limit wait of a send, the stdio MCP bridge's
//! stderr, and `--help` listing every command.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_onebot-gateway");
const TOKEN: &str = "agent-token-0123456789abcdef";
const GROUP: &str = "20000003";

/// A 1×1 red PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
    0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0x00,
    0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e,
    0x44, 0xae, 0x42, 0x60, 0x82,
];

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A child process, killed on drop.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A `serve` process (with its sandbox peer, when that is a process of its
/// own).
struct Gateway {
    addr: String,
    /// The sandbox's HTTP address.
    sandbox: String,
    dir: tempfile::TempDir,
    _procs: Vec<Proc>,
}

impl Gateway {
    /// `serve` on its embedded sandbox, on a free port of its own;
    /// `extra` is appended to the config.
    fn embedded(extra: &str) -> Gateway {
        let dir = tempfile::tempdir().unwrap();
        let sandbox_port = free_port();
        let config = format!("[sandbox]\nlisten = \"127.0.0.1:{sandbox_port}\"\n{extra}");
        Gateway::serve(
            dir,
            &config,
            format!("http://127.0.0.1:{sandbox_port}"),
            vec![],
        )
    }

    /// `serve` with a `default` account on a separate `onebot-gateway
    /// sandbox` process; `account` is appended to `[accounts.default]`.
    fn with_sandbox_process(account: &str) -> Gateway {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let peer = Command::new(BIN)
            .args(["sandbox", "--listen", &format!("127.0.0.1:{port}")])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut peer = Proc(peer);
        // The peer logs its readiness once it listens.
        let stderr = peer.0.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        loop {
            match lines.next() {
                Some(Ok(line)) if line.contains("OneBot sandbox ready") => break,
                Some(Ok(_)) => continue,
                other => panic!("the sandbox did not start: {other:?}"),
            }
        }
        std::thread::spawn(move || lines.for_each(drop));
        let config = format!(
            "[accounts.default]\nws_url = \"ws://127.0.0.1:{port}/\"\ngroups = [{GROUP}]\n{account}"
        );
        Gateway::serve(dir, &config, format!("http://127.0.0.1:{port}"), vec![peer])
    }

    fn serve(dir: tempfile::TempDir, config: &str, sandbox: String, mut procs: Vec<Proc>) -> Self {
        let port = free_port();
        let path = dir.path().join("gateway.toml");
        let data = dir.path().join("data");
        std::fs::write(
            &path,
            format!("[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n{config}"),
        )
        .unwrap();
        let child = Command::new(BIN)
            .args(["serve", "--config"])
            .arg(&path)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("gateway.log")).unwrap())
            .spawn()
            .unwrap();
        procs.push(Proc(child));
        let gw = Gateway {
            addr: format!("http://127.0.0.1:{port}"),
            sandbox,
            dir,
            _procs: procs,
        };
        let ready = gw.cli(&[
            "health",
            "--wait",
            "60s",
            "--service",
            "onebot.gateway.v1.account.default",
        ]);
        assert!(ready.status.success(), "gateway not healthy: {ready:?}");
        gw
    }

    /// A client command against this gateway (with the token; a gateway
    /// without tokens ignores it).
    fn cli(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("ONEBOT_GATEWAY_ADDR", &self.addr)
            .env("ONEBOT_GATEWAY_TOKEN", TOKEN)
            .stdin(Stdio::null());
        c
    }

    /// `sandbox inject` against this gateway's sandbox; the message id.
    fn inject(&self, args: &[&str]) -> i64 {
        let out = Command::new(BIN)
            .args(["sandbox", "inject", "--to", &self.sandbox])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        stdout(&out).trim().parse().expect("a message id")
    }

    /// The newest messages of `target`, as JSON.
    fn history(&self, target: &str) -> Vec<Value> {
        let out = self.cli(&["history", target, "-n", "5", "--json"]);
        assert!(out.status.success(), "{out:?}");
        let page: Value = serde_json::from_str(&stdout(&out)).unwrap();
        page["messages"].as_array().unwrap().clone()
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Downloads `media_id` with the CLI (DownloadMedia); the bytes.
    fn download(&self, media_id: &str) -> Vec<u8> {
        let to = self.dir.path().join(format!("{media_id}.out"));
        let out = self.cli(&["download", media_id, "-o", to.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        std::fs::read(to).unwrap()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The message `id` among `messages`.
fn find(messages: &[Value], id: i64) -> &Value {
    messages
        .iter()
        .find(|m| m["messageId"] == id)
        .unwrap_or_else(|| panic!("message {id} not in {messages:?}"))
}

/// The text and the image media ids of a message.
fn parts(message: &Value) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut images = Vec::new();
    for segment in message["segments"].as_array().unwrap() {
        if let Some(t) = segment["text"]["text"].as_str() {
            text.push_str(t);
        }
        if let Some(id) = segment["image"]["mediaId"].as_str() {
            images.push(id.to_owned());
        }
    }
    (text, images)
}

#[test]
fn injected_text_pictures_and_private_messages_reach_the_gateway() {
    let gw = Gateway::embedded("");
    let png = gw.file("red.png", PNG);

    let id = gw.inject(&["--group", GROUP, "--user", "10002", "大家好"]);
    let (text, images) = parts(find(&gw.history(&format!("group:{GROUP}")), id));
    assert_eq!((text.as_str(), images.len()), ("大家好", 0));

    let id = gw.inject(&["--group", GROUP, "--image", png.to_str().unwrap(), "看图"]);
    let message = find(&gw.history(&format!("group:{GROUP}")), id).clone();
    assert_eq!(message["sender"]["userId"], 10001, "{message}");
    let (text, images) = parts(&message);
    assert_eq!(text, "看图");
    assert_eq!(images.len(), 1, "{message}");
    assert_eq!(sha256(&gw.download(&images[0])), sha256(PNG));

    // --at: a mention (of the bot, by its number), leading the message.
    let id = gw.inject(&["--group", GROUP, "--at", "3889000000", "在吗"]);
    let message = find(&gw.history(&format!("group:{GROUP}")), id).clone();
    assert_eq!(
        message["segments"][0]["at"]["userId"], 3_889_000_000_i64,
        "{message}"
    );
    assert_eq!(message["text"], "@沙盒 在吗", "{message}");

    // Without --group: a private message from the user to the bot.
    let id = gw.inject(&["--user", "10001", "私聊一句"]);
    let (text, _) = parts(find(&gw.history("private:10001"), id));
    assert_eq!(text, "私聊一句");
}

#[test]
fn the_bots_own_pictures_download_byte_exact() {
    let gw = Gateway::embedded("");
    // Different bytes from the injected picture's: a PNG with a text chunk.
    let mut picture = PNG[..PNG.len() - 12].to_vec();
    picture.extend_from_slice(&[0, 0, 0, 4, b't', b'E', b'X', b't', b'a', 0, b'b', b'c']);
    picture.extend_from_slice(&[0x2a, 0x5d, 0x0c, 0x2e]);
    picture.extend_from_slice(&PNG[PNG.len() - 12..]);
    let path = gw.file("own.png", &picture);
    let sent = gw.cli(&[
        "send",
        "--group",
        GROUP,
        "--image",
        path.to_str().unwrap(),
        "--json",
    ]);
    assert!(sent.status.success(), "{sent:?}");
    let sent: Value = serde_json::from_str(&stdout(&sent)).unwrap();
    let ids = sent["messageIds"].as_array().unwrap();
    let image_message = ids.last().unwrap().as_i64().unwrap();
    let (_, images) = parts(find(&gw.history(&format!("group:{GROUP}")), image_message));
    assert_eq!(images.len(), 1);
    assert_eq!(sha256(&gw.download(&images[0])), sha256(&picture));
}

#[test]
fn send_dash_reads_the_text_from_stdin() {
    let gw = Gateway::embedded("");
    let mut child = gw
        .command(&["send", "--group", GROUP, "-", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all("第一行\n第二行\n".as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let sent: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let id = sent["messageIds"][0].as_i64().unwrap();
    let (text, _) = parts(find(&gw.history(&format!("group:{GROUP}")), id));
    assert_eq!(text, "第一行\n第二行");
}

#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    let gw = Gateway::embedded("");
    for args in [
        &["history", "group:20000003", "--json"][..],
        &["history", "group:20000003"][..],
        &["members", GROUP][..],
    ] {
        // The reader is gone before the command writes anything, as after
        // `| head -1` has read its line.
        let (reader, writer) = std::io::pipe().unwrap();
        let child = gw
            .command(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(reader);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}

#[test]
fn an_unreachable_gateway_is_named_with_how_to_start_it() {
    let port = free_port();
    let addr = format!("http://127.0.0.1:{port}");
    let out = Command::new(BIN)
        .args(["groups", "--addr", &addr])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains(&format!(
            "cannot reach the gateway at {addr}: connection refused. Is it running? Start it with `onebot-gateway serve`"
        )),
        "{text}"
    );

    let out = Command::new(BIN)
        .args([
            "sandbox",
            "inject",
            "--to",
            &format!("127.0.0.1:{port}"),
            "hi",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(
        text.contains(&format!(
            "cannot reach the sandbox at http://127.0.0.1:{port}: connection refused"
        )),
        "{text}"
    );
}

#[test]
fn a_missing_token_says_how_to_pass_one() {
    let gw = Gateway::embedded(&format!(
        "[[auth.tokens]]\nname = \"agent\"\nvalue = \"{TOKEN}\"\naccounts = [\"*\"]\naccess = \"read_write\"\n"
    ));
    let out = gw
        .command(&["groups"])
        .env_remove("ONEBOT_GATEWAY_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stderr(&out);
    assert!(text.contains("Unauthenticated"), "{text}");
    assert!(text.contains(&gw.addr), "{text}");
    assert!(
        text.contains("`--token <TOKEN>`") && text.contains("ONEBOT_GATEWAY_TOKEN"),
        "{text}"
    );
    // With the token it works.
    assert!(gw.cli(&["groups"]).status.success());
}

#[test]
fn a_send_held_by_the_rate_limit_says_so_and_how_long() {
    // One message per 3 s in a group, no burst beyond one.
    let gw = Gateway::with_sandbox_process("rate_group_per_minute = 20\nrate_group_burst = 1\n");
    let first = gw.cli(&["send", "--group", GROUP, "一", "--json"]);
    assert!(first.status.success(), "{first:?}");
    let first: Value = serde_json::from_str(&stdout(&first)).unwrap();
    assert_eq!(first["rateLimitWait"], "0s", "{first}");

    let second = gw.cli(&["send", "--group", GROUP, "二", "--json"]);
    assert!(second.status.success(), "{second:?}");
    let response: Value = serde_json::from_str(&stdout(&second)).unwrap();
    let wait = response["rateLimitWait"].as_str().unwrap();
    let secs: f64 = wait.trim_end_matches('s').parse().unwrap();
    assert!(secs > 1.0 && secs <= 3.0, "{response}");
    let text = stderr(&second);
    assert!(
        text.contains("waiting for the gateway to send (it may be holding the message for its send rate limit)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "waited {secs:.1} s for the gateway's send rate limit"
        )),
        "{text}"
    );
}

#[test]
fn the_stdio_bridge_writes_json_rpc_only_and_no_colours() {
    let port = free_port();
    let mut child = Command::new(BIN)
        .args(["mcp", "--addr", &format!("http://127.0.0.1:{port}")])
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = move |v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}),
    );
    let init: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 1, "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let listed: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    // The gateway is not running: the client is told so, with the address.
    let message = listed["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!(
            "cannot reach the gateway at http://127.0.0.1:{port}"
        )) && message.contains("onebot-gateway serve"),
        "{listed}"
    );
    // Closing stdin ends the bridge.
    drop(send);
    // Every other line on stdout is JSON-RPC too.
    for line in lines {
        let line = line.unwrap();
        let value: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("{line}"));
        assert_eq!(value["jsonrpc"], "2.0", "{line}");
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    assert!(!err.is_empty(), "debug logs expected on stderr");
    assert!(!err.contains('\u{1b}'), "ANSI escapes on stderr: {err:?}");
}

#[test]
fn help_lists_every_command() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = stdout(&out);
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for command in [
        "serve", "sandbox", "archive", "history", "members", "groups", "send", "message", "recall",
        "forward", "poke", "accounts", "events", "tools", "health", "mcp", "download", "search",
    ] {
        assert!(
            commands.contains(&command),
            "{command} missing from {commands:?}"
        );
    }
    let out = Command::new(BIN)
        .args(["sandbox", "--help"])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("inject"), "{}", stdout(&out));
}

/// `onebot-gateway sandbox` keeps its flags beside the `inject` subcommand.
#[test]
fn sandbox_runs_with_its_flags() {
    let port = free_port();
    let child = Command::new(BIN)
        .args([
            "sandbox",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--flavor",
            "snowluma",
            "--token",
            "t",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut peer = Proc(child);
    let mut lines = BufReader::new(peer.0.stderr.take().unwrap()).lines();
    let ready = loop {
        let line = lines.next().expect("sandbox log").unwrap();
        if line.contains("OneBot sandbox ready") {
            break line;
        }
    };
    assert!(ready.contains(&format!("127.0.0.1:{port}")), "{ready}");
    std::thread::spawn(move || lines.for_each(drop));
    // Its token is required and given with --token.
    let to = format!("127.0.0.1:{port}");
    let refused = Command::new(BIN)
        .args(["sandbox", "inject", "--to", &to, "--group", GROUP, "hi"])
        .env_remove("ONEBOT_SANDBOX_TOKEN")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("--token"), "{refused:?}");
    let ok = Command::new(BIN)
        .args([
            "sandbox", "inject", "--to", &to, "--token", "t", "--group", GROUP, "hi",
        ])
        .output()
        .unwrap();
    assert!(ok.status.success(), "{ok:?}");
    let _: i64 = stdout(&ok).trim().parse().unwrap();
}
