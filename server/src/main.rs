//! The `onebot-gateway` binary: a thin clap front over the library.

mod cli;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use onebot_gateway::telemetry::{self, LogFormat};
use onebot_gateway_config::{Config, Overrides, TelemetryConfig};

/// Decoding the peer's JSON is a storm of small allocations; mimalloc serves
/// them at about half the CPU of the system allocator (`bench/RESULTS.md`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// gRPC gateway for OneBot v11 QQ bots.
#[derive(Parser, Debug)]
#[command(name = "onebot-gateway", version, about)]
struct Cli {
    /// Log format.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text, env = "ONEBOT_GATEWAY_LOG_FORMAT")]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the gateway (with no account configured: on the built-in sandbox).
    Serve {
        /// TOML configuration file.
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// gRPC listen address (overrides `server.listen`).
        #[arg(long)]
        listen: Option<SocketAddr>,
        /// Data directory (overrides `server.data_dir`).
        #[arg(long)]
        data_dir: Option<PathBuf>,
        /// Print the effective configuration (secrets redacted) and exit.
        #[arg(long)]
        print_config: bool,
    },
    /// The OneBot v11 sandbox peer: run it alone (forward WebSocket on `/`
    /// and HTTP `POST /<action>` on one port), or `sandbox inject` a message.
    Sandbox(Box<SandboxArgs>),
    /// The message archive on this machine (no gateway needed).
    #[command(subcommand)]
    Archive(cli::archive::ArchiveCommand),
    /// Client subcommands: talk gRPC to a running gateway.
    #[command(flatten)]
    Client(cli::ClientCommand),
}

/// `sandbox`: run a sandbox peer (the flags), or a subcommand.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
struct SandboxArgs {
    #[command(subcommand)]
    command: Option<SandboxCommand>,
    #[command(flatten)]
    run: SandboxRun,
}

#[derive(Subcommand, Debug)]
enum SandboxCommand {
    /// Make a sandbox user say something (text and images) in a group, or
    /// privately to the bot without --group; prints the new message id.
    /// Talks to the embedded sandbox of `serve` (127.0.0.1:6700 by
    /// default) or to `onebot-gateway sandbox` (--to).
    Inject(cli::sandbox::InjectArgs),
}

/// The flags of a sandbox run.
#[derive(clap::Args, Debug)]
struct SandboxRun {
    /// Listen address (port 0 picks a free port; the log says which).
    #[arg(long, default_value = "127.0.0.1:3001")]
    listen: SocketAddr,
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

fn main() -> anyhow::Result<std::process::ExitCode> {
    let cli = Cli::parse();
    let runtime = |threads| onebot_gateway::app::runtime(threads).context("starting the runtime");
    match cli.command {
        Command::Serve {
            config,
            listen,
            data_dir,
            print_config,
        } => {
            let overrides = Overrides { listen, data_dir };
            let config = Config::load(config.as_deref(), std::env::vars(), &overrides)?;
            if print_config {
                print!("{}", config.to_redacted_toml());
                return Ok(std::process::ExitCode::SUCCESS);
            }
            runtime(config.server.worker_threads)?.block_on(serve(cli.log_format, config))
        }
        Command::Client(command) => Ok(runtime(0)?.block_on(cli::run(command))),
        Command::Archive(command) => Ok(runtime(0)?.block_on(cli::archive::run(command))),
        Command::Sandbox(args) => match args.command {
            Some(SandboxCommand::Inject(inject)) => {
                Ok(runtime(0)?.block_on(cli::sandbox::run(inject)))
            }
            None => {
                let SandboxRun {
                    listen,
                    flavor,
                    token,
                    heartbeat_ms,
                    report_as,
                    id_form,
                    lenient,
                } = args.run;
                let cfg = onebot_sandbox::SandboxConfig {
                    listen,
                    access_token: token,
                    heartbeat_interval: (heartbeat_ms > 0)
                        .then(|| std::time::Duration::from_millis(heartbeat_ms)),
                    behaviour: onebot_sandbox::Behaviour {
                        name: report_as,
                        id_form,
                        lenient,
                        ..onebot_sandbox::Behaviour::default()
                    },
                    ..onebot_sandbox::SandboxConfig::for_flavor(flavor)
                };
                runtime(0)?.block_on(sandbox(cli.log_format, cfg))
            }
        },
    }
}

/// `serve`: the gateway until SIGINT or SIGTERM, on the runtime
/// `server.worker_threads` names.
async fn serve(log_format: LogFormat, config: Config) -> anyhow::Result<std::process::ExitCode> {
    let _telemetry = telemetry::init(log_format, &config.telemetry)?;
    let listener = tokio::net::TcpListener::bind(config.server.listen)
        .await
        .with_context(|| format!("binding {}", config.server.listen))?;
    onebot_gateway::app::run(config, listener, onebot_gateway::shutdown::signal()).await?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// `sandbox`: the peer alone until SIGINT or SIGTERM.
async fn sandbox(
    log_format: LogFormat,
    cfg: onebot_sandbox::SandboxConfig,
) -> anyhow::Result<std::process::ExitCode> {
    let _telemetry = telemetry::init(log_format, &TelemetryConfig::default())?;
    onebot_sandbox::run_cli(cfg, onebot_gateway::shutdown::signal())
        .await
        .context("sandbox")?;
    Ok(std::process::ExitCode::SUCCESS)
}
