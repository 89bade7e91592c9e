//! How a client subcommand reaches the gateway.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use onebot_gateway_client::{Client, DEFAULT_ADDRESS, Error, RpcError};

/// How to reach the gateway; shared by every client subcommand.
#[derive(Args, Debug, Clone)]
pub struct Connection {
    /// Gateway address: http://host:port (plaintext) or https://host:port (TLS).
    #[arg(long, env = "ONEBOT_GATEWAY_ADDR", default_value = DEFAULT_ADDRESS)]
    pub addr: String,
    /// Bearer token sent as `authorization: Bearer <token>`.
    #[arg(long, env = "ONEBOT_GATEWAY_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// PEM file of the CA that signed the gateway's certificate (https only;
    /// default: the system's roots).
    #[arg(long)]
    pub ca_file: Option<PathBuf>,
    /// Account to act as (default: the gateway's `default`); sent as the
    /// `x-onebot-account` metadata of every call, so a proxy in front of
    /// several gateways routes it to the one holding the account.
    #[arg(long, env = "ONEBOT_GATEWAY_ACCOUNT")]
    pub account: Option<String>,
    /// Deadline of each call, e.g. `10s` (none by default).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub timeout: Option<Duration>,
    /// How long a call refused by a standby gateway (`NOT_LEADER`, under
    /// `[ha]`) is retried, with backoff, before its refusal is shown; `0s`
    /// shows it at once.
    #[arg(long, value_parser = humantime::parse_duration, default_value = "30s")]
    pub not_leader_retry: Duration,
    /// Print JSON instead of rendered text.
    #[arg(long)]
    pub json: bool,
}

impl Connection {
    /// A client that connects on first use.
    pub fn client(&self) -> Result<Client, Error> {
        let mut builder = Client::builder(self.addr.clone())
            .maybe_token(self.token.clone())
            .account_id(self.account.clone().unwrap_or_default())
            .not_leader_retry(self.not_leader_retry);
        if let Some(ca) = &self.ca_file {
            builder = builder.ca_file(ca.clone());
        }
        if let Some(timeout) = self.timeout {
            builder = builder.timeout(timeout);
        }
        builder.connect_lazy()
    }
}

/// `err` with a message that says what to do when the gateway at `addr`
/// could not be reached (name the address, suggest starting it) or wants a
/// token; any other error unchanged.
pub fn explain(err: Error, addr: &str) -> Error {
    if err.is_unreachable() {
        let cause = match &err {
            Error::Rpc(rpc) => rpc
                .message
                .rsplit_once(": ")
                .map_or(rpc.message.as_str(), |(_, cause)| cause)
                .to_owned(),
            other => other.to_string(),
        };
        let message = format!(
            "cannot reach the gateway at {addr}: {cause}. Is it running? Start it with \
             `onebot-gateway serve` (or pass --addr / set ONEBOT_GATEWAY_ADDR)."
        );
        return Error::Rpc(Box::new(RpcError {
            message,
            ..unreachable_status(&err)
        }));
    }
    match err {
        Error::Rpc(mut rpc) if rpc.code == tonic::Code::Unauthenticated => {
            rpc.message = format!(
                "{} (the gateway at {addr}). Pass its token with `--token <TOKEN>` or set \
                 ONEBOT_GATEWAY_TOKEN.",
                rpc.message
            );
            Error::Rpc(rpc)
        }
        other => other,
    }
}

/// The RPC error of an unreachable gateway (a connect failure becomes
/// UNAVAILABLE, as tonic reports it on a lazy channel).
fn unreachable_status(err: &Error) -> RpcError {
    match err {
        Error::Rpc(rpc) => (**rpc).clone(),
        _ => RpcError::from_status(&tonic::Status::unavailable("")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreachable_names_the_address_and_serve() {
        let err = Error::from(tonic::Status::unavailable(
            "tcp connect error: connection refused",
        ));
        let text = explain(err, "http://127.0.0.1:1").to_string();
        assert!(
            text.contains("cannot reach the gateway at http://127.0.0.1:1: connection refused."),
            "{text}"
        );
        assert!(text.contains("`onebot-gateway serve`"), "{text}");
    }

    #[test]
    fn unauthenticated_suggests_the_token() {
        let err = Error::from(tonic::Status::unauthenticated("a bearer token is required"));
        let text = explain(err, "http://h:1").to_string();
        assert!(text.contains("--token"), "{text}");
        assert!(text.contains("ONEBOT_GATEWAY_TOKEN"), "{text}");
    }

    #[test]
    fn other_errors_are_unchanged() {
        let err = Error::from(tonic::Status::not_found("no such message"));
        assert_eq!(
            explain(err, "http://h:1").to_string(),
            "NotFound: no such message"
        );
    }
}
