//! How a client subcommand reaches the gateway.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use onebot_gateway_client::{Client, DEFAULT_ADDRESS, Error};

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
    /// Print JSON instead of rendered text.
    #[arg(long)]
    pub json: bool,
}

impl Connection {
    /// A client that connects on first use.
    pub fn client(&self) -> Result<Client, Error> {
        let mut builder = Client::builder(self.addr.clone())
            .maybe_token(self.token.clone())
            .account_id(self.account.clone().unwrap_or_default());
        if let Some(ca) = &self.ca_file {
            builder = builder.ca_file(ca.clone());
        }
        if let Some(timeout) = self.timeout {
            builder = builder.timeout(timeout);
        }
        builder.connect_lazy()
    }
}
