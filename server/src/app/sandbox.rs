//! The embedded sandbox: with no account configured, a real OneBot v11 (or,
//! with `[sandbox] protocol = "milky"`, Milky) peer on loopback and a
//! `default` account pointing at it. A binary built
//! without the `sandbox` feature has none: it needs an account.

#[cfg(feature = "sandbox")]
pub use with::*;
#[cfg(not(feature = "sandbox"))]
pub use without::*;

#[cfg(feature = "sandbox")]
mod with {
    use onebot_gateway_config::{AccountConfig, Config, DEFAULT_ACCOUNT, Flavor, Protocol};
    use onebot_gateway_fetch::Fetcher;

    /// The embedded sandbox peer.
    pub type Embedded = onebot_sandbox::Sandbox;

    /// `fetcher`, trusting the media URLs the embedded sandbox serves on
    /// loopback.
    pub fn trust_media(sandbox: &Embedded, fetcher: Fetcher) -> Fetcher {
        fetcher.trust_peer_origin(onebot_sandbox::MEDIA_HOST, sandbox.addr().port())
    }

    /// Starts the built-in sandbox peer on `sandbox.listen` and adds the
    /// `default` account pointing at it, whitelisting `sandbox.groups` and
    /// `sandbox.users`.
    pub async fn start(config: &mut Config) -> anyhow::Result<Embedded> {
        let setting = &config.sandbox.flavor;
        let flavor = sandbox_flavor(setting).ok_or_else(|| {
            anyhow::anyhow!(
                "sandbox.flavor: unknown flavor {setting:?}; \
                 expected napcat, llonebot, lagrange, snowluma or go-cqhttp"
            )
        })?;
        let protocol = config.sandbox.protocol;
        let sandbox = onebot_sandbox::Sandbox::start(onebot_sandbox::SandboxConfig {
            listen: config.sandbox.listen,
            protocol: match protocol {
                Protocol::OneBotV11 => onebot_sandbox::Protocol::OneBot,
                Protocol::Milky => onebot_sandbox::Protocol::Milky,
            },
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
        match protocol {
            Protocol::OneBotV11 => tracing::info!(
                ws = %sandbox.ws_url(),
                %flavor,
                "no account configured: serving the embedded sandbox as account \"default\""
            ),
            Protocol::Milky => tracing::info!(
                milky = %sandbox.milky_url(),
                "no account configured: serving the embedded Milky sandbox as account \"default\""
            ),
        }
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
                ws_url: (protocol == Protocol::OneBotV11).then(|| sandbox.ws_url()),
                milky_url: (protocol == Protocol::Milky).then(|| sandbox.milky_url()),
                groups: config.sandbox.groups.clone(),
                users: config.sandbox.users.clone(),
                ..AccountConfig::default()
            },
        );
        Ok(sandbox)
    }

    /// The implementation `[sandbox] flavor` names, read with the same names as
    /// an account's `flavor`; `auto` and `generic` name none.
    pub(super) fn sandbox_flavor(setting: &str) -> Option<onebot_sandbox::Flavor> {
        Some(match Flavor::from_name(setting)? {
            Flavor::NapCat => onebot_sandbox::Flavor::NapCat,
            Flavor::LlOneBot => onebot_sandbox::Flavor::LlOneBot,
            Flavor::Lagrange => onebot_sandbox::Flavor::Lagrange,
            Flavor::SnowLuma => onebot_sandbox::Flavor::SnowLuma,
            Flavor::GoCqhttp => onebot_sandbox::Flavor::GoCqhttp,
            Flavor::Generic => return None,
        })
    }
}

#[cfg(not(feature = "sandbox"))]
mod without {
    use onebot_gateway_config::Config;
    use onebot_gateway_fetch::Fetcher;

    /// No embedded sandbox in this build: no value exists.
    pub enum Embedded {}

    impl Embedded {
        /// Never called: there is no value.
        pub async fn shutdown(self) {
            match self {}
        }
    }

    /// Never called: there is no embedded sandbox.
    pub fn trust_media(sandbox: &Embedded, _fetcher: Fetcher) -> Fetcher {
        match *sandbox {}
    }

    /// Refuses to start without an account: this build has no embedded sandbox.
    pub async fn start(_config: &mut Config) -> anyhow::Result<Embedded> {
        anyhow::bail!(
            "no account is configured (add an [accounts.<id>] section with ws_url or http_url), \
         and this binary was built without the embedded sandbox (cargo feature `sandbox`)"
        )
    }
}

#[cfg(all(test, feature = "sandbox"))]
mod tests {
    use super::with::sandbox_flavor;

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
