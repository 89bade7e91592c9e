//! Time-budgeted property fuzzing (proptest, stable toolchain) of the code
//! that reads untrusted or hand-written input: the peer frame decoder, the
//! CQ-code parser, the agent-tool argument parser (with its JavaScript
//! number rules) and the configuration loader (TOML and environment).
//!
//! Each target runs fresh random batches until its budget is spent:
//! `ONEBOT_FUZZ_SECS` seconds (default 2; `scripts/reliability-report.sh`,
//! the `reliability` stage of `scripts/test.sh`, gives it more). A failure
//! is shrunk to a minimal input and reported with it. Every target prints
//! `fuzz <target>: <n> inputs in <s> s`, and appends `<target> <n>` to
//! `$ONEBOT_FUZZ_REPORT` when set (the reliability report counts them).

use std::time::{Duration, Instant};

use onebot_gateway_config::{Config, Overrides};
use onebot_gateway_domain::tools::args::{Args, parse_media, parse_target};
use onebot_gateway_domain::tools::history::HistoryArgs;
use onebot_gateway_domain::tools::js::js_number;
use onebot_gateway_domain::tools::members::MembersArgs;
use onebot_gateway_domain::tools::poke::PokeArgs;
use onebot_gateway_domain::tools::send::SendArgs;
use onebot_gateway_onebot::frame::Frame;
use onebot_gateway_onebot::{cq, events};
use proptest::prelude::*;
use proptest::test_runner::{Config as PropConfig, TestCaseError, TestRunner};

const BATCH: u32 = 128;

