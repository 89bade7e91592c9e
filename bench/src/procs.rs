//! The processes under measurement: the sandbox peer and the gateway, each
//! its own `onebot-gateway` process, found through their log lines; and
//! what `/proc` says about them.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use onebot_gateway_client::pb;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;
use tonic::transport::Channel;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};

/// A child process whose stderr lines are forwarded to a channel (and
/// echoed when `BENCH_VERBOSE` is set). Killed when dropped.
pub struct Proc {
    child: Child,
    /// Its process id.
    pub pid: u32,
    lines: mpsc::UnboundedReceiver<String>,
    /// When `spawn` returned.
    pub started: Instant,
}

impl Proc {
    /// Spawns `cmd` with stderr piped and `RUST_LOG=info` unless set.
    pub fn spawn(mut cmd: Command, label: &'static str) -> Result<Proc> {
        if std::env::var_os("RUST_LOG").is_none() {
            cmd.env("RUST_LOG", "info");
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let started = Instant::now();
        let mut child = cmd.spawn().with_context(|| format!("spawning {label}"))?;
        let pid = child
            .id()
            .ok_or_else(|| anyhow!("{label} exited at once"))?;
        let stderr = child.stderr.take().context("stderr")?;
        let (tx, lines) = mpsc::unbounded_channel();
        let verbose = std::env::var_os("BENCH_VERBOSE").is_some();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = reader.next_line().await {
                if verbose {
                    eprintln!("[{label}] {line}");
                }
                // The receiver may be gone; the pipe must still be drained.
                let _ = tx.send(line);
            }
        });
        Ok(Proc {
            child,
            pid,
            lines,
            started,
        })
    }

    /// Waits (at most `within`) for a log line containing `needle` and
    /// returns the text after `key=` on it (up to the next space).
    pub async fn wait_field(
        &mut self,
        needle: &str,
        key: &str,
        within: Duration,
    ) -> Result<String> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let line = tokio::time::timeout_at(deadline, self.lines.recv())
                .await
                .map_err(|_| anyhow!("no log line {needle:?} within {within:?}"))?
                .ok_or_else(|| anyhow!("process ended before logging {needle:?}"))?;
            if line.contains(needle) {
                let pat = format!("{key}=");
                let start = line
                    .find(&pat)
                    .ok_or_else(|| anyhow!("{needle:?} line without {key}=: {line}"))?
                    + pat.len();
                let rest = &line[start..];
                let value = rest.split_whitespace().next().unwrap_or_default();
                return Ok(value.trim_matches('"').to_string());
            }
        }
    }

    /// Sends SIGKILL and reaps the process.
    pub async fn kill(mut self) -> Result<()> {
        self.child.kill().await.context("kill")
    }

    /// `VmRSS` in bytes.
    pub fn rss(&self) -> Result<u64> {
        status_field(self.pid, "VmRSS")
    }

    /// `VmRSS` and its two parts in bytes, from one read of the status:
    /// anonymous memory (`RssAnon`: heap, stacks) and mapped files
    /// (`RssFile`: mostly the binary's own pages, shared with every process
    /// mapping it and reclaimable).
    pub fn rss_parts(&self) -> Result<[u64; 3]> {
        status_fields(self.pid, ["VmRSS", "RssAnon", "RssFile"])
    }

    /// `VmHWM` (peak resident set) in bytes.
    pub fn peak_rss(&self) -> Result<u64> {
        status_field(self.pid, "VmHWM")
    }
}

/// CPU time (user + system, all threads, including ended ones) a process
/// has used, from `/proc/<pid>/stat` (in USER_HZ ticks, 100 per second).
pub fn cpu_time(pid: u32) -> Result<Duration> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("reading /proc/{pid}/stat"))?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: state is field 3, utime 14, stime 15.
    let rest = text
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| anyhow!("malformed /proc/{pid}/stat"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| -> Result<u64> {
        fields
            .get(i)
            .ok_or_else(|| anyhow!("/proc/{pid}/stat has no field {}", i + 3))?
            .parse::<u64>()
            .with_context(|| format!("/proc/{pid}/stat field {}", i + 3))
    };
    let ticks = tick(11)? + tick(12)?;
    Ok(Duration::from_millis(ticks * 10))
}

/// A `kB` field of `/proc/<pid>/status`, in bytes.
pub fn status_field(pid: u32, field: &str) -> Result<u64> {
    let [bytes] = status_fields(pid, [field])?;
    Ok(bytes)
}

