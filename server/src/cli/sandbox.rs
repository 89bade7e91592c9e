//! `sandbox`: the sandbox peer alone, and `sandbox inject`, which makes a
//! sandbox user say something, through the
//! sandbox's own HTTP action `sandbox_inject_message` (the embedded sandbox
//! of `serve`, or `onebot-gateway sandbox`). Images are sent inline as
//! `base64://` image segments; the sandbox keeps their bytes, so the
//! gateway downloads them as it does any received picture.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::output::{outln, print_json};
use onebot_gateway::telemetry::{self, LogFormat};
use onebot_gateway_config::TelemetryConfig;

/// The embedded sandbox's default address
/// (`SandboxConfig::DEFAULT_LISTEN`, `[sandbox] listen`).
pub const DEFAULT_SANDBOX: &str = "http://127.0.0.1:6700";

/// How long the sandbox may take to answer.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Arguments of `sandbox inject`.
#[derive(Args, Debug)]
pub struct InjectArgs {
    /// What the user says (may be empty when an image is given).
    #[arg(default_value = "")]
    pub text: String,
    /// The sandbox: http://host:port (or host:port). The default is where
    /// `onebot-gateway serve` starts its embedded sandbox.
    #[arg(long, env = "ONEBOT_SANDBOX_URL", default_value = DEFAULT_SANDBOX)]
    pub to: String,
    /// The group the message is said in; without it, a private message
    /// from --user to the bot.
    #[arg(long, short)]
    pub group: Option<i64>,
    /// The QQ number of the user who says it.
    #[arg(long, short, default_value_t = 10_001)]
    pub user: i64,
    /// A QQ number the message @s (the bot's own number: a mention of
    /// the bot); repeatable. The mentions lead the message.
    #[arg(long = "at", value_name = "QQ")]
    pub at: Vec<i64>,
    /// An image file the user sends with the text; repeatable.
    #[arg(long = "image", value_name = "PATH")]
    pub images: Vec<PathBuf>,
    /// The sandbox's access token (a sandbox started with --token).
    #[arg(long, env = "ONEBOT_SANDBOX_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Print the sandbox's answer as JSON instead of the message id.
    #[arg(long)]
    pub json: bool,
}

/// Why an injection failed; the text names the address tried.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InjectError(String);

/// The segments of the message: the mentions, the text, then each image
/// inline.
fn segments(args: &InjectArgs) -> Result<Vec<Value>, InjectError> {
    let mut segments: Vec<Value> = args
        .at
        .iter()
        .map(|qq| json!({"type": "at", "data": {"qq": qq.to_string()}}))
        .collect();
    if !args.text.is_empty() {
        let text = if segments.is_empty() {
            args.text.clone()
        } else {
            format!(" {}", args.text)
        };
        segments.push(json!({"type": "text", "data": {"text": text}}));
    }
    for path in &args.images {
        let bytes = std::fs::read(path)
            .map_err(|e| InjectError(format!("reading the image {}: {e}", path.display())))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        segments.push(json!({
            "type": "image",
            "data": {"file": format!("base64://{}", STANDARD.encode(bytes)), "name": name},
        }));
    }
    if segments.is_empty() {
        return Err(InjectError(
            "nothing to say: give a TEXT, an --image or an --at".into(),
        ));
    }
    Ok(segments)
}

/// `http://host:port` for `--to` (a bare `host:port` is plain HTTP).
fn base_url(to: &str) -> String {
    let to = to.trim().trim_end_matches('/');
    if to.contains("://") {
        to.to_owned()
    } else {
        format!("http://{to}")
    }
}

/// The innermost cause of a failed request (connection refused).
fn cause(err: &reqwest::Error) -> String {
    let mut source: &(dyn std::error::Error + 'static) = err;
    loop {
        if let Some(io) = source.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::ConnectionRefused {
                return "connection refused".into();
            }
            let text = io.to_string();
            return match text.rsplit_once(" (os error ") {
                Some((head, _)) => head.to_lowercase(),
                None => text,
            };
        }
        match source.source() {
            Some(next) => source = next,
            None => return source.to_string(),
        }
    }
}

/// Sends the message to the sandbox; its `data` (`{"message_id": …}`).
async fn inject(args: &InjectArgs) -> Result<Value, InjectError> {
    let segments = segments(args)?;
    let mut params = json!({"user_id": args.user, "message": segments});
    if let Some(group) = args.group {
        params["group_id"] = json!(group);
    }
    call(
        &args.to,
        args.token.as_deref(),
        "sandbox_inject_message",
        &params,
    )
    .await
}