fn budget() -> Duration {
    let secs = std::env::var("ONEBOT_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

/// Runs `property` over `strategy` in random batches until the budget is
/// spent; panics with the shrunk input on a failure.
fn fuzz<S: Strategy>(
    target: &str,
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let started = Instant::now();
    let budget = budget();
    let mut tried: u64 = 0;
    while tried == 0 || started.elapsed() < budget {
        let mut runner = TestRunner::new(PropConfig {
            cases: BATCH,
            failure_persistence: None,
            ..PropConfig::default()
        });
        if let Err(e) = runner.run(&strategy, &property) {
            panic!("fuzz {target}: {e}");
        }
        tried += u64::from(BATCH);
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!("fuzz {target}: {tried} inputs in {secs:.1} s");
    crate::hardening::report_inputs(target, usize::try_from(tried).unwrap_or(usize::MAX));
}

/// Bytes that are mostly JSON: valid frames, frames cut short or with a
/// byte flipped, and arbitrary bytes.
fn frame_bytes() -> impl Strategy<Value = Vec<u8>> {
    let frame = || crate::bad_input::frame().prop_map(|f| f.to_string().into_bytes());
    prop_oneof![
        3 => frame(),
        2 => (frame(), any::<prop::sample::Index>()).prop_map(|(b, i)| {
            let cut = i.index(b.len() + 1);
            b[..cut].to_vec()
        }),
        2 => (frame(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(mut b, i, x)| {
            if !b.is_empty() {
                let at = i.index(b.len());
                b[at] = x;
            }
            b
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..256),
        1 => (1usize..2000).prop_map(|d| format!("{}{}", "{\"a\":[".repeat(d), "]}".repeat(d)).into_bytes()),
    ]
}

#[test]
fn fuzz_the_frame_decoder() {
    fuzz("frame decoder", frame_bytes(), |bytes| {
        let from_bytes = Frame::from_slice(&bytes);
        if let Ok(text) = std::str::from_utf8(&bytes) {
            let from_text = Frame::parse(text);
            prop_assert_eq!(from_text.is_ok(), from_bytes.is_ok());
        }
        if let Ok(frame) = from_bytes {
            let value = frame.into_value();
            prop_assert!(value.is_object());
            let _ = events::is_event(&value);
            let _ = events::decode(&value);
            // What decoded re-encodes and decodes to the same tree.
            let again = Frame::parse(&value.to_string()).map(Frame::into_value);
            prop_assert_eq!(again.ok(), Some(value));
        }
        Ok(())
    });
}

#[test]
fn fuzz_the_cq_code_parser() {
    let text = prop_oneof![
        ".{0,120}",
        "(\\[CQ:[a-z]{0,6}(,[a-z]{0,4}=[^\\]]{0,8}){0,3}\\]?|&#91;|&#93;|&amp;|&#44;|[^\\[]{0,6}){0,12}",
    ];
    fuzz("CQ-code parser", text, |s| {
        let segments = cq::parse(&s);
        for seg in &segments {
            prop_assert!(seg["type"].is_string(), "{seg}");
            prop_assert!(seg["data"].is_object(), "{seg}");
        }
        // Encoding what was parsed and parsing it again is stable.
        let again = cq::parse(&cq::encode(&segments));
        prop_assert_eq!(cq::parse(&cq::encode(&again)), again);
        let _ = cq::unescape(&s);
        Ok(())
    });
}

#[test]
fn fuzz_the_tool_argument_parser() {
    let input = (crate::bad_input::tool_arguments(), ".{0,40}");
    fuzz("tool argument parser", input, |(text, raw)| {
        if let Ok(args) = Args::parse(&text) {
            let _ = HistoryArgs::parse(&args);
            let _ = MembersArgs::parse(&args);
            let _ = SendArgs::parse(&args);
            let _ = PokeArgs::parse(&args);
            let _ = args.account_id();
            let _ = args.chat(true);
            let _ = args.qq_id("groupId");
            let _ = args.qq_id("userId");
            let _ = args.clamped("count", 20, 100);
        }
        let _ = parse_target(&raw);
        let _ = parse_media(&raw);
        // JavaScript `Number(s)`: surrounding white space never changes it.
        let n = js_number(&raw);
        let padded = js_number(&format!(" {raw}\t"));
        prop_assert!(
            n.to_bits() == padded.to_bits() || (n.is_nan() && padded.is_nan()),
            "{raw:?}: {n} vs {padded}"
        );
        Ok(())
    });
}

/// Keys of every section, with the tables they live in.
const KEYS: &[(&str, &str)] = &[
    ("server", "listen"),
    ("server", "data_dir"),
    ("server", "grace_period_ms"),
    ("events", "buffer_size"),
    ("events", "heartbeat_secs"),
    ("media", "ttl_secs"),
    ("media", "image_max_bytes"),
    ("media", "staging_quota_bytes"),
    ("media", "media_roots"),
    ("media", "url_allow_networks"),
    ("limits", "max_request_bytes"),
    ("limits", "max_event_streams"),
    ("limits", "request_timeout_ms"),
    ("limits", "upload_timeout_ms"),
    ("tools", "enabled"),
    ("tools", "locale"),
    ("reverse_ws", "listen"),
    ("reverse_ws", "path"),
    ("sandbox", "flavor"),
    ("sandbox", "groups"),
    ("accounts.a", "ws_url"),
    ("accounts.a", "http_url"),
    ("accounts.a", "groups"),
    ("accounts.a", "flavor"),
    ("accounts.a", "reply_chunk_size"),
    ("accounts.a", "queue_max_entries"),
    ("accounts.a", "rate_group_per_minute"),
    ("accounts.a", "backoff_min_ms"),
    ("accounts.a", "backoff_max_ms"),
    ("accounts.a", "shared_dir"),
    ("accounts.\"b c\"", "ws_url"),
    ("metrics", "listen"),
    ("telemetry", "level"),
    ("auth", "tokens"),
    ("", "timezone"),
    ("", "unknown_key"),
];

fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        "[a-z0-9:/._ -]{0,24}".prop_map(|s| format!("{s:?}")),
        Just("\"ws://127.0.0.1:3001\"".to_owned()),
        Just("\"127.0.0.1:0\"".to_owned()),
        Just("\"Asia/Shanghai\"".to_owned()),
        proptest::collection::vec(any::<i32>(), 0..4).prop_map(|v| format!("{v:?}")),
        Just("[{ name = \"t\", env = \"NO_SUCH_VAR\" }]".to_owned()),
        Just("{ local = \"/a\", peer = \"b\" }".to_owned()),
        Just("1.5".to_owned()),
        "[^\\n]{0,12}",
    ]
}

/// TOML documents of known keys with values of every type (and some that
/// are not TOML at all), plus environment overrides.
fn config_input() -> impl Strategy<Value = (String, Vec<(String, String)>)> {
    let entry = (proptest::sample::select(KEYS), toml_value());
    let doc = proptest::collection::vec(entry, 0..8).prop_map(|entries| {
        let mut doc = String::new();
        let mut top = String::new();
        for ((table, key), value) in entries {
            if table.is_empty() {
                top.push_str(&format!("{key} = {value}\n"));
            } else {
                doc.push_str(&format!("[{table}]\n{key} = {value}\n"));
            }
        }
        top + &doc
    });
    let env = proptest::collection::vec(
        (
            proptest::sample::select(KEYS),
            "[a-z0-9:/._\\[\\]{}=,\"-]{0,16}",
        )
            .prop_map(|((table, key), value)| {
                let path = if table.is_empty() {
                    key.to_uppercase()
                } else {
                    format!("{}__{}", table.replace('.', "__"), key).to_uppercase()
                };
                (format!("ONEBOT_GATEWAY__{path}"), value)
            }),
        0..3,
    );
    (prop_oneof![4 => doc, 1 => ".{0,80}"], env)
}

#[test]
fn fuzz_the_config_loader() {
    fuzz("config loader", config_input(), |(toml, env)| {
        match Config::from_toml(&toml) {
            Ok(config) => {
                prop_assert!(config.validate().is_ok());
                // What loaded prints and loads again (secrets redacted).
                let printed = config.to_redacted_toml();
                prop_assert!(Config::from_toml(&printed).is_ok(), "{printed}");
            }
            Err(e) => prop_assert!(e.to_string().starts_with("configuration"), "{e}"),
        }
        let dir = std::env::temp_dir().join(format!("onebot-fuzz-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join(format!("{:x}.toml", fxhash(&toml)));
        std::fs::write(&file, &toml).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let loaded = Config::load(Some(&file), env, &Overrides::default());
        let _ = std::fs::remove_file(&file);
        if let Err(e) = loaded {
            prop_assert!(e.to_string().starts_with("configuration"), "{e}");
        }
        Ok(())
    });
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}
