//! The layers, checked from the workspace's manifests (`cargo metadata`):
//!
//! 1. each gateway crate depends (as a normal dependency) only on the
//!    gateway crates its layer allows: leaves (`config`, `telemetry`, `tls`)
//!    under the domain, the domain under the adapters (`onebot`, `fetch`,
//!    `store`) and the edges (`grpc`, `mcp`), and only the server crate over
//!    all of them;
//! 2. the domain and the leaves under it carry no network transport, and no
//!    crate but `store` carries a storage engine.
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
const ENGINES: &[&str] = &["rusqlite", "tokio-postgres"];

/// The crates that carry no transport: the leaves the use cases stand on and
/// the use cases.
const TRANSPORT_FREE: &[&str] = &["onebot-gateway-config", "onebot-gateway-domain"];

/// The one crate that carries storage engines.
const STORE: &str = "onebot-gateway-store";

/// Every workspace package's normal dependencies, by package name.
fn normal_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].is_null())
                .map(|d| d["name"].as_str().expect("name").to_owned())
                .collect();
            (p["name"].as_str().expect("name").to_owned(), deps)
        })
        .collect()
}

/// What breaks the rules in `deps`, one line each.
fn violations(deps: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut out = Vec::new();
    for (krate, its) in deps {
        if let Some(ok) = allowed.get(krate.as_str()) {
            for dep in its.iter().filter(|d| d.starts_with("onebot-")) {
                if !ok.contains(&dep.as_str()) {
                    out.push(format!("{krate} depends on {dep}"));
                }
            }
        }
        let banned = |dep: &String| {
            (TRANSPORT_FREE.contains(&krate.as_str()) && TRANSPORTS.contains(&dep.as_str()))
                || (krate.starts_with("onebot-gateway-")
                    && krate != STORE
                    && ENGINES.contains(&dep.as_str()))
        };
        for dep in its.iter().filter(|d| banned(d)) {
            out.push(format!("{krate} depends on {dep}"));
        }
    }
    out
}

#[test]
fn every_gateway_crate_has_a_rule() {
    let deps = normal_dependencies();
    let gateway: BTreeSet<&str> = deps
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
    assert_eq!(violations(&normal_dependencies()), Vec::<String>::new());
}

#[test]
fn the_check_catches_what_it_is_for() {
    let mut deps = normal_dependencies();
    deps.get_mut("onebot-gateway-domain")
        .unwrap()
        .extend(["onebot-gateway-onebot".to_owned(), "rusqlite".to_owned()]);
    deps.get_mut("onebot-gateway-grpc")
        .unwrap()
        .insert("onebot-gateway-mcp".to_owned());
    deps.get_mut("onebot-gateway-config")
        .unwrap()
        .insert("tonic".to_owned());
    deps.get_mut("onebot-gateway-mcp")
        .unwrap()
        .insert("tokio-postgres".to_owned());
    assert_eq!(
        violations(&deps),
        [
            "onebot-gateway-config depends on tonic",
            "onebot-gateway-domain depends on onebot-gateway-onebot",
            "onebot-gateway-domain depends on rusqlite",
            "onebot-gateway-grpc depends on onebot-gateway-mcp",
            "onebot-gateway-mcp depends on tokio-postgres",
        ]
    );
}
