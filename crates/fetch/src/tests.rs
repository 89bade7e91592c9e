use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::guard::classify;
use super::*;
use onebot_gateway_store::state::StateStore;
use onebot_gateway_testkit::png;

/// Resolves names from a fixed table; a name not in it is not found. Made
/// with [`TableLookup::once`], it answers each name once, and a second
/// lookup of a name never completes (so a fetch that needs a new
/// connection to it cannot finish).
struct TableLookup {
    table: std::sync::Mutex<HashMap<&'static str, Vec<IpAddr>>>,
    once: bool,
}

impl TableLookup {
    fn new(table: HashMap<&'static str, Vec<IpAddr>>) -> Self {
        Self {
            table: std::sync::Mutex::new(table),
            once: false,
        }
    }

    fn once(table: HashMap<&'static str, Vec<IpAddr>>) -> Self {
        Self {
            once: true,
            ..Self::new(table)
        }
    }
}

#[async_trait::async_trait]
impl Lookup for TableLookup {
    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        let found = {
            let mut table = self.table.lock().unwrap();
            if self.once {
                table.remove(host)
            } else {
                table.get(host).cloned()
            }
        };
        match found {
            Some(ips) => Ok(ips),
            None if self.once => std::future::pending().await,
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such host",
            )),
        }
    }
}

fn lookup() -> Arc<dyn Lookup> {
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    Arc::new(TableLookup::new(HashMap::from([
        ("evil.test", vec![ip("10.0.0.7")]),
        ("meta.test", vec![ip("169.254.169.254")]),
        ("loop.test", vec![ip("127.0.0.1")]),
        ("localhost", vec![ip("::1"), ip("127.0.0.1")]),
        ("mixed.test", vec![ip("93.184.216.34"), ip("192.168.1.1")]),
        ("v6.test", vec![ip("::1")]),
    ])))
}

/// A tiny HTTP/1.1 server on `ip`: `routes` maps a path to a raw response;
/// `/hang` never answers. Counts the requests it got.
async fn serve(ip: &str, routes: Vec<(String, Vec<u8>)>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let routes: Arc<HashMap<String, Vec<u8>>> = Arc::new(routes.into_iter().collect());
    let counter = hits.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let routes = routes.clone();
            let counter = counter.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                counter.fetch_add(1, Ordering::SeqCst);
                let line = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_string();
                let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                if path == "/hang" {
                    let _ = sock.read(&mut buf).await;
                    return;
                }
                let resp = routes.get(&path).cloned().unwrap_or_else(|| {
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n".to_vec()
                });
                let _ = sock.write_all(&resp).await;
                let _ = sock.shutdown().await;
            });
        }
    });
    (addr, hits)
}

fn ok(body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

/// A body without content-length (read until close).
fn without_length(body: &[u8]) -> Vec<u8> {
    let mut r = b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n".to_vec();
    r.extend_from_slice(body);
    r
}

fn redirect(to: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 302 Found\r\nlocation: {to}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )
    .into_bytes()
}

struct Setup {
    fetcher: Fetcher,
    media: MediaStore,
    _dir: tempfile::TempDir,
}

fn setup(tweak: impl FnOnce(&mut MediaConfig)) -> Setup {
    setup_with(lookup(), tweak)
}

fn setup_with(lookup: Arc<dyn Lookup>, tweak: impl FnOnce(&mut MediaConfig)) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let mut config = MediaConfig {
        image_max_bytes: 64 * 1024,
        url_timeout_ms: 2_000,
        ..MediaConfig::default()
    };
    tweak(&mut config);
    let store = std::sync::Arc::new(StateStore::open(dir.path()).unwrap());
    let media = MediaStore::open(dir.path(), store, config.clone()).unwrap();
    Setup {
        fetcher: Fetcher::new(&config, media.clone(), lookup),
        media,
        _dir: dir,
    }
}

async fn fetch(s: &Setup, url: &str) -> Result<FetchedMedia> {
    let url = parse_url(url, "images[0]")?;
    s.fetcher
        .fetch(&url, MediaKind::Image, &MediaOwner::account("default"))
        .await
}

#[test]
fn classification() {
    let refused = [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("169.254.169.254", "metadata"),
        ("169.254.1.1", "link-local"),
        ("100.100.100.200", "metadata"),
        ("100.64.0.1", "shared"),
        ("0.0.0.0", "unspecified"),
        ("255.255.255.255", "reserved"),
        ("224.0.0.1", "reserved"),
        ("192.0.2.1", "reserved"),
        ("::1", "loopback"),
        ("::", "unspecified"),
        ("fd00:ec2::254", "metadata"),
        ("fd12::1", "private"),
        ("fe80::1", "link-local"),
        ("::ffff:10.0.0.1", "private"),
        ("::ffff:127.0.0.1", "loopback"),
        ("64:ff9b::a9fe:a9fe", "metadata"),
        ("2002:c0a8:0101::1", "private"),
        ("ff02::1", "multicast"),
    ];
    for (ip, category) in refused {
        assert_eq!(classify(ip.parse().unwrap()), Some(category), "{ip}");
    }
    for ip in [
        "8.8.8.8",
        "93.184.216.34",
        "2606:4700::1111",
        "64:ff9b::808:808",
    ] {
        assert_eq!(classify(ip.parse().unwrap()), None, "{ip}");
    }
}

