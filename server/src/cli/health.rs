//! `health`: the standard gRPC health check, optionally waiting.

use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use onebot_gateway_client::{Error, ServingStatus};
use serde_json::json;

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `health`.
#[derive(Args, Debug)]
pub struct HealthArgs {
    /// Service to check: empty for the gateway, a service name such as
    /// `onebot.gateway.v1.MessageService`, or `onebot.gateway.v1.account.<id>`.
    #[arg(long, default_value = "")]
    pub service: String,
    /// Keep checking until SERVING or this much time has passed (e.g. `30s`);
    /// for scripts that start a gateway.
    #[arg(long, value_parser = humantime::parse_duration)]
    pub wait: Option<Duration>,
    #[command(flatten)]
    pub conn: Connection,
}

/// Delay between checks while waiting (doubles up to 500 ms).
const FIRST_RETRY: Duration = Duration::from_millis(20);
const MAX_RETRY: Duration = Duration::from_millis(500);

/// Runs `health`: exit 0 when SERVING, 1 otherwise.
pub async fn run(args: HealthArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let status = match args.wait {
        None => client.health(&args.service).await?,
        Some(wait) => {
            let deadline = tokio::time::Instant::now() + wait;
            let mut delay = FIRST_RETRY;
            loop {
                let attempt = tokio::time::timeout_at(deadline, client.health(&args.service)).await;
                match attempt {
                    Ok(Ok(ServingStatus::Serving)) => break ServingStatus::Serving,
                    Ok(result) if tokio::time::Instant::now() + delay >= deadline => break result?,
                    Err(_) => {
                        return Err(Error::InvalidInput(format!(
                            "the gateway at {} did not become healthy within {}",
                            args.conn.addr,
                            humantime::format_duration(wait)
                        )));
                    }
                    Ok(_) => {
                        tokio::time::sleep(delay).await;
                        delay = (delay * 2).min(MAX_RETRY);
                    }
                }
            }
        }
    };
    let name = status.as_str_name();
    if args.conn.json {
        output::print_json(&json!({ "service": args.service, "status": name }));
    } else {
        outln!("{name}");
    }
    Ok(if status == ServingStatus::Serving {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
