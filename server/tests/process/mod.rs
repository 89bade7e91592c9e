//! The gateway binary as a process, for the tests that kill and restart it:
//! a config over a sandbox peer, a start that waits for health, the
//! account's availability through health Watch.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use onebot_sandbox::Sandbox;
use tokio::process::{Child, Command};
use tonic::transport::Channel;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

pub const BIN: &str = env!("CARGO_BIN_EXE_onebot-gateway");
/// The group the configs whitelist.
pub const GROUP: i64 = 20_000_002;

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Writes `gateway.toml` into `dir`: the listener on `port`, the data
/// directory `dir/data`, the account `default` over `peer` whitelisting
/// [`GROUP`]; `extra` goes into the top level, `extra_account` into the
/// account's table.
pub fn write_config(
    dir: &Path,
    port: u16,
    peer: &Sandbox,
    extra_account: &str,
    extra: &str,
) -> PathBuf {
    let config = dir.join("gateway.toml");
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\ndata_dir = {data:?}\n{extra}\n\n[accounts.default]\nws_url = {ws:?}\ngroups = [{GROUP}]\n{extra_account}\n",
            data = dir.join("data").to_string_lossy(),
            ws = peer.ws_url(),
        ),
    )
    .unwrap();
    config
}

/// Starts `serve --config config` and waits until it answers health at
/// `addr`. With `log`, its warnings and errors are appended there.
pub async fn spawn(config: &Path, addr: &str, log: Option<&Path>) -> Child {
    let mut command = Command::new(BIN);
    command
        .args(["serve", "--config"])
        .arg(config)
        .stdout(Stdio::null())
        .kill_on_drop(true);
    match log {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .unwrap();
            command.env("RUST_LOG", "warn").stderr(file);
        }
        None => {
            command.stderr(Stdio::null());
        }
    }
    let child = command.spawn().unwrap();
    let ready = Command::new(BIN)
        .args(["health", "--wait", "60s", "--addr", addr])
        .output()
        .await
        .unwrap();
    assert!(ready.status.success(), "gateway not healthy: {ready:?}");
    child
}

pub async fn connect(addr: &str) -> Channel {
    Channel::from_shared(addr.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap()
}

/// Waits (health Watch, at most 60 s) until the account's availability is
/// `want`.
pub async fn account_is(channel: &Channel, want: ServingStatus) {
    let mut health = HealthClient::new(channel.clone());
    let mut stream = health
        .watch(HealthCheckRequest {
            service: "onebot.gateway.v1.account.default".into(),
        })
        .await
        .unwrap()
        .into_inner();
    tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(msg) = stream.message().await.unwrap() {
            if msg.status == want as i32 {
                return;
            }
        }
        panic!("health stream ended");
    })
    .await
    .expect("account state within 60 s");
}
