//! The embedded sandbox: with no account configured, a real OneBot v11 peer
//! on loopback and a `default` account pointing at it.

use anyhow::Context;

use crate::config::{AccountConfig, Config, DEFAULT_ACCOUNT};

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
    .with_context(|| format!("starting the embedded sandbox on {}", config.sandbox.listen))?;
    tracing::info!(
        ws = %sandbox.ws_url(),
        %flavor,
        "no account configured: serving the embedded sandbox as account \"default\""
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
