//! The embedded sandbox: with no account configured, a real OneBot v11 peer
//! on loopback and a `default` account pointing at it.

use onebot_gateway_config::{AccountConfig, Config, DEFAULT_ACCOUNT};

/// Starts the built-in sandbox peer on `sandbox.listen` and adds the
/// `default` account pointing at it, whitelisting `sandbox.groups` and
/// `sandbox.users`.
pub async fn start(config: &mut Config) -> anyhow::Result<onebot_sandbox::Sandbox> {
    let flavor: onebot_sandbox::Flavor = config
        .sandbox
        .flavor
        .parse()
        .map_err(|e| anyhow::anyhow!("sandbox.flavor: {e}"))?;
    let sandbox = onebot_sandbox::Sandbox::start(onebot_sandbox::SandboxConfig {
        listen: config.sandbox.listen,
        ..onebot_sandbox::SandboxConfig::for_flavor(flavor)
    })
    .await
    .map_err(|e| {
        let listen = config.sandbox.listen;
        let taken = if e.kind() == std::io::ErrorKind::AddrInUse {
            " (another gateway's sandbox or OneBot implementation uses the port; set \
             `[sandbox] listen` to a free address, or \"127.0.0.1:0\" for any)"
        } else {
            ""
        };
        anyhow::anyhow!(
            "starting the embedded sandbox on {listen} (`[sandbox] listen`): {e}{taken}"
        )
    })?;
    tracing::info!(
        ws = %sandbox.ws_url(),
        %flavor,
        "no account configured: serving the embedded sandbox as account \"default\""
    );
    let to = if sandbox.addr() == onebot_gateway_config::SandboxConfig::DEFAULT_LISTEN {
        String::new()
    } else {
        format!("--to {} ", sandbox.http_url())
    };
    tracing::info!(
        http = %sandbox.http_url(),
        "sandbox users speak with `onebot-gateway sandbox inject {to}--group {} --user 10001 \"hello\"`",
        config.sandbox.groups.first().copied().unwrap_or(20_000_003),
    );
    config.accounts.insert(
        DEFAULT_ACCOUNT.to_string(),
        AccountConfig {
            ws_url: Some(sandbox.ws_url()),
            groups: config.sandbox.groups.clone(),
            users: config.sandbox.users.clone(),
            ..AccountConfig::default()
        },
    );
    Ok(sandbox)
}
