//! `[media]`: media staging, size limits and sources.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::check::ConfigError;
use super::check::Key;

/// NapCat's WebSocket server refuses frames over 50 MB (`maxPayload`); base64
/// inflates by 4/3 and the JSON envelope needs a little room, so this is the
/// largest raw media size any flavor can carry inline.
pub const MAX_INLINE_MEDIA_BYTES: u64 = 37 * 1024 * 1024;

/// Media staging, limits and sources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct MediaConfig {
    /// Largest image, in bytes (default 10 MiB).
    pub image_max_bytes: u64,
    /// Largest video, in bytes (default 30 MiB).
    pub video_max_bytes: u64,
    /// Largest group file, in bytes (default 30 MiB).
    pub file_max_bytes: u64,
    /// Largest voice message, in bytes (default 10 MiB).
    pub voice_max_bytes: u64,
    /// How long staged uploads live, in seconds (default 30 minutes).
    pub ttl_secs: u64,
    /// Total bytes the staging area may hold (default 1 GiB).
    pub staging_quota_bytes: u64,
    /// Directories under which `MediaSource.path` may read; empty disables
    /// server-side paths.
    pub media_roots: Vec<PathBuf>,
    /// Let `MediaSource.url` reach loopback, private and link-local addresses
    /// (cloud metadata endpoints stay refused).
    pub allow_private_urls: bool,
    /// Networks (CIDR, e.g. `10.1.2.0/24`) `MediaSource.url` may reach even
    /// though they are private, link-local or metadata addresses.
    pub url_allow_networks: Vec<String>,
    /// Timeout of one URL fetch, in milliseconds.
    pub url_timeout_ms: u64,
    /// Hosts the URLs of received media may name (a name, or a suffix
    /// matching it and its subdomains): QQ's media CDNs by default, plus
    /// `localhost` (the sandbox's media host). The address guard of
    /// `MediaSource.url` applies too: a peer on a private or loopback
    /// address also needs `allow_private_urls` (or `url_allow_networks`).
    pub peer_url_hosts: Vec<String>,
    /// Capture of received media on receipt (`[media.capture]`).
    pub capture: CaptureConfig,
}

/// The media kinds capture can take.
pub const CAPTURE_KINDS: [&str; 4] = ["image", "record", "video", "file"];

/// `[media.capture]`: received media fetched in the background as each
/// message arrives, so they outlive the peer's expiring URLs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureConfig {
    /// Capture received media at all (default true).
    pub enabled: bool,
    /// Kinds captured on receipt: `image`, `record`, `video`, `file`
    /// (default images and voice records). Other kinds are fetched when
    /// first downloaded.
    pub kinds: Vec<String>,
    /// Largest item captured on receipt, in bytes (default 10 MiB); larger
    /// ones are fetched when downloaded.
    pub max_bytes: u64,
    /// How long captured media are kept, in seconds (default 30 days).
    pub ttl_secs: u64,
    /// Total bytes of captured media kept (default 2 GiB), a quota of its
    /// own beside `staging_quota_bytes`: the oldest captures are evicted
    /// first, staged uploads never.
    pub quota_bytes: u64,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            kinds: vec!["image".into(), "record".into()],
            max_bytes: 10 * 1024 * 1024,
            ttl_secs: 30 * 24 * 3600,
            quota_bytes: 2 * 1024 * 1024 * 1024,
        }
    }
}

/// QQ's media CDNs (NT image/video/file downloads, group and private
/// pictures, voice) and the sandbox's media host.
pub const DEFAULT_PEER_URL_HOSTS: [&str; 6] = [
    "qq.com.cn",
    "qq.com",
    "qpic.cn",
    "qlogo.cn",
    "gtimg.cn",
    "localhost",
];

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            image_max_bytes: 10 * 1024 * 1024,
            video_max_bytes: 30 * 1024 * 1024,
            file_max_bytes: 30 * 1024 * 1024,
            voice_max_bytes: 10 * 1024 * 1024,
            ttl_secs: 30 * 60,
            staging_quota_bytes: 1024 * 1024 * 1024,
            media_roots: Vec::new(),
            allow_private_urls: false,
            url_allow_networks: Vec::new(),
            url_timeout_ms: 30_000,
            peer_url_hosts: DEFAULT_PEER_URL_HOSTS.map(String::from).to_vec(),
            capture: CaptureConfig::default(),
        }
    }
}

impl MediaConfig {
    /// Checks `[media]`: each size limit is positive and at most
    /// [`MAX_INLINE_MEDIA_BYTES`], the staging area holds the largest
    /// upload, the lifetime and URL timeout are positive, the allowed
    /// networks are CIDR and the media roots absolute.
    pub(super) fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("media");
        for (name, value) in [
            ("image_max_bytes", self.image_max_bytes),
            ("video_max_bytes", self.video_max_bytes),
            ("file_max_bytes", self.file_max_bytes),
            ("voice_max_bytes", self.voice_max_bytes),
        ] {
            let limit = key.field(name);
            limit.positive(value)?;
            if value > MAX_INLINE_MEDIA_BYTES {
                return Err(limit.invalid(format!(
                    "{value} bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about {MAX_INLINE_MEDIA_BYTES} bytes of base64-encoded media"
                )));
            }
        }
        key.field("ttl_secs").positive(self.ttl_secs)?;
        key.field("staging_quota_bytes").ensure(
            self.staging_quota_bytes >= self.video_max_bytes.max(self.file_max_bytes),
            "must hold at least one largest upload",
        )?;
        key.field("url_timeout_ms").positive(self.url_timeout_ms)?;
        let networks = key.field("url_allow_networks");
        for (i, net) in self.url_allow_networks.iter().enumerate() {
            if net.parse::<ipnet::IpNet>().is_err() {
                return Err(networks.index(i).invalid(format!(
                    "{net:?} is not a network in CIDR form (e.g. 10.1.2.0/24)"
                )));
            }
        }
        let roots = key.field("media_roots");
        for (i, root) in self.media_roots.iter().enumerate() {
            roots
                .index(i)
                .ensure(root.is_absolute(), "must be an absolute path")?;
        }
        let hosts = key.field("peer_url_hosts");
        for (i, host) in self.peer_url_hosts.iter().enumerate() {
            let bare = host.trim_start_matches('.');
            hosts.index(i).ensure(
                !bare.is_empty()
                    && bare
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.'),
                "must be a host name or suffix (letters, digits, `-` and `.`)",
            )?;
        }
        self.capture.validate()
    }
}

impl CaptureConfig {
    /// Checks `[media.capture]`: known kinds, positive limits, a quota that
    /// holds the largest capture.
    fn validate(&self) -> Result<(), ConfigError> {
        let key = Key::new("media.capture");
        let kinds = key.field("kinds");
        for (i, kind) in self.kinds.iter().enumerate() {
            kinds.index(i).ensure(
                CAPTURE_KINDS.contains(&kind.as_str()),
                format!("{kind:?} is not one of image, record, video, file"),
            )?;
        }
        key.field("max_bytes").positive(self.max_bytes)?;
        key.field("ttl_secs").positive(self.ttl_secs)?;
        key.field("quota_bytes").ensure(
            self.quota_bytes >= self.max_bytes,
            "must hold at least one largest capture (max_bytes)",
        )?;
        Ok(())
    }
}
