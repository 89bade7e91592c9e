//! The `onebot-gateway` binary: a thin clap front over the library.

mod cli;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use onebot_gateway::telemetry::{self, LogFormat};
use onebot_gateway_config::{Config, Overrides};

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
    /// The sandbox peer: run it alone (OneBot v11: forward WebSocket on `/`
    /// and HTTP `POST /<action>` on one port; or Milky with `--protocol
    /// milky`), or `sandbox inject` a message.
    #[cfg(feature = "sandbox")]
    Sandbox(Box<cli::sandbox::SandboxArgs>),
    /// The message archive on this machine (no gateway needed).
    #[command(subcommand)]
    Archive(cli::archive::ArchiveCommand),
    /// Client subcommands: talk gRPC to a running gateway.
    #[command(flatten)]
    Client(cli::ClientCommand),
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
        #[cfg(feature = "sandbox")]
        Command::Sandbox(args) => cli::sandbox::run(*args, cli.log_format, runtime),
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
