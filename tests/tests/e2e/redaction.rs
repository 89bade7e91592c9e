//! Secrets never reach logs or error messages: the gateway runs in this
//! process with every log event (all crates, TRACE, `log`-crate records
//! through the tracing-log bridge as the binary installs it) captured in
//! text and in JSON, while clients send good, wrong and malformed bearer tokens, and the
//! config carries OneBot access tokens (header and URL query forms).

use std::io::Write;
use std::sync::{Arc, Mutex};

use onebot_gateway::telemetry::{LogFormat, subscriber};
use onebot_gateway_client::pb;
use onebot_gateway_config::{Access, AccountConfig, Config, Secret, TokenConfig};
use onebot_gateway_tests::{SandboxFlavor, TestGateway, sandbox};
use tonic::metadata::MetadataValue;
use tracing_subscriber::EnvFilter;

const BEARER: &str = "bearer-secret-8f3a1c9e77d24b10";
const WRONG: &str = "wrong-secret-5d0e2b6a91c84f37";
const ONEBOT: &str = "onebot-secret-c4e19a07b3d2";
const IN_URL: &str = "url-secret-7b2d90e1aa";
const SECRETS: [&str; 4] = [BEARER, WRONG, ONEBOT, IN_URL];

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

async fn config() -> (Config, onebot_gateway_tests::Sandbox) {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = Config::default();
    let url = format!("{}?access_token={IN_URL}", sandbox.ws_url());
    config.accounts.insert(
        "default".into(),
        AccountConfig {
            ws_url: Some(url),
            access_token: Some(Secret::new(ONEBOT)),
            groups: vec![20_000_003],
            ..AccountConfig::default()
        },
    );
    config.auth.tokens = vec![TokenConfig::inline(
        "agent",
        BEARER,
        &["*"],
        Access::ReadWrite,
    )];
    (config, sandbox)
}

fn with(
    token: &str,
) -> impl FnMut(tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
    let value = MetadataValue::try_from(token).unwrap();
    move |mut req: tonic::Request<()>| {
        req.metadata_mut().insert("authorization", value.clone());
        req.metadata_mut().insert(
            "x-request-id",
            MetadataValue::from_static("redaction-test-1"),
        );
        Ok(req)
    }
}

/// Drives traffic with good and bad tokens; returns the error messages the
/// clients saw.
async fn traffic(gw: &TestGateway) -> Vec<String> {
    let mut seen = Vec::new();
    for header in [
        format!("Bearer {BEARER}"),
        format!("Bearer {WRONG}"),
        WRONG.to_string(),
        format!("Basic {WRONG}"),
    ] {
        let ch = gw.channel.clone();
        let mut accounts = pb::account_service_client::AccountServiceClient::with_interceptor(
            ch.clone(),
            with(&header),
        );
        if let Err(s) = accounts.list_accounts(pb::ListAccountsRequest {}).await {
            seen.push(format!("{s:?}"));
        }
        let mut messages =
            pb::message_service_client::MessageServiceClient::with_interceptor(ch, with(&header));
        if let Err(s) = messages
            .send_message(pb::SendMessageRequest {
                text: "hello".into(),
                ..Default::default()
            })
            .await
        {
            seen.push(format!("{s:?}"));
        }
    }
    seen
}

/// Makes `dispatch` this thread's subscriber until the guard is dropped.
///
/// tracing caches each callsite's interest for the whole process. While a
/// single dispatcher is registered, a callsite first reached on another
/// test's thread (which has no subscriber) is cached as never enabled, and
/// its events are lost here too. A second live dispatcher that takes every
/// event makes the cache ask all of them, this thread's among them, so the
/// capture sees every event.
fn capture_on_this_thread(
    dispatch: &tracing::Dispatch,
) -> (tracing::Dispatch, tracing::dispatcher::DefaultGuard) {
    let anchor = tracing::Dispatch::new(tracing_subscriber::registry());
    let guard = tracing::dispatcher::set_default(dispatch);
    tracing::callsite::rebuild_interest_cache();
    (anchor, guard)
}

async fn run(format: LogFormat) -> (String, Vec<String>) {
    // The `log` records of dependencies (tungstenite's handshake among
    // them) reach the thread's dispatcher as the binary's `init` makes them
    // do; another test may have installed the bridge already.
    let _ = tracing_log::LogTracer::init();
    let capture = Capture::default();
    let writer = capture.clone();
    let dispatch = tracing::Dispatch::new(subscriber(
        format,
        EnvFilter::new("trace"),
        move || writer.clone(),
        false,
    ));
    let _capture = capture_on_this_thread(&dispatch);
    let (config, sandbox) = config().await;
    tracing::debug!(?config, "effective configuration");
    let gw = TestGateway::start(config).await;
    let errors = traffic(&gw).await;
    gw.stop().await.unwrap();
    sandbox.shutdown().await;
    (capture.text(), errors)
}