/// `kB` fields of `/proc/<pid>/status`, in bytes, from one read.
fn status_fields<const N: usize>(pid: u32, fields: [&str; N]) -> Result<[u64; N]> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("reading /proc/{pid}/status"))?;
    let mut out = [0; N];
    for (field, slot) in fields.iter().zip(&mut out) {
        let Some(rest) = text
            .lines()
            .find_map(|line| line.strip_prefix(field).and_then(|r| r.strip_prefix(':')))
        else {
            bail!("/proc/{pid}/status has no {field}");
        };
        let kb: u64 = rest
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .with_context(|| format!("{field}: {rest}"))?;
        *slot = kb * 1024;
    }
    Ok(out)
}

/// The `onebot-gateway` release binary: `--gateway-bin`, else built with
/// `cargo build --release -p onebot-gateway` in the workspace.
pub fn gateway_binary(explicit: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(path) = explicit {
        return Ok(path);
    }
    let root = workspace_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--release", "-p", "onebot-gateway", "--bin"])
        .arg("onebot-gateway")
        .current_dir(&root)
        .status()
        .context("running cargo build")?;
    if !status.success() {
        bail!("cargo build --release -p onebot-gateway failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target.join("release").join("onebot-gateway"))
}

/// The workspace root (the bench crate's parent).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// A sandbox peer in its own process.
pub struct SandboxProc {
    /// The process.
    pub proc: Proc,
    /// Its forward WebSocket URL.
    pub ws_url: String,
}

impl SandboxProc {
    /// Starts `onebot-gateway sandbox --listen 127.0.0.1:0` and waits for its
    /// `OneBot sandbox ready ws=...` line.
    pub async fn start(bin: &Path) -> Result<SandboxProc> {
        let mut cmd = Command::new(bin);
        cmd.args(["sandbox", "--listen", "127.0.0.1:0", "--flavor", "napcat"]);
        let mut proc = Proc::spawn(cmd, "sandbox")?;
        let ws_url = proc
            .wait_field("OneBot sandbox ready", "ws", Duration::from_secs(20))
            .await?;
        Ok(SandboxProc { proc, ws_url })
    }
}

/// A Milky sandbox (`onebot-gateway sandbox --protocol milky`) in its own
/// process.
pub struct MilkySandboxProc {
    /// The process.
    pub proc: Proc,
    /// Its base URL (API at `/api/:api`, events at `/event`).
    pub milky_url: String,
}

impl MilkySandboxProc {
    /// Starts `onebot-gateway sandbox --protocol milky --listen
    /// 127.0.0.1:0` and waits for its `Milky sandbox ready milky=...` line.
    pub async fn start(bin: &Path) -> Result<MilkySandboxProc> {
        let mut cmd = Command::new(bin);
        cmd.args(["sandbox", "--protocol", "milky", "--listen", "127.0.0.1:0"]);
        let mut proc = Proc::spawn(cmd, "milky-sandbox")?;
        let milky_url = proc
            .wait_field("Milky sandbox ready", "milky", Duration::from_secs(20))
            .await?;
        Ok(MilkySandboxProc { proc, milky_url })
    }
}

/// Extra settings of a gateway started by [`GatewayProc::start`].
#[derive(Debug, Clone, Default)]
pub struct GatewayOptions {
    /// Extra lines appended to `[server]` (e.g. `worker_threads = 1`).
    pub server_extra: String,
    /// Extra lines appended to `[accounts.default]`.
    pub account_extra: String,
    /// Extra top-level tables (e.g. `[events]`), written before the accounts.
    pub config_extra: String,
    /// Reuse this data directory (e.g. after a kill); a fresh one otherwise.
    pub data_dir: Option<PathBuf>,
}

/// A gateway in its own process, configured by a TOML file with one
/// external account (`default`: forward WebSocket to a OneBot sandbox, or
/// `milky_url` to a Milky one).
pub struct GatewayProc {
    /// The process.
    pub proc: Proc,
    /// Its gRPC (and MCP) listener, `host:port`.
    pub addr: String,
    /// A channel to it.
    pub channel: Channel,
    _temp: tempfile::TempDir,
}

/// Whitelisted group of the benchmark's account.
pub const BENCH_GROUP: i64 = onebot_sandbox::SANDBOX_GROUP;

impl GatewayProc {
    /// Starts `onebot-gateway serve --config <tmp>/gateway.toml`, waits for
    /// its `gRPC listening local=...` line and connects.
    pub async fn start(bin: &Path, ws_url: &str, opts: &GatewayOptions) -> Result<GatewayProc> {
        GatewayProc::start_with(bin, &format!("ws_url = {ws_url:?}"), opts).await
    }

    /// As [`GatewayProc::start`], the account a Milky one at `milky_url`
    /// (events over WebSocket, the default).
    pub async fn start_milky(
        bin: &Path,
        milky_url: &str,
        opts: &GatewayOptions,
    ) -> Result<GatewayProc> {
        GatewayProc::start_with(bin, &format!("milky_url = {milky_url:?}"), opts).await
    }

    /// Starts the gateway with `upstream` (the account's transport line).
    async fn start_with(bin: &Path, upstream: &str, opts: &GatewayOptions) -> Result<GatewayProc> {
        let temp = tempfile::tempdir().context("tempdir")?;
        let data_dir = opts
            .data_dir
            .clone()
            .unwrap_or_else(|| temp.path().join("data"));
        let config = format!(
            "[server]\nlisten = \"127.0.0.1:0\"\ndata_dir = {data_dir:?}\n{}\n\n{}\n\
             [accounts.default]\n{upstream}\ngroups = [{BENCH_GROUP}]\n{}\n",
            opts.server_extra, opts.config_extra, opts.account_extra
        );
        let path = temp.path().join("gateway.toml");
        std::fs::write(&path, config).context("writing gateway.toml")?;
        let mut cmd = Command::new(bin);
        cmd.arg("serve").arg("--config").arg(&path);
        let mut proc = Proc::spawn(cmd, "gateway")?;
        let addr = proc
            .wait_field("gRPC listening", "local", Duration::from_secs(20))
            .await?;
        let channel = Channel::from_shared(format!("http://{addr}"))?
            .connect()
            .await
            .with_context(|| format!("connecting to the gateway at {addr}"))?;
        Ok(GatewayProc {
            proc,
            addr,
            channel,
            _temp: temp,
        })
    }

    /// Polls the overall health until SERVING; returns the time since spawn.
    pub async fn wait_serving(&self) -> Result<Duration> {
        let mut health = HealthClient::new(self.channel.clone());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let r = health
                .check(HealthCheckRequest {
                    service: String::new(),
                })
                .await;
            if let Ok(resp) = r
                && resp.into_inner().status == ServingStatus::Serving as i32
            {
                return Ok(self.proc.started.elapsed());
            }
            if Instant::now() > deadline {
                bail!("gateway not SERVING within 20 s");
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    /// Waits (health Watch on the account's name) until account `default`
    /// is SERVING, i.e. connected; returns the time since spawn.
    pub async fn wait_account_connected(&self) -> Result<Duration> {
        let mut health = HealthClient::new(self.channel.clone());
        let mut stream = health
            .watch(HealthCheckRequest {
                service: "onebot.gateway.v1.account.default".into(),
            })
            .await?
            .into_inner();
        let wait = async {
            while let Some(HealthCheckResponse { status }) = stream.message().await? {
                if status == ServingStatus::Serving as i32 {
                    return Ok(self.proc.started.elapsed());
                }
            }
            bail!("health watch ended")
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .map_err(|_| anyhow!("account default not connected within 20 s"))?
    }

    /// MessageService client (64 MiB message limits).
    pub fn messages(&self) -> pb::message_service_client::MessageServiceClient<Channel> {
        pb::message_service_client::MessageServiceClient::new(self.channel.clone())
            .max_decoding_message_size(64 * 1024 * 1024)
            .max_encoding_message_size(64 * 1024 * 1024)
    }

    /// GroupService client.
    pub fn groups(&self) -> pb::group_service_client::GroupServiceClient<Channel> {
        pb::group_service_client::GroupServiceClient::new(self.channel.clone())
    }

    /// AgentToolService client.
    pub fn tools(&self) -> pb::agent_tool_service_client::AgentToolServiceClient<Channel> {
        pb::agent_tool_service_client::AgentToolServiceClient::new(self.channel.clone())
            .max_decoding_message_size(64 * 1024 * 1024)
    }

    /// MediaService client.
    pub fn media(&self) -> pb::media_service_client::MediaServiceClient<Channel> {
        pb::media_service_client::MediaServiceClient::new(self.channel.clone())
            .max_encoding_message_size(16 * 1024 * 1024)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resident_set_is_the_sum_of_its_parts_from_one_read() {
        let [rss, anon, file, shmem] = status_fields(
            std::process::id(),
            ["VmRSS", "RssAnon", "RssFile", "RssShmem"],
        )
        .unwrap();
        assert!(anon > 0 && file > 0, "{anon} {file}");
        assert_eq!(rss, anon + file + shmem);
    }

    #[test]
    fn a_missing_field_is_named() {
        let err = status_fields(std::process::id(), ["VmRSS", "NoSuchField"]).unwrap_err();
        assert!(err.to_string().ends_with("has no NoSuchField"), "{err}");
    }
}