/// Posts `params` to the sandbox's action `action`; its answer's `data`.
async fn call(
    to: &str,
    token: Option<&str>,
    action: &str,
    params: &Value,
) -> Result<Value, InjectError> {
    let base = base_url(to);
    let url = format!("{base}/{action}");
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| InjectError(format!("building the HTTP client: {e}")))?;
    let mut request = client.post(&url).json(params);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.map_err(|e| {
        InjectError(format!(
            "cannot reach the sandbox at {base}: {}. Is it running? `onebot-gateway serve` \
             without accounts starts one on {DEFAULT_SANDBOX} (`[sandbox] listen`), \
             `onebot-gateway sandbox` one of its own; pass its address with --to.",
            cause(&e)
        ))
    })?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|e| InjectError(format!("reading the answer of the sandbox at {base}: {e}")))?;
    if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
        return Err(InjectError(format!(
            "the sandbox at {base} refused the access token (HTTP {status}); pass the one it \
             was started with as --token or ONEBOT_SANDBOX_TOKEN"
        )));
    }
    let answer: Value = serde_json::from_str(&body).map_err(|_| {
        InjectError(format!(
            "the server at {base} is not a OneBot sandbox (HTTP {status}: {})",
            body.chars().take(200).collect::<String>()
        ))
    })?;
    if answer["status"] != "ok" {
        let message = ["message", "msg", "wording"]
            .iter()
            .find_map(|k| answer[*k].as_str().filter(|s| !s.is_empty()))
            .unwrap_or("no message");
        return Err(InjectError(format!(
            "the sandbox at {base} refused {action}: {message} (retcode {})",
            answer["retcode"]
        )));
    }
    Ok(answer["data"].clone())
}