fn assert_clean(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} leaks {secret}:\n{text}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn secrets_stay_out_of_text_logs_and_errors() {
    let (logs, errors) = run(LogFormat::Text).await;
    assert!(logs.contains("rpc finished"), "capture works:\n{logs}");
    assert!(logs.contains("redaction-test-1"), "request ids are logged");
    assert!(logs.contains("UNAUTHENTICATED"), "refusals are logged");
    assert!(logs.contains("<redacted>"), "the config is logged redacted");
    assert!(
        logs.contains("Client handshake done"),
        "tungstenite's `log` records are captured:\n{logs}"
    );
    assert_clean("text logs", &logs);
    // Three bad credentials on two RPCs at least (the good token may also
    // meet errors from handlers).
    assert!(errors.len() >= 6, "{errors:?}");
    for e in &errors {
        assert_clean("a client error", e);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn secrets_stay_out_of_json_logs() {
    let (logs, _) = run(LogFormat::Json).await;
    let lines: Vec<serde_json::Value> = logs
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["span"]["request_id"] == "redaction-test-1"
                && l["fields"]["message"] == "rpc finished"),
        "the rpc span's fields are in the JSON lines"
    );
    assert_clean("JSON logs", &logs);
}

#[test]
fn print_config_and_config_errors_are_redacted() {
    let text = format!(
        r#"
        [accounts.default]
        ws_url = "ws://127.0.0.1:3001/?access_token={IN_URL}"
        access_token = "{ONEBOT}"
        [[auth.tokens]]
        name = "agent"
        value = "{BEARER}"
        accounts = ["*"]
        "#
    );
    let config = Config::from_toml(&text).unwrap();
    let printed = config.to_redacted_toml();
    assert_clean("--print-config", &printed);
    assert!(printed.contains("name = \"agent\""), "{printed}");
    assert_clean("Debug", &format!("{config:?}"));
    // A secret of the wrong type is named, not echoed.
    let err = Config::from_toml(&format!(
        "[accounts.a]\naccess_token = {}",
        987_654_321_987i64
    ))
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("accounts.a.access_token") && !err.contains("987654321987"),
        "{err}"
    );
}

/// Plaintext on a non-loopback address is allowed but warned about.
#[tokio::test(flavor = "current_thread")]
async fn plaintext_beyond_loopback_logs_a_warning() {
    let capture = Capture::default();
    let writer = capture.clone();
    let dispatch = tracing::Dispatch::new(subscriber(
        LogFormat::Text,
        EnvFilter::new("onebot_gateway=info"),
        move || writer.clone(),
        false,
    ));
    let _capture = capture_on_this_thread(&dispatch);
    let listener = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let data = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.server.data_dir = data.path().to_path_buf();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(onebot_gateway::app::run(config, listener, async move {
        let _ = stopped.await;
    }));
    let channel = tonic::transport::Channel::from_shared(format!("http://127.0.0.1:{port}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    tonic_health::pb::health_client::HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    let logs = capture.text();
    assert!(
        logs.contains("WARN") && logs.contains("plaintext on a non-loopback address"),
        "{logs}"
    );
}

/// A reverse account without `access_token` is allowed on a loopback
/// listener (beyond loopback it is a configuration error) but warned about.
#[tokio::test(flavor = "current_thread")]
async fn a_reverse_account_without_a_token_on_loopback_logs_a_warning() {
    let capture = Capture::default();
    let writer = capture.clone();
    let dispatch = tracing::Dispatch::new(subscriber(
        LogFormat::Text,
        EnvFilter::new("onebot_gateway=info"),
        move || writer.clone(),
        false,
    ));
    let _capture = capture_on_this_thread(&dispatch);
    let reverse = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let mut config = Config {
        reverse_ws: Some(onebot_gateway_config::ReverseWsConfig {
            listen: reverse,
            ..Default::default()
        }),
        ..Default::default()
    };
    config.accounts.insert(
        "rev".into(),
        AccountConfig {
            reverse: true,
            self_id: Some(42),
            ..AccountConfig::default()
        },
    );
    let gw = TestGateway::start(config).await;
    gw.health()
        .check(tonic_health::pb::HealthCheckRequest::default())
        .await
        .unwrap();
    gw.stop().await.unwrap();
    let logs = capture.text();
    assert!(
        logs.contains("WARN") && logs.contains("reverse account without access_token"),
        "{logs}"
    );
}
