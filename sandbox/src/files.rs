//! The sandbox's media files and its loopback media host, imitating QQ's
//! CDN: every media segment it renders gets a URL
//! `http://localhost:<port>/download?appid=<1406|1407|…>&fileid=<file>&rkey=<key>`
//! signed with the current download key (an "rkey"). A key lives
//! [`SandboxConfig::media_url_ttl`](crate::SandboxConfig::media_url_ttl)
//! (two hours by default, like QQ's), [`SandboxControl::expire_media_urls`]
//! (crate::SandboxControl::expire_media_urls) retires it at once; a URL with a
//! retired key answers HTTP 400 `{"retcode":-5503007,"retmsg":"download url
//! has expired"}` as the CDN does. `nc_get_rkey` / `get_rkey` hand out the
//! current key.
//!
//! Files are stored by their segment `file` name (and `file_id`): media a
//! test stores for injection ([`SandboxControl::store_media`](crate::SandboxControl::store_media)),
//! and the seed's media, whose bytes are generated deterministically (a valid
//! PNG, an AMR voice, an MP4, a PDF) at their seeded sizes. Media the sandbox
//! receives with their bytes (`base64://`, or a local file it can read), in
//! sends and in injected messages, are stored the same way, under a name
//! made of their digest ([`Files::keep`]), so their segments are served and
//! downloaded like the seed's; media it only has a URL of keep that URL.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::flavor::Flavor;
use crate::media::{Loaded, MediaKind};
use crate::state::ChatRef;

/// Host name of the sandbox's media URLs.
pub const MEDIA_HOST: &str = "localhost";

/// One stored file.
#[derive(Debug, Clone)]
pub(crate) struct MediaFile {
    pub kind: MediaKind,
    /// The display name.
    pub name: String,
    /// Bytes, or the size of generated ones.
    body: Body,
}

#[derive(Debug, Clone)]
enum Body {
    Bytes(Bytes),
    Generated(usize),
}

impl MediaFile {
    /// The bytes (generated ones made now).
    pub(crate) fn bytes(&self) -> Bytes {
        match &self.body {
            Body::Bytes(b) => b.clone(),
            Body::Generated(size) => Bytes::from(sample_media(self.kind, *size)),
        }
    }

    /// Size in bytes.
    pub(crate) fn len(&self) -> usize {
        match &self.body {
            Body::Bytes(b) => b.len(),
            Body::Generated(size) => *size,
        }
    }
}

/// The files and the download key.
#[derive(Debug, Clone)]
pub(crate) struct Files {
    by_name: HashMap<String, MediaFile>,
    /// `file_id` → name.
    ids: HashMap<String, String>,
    /// Keys retired by hand so far.
    retired: u64,
    /// Since the last retirement (keys also roll over every `ttl`).
    since: Instant,
    ttl: Duration,
    /// `http://localhost:<port>` once the listener is bound.
    pub(crate) base: Option<String>,
    /// The media host answers 503 to everything (a CDN outage).
    pub(crate) down: bool,
}

impl Files {
    pub(crate) fn new(ttl: Duration) -> Self {
        Files {
            by_name: HashMap::new(),
            ids: HashMap::new(),
            retired: 0,
            since: Instant::now(),
            ttl: ttl.max(Duration::from_millis(1)),
            base: None,
            down: false,
        }
    }

