//! A real `nats-server` with JetStream (Debian's package, installed by
//! `scripts/install-tools.sh`) started by a test on loopback: its own store
//! directory in a temporary directory, one process owned by the test and
//! killed with it. [`NatsServer::stop`] kills it (an outage);
//! [`NatsServer::start_again`] starts it on the same port over the same
//! store, as a restarted server.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A free loopback port (bound and released; the server binds it next).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// The nats-server binary: `$ONEBOT_NATS_SERVER`, else `/usr/bin/nats-server`
/// (Debian's package), else `nats-server` on the `PATH`.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("ONEBOT_NATS_SERVER") {
        return path.into();
    }
    let debian = PathBuf::from("/usr/bin/nats-server");
    if debian.exists() {
        return debian;
    }
    "nats-server".into()
}

/// How long the server may take to listen once started.
const START_DEADLINE: Duration = Duration::from_secs(20);

/// A running (or stopped) nats-server.
pub struct NatsServer {
    /// Its client address.
    pub addr: SocketAddr,
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl NatsServer {
    /// Starts a JetStream server on a free loopback port and waits until it
    /// accepts connections.
    pub fn start() -> NatsServer {
        let mut server = NatsServer {
            addr: SocketAddr::from(([127, 0, 0, 1], free_port())),
            dir: tempfile::tempdir().expect("tempdir"),
            child: None,
        };
        server.start_again();
        server
    }

    /// `nats://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("nats://{}", self.addr)
    }

    /// Starts the server again on the same port and store, and waits for its
    /// `Server is ready` log line (read from its stderr, which a thread
    /// drains for the rest of the process's life).
    pub fn start_again(&mut self) {
        use std::io::BufRead as _;
        assert!(self.child.is_none(), "nats-server is already running");
        let mut child = Command::new(binary())
            .args(["-js", "-a", "127.0.0.1", "-p"])
            .arg(self.addr.port().to_string())
            .arg("-sd")
            .arg(self.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary().display()));
        let stderr = child.stderr.take().expect("piped stderr");
        let (ready, is_ready) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                if line.contains("Server is ready") {
                    let _ = ready.send(());
                }
            }
        });
        self.child = Some(child);
        is_ready
            .recv_timeout(START_DEADLINE)
            .expect("nats-server said it is ready");
    }

    /// Kills the server (every connection to it breaks).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for NatsServer {
    fn drop(&mut self) {
        self.stop();
    }
}
