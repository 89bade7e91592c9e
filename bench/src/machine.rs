//! What the benchmark ran on: CPU, cores, memory, kernel, load (from
//! `/proc`), the git commit and the date.

use std::process::Command;

/// The machine and the code a run measured.
#[derive(Debug, Clone)]
pub struct Machine {
    /// `model name` of the first CPU.
    pub cpu: String,
    /// Logical CPUs.
    pub cores: usize,
    /// `MemTotal`, in bytes.
    pub ram: u64,
    /// Kernel release.
    pub kernel: String,
    /// `git rev-parse HEAD` (plus `-dirty` with uncommitted changes).
    pub commit: String,
    /// When the run started (UTC).
    pub date: String,
}

impl Machine {
    /// Reads everything now.
    pub fn read() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|r| r.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| "unknown".into());
        let cores = cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count()
            .max(1);
        let ram = std::fs::read_to_string("/proc/meminfo")
            .unwrap_or_default()
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024);
        let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".into());
        Machine {
            cpu,
            cores,
            ram,
            kernel,
            commit: commit(),
            date: jiff::Timestamp::now()
                .strftime("%Y-%m-%d %H:%M:%S UTC")
                .to_string(),
        }
    }
}

/// `/proc/loadavg`'s three averages.
pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".into())
}

fn commit() -> String {
    let root = crate::procs::workspace_root();
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(&root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(head) = git(&["rev-parse", "HEAD"]) else {
        return "unknown".into();
    };
    // RESULTS.md itself is rewritten by the run: it does not make the tree
    // dirty.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .map(|s| {
            s.lines()
                .any(|l| !l.trim_end().ends_with("bench/RESULTS.md"))
        })
        .unwrap_or(false);
    if dirty { format!("{head}-dirty") } else { head }
}