#[test]
fn operator_switches() {
    let guard = |private: bool, nets: &[&str]| {
        UrlGuard::new(&MediaConfig {
            allow_private_urls: private,
            url_allow_networks: nets.iter().map(|s| s.to_string()).collect(),
            ..MediaConfig::default()
        })
    };
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    assert_eq!(guard(false, &[]).refusal(ip("10.0.0.1")), Some("private"));
    assert_eq!(guard(true, &[]).refusal(ip("10.0.0.1")), None);
    assert_eq!(guard(true, &[]).refusal(ip("127.0.0.1")), None);
    // Metadata stays refused with private addresses allowed...
    assert_eq!(
        guard(true, &[]).refusal(ip("169.254.169.254")),
        Some("metadata")
    );
    // ...unless its network is listed explicitly.
    assert_eq!(
        guard(false, &["169.254.169.254/32"]).refusal(ip("169.254.169.254")),
        None
    );
    assert_eq!(guard(false, &["10.1.0.0/16"]).refusal(ip("10.1.2.3")), None);
    assert_eq!(
        guard(false, &["10.1.0.0/16"]).refusal(ip("10.2.0.1")),
        Some("private")
    );
}

#[tokio::test]
async fn refused_addresses_are_never_contacted() {
    let s = setup(|_| {});
    let (addr, hits) = serve("127.0.0.1", vec![("/a.png".into(), ok(&png(100)))]).await;
    for url in [
        format!("http://127.0.0.1:{}/a.png", addr.port()),
        format!("http://localhost:{}/a.png", addr.port()),
        format!("http://loop.test:{}/a.png", addr.port()),
        "http://10.0.0.1/a.png".into(),
        "http://169.254.169.254/latest/meta-data/".into(),
        "http://[::1]/a.png".into(),
        "http://[::ffff:7f00:1]/a.png".into(),
        "http://evil.test/a.png".into(),
        "http://meta.test/latest/meta-data/".into(),
        "http://mixed.test/a.png".into(),
        "http://v6.test/a.png".into(),
        "http://2130706433/a.png".into(),
    ] {
        let e = fetch(&s, &url).await.unwrap_err();
        assert_eq!(e.kind, Kind::UrlForbidden, "{url}: {e:?}");
    }
    assert_eq!(hits.load(Ordering::SeqCst), 0);
    for url in [
        "ftp://example.com/a.png",
        "file:///etc/passwd",
        "gopher://x/",
    ] {
        assert_eq!(
            fetch(&s, url).await.unwrap_err().kind,
            Kind::UrlForbidden,
            "{url}"
        );
    }
}

#[tokio::test]
async fn redirects_are_checked_at_every_hop() {
    // The first hop is allowed by an explicit network; what it redirects to
    // is not.
    let (inner, inner_hits) = serve("127.0.0.1", vec![("/x.png".into(), ok(&png(100)))]).await;
    let routes = vec![
        (
            "/to-loopback".into(),
            redirect(&format!("http://127.0.0.1:{}/x.png", inner.port())),
        ),
        ("/to-private".into(), redirect("http://10.0.0.1/x.png")),
        (
            "/to-metadata".into(),
            redirect("http://169.254.169.254/latest/meta-data/"),
        ),
        ("/to-name".into(), redirect("http://evil.test/x.png")),
        ("/to-ftp".into(), redirect("ftp://example.com/x.png")),
        ("/ok.png".into(), ok(&png(300))),
        ("/relative".into(), redirect("/ok.png")),
        ("/loop".into(), redirect("/loop")),
    ];
    let (outer, _) = serve("127.0.0.2", routes).await;
    let s = setup(|c| c.url_allow_networks = vec!["127.0.0.2/32".into()]);
    let base = format!("http://127.0.0.2:{}", outer.port());
    for path in [
        "/to-loopback",
        "/to-private",
        "/to-metadata",
        "/to-name",
        "/to-ftp",
    ] {
        let e = fetch(&s, &format!("{base}{path}")).await.unwrap_err();
        assert_eq!(e.kind, Kind::UrlForbidden, "{path}: {e:?}");
    }
    assert_eq!(inner_hits.load(Ordering::SeqCst), 0);
    let f = fetch(&s, &format!("{base}/relative")).await.unwrap();
    assert_eq!(f.media.size, 300);
    assert_eq!(f.media.mime, "image/png");
    assert_eq!(f.file_name, "ok.png");
    let e = fetch(&s, &format!("{base}/loop")).await.unwrap_err();
    assert_eq!(e.kind, Kind::UrlFetchFailed);
}

