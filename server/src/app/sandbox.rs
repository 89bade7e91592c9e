//! The embedded sandbox: with no account configured, a real OneBot v11 peer
//! on loopback and a `default` account pointing at it.

use onebot_gateway_config::{AccountConfig, Config, DEFAULT_ACCOUNT, Flavor};

/// Starts the built-in sandbox peer on `sandbox.listen` and adds the
/// `default` account pointing at it, whitelisting `sandbox.groups` and
/// `sandbox.users`.
pub async fn start(config: &mut Config) -> anyhow::Result<onebot_sandbox::Sandbox> {
    let flavor = sandbox_flavor(&config.sandbox.flavor).ok_or_else(|| {
        anyhow::anyhow!(
            "sandbox.flavor: unknown flavor {:?}; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
            config.sandbox.flavor
        )
    })?;
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

/// The implementation `[sandbox] flavor` names, read with the same names as
/// an account's `flavor`; `auto` and `generic` name none.
fn sandbox_flavor(setting: &str) -> Option<onebot_sandbox::Flavor> {
    Some(match Flavor::from_name(setting)? {
        Flavor::NapCat => onebot_sandbox::Flavor::NapCat,
        Flavor::LlOneBot => onebot_sandbox::Flavor::LlOneBot,
        Flavor::Lagrange => onebot_sandbox::Flavor::Lagrange,
        Flavor::SnowLuma => onebot_sandbox::Flavor::SnowLuma,
        Flavor::GoCqhttp => onebot_sandbox::Flavor::GoCqhttp,
        Flavor::Generic => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::sandbox_flavor;

    #[test]
    fn the_config_and_the_sandbox_read_a_flavor_alike() {
        for (name, display) in [
            ("napcat", "napcat"),
            ("LLBot", "llonebot"),
            ("lagrange.onebot", "lagrange"),
            (" snowluma ", "snowluma"),
            ("gocqhttp", "go-cqhttp"),
        ] {
            let flavor = sandbox_flavor(name).unwrap();
            assert_eq!(flavor.to_string(), display, "{name}");
            assert_eq!(display.parse::<onebot_sandbox::Flavor>().unwrap(), flavor);
        }
        for name in ["auto", "", "generic", "kritor"] {
            assert_eq!(sandbox_flavor(name), None, "{name:?}");
        }
    }
}