    /// Sets how long a key lives.
    pub(crate) fn set_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl.max(Duration::from_millis(1));
    }

    /// The current key and how long it still lives.
    pub(crate) fn rkey(&self) -> (String, Duration) {
        let elapsed = self.since.elapsed();
        let period = (elapsed.as_nanos() / self.ttl.as_nanos()) as u64;
        let digest = Sha256::digest(format!("sandbox-rkey-{}-{period}", self.retired));
        let left = self.ttl.saturating_sub(Duration::from_nanos(
            (elapsed.as_nanos() % self.ttl.as_nanos()) as u64,
        ));
        (format!("CAQSK{}", &hex::encode(digest)[..40]), left)
    }

    /// Retires the current key: every URL signed so far expires.
    pub(crate) fn expire(&mut self) {
        self.retired += 1;
        self.since = Instant::now();
    }

    /// True when `rkey` is the current key.
    pub(crate) fn valid(&self, rkey: &str) -> bool {
        rkey == self.rkey().0
    }

    /// The signed download URL of `name`, when the media host is up.
    pub(crate) fn signed(&self, kind: MediaKind, chat: ChatRef, name: &str) -> Option<String> {
        let base = self.base.as_deref()?;
        Some(url(base, kind, chat, name, &self.rkey().0))
    }

    /// A stored media segment as `flavor` renders it: its URL signed now
    /// (NapCat reports no URL for files, LLOneBot a local path for voice
    /// and files), other segments as they are.
    pub(crate) fn render_segment(&self, flavor: Flavor, chat: ChatRef, seg: &Value) -> Value {
        let Some(kind) = seg
            .get("type")
            .and_then(Value::as_str)
            .and_then(MediaKind::from_segment_type)
        else {
            return seg.clone();
        };
        let Some(name) = seg
            .pointer("/data/file")
            .and_then(Value::as_str)
            .filter(|n| self.get(n).is_some())
        else {
            return seg.clone();
        };
        let url = match (flavor, kind) {
            (Flavor::NapCat, MediaKind::File) => Some(String::new()),
            (Flavor::LlOneBot, MediaKind::Record | MediaKind::File) => {
                Some(format!("file:///root/llonebot/temp/{name}"))
            }
            _ => self.signed(kind, chat, name),
        };
        let mut seg = seg.clone();
        if let (Some(url), Some(data)) = (url, seg.get_mut("data").and_then(Value::as_object_mut)) {
            data.insert("url".into(), Value::String(url));
        }
        seg
    }

    /// Stores `bytes` under `name` (and `file_id`).
    pub(crate) fn put(&mut self, kind: MediaKind, name: &str, file_id: Option<&str>, bytes: Bytes) {
        self.insert(kind, name, file_id, Body::Bytes(bytes));
    }

    /// Stores received media under a name made of its digest and returns
    /// the segment data naming it (`file`, `file_size`, and `file_id` for
    /// files, as NapCat reports them); `None` when the sandbox does not have
    /// its bytes.
    pub(crate) fn keep(
        &mut self,
        kind: MediaKind,
        loaded: &Loaded,
    ) -> Option<serde_json::Map<String, Value>> {
        let (bytes, digest) = (loaded.bytes.as_ref()?, loaded.digest.as_ref()?);
        let name = loaded.stored_name(kind);
        let file_id = format!("/{}", &digest.sha256[..32]);
        let file_id = (kind == MediaKind::File).then_some(file_id);
        self.put(kind, &name, file_id.as_deref(), bytes.clone());
        let mut data = serde_json::Map::new();
        data.insert("file".into(), Value::String(name));
        data.insert("file_size".into(), Value::String(digest.len.to_string()));
        if let Some(id) = file_id {
            data.insert("file_id".into(), Value::String(id));
        }
        Some(data)
    }

    /// Registers generated bytes of `size` under `name` unless it exists.
    pub(crate) fn generated(
        &mut self,
        kind: MediaKind,
        name: &str,
        file_id: Option<&str>,
        size: usize,
    ) {
        if !self.by_name.contains_key(name) {
            self.insert(kind, name, file_id, Body::Generated(size));
        }
    }

    fn insert(&mut self, kind: MediaKind, name: &str, file_id: Option<&str>, body: Body) {
        if let Some(id) = file_id.filter(|i| !i.is_empty()) {
            self.ids.insert(id.to_owned(), name.to_owned());
        }
        self.by_name.insert(
            name.to_owned(),
            MediaFile {
                kind,
                name: name.to_owned(),
                body,
            },
        );
    }

    /// The file named `key` (a `file` name or a `file_id`).
    pub(crate) fn get(&self, key: &str) -> Option<&MediaFile> {
        self.by_name
            .get(key)
            .or_else(|| self.ids.get(key).and_then(|n| self.by_name.get(n)))
    }
}

