//! Lays out the release binary's code in the order of
//! `link/symbol-order.txt`: the functions the gateway runs from start to idle
//! come first, side by side, so an idle gateway maps a few megabytes of its
//! code instead of most of it (the kernel maps code around each page it
//! faults in, so code spread over the whole binary maps nearly all of it).
//!
//! Only lld (Rust's default linker on x86_64 Linux since 1.90) reads the file;
//! the order applies to release builds on that target and is skipped when a
//! linker is configured (`RUSTC_LINKER`, `-C linker` in the flags) or when
//! `ONEBOT_GATEWAY_SYMBOL_ORDER=0`. A symbol the binary no longer has is
//! skipped by the linker, so a stale file only loses locality:
//! `scripts/symbol-order.sh` writes it again.

use std::path::Path;
use std::process::Command;

const ORDER_FILE: &str = "link/symbol-order.txt";

fn main() {
    println!("cargo:rerun-if-changed={ORDER_FILE}");
    println!("cargo:rerun-if-env-changed=ONEBOT_GATEWAY_SYMBOL_ORDER");
    if !orders_symbols() {
        return;
    }
    let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") else {
        return;
    };
    let file = Path::new(&dir).join(ORDER_FILE);
    if !file.is_file() {
        return;
    }
    for arg in [
        format!("-Wl,--symbol-ordering-file={}", file.display()),
        "-Wl,--no-warn-symbol-ordering".to_owned(),
    ] {
        println!("cargo:rustc-link-arg-bin=onebot-gateway={arg}");
    }
}

/// True when this build links with Rust's own lld: a release build for
/// x86_64 Linux (glibc) by rustc 1.90 or newer, with no linker configured.
fn orders_symbols() -> bool {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("ONEBOT_GATEWAY_SYMBOL_ORDER") == "0" || var("PROFILE") != "release" {
        return false;
    }
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64"
        || var("CARGO_CFG_TARGET_OS") != "linux"
        || var("CARGO_CFG_TARGET_ENV") != "gnu"
    {
        return false;
    }
    // A configured linker may not be lld; nor may one chosen in the flags.
    if std::env::var_os("RUSTC_LINKER").is_some() || var("CARGO_ENCODED_RUSTFLAGS").contains("link")
    {
        return false;
    }
    rustc_minor().is_some_and(|minor| minor >= 90)
}

/// The minor version of the rustc building this crate (`rustc 1.95.0 ...`).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}
