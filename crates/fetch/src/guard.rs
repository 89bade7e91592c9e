//! The SSRF guard's parts: which addresses are refused ([`UrlGuard`]), how
//! names are looked up ([`Lookup`]), and how many redirects are followed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

use onebot_gateway_config::MediaConfig;

/// Most redirects followed for one URL.
pub const MAX_REDIRECTS: usize = 5;

/// Resolves host names (the system resolver; tests plug in their own).
#[async_trait::async_trait]
pub trait Lookup: Send + Sync + 'static {
    /// The addresses of `host`.
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>>;
}

/// The system resolver (`getaddrinfo` through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemLookup;

#[async_trait::async_trait]
impl Lookup for SystemLookup {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        Ok(tokio::net::lookup_host((host, 0))
            .await?
            .map(|a| a.ip())
            .collect())
    }
}

/// Which addresses a fetch may reach.
#[derive(Debug, Clone, Default)]
pub struct UrlGuard {
    allow_private: bool,
    allow_networks: Vec<IpNet>,
}

impl UrlGuard {
    /// The guard of a media configuration (networks were validated with it).
    pub fn new(config: &MediaConfig) -> Self {
        Self {
            allow_private: config.allow_private_urls,
            allow_networks: config
                .url_allow_networks
                .iter()
                .filter_map(|n| n.parse().ok())
                .collect(),
        }
    }

    /// Why `ip` is refused, or `None` when it may be reached.
    pub fn refusal(&self, ip: IpAddr) -> Option<&'static str> {
        if self.allow_networks.iter().any(|n| n.contains(&ip)) {
            return None;
        }
        let category = classify(ip)?;
        if self.allow_private && category != "metadata" {
            return None;
        }
        Some(category)
    }
}

/// The refused category of an address, `None` for a global one.
pub(super) fn classify(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return classify_v4(v4);
            }
            let seg = v6.segments();
            // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) embed an IPv4 address.
            if seg[0] == 0x64 && seg[1] == 0xff9b && seg[2..6] == [0, 0, 0, 0] {
                let [a, b] = seg[6].to_be_bytes();
                let [c, d] = seg[7].to_be_bytes();
                return classify_v4(Ipv4Addr::new(a, b, c, d));
            }
            if seg[0] == 0x2002 {
                let [a, b] = seg[1].to_be_bytes();
                let [c, d] = seg[2].to_be_bytes();
                if let Some(c) = classify_v4(Ipv4Addr::new(a, b, c, d)) {
                    return Some(c);
                }
            }
            if v6 == Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254) {
                return Some("metadata");
            }
            if v6.is_loopback() {
                Some("loopback")
            } else if v6.is_unspecified() {
                Some("unspecified")
            } else if (seg[0] & 0xfe00) == 0xfc00 {
                Some("private")
            } else if (seg[0] & 0xffc0) == 0xfe80 || (seg[0] & 0xffc0) == 0xfec0 {
                Some("link-local")
            } else if v6.is_multicast() {
                Some("multicast")
            } else if seg[0] == 0x2001 && seg[1] == 0x0db8 {
                Some("reserved")
            } else if seg[0] == 0 && seg[1..6] == [0, 0, 0, 0, 0] {
                // IPv4-compatible (deprecated) and other ::/96 forms.
                Some("reserved")
            } else {
                None
            }
        }
    }
}

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if matches!(
        ip.octets(),
        [169, 254, 169, 254] | [169, 254, 170, 2] | [100, 100, 100, 200] | [168, 63, 129, 16]
    ) {
        return Some("metadata");
    }
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if a == 0 {
        Some("unspecified")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared")
    } else if ip.is_multicast()
        || a >= 240
        || (a == 192 && b == 0 && (c == 0 || c == 2))
        || (a == 198 && (b == 18 || b == 19))
        || (a == 198 && b == 51 && c == 100)
        || (a == 203 && b == 0 && c == 113)
    {
        Some("reserved")
    } else {
        None
    }
}