/// The `appid` of a download URL: 1406 private / 1407 group images, 1413
/// voice, 1415 video, 1417 files.
fn appid(kind: MediaKind, chat: ChatRef) -> u32 {
    match (kind, chat) {
        (MediaKind::Image, ChatRef::Private(_)) => 1406,
        (MediaKind::Image, ChatRef::Group(_)) => 1407,
        (MediaKind::Record, _) => 1413,
        (MediaKind::Video, _) => 1415,
        (MediaKind::File, _) => 1417,
    }
}

/// The download URL of `name` under `base` (`http://localhost:<port>`).
pub(crate) fn url(base: &str, kind: MediaKind, chat: ChatRef, name: &str, rkey: &str) -> String {
    let mut u = format!("{base}/download?appid={}&fileid=", appid(kind, chat));
    u.push_str(&percent_encode(name));
    u.push_str("&rkey=");
    u.push_str(rkey);
    u
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub(crate) fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Converts a voice file to "MP3" the way the sandbox's peers do: an ID3
/// header in front of the bytes (what MP3 sniffers look for), so a
/// converted record differs from the original and says its format.
pub(crate) fn to_mp3(bytes: &[u8]) -> Vec<u8> {
    let mut out = b"ID3\x04\x00\x00\x00\x00\x00\x00".to_vec();
    out.extend_from_slice(bytes);
    out
}

/// Deterministic sample bytes of `kind`, exactly `size` bytes long (at
/// least the format's smallest file): a valid 1×1 PNG (padded with a
/// private ancillary chunk), an AMR voice, an MP4 `ftyp` box, or a PDF.
pub fn sample_media(kind: MediaKind, size: usize) -> Vec<u8> {
    match kind {
        MediaKind::Image => png(size),
        MediaKind::Record => padded(b"#!AMR\n", size),
        MediaKind::Video => {
            let mut v = vec![0, 0, 0, 0x18];
            v.extend_from_slice(b"ftypmp42\0\0\0\0mp42isom");
            padded(&v, size)
        }
        MediaKind::File => padded(b"%PDF-1.4\n", size),
    }
}

fn padded(head: &[u8], size: usize) -> Vec<u8> {
    let mut v = head.to_vec();
    let mut n: u32 = 0x9e37_79b9;
    while v.len() < size {
        n = n.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        v.push((n >> 24) as u8);
    }
    v
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

fn png(size: usize) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    // 1×1, 8-bit RGB.
    chunk(&mut out, b"IHDR", &[0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
    // zlib: one stored block of the scanline (filter 0, then R, G, B).
    let raw = [0u8, 0x33, 0x99, 0xff];
    let mut z = vec![0x78, 0x01, 0x01, 4, 0, 0xfb, 0xff];
    z.extend_from_slice(&raw);
    let (mut a, mut b) = (1u32, 0u32);
    for &x in &raw {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    z.extend_from_slice(&((b << 16) | a).to_be_bytes());
    chunk(&mut out, b"IDAT", &z);
    // IEND takes 12 bytes; a padding chunk 12 plus its data.
    let left = size.saturating_sub(out.len() + 12);
    if left >= 12 {
        chunk(&mut out, b"spAd", &padded(b"", left - 12));
    }
    chunk(&mut out, b"IEND", &[]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_have_their_size_and_magic() {
        let p = sample_media(MediaKind::Image, 48_213);
        assert_eq!(p.len(), 48_213);
        assert!(p.starts_with(b"\x89PNG"));
        assert!(p.ends_with(&[0xae, 0x42, 0x60, 0x82]), "IEND crc");
        assert_eq!(sample_media(MediaKind::Image, 48_213), p, "deterministic");
        assert!(sample_media(MediaKind::Record, 3000).starts_with(b"#!AMR"));
        assert_eq!(sample_media(MediaKind::File, 10).len(), 10);
    }

    #[test]
    fn keys_expire() {
        let mut f = Files::new(Duration::from_secs(3600));
        let (k, left) = f.rkey();
        assert!(f.valid(&k) && left <= Duration::from_secs(3600));
        f.expire();
        assert!(!f.valid(&k));
        assert!(f.valid(&f.rkey().0));
    }
}