#[tokio::test]
async fn size_limits_types_statuses_and_timeouts() {
    let s = setup(|c| {
        c.allow_private_urls = true;
        c.url_timeout_ms = 300;
    });
    let limit = 64 * 1024;
    let (addr, _) = serve(
        "127.0.0.1",
        vec![
            ("/edge.png".into(), ok(&png(limit))),
            ("/big.png".into(), ok(&png(limit + 1))),
            ("/big-unsized.png".into(), without_length(&png(limit + 1))),
            ("/text".into(), ok(b"hello")),
            ("/%E5%9B%BE.png".into(), ok(&png(10))),
        ],
    )
    .await;
    let base = format!("http://127.0.0.1:{}", addr.port());
    let f = fetch(&s, &format!("{base}/edge.png")).await.unwrap();
    assert_eq!(f.media.size, limit as u64);
    drop(f);
    for path in ["/big.png", "/big-unsized.png"] {
        let e = fetch(&s, &format!("{base}{path}")).await.unwrap_err();
        assert_eq!(e.kind, Kind::MediaTooLarge, "{path}");
    }
    assert_eq!(
        fetch(&s, &format!("{base}/text")).await.unwrap_err().kind,
        Kind::MediaTypeMismatch
    );
    let e = fetch(&s, &format!("{base}/missing")).await.unwrap_err();
    assert_eq!(
        (e.kind, e.meta("status")),
        (Kind::UrlFetchFailed, Some("404"))
    );
    assert_eq!(
        fetch(&s, &format!("{base}/%E5%9B%BE.png"))
            .await
            .unwrap()
            .file_name,
        "图.png"
    );
    assert!(
        e.message.contains("404"),
        "the cause is in the message: {e:?}"
    );
    let e = fetch(&s, &format!("{base}/hang")).await.unwrap_err();
    assert_eq!(e.kind, Kind::UrlFetchFailed);
    assert!(e.meta("detail").unwrap().contains("timed out"));
    assert!(e.message.contains("timed out"), "{e:?}");
    // A refused connection names its cause, not the URL.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let e = fetch(&s, &format!("http://127.0.0.1:{port}/secret-path.png"))
        .await
        .unwrap_err();
    assert_eq!(e.kind, Kind::UrlFetchFailed);
    assert!(
        e.message.to_lowercase().contains("connect"),
        "the cause is in the message: {e:?}"
    );
    assert!(!e.message.contains("secret-path"), "{e:?}");
    // Nothing is left in the staging area.
    assert_eq!(s.media.used_bytes(), 0);
}

#[tokio::test]
async fn a_redirect_to_a_refused_address_fails_as_the_address_itself() {
    let routes = vec![
        ("/to-private".into(), redirect("http://10.0.0.1/x.png")),
        ("/to-name".into(), redirect("http://evil.test/x.png")),
        (
            "/to-metadata-name".into(),
            redirect("http://meta.test/latest/meta-data/"),
        ),
    ];
    let (outer, _) = serve("127.0.0.2", routes).await;
    let s = setup(|c| c.url_allow_networks = vec!["127.0.0.2/32".into()]);
    let base = format!("http://127.0.0.2:{}", outer.port());
    let same = |e: &Error| {
        (
            e.kind,
            e.message.clone(),
            e.meta("address").map(str::to_string),
            e.meta("category").map(str::to_string),
        )
    };
    for (path, direct) in [
        ("/to-private", "http://10.0.0.1/x.png"),
        ("/to-name", "http://evil.test/x.png"),
        ("/to-metadata-name", "http://meta.test/latest/meta-data/"),
    ] {
        let redirected = fetch(&s, &format!("{base}{path}")).await.unwrap_err();
        let direct = fetch(&s, direct).await.unwrap_err();
        assert_eq!(direct.kind, Kind::UrlForbidden, "{direct:?}");
        assert_eq!(same(&redirected), same(&direct), "{path}");
    }
}

/// An HTTP/1.1 server on 127.0.0.1 keeping connections open: answers every
/// request with `body`. Counts the connections it accepted.
async fn serve_keep_alive(body: Vec<u8>) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    let mut answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let answer = answer.clone();
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                loop {
                    match sock.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                    if head.windows(4).any(|w| w == b"\r\n\r\n") {
                        head.clear();
                        if sock.write_all(&answer).await.is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, accepted)
}

/// Collects a peer fetch's bytes.
struct VecSink(Vec<u8>);

