//! The layers, checked from the workspace's dependency graph (`cargo
//! metadata`, this machine's platform):
//!
//! 1. each gateway crate depends directly only on the gateway crates its
//!    layer allows: leaves (`config`, `telemetry`, `tls`) under the domain,
//!    the domain under the adapters (`onebot`, `fetch`, `store`) and the
//!    edges (`grpc`, `mcp`), and only the server crate over all of them;
//! 2. at any depth, the config and the domain reach no network transport,
//!    and no layer but `store` reaches a storage engine.
//!
//! Cargo refuses a cycle between crates; these tests keep the direction.
//! Tests (dev-dependencies) may use anything: a use case's tests drive it
//! with the real decoders and stores.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// The gateway crates each gateway crate may depend on.
const ALLOWED: &[(&str, &[&str])] = &[
    ("onebot-gateway-config", &[]),
    ("onebot-gateway-telemetry", &["onebot-gateway-config"]),
    (
        "onebot-gateway-tls",
        &["onebot-gateway-config", "onebot-gateway-telemetry"],
    ),
    (
        "onebot-gateway-domain",
        &["onebot-gateway-config", "onebot-gateway-telemetry"],
    ),
    (
        "onebot-gateway-fetch",
        &["onebot-gateway-config", "onebot-gateway-domain"],
    ),
    (
        "onebot-gateway-onebot",
        &[
            "onebot-gateway-config",
            "onebot-gateway-telemetry",
            "onebot-gateway-tls",
            "onebot-gateway-domain",
        ],
    ),
    (
        "onebot-gateway-milky",
        &[
            "onebot-gateway-config",
            "onebot-gateway-telemetry",
            "onebot-gateway-tls",
            "onebot-gateway-domain",
        ],
    ),
    (
        "onebot-gateway-nats",
        &[
            "onebot-gateway-config",
            "onebot-gateway-telemetry",
            "onebot-gateway-domain",
        ],
    ),
    (
        "onebot-gateway-store",
        &[
            "onebot-gateway-config",
            "onebot-gateway-tls",
            "onebot-gateway-domain",
        ],
    ),
    (
        "onebot-gateway-grpc",
        &[
            "onebot-gateway-client",
            "onebot-gateway-config",
            "onebot-gateway-telemetry",
            "onebot-gateway-domain",
        ],
    ),
    (
        "onebot-gateway-mcp",
        &[
            "onebot-gateway-config",
            "onebot-gateway-telemetry",
            "onebot-gateway-domain",
        ],
    ),
];

/// Crates that carry a network transport.
const TRANSPORTS: &[&str] = &[
    "tonic",
    "tokio-tungstenite",
    "tungstenite",
    "reqwest",
    "hyper",
    "axum",
    "rmcp",
];

/// Crates that carry a storage engine.
const ENGINES: &[&str] = &["redb", "rusqlite", "tokio-postgres"];

/// The crates that carry no transport: the leaves the use cases stand on and
/// the use cases.
const TRANSPORT_FREE: &[&str] = &["onebot-gateway-config", "onebot-gateway-domain"];

/// The one crate that carries storage engines.
const STORE: &str = "onebot-gateway-store";

/// The workspace's dependency graph, normal (non-dev, non-build) edges only.
struct Graph {
    /// Each workspace package's direct dependencies, by package name.
    direct: BTreeMap<String, BTreeSet<String>>,
    /// Each workspace package's dependencies at any depth, by package name.
    all: BTreeMap<String, BTreeSet<String>>,
}

fn graph() -> Graph {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    let host = String::from_utf8_lossy(&version.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The graph as built on this machine (no other platform's crates).
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", &host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    let name_of: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let edges: BTreeMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .expect("resolve nodes")
        .iter()
        .map(|n| {
            let normal = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"].is_null())
                })
                .map(|d| d["pkg"].as_str().unwrap())
                .collect();
            (n["id"].as_str().unwrap(), normal)
        })
        .collect();
    let mut direct = BTreeMap::new();
    let mut all = BTreeMap::new();
    for member in meta["workspace_members"].as_array().expect("members") {
        let id = member.as_str().unwrap();
        let name = name_of[id].to_owned();
        direct.insert(
            name.clone(),
            edges[id].iter().map(|d| name_of[d].to_owned()).collect(),
        );
        let mut seen = BTreeSet::new();
        let mut todo = edges[id].clone();
        while let Some(d) = todo.pop() {
            if seen.insert(d) {
                todo.extend(edges[d].iter().copied());
            }
        }
        all.insert(name, seen.iter().map(|d| name_of[d].to_owned()).collect());
    }
    Graph { direct, all }
}

/// What breaks the rules in `g`, one line each.
fn violations(g: &Graph) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut out = Vec::new();
    for (krate, its) in &g.direct {
        if let Some(ok) = allowed.get(krate.as_str()) {
            for dep in its.iter().filter(|d| d.starts_with("onebot-")) {
                if !ok.contains(&dep.as_str()) {
                    out.push(format!("{krate} depends on {dep}"));
                }
            }
        }
        let banned = |dep: &String| {
            (TRANSPORT_FREE.contains(&krate.as_str()) && TRANSPORTS.contains(&dep.as_str()))
                || (allowed.contains_key(krate.as_str())
                    && krate != STORE
                    && ENGINES.contains(&dep.as_str()))
        };
        for dep in g.all[krate].iter().filter(|d| banned(d)) {
            out.push(format!("{krate} depends on {dep}"));
        }
    }
    out
}

#[test]
fn every_gateway_crate_has_a_rule() {
    let g = graph();
    let gateway: BTreeSet<&str> = g
        .direct
        .keys()
        .map(String::as_str)
        .filter(|n| n.starts_with("onebot-gateway-"))
        .filter(|n| {
            !["client", "tests", "testkit"]
                .iter()
                .any(|s| n.ends_with(&format!("-{s}")))
        })
        .collect();
    let ruled: BTreeSet<&str> = ALLOWED.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        gateway, ruled,
        "a crate without a rule, or a rule without a crate"
    );
}

#[test]
fn layers_depend_only_downwards() {
    assert_eq!(violations(&graph()), Vec::<String>::new());
}

#[test]
fn the_check_catches_what_it_is_for() {
    let mut g = graph();
    let mut add =
        |map: fn(&mut Graph) -> &mut BTreeMap<String, BTreeSet<String>>, krate: &str, dep: &str| {
            map(&mut g).get_mut(krate).unwrap().insert(dep.to_owned());
        };
    add(
        |g| &mut g.direct,
        "onebot-gateway-domain",
        "onebot-gateway-onebot",
    );
    add(
        |g| &mut g.direct,
        "onebot-gateway-grpc",
        "onebot-gateway-mcp",
    );
    // Reached through another crate: a leaf that took on a web server.
    add(|g| &mut g.all, "onebot-gateway-domain", "axum");
    add(|g| &mut g.all, "onebot-gateway-config", "tonic");
    add(|g| &mut g.all, "onebot-gateway-mcp", "rusqlite");
    assert_eq!(
        violations(&g),
        [
            "onebot-gateway-config depends on tonic",
            "onebot-gateway-domain depends on onebot-gateway-onebot",
            "onebot-gateway-domain depends on axum",
            "onebot-gateway-grpc depends on onebot-gateway-mcp",
            "onebot-gateway-mcp depends on rusqlite",
        ]
    );
}
