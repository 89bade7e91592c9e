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

use std::net::{SocketAddr, TcpListener};
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

/// How long nginx may take to listen once started.
const START_DEADLINE: Duration = Duration::from_secs(20);

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
        // Readiness: nginx writes its pid file once its listening sockets
        // are open, so the file holding this child's pid means connections
        // are accepted. Right after writing it, nginx points its stderr at
        // its error log, so our end of the stderr pipe closes either then or
        // when nginx exits before that (a configuration it refuses): at that
        // point the pid file alone tells the two apart. Each check runs on a
        // notice from the kernel (inotify, through `notify`) of a change in
        // the directory, or on that close; the watch is in place before the
        // process starts, so no change is missed.
        let (tx, rx) = std::sync::mpsc::channel();
        let fs = tx.clone();
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let _ = fs.send(Started::Changed(event.map(drop).map_err(|e| e.to_string())));
            })
            .expect("an inotify watcher");
        notify::Watcher::watch(
            &mut watcher,
            self.dir.path(),
            notify::RecursiveMode::NonRecursive,
        )
        .expect("watch nginx's directory");
        let bin = binary();
        let mut child = Command::new(&bin)
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
        let mut stderr = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
            let _ = tx.send(Started::StderrClosed(text));
        });
        let pid = child.id().to_string();
        let pid_file = self.dir.path().join("nginx.pid");
        let deadline = Instant::now() + START_DEADLINE;
        let ready = || {
            std::fs::read_to_string(&pid_file)
                .unwrap_or_default()
                .trim()
                == pid
        };
        while !ready() {
            match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(Started::Changed(notice)) => notice.expect("a notice from nginx's directory"),
                Ok(Started::StderrClosed(_)) if ready() => break,
                Ok(Started::StderrClosed(stderr)) => {
                    let status = child.wait().expect("nginx's exit status");
                    panic!(
                        "nginx exited ({status}): {stderr}\n{}\nconfig:\n{}",
                        self.error_log(),
                        self.config()
                    );
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "nginx did not write {} within {START_DEADLINE:?} (it does once it listens on {}):\n{}",
                        pid_file.display(),
                        self.addr,
                        self.error_log()
                    );
                }
            }
        }
        self.child = Some(child);
    }
}

/// What wakes [`Nginx::spawn`]'s wait for readiness.
enum Started {
    /// Something in nginx's directory changed (or the watch failed).
    Changed(Result<(), String>),
    /// Our end of nginx's stderr closed (nginx exited, or moved its
    /// stderr to its error log once started); what it wrote there.
    StderrClosed(String),
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.kill();
    }
}