/// Runs `sandbox inject`: prints the new message's id (a Milky sandbox:
/// `seq <message_seq>`, how Milky names it; the gateway's id of it is in
/// `history`).
async fn run_inject(args: InjectArgs) -> ExitCode {
    match inject(&args).await {
        Ok(data) => {
            if args.json {
                print_json(&data);
            } else if let Some(seq) = data.get("message_seq").and_then(Value::as_i64) {
                outln!("seq {seq}");
            } else {
                outln!("{}", data["message_id"]);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            if args.json {
                eprintln!("{}", json!({"error": {"message": e.to_string()}}));
            } else {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

/// What a sandbox user (or admin, or owner) does with `sandbox act`.
#[derive(clap::ValueEnum, Debug, Clone, Copy)]
pub enum UserAction {
    /// `user_id` reacts to `message_id` with `emoji_id` (`is_add=false`
    /// removes it).
    React,
    /// `operator_id` (an admin) marks `message_id` as essence (`is_set=false`
    /// unmarks).
    SetEssence,
    /// `operator_id` mutes `user_id` in `group_id` for `duration` seconds.
    Mute,
    /// `operator_id` turns the whole-group mute of `group_id` on
    /// (`is_mute=false`: off).
    WholeMute,
    /// The owner makes `user_id` an admin of `group_id` (`is_set=false`:
    /// a member again).
    SetAdmin,
    /// `user_id` uploads `file` (a local path) as `name` to `group_id`'s files.
    UploadGroupFile,
    /// `operator_id` renames `group_id` to `name`.
    RenameGroup,
}

impl UserAction {
    fn action(self) -> &'static str {
        match self {
            UserAction::React => "sandbox_react",
            UserAction::SetEssence => "sandbox_set_essence",
            UserAction::Mute => "sandbox_mute",
            UserAction::WholeMute => "sandbox_whole_mute",
            UserAction::SetAdmin => "sandbox_set_admin",
            UserAction::UploadGroupFile => "sandbox_upload_group_file",
            UserAction::RenameGroup => "sandbox_rename_group",
        }
    }
}

/// Parameters that are text even when they look like numbers.
const TEXT_KEYS: &[&str] = &["emoji_id", "name", "file", "folder_id"];

/// Arguments of `sandbox act`.
#[derive(Args, Debug)]
pub struct ActArgs {
    /// What the user does.
    #[arg(value_enum)]
    pub what: UserAction,
    /// The action's parameters as KEY=VALUE (numbers and true/false are
    /// sent as such; `emoji_id`, `name`, `file`, `folder_id` as text).
    #[arg(value_name = "KEY=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, String)>,
    /// The sandbox (as for `sandbox inject`).
    #[arg(long, env = "ONEBOT_SANDBOX_URL", default_value = DEFAULT_SANDBOX)]
    pub to: String,
    /// The sandbox's access token.
    #[arg(long, env = "ONEBOT_SANDBOX_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

fn parse_param(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not KEY=VALUE"))?;
    if k.trim().is_empty() {
        return Err(format!("{s:?} has no key"));
    }
    Ok((k.trim().to_owned(), v.to_owned()))
}

/// The JSON body of `params`.
fn act_params(params: &[(String, String)]) -> Value {
    let mut body = serde_json::Map::new();
    for (k, v) in params {
        let value = if TEXT_KEYS.contains(&k.as_str()) {
            Value::String(v.clone())
        } else {
            match serde_json::from_str::<Value>(v) {
                Ok(n @ (Value::Number(_) | Value::Bool(_))) => n,
                _ => Value::String(v.clone()),
            }
        };
        body.insert(k.clone(), value);
    }
    Value::Object(body)
}

/// Runs `sandbox act`: prints the sandbox's answer.
async fn run_act(args: ActArgs) -> ExitCode {
    let params = act_params(&args.params);
    match call(&args.to, args.token.as_deref(), args.what.action(), &params).await {
        Ok(data) => {
            print_json(&data);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn act_params_keep_text_keys_as_text() {
        let p = act_params(&[
            ("user_id".into(), "10003".into()),
            ("emoji_id".into(), "76".into()),
            ("is_add".into(), "false".into()),
            ("name".into(), "新群名".into()),
        ]);
        assert_eq!(
            p,
            json!({"user_id": 10003, "emoji_id": "76", "is_add": false, "name": "新群名"})
        );
        assert!(parse_param("novalue").is_err());
    }

    #[test]
    fn the_default_is_the_embedded_sandbox() {
        let listen = onebot_gateway_config::SandboxConfig::DEFAULT_LISTEN;
        assert_eq!(DEFAULT_SANDBOX, format!("http://{listen}"));
    }

    #[test]
    fn bare_addresses_are_http() {
        assert_eq!(base_url("127.0.0.1:6700"), "http://127.0.0.1:6700");
        assert_eq!(base_url("http://127.0.0.1:6700/"), "http://127.0.0.1:6700");
    }
}

/// `sandbox`: run a sandbox peer (the flags), or a subcommand.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SandboxArgs {
    #[command(subcommand)]
    command: Option<SandboxCommand>,
    #[command(flatten)]
    run: SandboxRun,
}

#[derive(Subcommand, Debug)]
enum SandboxCommand {
    /// Make a sandbox user say something (text and images) in a group, or
    /// privately to the bot without --group; prints the new message id
    /// (`seq <n>` from a Milky sandbox).
    /// Talks to the embedded sandbox of `serve` (127.0.0.1:6700 by
    /// default) or to `onebot-gateway sandbox` (--to).
    Inject(InjectArgs),
    /// Make a sandbox user, admin or owner do something the bot sees as an
    /// event: react to a message, mark essence, mute, set an admin, upload
    /// a group file, rename the group. Prints the sandbox's answer.
    Act(ActArgs),
}

/// The flags of a sandbox run.
#[derive(clap::Args, Debug)]
struct SandboxRun {
    /// Listen address (port 0 picks a free port; the log says which).
    #[arg(long, default_value = "127.0.0.1:3001")]
    listen: SocketAddr,
    /// The protocol to speak: onebot (OneBot v11: forward WebSocket and
    /// HTTP, imitating --flavor) or milky (Milky 1.2: API at /api/:api,
    /// events over WebSocket or SSE at /event).
    #[arg(long, default_value = "onebot")]
    protocol: onebot_sandbox::Protocol,
    /// Implementation to imitate: napcat, llonebot, lagrange, snowluma, go-cqhttp.
    #[arg(long, default_value = "napcat")]
    flavor: onebot_sandbox::Flavor,
    /// Access token clients must present (none by default).
    #[arg(long, env = "ONEBOT_SANDBOX_TOKEN")]
    token: Option<String>,
    /// Heartbeat interval in milliseconds (0 disables heartbeats).
    #[arg(long, default_value_t = 30_000)]
    heartbeat_ms: u64,
    /// Report this implementation's `app_name` while behaving like
    /// `--flavor` (a fork or mock that is not what it says).
    #[arg(long)]
    report_as: Option<onebot_sandbox::Flavor>,
    /// How message ids are written: number, numeric-string, text,
    /// wide (beyond int64).
    #[arg(long, default_value = "number")]
    id_form: onebot_sandbox::IdForm,
    /// Answer unknown actions and unknown messages with `status: ok`
    /// and `{}`, as some mocks do.
    #[arg(long)]
    lenient: bool,
}

/// Runs `sandbox` (the peer alone until SIGINT or SIGTERM) or `sandbox
/// inject`, on a runtime `runtime` starts.
pub fn run(
    args: SandboxArgs,
    log_format: LogFormat,
    runtime: impl Fn(usize) -> anyhow::Result<tokio::runtime::Runtime>,
) -> anyhow::Result<ExitCode> {
    let SandboxRun {
        listen,
        protocol,
        flavor,
        token,
        heartbeat_ms,
        report_as,
        id_form,
        lenient,
    } = match args.command {
        Some(SandboxCommand::Inject(inject)) => return Ok(runtime(0)?.block_on(run_inject(inject))),
        Some(SandboxCommand::Act(act)) => return Ok(runtime(0)?.block_on(run_act(act))),
        None => args.run,
    };
    let cfg = onebot_sandbox::SandboxConfig {
        listen,
        protocol,
        access_token: token,
        heartbeat_interval: (heartbeat_ms > 0).then(|| Duration::from_millis(heartbeat_ms)),
        behaviour: onebot_sandbox::Behaviour {
            name: report_as,
            id_form,
            lenient,
            ..onebot_sandbox::Behaviour::default()
        },
        ..onebot_sandbox::SandboxConfig::for_flavor(flavor)
    };
    runtime(0)?.block_on(async {
        let _telemetry = telemetry::init(log_format, &TelemetryConfig::default())?;
        onebot_sandbox::run_cli(cfg, onebot_gateway::shutdown::signal())
            .await
            .context("sandbox")?;
        Ok(ExitCode::SUCCESS)
    })
}