#[async_trait::async_trait]
impl MediaSink for VecSink {
    async fn write(&mut self, chunk: &[u8]) -> Result<()> {
        self.0.extend_from_slice(chunk);
        Ok(())
    }

    fn limit(&self) -> u64 {
        1 << 20
    }
}

#[tokio::test]
async fn connections_are_reused_across_fetches() {
    let (addr, accepted) = serve_keep_alive(png(2000)).await;
    let ip = "127.0.0.1".parse().unwrap();
    let lookup = Arc::new(TableLookup::once(HashMap::from([
        ("pool.test", vec![ip]),
        ("cdn.pool.test", vec![ip]),
    ])));
    let s = setup_with(lookup, |c| {
        c.url_allow_networks = vec!["127.0.0.1/32".into()];
        c.peer_url_hosts = vec!["cdn.pool.test".into()];
    });
    let url = format!("http://pool.test:{}/a.png", addr.port());
    for _ in 0..3 {
        assert_eq!(fetch(&s, &url).await.unwrap().media.size, 2000);
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    // Peers' media URLs have a client (and connections) of their own.
    let url = Url::parse(&format!("http://cdn.pool.test:{}/b.png", addr.port())).unwrap();
    for _ in 0..3 {
        let mut sink = VecSink(Vec::new());
        assert_eq!(
            s.fetcher.fetch_peer(&url, &mut sink).await.unwrap(),
            "b.png"
        );
        assert_eq!(sink.0.len(), 2000);
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn peer_urls_name_a_peer_host_or_the_trusted_origin_at_every_hop() {
    let (sandbox, sandbox_hits) = serve("127.0.0.1", vec![("/s.png".into(), ok(&png(50)))]).await;
    let (other, other_hits) = serve("127.0.0.1", vec![("/o.png".into(), ok(&png(50)))]).await;
    let routes = vec![
        ("/c.png".into(), ok(&png(70))),
        ("/away".into(), redirect("http://elsewhere.test/x.png")),
        (
            "/to-sandbox".into(),
            redirect(&format!("http://localhost:{}/s.png", sandbox.port())),
        ),
        (
            "/to-other-port".into(),
            redirect(&format!("http://localhost:{}/o.png", other.port())),
        ),
    ];
    let (cdn, _) = serve("127.0.0.2", routes).await;
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let lookup = Arc::new(TableLookup::new(HashMap::from([
        ("cdn.test", vec![ip("127.0.0.2")]),
        ("localhost", vec![ip("::1"), ip("127.0.0.1")]),
    ])));
    let s = setup_with(lookup, |c| {
        c.url_allow_networks = vec!["127.0.0.2/32".into()];
        c.peer_url_hosts = vec!["cdn.test".into(), "localhost".into()];
    });
    let fetcher = s
        .fetcher
        .clone()
        .trust_peer_origin("localhost", sandbox.port());
    let peer = |url: String| {
        let fetcher = fetcher.clone();
        async move {
            let mut sink = VecSink(Vec::new());
            let url = Url::parse(&url).unwrap();
            fetcher
                .fetch_peer(&url, &mut sink)
                .await
                .map(|_| sink.0.len())
        }
    };
    let cdn = format!("http://cdn.test:{}", cdn.port());
    assert_eq!(peer(format!("{cdn}/c.png")).await.unwrap(), 70);
    assert_eq!(peer(format!("{cdn}/to-sandbox")).await.unwrap(), 50);
    assert_eq!(
        peer(format!("http://localhost:{}/s.png", sandbox.port()))
            .await
            .unwrap(),
        50
    );
    assert_eq!(sandbox_hits.load(Ordering::SeqCst), 2);
    // The trusted origin's name at another port is not trusted, nor is a
    // host outside media.peer_url_hosts, at the first hop or a later one.
    for url in [
        format!("{cdn}/away"),
        format!("{cdn}/to-other-port"),
        format!("http://localhost:{}/o.png", other.port()),
        format!("http://127.0.0.1:{}/o.png", other.port()),
        "http://elsewhere.test/x.png".into(),
    ] {
        let e = peer(url.clone()).await.unwrap_err();
        assert_eq!(e.kind, Kind::UrlForbidden, "{url}: {e:?}");
    }
    assert_eq!(other_hits.load(Ordering::SeqCst), 0);
    // Without the trust, the sandbox's loopback address is refused too.
    let e = s
        .fetcher
        .fetch_peer(
            &Url::parse(&format!("http://localhost:{}/s.png", sandbox.port())).unwrap(),
            &mut VecSink(Vec::new()),
        )
        .await
        .unwrap_err();
    assert_eq!(
        (e.kind, e.meta("category")),
        (Kind::UrlForbidden, Some("loopback"))
    );
}
