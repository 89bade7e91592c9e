//! A real nginx (Debian's package, installed by `scripts/install-tools.sh`)
//! started by a test on loopback as a gRPC reverse proxy: its own
//! configuration, pid file, logs and temporary directories in a temporary
//! directory, one process (`master_process off`) owned by the test and
//! killed with it.
//!
//! The test writes the `http { }` block's servers; `{listen}` in it is
//! replaced by the proxy's loopback address. [`Nginx::restart`] kills the
//! process (as a crashed or redeployed proxy: every connection through it
//! breaks) and starts it again on the same address.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The nginx binary: `$ONEBOT_NGINX`, else `/usr/sbin/nginx` (Debian's
/// package), else `nginx` on the `PATH`.
pub fn binary() -> PathBuf {
    if let Some(path) = std::env::var_os("ONEBOT_NGINX") {
        return path.into();
    }
    let debian = Path::new("/usr/sbin/nginx");
    if debian.exists() {
        return debian.into();
    }
    "nginx".into()
}

/// A free loopback port (bound and released; the caller binds it next).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A running nginx.
pub struct Nginx {
    /// The address `{listen}` stands for.
    pub addr: SocketAddr,
    dir: tempfile::TempDir,
    conf: PathBuf,
    child: Option<Child>,
}

impl Nginx {
    /// Starts nginx with `servers` (the content of its `http { }` block,
    /// `{listen}` standing for its loopback address) and waits until it
    /// accepts connections.
    pub fn start(servers: &str) -> Nginx {
        let dir = tempfile::tempdir().expect("tempdir");
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()));
        let d = dir.path().display();
        for sub in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("temp dir");
        }
        let conf = dir.path().join("nginx.conf");
        let text = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/error.log warn;\nevents {{ worker_connections 4096; }}\n\
             http {{\n  access_log off;\n  client_body_temp_path {d}/body;\n  \
             proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  \
             uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n{}\n}}\n",
            servers.replace("{listen}", &addr.to_string())
        );
        std::fs::write(&conf, text).expect("write nginx.conf");
        let mut nginx = Nginx {
            addr,
            dir,
            conf,
            child: None,
        };
        nginx.spawn();
        nginx
    }

    /// The configuration file, as written.
    pub fn config(&self) -> String {
        std::fs::read_to_string(&self.conf).expect("read nginx.conf")
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    /// Kills the process (every connection through it breaks) and starts
    /// it again on the same address.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    /// Kills the process; [`Nginx::restart`] brings it back.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn spawn(&mut self) {
        let bin = binary();
        let child = Command::new(&bin)
            .arg("-p")
            .arg(self.dir.path())
            .arg("-c")
            .arg(&self.conf)
            .arg("-e")
            .arg(self.dir.path().join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!(
                    "starting {} ({e}): nginx is installed by scripts/install-tools.sh (Debian's package)",
                    bin.display()
                )
            });
        self.child = Some(child);
        // Readiness: the listener accepts (nginx has no readiness signal);
        // a process that exited instead fails the test with its log.
        let started = Instant::now();
        loop {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let mut stderr = String::new();
                if let Some(mut e) = self.child.take().and_then(|mut c| c.stderr.take()) {
                    let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
                }
                panic!(
                    "nginx exited ({status}): {stderr}\n{}\nconfig:\n{}",
                    self.error_log(),
                    self.config()
                );
            }
            if TcpStream::connect_timeout(&self.addr, Duration::from_millis(200)).is_ok() {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "nginx did not listen on {} within 20 s:\n{}",
                self.addr,
                self.error_log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.kill();
    }
}
