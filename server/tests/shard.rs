//! Accounts sharded over three gateway processes behind one nginx that
//! routes on the `x-onebot-account` metadata every SDK call carries (a `map`
//! to three upstreams, the example of docs/operations.md). Each gateway has
//! its own accounts, data directory and sandbox peer; one SDK client
//! reaches every account through the one address, sends and reads on each,
//! calls an agent tool as each, follows one's events, and gets ACCOUNT_NOT_CONFIGURED for an account no
//! shard holds and INVALID_ARGUMENT for a body that contradicts its routing.

#[path = "../../tests/src/nginx.rs"]
#[allow(dead_code)]
mod nginx;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use onebot_gateway_client::{Client, pb};
use onebot_sandbox::{ChatRef, Sandbox, SandboxConfig};
use tokio::process::{Child, Command};

const BIN: &str = env!("CARGO_BIN_EXE_onebot-gateway");
const GROUP: i64 = 20_000_002;

/// One gateway process holding `accounts`, all on `peer`.
struct Shard {
    port: u16,
    peer: Sandbox,
    _child: Child,
}

async fn shard(dir: &Path, name: &str, accounts: &[&str]) -> Shard {
    let peer = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let port = nginx::free_port();
    let mut toml = format!(
        "[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {:?}\n",
        dir.join(name).to_string_lossy()
    );
    for account in accounts {
        toml.push_str(&format!(
            "\n[accounts.{account}]\nws_url = {:?}\ngroups = [{GROUP}]\n",
            peer.ws_url()
        ));
    }
    let config = dir.join(format!("{name}.toml"));
    std::fs::write(&config, toml).unwrap();
    let child = Command::new(BIN)
        .args(["serve", "--config"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let addr = format!("http://127.0.0.1:{port}");
    for account in accounts {
        let ready = Command::new(BIN)
            .args(["health", "--wait", "60s", "--addr", &addr, "--service"])
            .arg(format!("onebot.gateway.v1.account.{account}"))
            .output()
            .await
            .unwrap();
        assert!(
            ready.status.success(),
            "shard {name} not healthy: {ready:?}"
        );
    }
    Shard {
        port,
        peer,
        _child: child,
    }
}

/// The routing of docs/operations.md: accounts to upstreams by the
/// `x-onebot-account` metadata, unknown accounts to the first shard (which
/// answers ACCOUNT_NOT_CONFIGURED).
fn routing(a: u16, b: u16, c: u16) -> String {
    format!(
        "  map $http_x_onebot_account $shard {{\n    default shard_a;\n    alice shard_a;\n    \
         bob shard_b;\n    carol shard_c;\n    dave shard_c;\n  }}\n  \
         upstream shard_a {{ server 127.0.0.1:{a}; keepalive 8; }}\n  \
         upstream shard_b {{ server 127.0.0.1:{b}; keepalive 8; }}\n  \
         upstream shard_c {{ server 127.0.0.1:{c}; keepalive 8; }}\n  \
         server {{\n    listen {{listen}} http2;\n    client_max_body_size 0;\n    \
         grpc_read_timeout 60s;\n    grpc_send_timeout 60s;\n    \
         location / {{\n      grpc_pass grpc://$shard;\n    }}\n  }}"
    )
}

fn texts(peer: &Sandbox) -> Vec<String> {
    peer.control()
        .messages(ChatRef::Group(GROUP))
        .iter()
        .map(|m| m["raw_message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_reaches_every_shard_by_account_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let a = shard(dir.path(), "a", &["alice"]).await;
    let b = shard(dir.path(), "b", &["bob"]).await;
    let c = shard(dir.path(), "c", &["carol", "dave"]).await;
    let proxy = nginx::Nginx::start(&routing(a.port, b.port, c.port));

    let client = Client::builder(format!("http://{}", proxy.addr))
        .connect()
        .await
        .unwrap();
    for (account, holder) in [("alice", &a), ("bob", &b), ("carol", &c), ("dave", &c)] {
        let on = client.with_account(account).unwrap();
        let text = format!("hello from {account}");
        let sent = on
            .send(onebot_gateway_client::OutgoingMessage::to_group(GROUP).text(&text))
            .await
            .unwrap_or_else(|e| panic!("send as {account}: {e}"));
        assert!(!sent.queued);
        let page = on
            .history(pb::Chat::group(GROUP), 5, None)
            .await
            .unwrap_or_else(|e| panic!("history as {account}: {e}"));
        assert!(
            page.rendered.contains(&text),
            "{account} reads its own send: {}",
            page.rendered
        );
        // The archive of the shard holding the account has the send.
        let found = on
            .search(pb::SearchMessagesRequest {
                query: text.clone(),
                chat: Some(pb::Chat::group(GROUP)),
                ..Default::default()
            })
            .collect_all()
            .await
            .unwrap_or_else(|e| panic!("search as {account}: {e}"));
        assert!(
            found
                .iter()
                .any(|m| sent.message_ids.contains(&m.message_id)),
            "{account} finds its own send: {found:?}"
        );
        // The message went to the peer of the gateway that holds the
        // account, and to no other.
        for shard in [&a, &b, &c] {
            let here = texts(&shard.peer).contains(&text);
            assert_eq!(here, std::ptr::eq(shard, holder), "{account}'s send");
        }
        let listed = on.accounts().await.unwrap();
        assert!(listed.iter().any(|x| x.account_id == account));
        // The agent tools without `accountId` act for the routed account.
        let tool = on
            .call_tool(
                "qq_get_history",
                serde_json::json!({"target": format!("group:{GROUP}"), "count": 5}).to_string(),
            )
            .await
            .unwrap_or_else(|e| panic!("tool as {account}: {e}"));
        assert!(!tool.is_error, "{account}: {tool:?}");
        assert!(tool.text.contains(&text), "{account}: {}", tool.text);
    }

    // Events of one account through the proxy.
    let carol = client.with_account("carol").unwrap();
    let mut events = carol
        .events(pb::StreamEventsRequest {
            kinds: vec![pb::EventKind::Message as i32],
            ..Default::default()
        })
        .await
        .unwrap();
    let id = c
        .peer
        .control()
        .inject_group_message(GROUP, 10001, serde_json::json!("to carol"));
    let event = tokio::time::timeout(Duration::from_secs(10), events.next())
        .await
        .expect("carol's event")
        .unwrap()
        .unwrap();
    assert_eq!(event.account_id, "carol");
    match event.kind {
        Some(pb::event::Kind::Message(m)) => assert_eq!(m.message.unwrap().message_id, id),
        other => panic!("{other:?}"),
    }

    // No shard holds erin: the default route answers ACCOUNT_NOT_CONFIGURED.
    let err = client
        .with_account("erin")
        .unwrap()
        .groups()
        .await
        .unwrap_err();
    let rpc = err.rpc().expect("an RPC error");
    assert_eq!(rpc.code, tonic::Code::FailedPrecondition, "{err}");
    assert_eq!(rpc.reason.as_deref(), Some("ACCOUNT_NOT_CONFIGURED"));

    // Routed for bob, naming alice in the body: refused, not served by the
    // wrong shard.
    let err = client
        .with_account("bob")
        .unwrap()
        .message_service()
        .get_history(pb::GetHistoryRequest {
            account_id: "alice".into(),
            chat: Some(pb::Chat::group(GROUP)),
            count: 1,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument, "{err:?}");
    assert!(err.message().contains("x-onebot-account"), "{err:?}");
}
