//! Shared harness of the end-to-end tests: the real gateway served over gRPC
//! on a `127.0.0.1:0` listener, talking to a real sandbox peer over real
//! sockets.
//!
//! Readiness is awaited through signals (the bound listener, the account's
//! status watch via `ListAccounts`/health), never sleeps.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::{AccountConfig, Config, SandboxConfig as SandboxSection};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tonic::transport::Channel;

pub use onebot_sandbox::{Flavor as SandboxFlavor, Sandbox, SandboxConfig};

pub mod certs;
pub mod nats;
pub mod nginx;

/// A gateway running in this process on an ephemeral port.
pub struct TestGateway {
    /// The gRPC address.
    pub addr: SocketAddr,
    /// The Prometheus listener's address, when `[metrics]` is configured.
    pub metrics_addr: Option<SocketAddr>,
    /// A connected channel.
    pub channel: Channel,
    /// The data directory in use.
    pub data_dir: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
    _temp: Option<tempfile::TempDir>,
}

impl TestGateway {
    /// Starts the gateway with `config` (its `server.listen` is ignored; the
    /// data dir is a fresh temporary directory unless the config names one
    /// that exists).
    pub async fn start(config: Config) -> TestGateway {
        TestGateway::start_inner(config, None).await
    }

    /// Starts the gateway with `config`, whose `[server.tls]` is set, and
    /// connects to `https://127.0.0.1:<port>` with `tls` (the trusted CA,
    /// `domain_name("localhost")`, and a client identity for mutual TLS).
    pub async fn start_tls(config: Config, tls: tonic::transport::ClientTlsConfig) -> TestGateway {
        TestGateway::start_inner(config, Some(tls)).await
    }

    async fn start_inner(
        mut config: Config,
        tls: Option<tonic::transport::ClientTlsConfig>,
    ) -> TestGateway {
        let temp = if config.server.data_dir == Path::new("./data") {
            let t = tempfile::tempdir().expect("tempdir");
            config.server.data_dir = t.path().to_path_buf();
            Some(t)
        } else {
            None
        };
        // Tests run side by side: an embedded sandbox on the fixed default
        // port would be taken by the first; a test that needs the port names it.
        if config.sandbox.listen == SandboxSection::DEFAULT_LISTEN {
            config.sandbox.listen = ([127, 0, 0, 1], 0).into();
        }
        let data_dir = config.server.data_dir.clone();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let metrics = match config.metrics {
            Some(_) => Some(
                tokio::net::TcpListener::bind("127.0.0.1:0")
                    .await
                    .expect("bind metrics"),
            ),
            None => None,
        };
        let metrics_addr = metrics.as_ref().map(|l| l.local_addr().expect("addr"));
        let (stop, stop_rx) = oneshot::channel::<()>();
        let listeners = onebot_gateway::app::Listeners {
            grpc: listener,
            metrics,
        };
        let task = tokio::spawn(onebot_gateway::app::run_with(
            config,
            listeners,
            async move {
                let _ = stop_rx.await;
            },
        ));
        // The listener is bound before the server task starts, so connecting
        // succeeds as soon as the server accepts.
        let endpoint = match tls {
            None => Channel::from_shared(format!("http://{addr}")).expect("uri"),
            Some(tls) => Channel::from_shared(format!("https://{addr}"))
                .expect("uri")
                .tls_config(tls)
                .expect("tls config"),
        };
        let channel = endpoint.connect().await.expect("connect to gateway");
        TestGateway {
            addr,
            metrics_addr,
            channel,
            data_dir,
            stop: Some(stop),
            task: Some(task),
            _temp: temp,
        }
    }

    /// Starts a gateway whose `default` account talks to `sandbox` over its
    /// forward WebSocket, with `groups` whitelisted, and waits until the
    /// account is CONNECTED.
    pub async fn with_sandbox(sandbox: &Sandbox, groups: &[i64]) -> TestGateway {
        let gw = TestGateway::start(config_for(sandbox, groups)).await;
        gw.wait_state("default", pb::ConnectionState::Connected)
            .await;
        gw
    }

    /// Stops the gateway gracefully and returns the server's result.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        self.shutdown().await
    }

    async fn shutdown(&mut self) -> anyhow::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task.await.map_err(|e| anyhow::anyhow!("join: {e}"))?,
            None => Ok(()),
        }
    }

    /// MessageService client.
    pub fn messages(&self) -> pb::message_service_client::MessageServiceClient<Channel> {
        pb::message_service_client::MessageServiceClient::new(self.channel.clone())
            .max_decoding_message_size(64 * 1024 * 1024)
            .max_encoding_message_size(64 * 1024 * 1024)
    }

    /// GroupService client.
    pub fn groups(&self) -> pb::group_service_client::GroupServiceClient<Channel> {
        pb::group_service_client::GroupServiceClient::new(self.channel.clone())
    }

    /// MediaService client.
    pub fn media(&self) -> pb::media_service_client::MediaServiceClient<Channel> {
        pb::media_service_client::MediaServiceClient::new(self.channel.clone())
    }

    /// AgentToolService client.
    pub fn tools(&self) -> pb::agent_tool_service_client::AgentToolServiceClient<Channel> {
        pb::agent_tool_service_client::AgentToolServiceClient::new(self.channel.clone())
    }

    /// AccountService client.
    pub fn accounts(&self) -> pb::account_service_client::AccountServiceClient<Channel> {
        pb::account_service_client::AccountServiceClient::new(self.channel.clone())
    }

    /// EventService client.
    pub fn events(&self) -> pb::event_service_client::EventServiceClient<Channel> {
        pb::event_service_client::EventServiceClient::new(self.channel.clone())
    }

    /// Health client.
    pub fn health(&self) -> tonic_health::pb::health_client::HealthClient<Channel> {
        tonic_health::pb::health_client::HealthClient::new(self.channel.clone())
    }

    /// Waits (through the health service's Watch stream, bounded by 20 s)
    /// until `account_id` reaches `state` in ListAccounts.
    pub async fn wait_state(&self, account_id: &str, state: pb::ConnectionState) {
        let mut health = self.health();
        let name = format!("onebot.gateway.v1.account.{account_id}");
        let wait = async {
            let mut stream = health
                .watch(tonic_health::pb::HealthCheckRequest { service: name })
                .await
                .expect("health watch")
                .into_inner();
            loop {
                if self.account(account_id).await.state == state as i32 {
                    return;
                }
                // Every change of the account's availability is announced on
                // its health name; re-check the state on each announcement.
                match stream.message().await {
                    Ok(Some(_)) => continue,
                    _ => return,
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .unwrap_or_else(|_| panic!("account {account_id} did not reach {state:?}"));
    }

    /// The ListAccounts entry of `account_id`.
    pub async fn account(&self, account_id: &str) -> pb::Account {
        self.accounts()
            .list_accounts(pb::ListAccountsRequest {})
            .await
            .expect("ListAccounts")
            .into_inner()
            .accounts
            .into_iter()
            .find(|a| a.account_id == account_id)
            .unwrap_or_else(|| panic!("no account {account_id}"))
    }
}

impl Drop for TestGateway {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A config whose `default` account talks to `sandbox` over forward WS.
pub fn config_for(sandbox: &Sandbox, groups: &[i64]) -> Config {
    let mut config = Config::default();
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(sandbox.ws_url()),
            groups: groups.to_vec(),
            ..AccountConfig::default()
        },
    );
    config
}

/// Starts a sandbox of `flavor` on an ephemeral loopback port.
pub async fn sandbox(flavor: SandboxFlavor) -> Sandbox {
    Sandbox::start(SandboxConfig {
        flavor,
        ..SandboxConfig::default()
    })
    .await
    .expect("start sandbox")
}

/// The `ErrorInfo.reason` of a status (empty when absent).
pub fn reason(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .error_info()
        .map(|i| i.reason.clone())
        .unwrap_or_default()
}

/// Set in the child process [`in_own_process`] starts: the name of the one
/// test that child runs.
const OWN_PROCESS: &str = "ONEBOT_GATEWAY_TESTS_OWN_PROCESS";

/// Gives the test `name` (its path in the test binary, `module::function`) a
/// process of its own, for tests that read or install process-wide state
/// which the tests running beside them in the binary's process would disturb
/// or see.
///
/// Returns `true` in that process, where the caller goes on with the test.
/// Anywhere else it runs the test binary again with only `name`
/// (`--exact`), waits for it, panics with its output unless exactly that one
/// test passed, and returns `false`: the caller returns at once.
pub fn in_own_process(name: &str) -> bool {
    if std::env::var_os(OWN_PROCESS).is_some_and(|v| v == name) {
        return true;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args([name, "--exact", "--test-threads=1", "--nocapture"])
        .env(OWN_PROCESS, name)
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("test result: ok. 1 passed;"),
        "{name} in a process of its own ({}):\n{stdout}\n{stderr}",
        out.status
    );
    false
}
