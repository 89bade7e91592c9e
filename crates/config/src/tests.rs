//! Loading, layering and validation of the whole configuration.

use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_validate() {
    let c = Config::load(None, env(&[]), &Overrides::default()).unwrap();
    assert_eq!(c.server.listen.to_string(), "127.0.0.1:50051");
    assert!(c.accounts.is_empty());
    assert_eq!(c.timezone, "Asia/Shanghai");
    assert_eq!(c.server.worker_threads, 0);
    let env_threads = Config::load(
        None,
        env(&[("ONEBOT_GATEWAY__SERVER__WORKER_THREADS", "1")]),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(env_threads.server.worker_threads, 1);
    assert!(c.archive.enabled);
    assert_eq!(c.archive.retention_days, 30);
    assert_eq!(c.archive.max_bytes, 1024 * 1024 * 1024);
    assert_eq!(c.archive.backfill_max_messages, 500);
    assert_eq!(c.archive.max_text_bytes, 64 * 1024);
    assert_eq!(c.events.buffer_bytes, 16 * 1024 * 1024);
    assert_eq!(c.limits.max_event_frame_bytes, 4 * 1024 * 1024);
    assert!(c.archive.url.is_none() && c.archive.chats.is_empty());
    assert_eq!(c.limits.max_share_per_client, 0.5);
    assert_eq!(c.limits.first_message_timeout_ms, 10_000);
    assert_eq!(c.limits.share_of(256), 128);
    assert_eq!(c.limits.share_of(1), 1);
    assert_eq!(c.limits.max_anonymous_health_watches, 128);
    assert_eq!(c.limits.max_anonymous_health_watches_per_address, 16);
}

#[test]
fn a_milky_account_names_its_url_and_event_transport() {
    let c = Config::from_toml(
        "[accounts.milky]\nmilky_url = \"http://127.0.0.1:3010\"\naccess_token = \"t\"\nmilky_events = \"sse\"\ngroups = [123456789]\nusers = [10001]\n[accounts.ob]\nws_url = \"ws://127.0.0.1:3001\"",
    )
    .unwrap();
    let milky = &c.accounts["milky"];
    assert_eq!(milky.protocol(), Protocol::Milky);
    assert_eq!(milky.milky_events, MilkyEvents::Sse);
    assert!(milky.has_transport());
    assert_eq!(c.accounts["ob"].protocol(), Protocol::OneBotV11);
    assert_eq!(c.accounts["ob"].milky_events, MilkyEvents::WebSocket);
    assert_eq!(Protocol::Milky.name(), "milky");
    let err =
        Config::from_toml("[accounts.m]\nmilky_url = \"http://x\"\nmilky_events = \"webhook\"")
            .unwrap_err()
            .to_string();
    assert!(err.contains("milky_events"), "{err}");
}

#[test]
fn the_archive_url_is_a_secret_everywhere() {
    let c = Config::from_toml(
        "[archive]\nurl = \"postgres://gw:hunter2@db.internal:5432/chat\"\nchats = [\"private:10001\"]",
    )
    .unwrap();
    assert_eq!(parse_chat(&c.archive.chats[0]), Some(("private", 10001)));
    let printed = c.to_redacted_toml();
    assert!(!printed.contains("hunter2"), "{printed}");
    assert!(printed.contains("db.internal"), "{printed}");
    assert!(!format!("{:?}", c.archive).contains("hunter2"));
    let off = Config::load(
        None,
        env(&[("ONEBOT_GATEWAY__ARCHIVE__ENABLED", "false")]),
        &Overrides::default(),
    )
    .unwrap();
    assert!(!off.archive.enabled);
}

#[test]
fn toml_accounts_and_env_layering() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.toml");
    std::fs::write(
        &path,
        r#"
        [server]
        listen = "127.0.0.1:6000"
        [accounts.default]
        ws_url = "ws://127.0.0.1:3001/"
        access_token = "s3cret"
        groups = [20000002]
        "#,
    )
    .unwrap();
    let c = Config::load(
        Some(&path),
        env(&[
            ("ONEBOT_GATEWAY__ACCOUNTS__DEFAULT__REPLY_CHUNK_SIZE", "500"),
            (
                "ONEBOT_GATEWAY__ACCOUNTS__OTHER__HTTP_URL",
                "http://127.0.0.1:3000",
            ),
            ("UNRELATED", "x"),
        ]),
        &Overrides {
            listen: Some("127.0.0.1:7000".parse().unwrap()),
            data_dir: None,
        },
    )
    .unwrap();
    assert_eq!(c.server.listen.port(), 7000);
    let d = &c.accounts["default"];
    assert_eq!(d.reply_chunk_size, 500);
    assert_eq!(d.groups, vec![20000002]);
    assert!(d.users.is_empty(), "private sends are off by default");
    assert_eq!(d.access_token.as_ref().unwrap().expose(), "s3cret");
    assert!(format!("{d:?}").contains("<redacted>"));
    assert!(!format!("{d:?}").contains("s3cret"));
    assert_eq!(
        c.accounts["other"].http_url.as_deref(),
        Some("http://127.0.0.1:3000")
    );
    let printed = c.to_redacted_toml();
    assert!(printed.contains("<redacted>"), "{printed}");
    assert!(!printed.contains("s3cret"), "{printed}");
}

#[test]
fn errors_name_the_key() {
    let cases = [
        ("[accounts.a]\nws_url = \"http://x\"", "accounts.a.ws_url"),
        (
            "[accounts.a]\nbackoff_min_ms = 20000",
            "accounts.a.backoff_min_ms",
        ),
        (
            "[media]\nvideo_max_bytes = 60000000",
            "media.video_max_bytes",
        ),
        ("timezone = \"Mars/Olympus\"", "timezone"),
        ("[accounts.a]\ngroups = [-1]", "accounts.a.groups[0]"),
        ("[accounts.a]\nusers = [5, 0]", "accounts.a.users[1]"),
        ("[accounts.a]\nflavor = \"qq\"", "accounts.a.flavor"),
        ("[server]\nlisten = \"nope\"", "server.listen"),
        ("[accounts.a]\nbogus = 1", "bogus"),
        (
            "[media]\nurl_allow_networks = [\"10.0.0.0/33\"]",
            "media.url_allow_networks[0]",
        ),
        (
            "[accounts.a]\nrisk_backoff_min_secs = 4000",
            "accounts.a.risk_backoff_min_secs",
        ),
    ];
    for (text, key) in cases {
        let err = Config::from_toml(text).unwrap_err().to_string();
        assert!(err.contains(key), "{text:?} gave {err}");
    }
}

#[test]
fn media_limit_over_frame_is_refused_but_37_mib_is_fine() {
    assert!(Config::from_toml("[media]\nvideo_max_bytes = 38797312").is_ok());
    assert!(Config::from_toml("[media]\nvideo_max_bytes = 38797313").is_err());
}

/// The `Invalid` error of `text`, as `(key, message)`.
fn refusal(text: &str) -> (String, String) {
    match Config::from_toml(text) {
        Err(ConfigError::Invalid { key, message }) => (key, message),
        other => panic!("{text:?} gave {other:?}"),
    }
}

/// One bad value each: the key and message every check reports.
const ONE_BAD_VALUE: &[(&str, &str, &str)] = &[
    (
        "[ha]",
        "ha.url",
        "the leases need PostgreSQL: set ha.url (or archive.url) to a postgres:// URL",
    ),
    (
        "[ha]\nurl = \"mysql://db/gw\"",
        "ha.url",
        "must be a postgres:// or postgresql:// URL",
    ),
    (
        "[archive]\nurl = \"postgres://db/gw\"\n[ha]\nttl_secs = 2",
        "ha.ttl_secs",
        "must be in 3..=300",
    ),
    (
        "[ha]\nurl = \"postgres://db/gw\"\ninstance = \" \"",
        "ha.instance",
        "a non-empty name of at most 128 bytes",
    ),
    (
        "[policy]\nowners = [0]",
        "policy.owners[0]",
        "0 is not a QQ number",
    ),
    (
        "[policy]\napproval_timeout_secs = 5",
        "policy.approval_timeout_secs",
        "must be in 10..=604800",
    ),
    (
        "[[events.sinks]]\nsubject_prefix = \"qq.*\"",
        "events.sinks[0].subject_prefix",
        "subject tokens separated by dots (letters, digits, _ and -; no wildcards)",
    ),
    (
        "[[events.sinks]]\nstream = \"QQ EVENTS\"",
        "events.sinks[0].stream",
        "a JetStream stream name is letters, digits, _ and -",
    ),
    (
        "[[events.sinks]]\npassword = \"p\"",
        "events.sinks[0].password",
        "a password needs a user",
    ),
    (
        "[[events.sinks]]\n[[events.sinks]]",
        "events.sinks[1].name",
        "another sink is named \"nats\"",
    ),
    (
        "[[events.sinks]]\nduplicate_window_secs = 1",
        "events.sinks[0].duplicate_window_secs",
        "must be in 10..=86400",
    ),
    (
        "[[policy.rules]]\nactions = []",
        "policy.rules[0].actions",
        "name at least one action",
    ),
    (
        "[[policy.rules]]\nactions = [\"ban\"]",
        "policy.rules[0].actions[0]",
        "unknown action \"ban\"; the actions are send, send_private, send_media, send_file, mention_all, recall, poke, react, essence, typing, send_voice, mute, mute_all, kick, set_card",
    ),
    (
        "[[policy.rules]]\nactions = [\"poke\", \"poke\"]",
        "policy.rules[0].actions[1]",
        "\"poke\" is named twice",
    ),
    (
        "[[policy.rules]]\nactions = [\"send\"]\nchats = [\"group:x\"]",
        "policy.rules[0].chats[0]",
        "\"group:x\" is not group:<id> or private:<id> with a positive id",
    ),
    (
        "[[policy.rules]]\nactions = [\"send\"]\nallow_requesters = [\"root\"]",
        "policy.rules[0].allow_requesters[0]",
        "unknown role \"root\"; the roles are bot_owner, owner, admin, member, stranger, none",
    ),
    (
        "[[policy.rules]]\nactions = [\"mention_all\"]\napproval = \"bot_owner\"",
        "policy.rules[0].approval",
        "approval = \"bot_owner\" needs at least one QQ number in policy.owners",
    ),
    (
        "[server]\ngrace_period_ms = 3600001",
        "server.grace_period_ms",
        "must be at most 3600000 (one hour)",
    ),
    (
        "[server]\nworker_threads = 1025",
        "server.worker_threads",
        "must be at most 1024 (0 means one per CPU core)",
    ),
    (
        "timezone = \"Mars/Olympus\"",
        "timezone",
        "unknown time zone \"Mars/Olympus\"",
    ),
    (
        "[sandbox]\nflavor = \"qq\"",
        "sandbox.flavor",
        "unknown flavor \"qq\"; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
    ),
    (
        "[media]\nimage_max_bytes = 0",
        "media.image_max_bytes",
        "must be positive",
    ),
    (
        "[media]\nvideo_max_bytes = 0",
        "media.video_max_bytes",
        "must be positive",
    ),
    (
        "[media]\nfile_max_bytes = 0",
        "media.file_max_bytes",
        "must be positive",
    ),
    (
        "[media]\nimage_max_bytes = 38797313",
        "media.image_max_bytes",
        "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
    ),
    (
        "[media]\nfile_max_bytes = 38797313",
        "media.file_max_bytes",
        "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
    ),
    (
        "[media]\nttl_secs = 0",
        "media.ttl_secs",
        "must be positive",
    ),
    (
        "[media]\nstaging_quota_bytes = 1000",
        "media.staging_quota_bytes",
        "must hold at least one largest upload",
    ),
    (
        "[media]\nurl_timeout_ms = 0",
        "media.url_timeout_ms",
        "must be positive",
    ),
    (
        "[media]\nurl_allow_networks = [\"10.0.0.0/8\", \"10.0.0.0/33\"]",
        "media.url_allow_networks[1]",
        "\"10.0.0.0/33\" is not a network in CIDR form (e.g. 10.1.2.0/24)",
    ),
    (
        "[media]\nmedia_roots = [\"/abs\", \"rel\"]",
        "media.media_roots[1]",
        "must be an absolute path",
    ),
    (
        "[events]\nbuffer_size = 0",
        "events.buffer_size",
        "must be positive",
    ),
    (
        "[events]\nbuffer_bytes = 0",
        "events.buffer_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_event_frame_bytes = 0",
        "limits.max_event_frame_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_event_frame_bytes = 67108865",
        "limits.max_event_frame_bytes",
        "must be at most 64 MiB (the WebSocket message limit)",
    ),
    (
        "[archive]\nmax_text_bytes = 1023",
        "archive.max_text_bytes",
        "must be in 1024..=16777216",
    ),
    (
        "[events]\nheartbeat_secs = 86401",
        "events.heartbeat_secs",
        "must be in 0..=86400",
    ),
    (
        "[archive]\nretention_days = 0",
        "archive.retention_days",
        "must be positive",
    ),
    (
        "[archive]\nmax_bytes = 1000",
        "archive.max_bytes",
        "must be at least 1048576",
    ),
    (
        "[archive]\nchats = [\"group:1\", \"channel:2\"]",
        "archive.chats[1]",
        "\"channel:2\" is not group:<id> or private:<id> with a positive id",
    ),
    (
        "[archive]\nurl = \"mysql://h/db\"",
        "archive.url",
        "must be a postgres:// or postgresql:// URL (leave it out for the embedded store)",
    ),
    (
        "[archive]\nbackfill_max_messages = 0",
        "archive.backfill_max_messages",
        "must be positive",
    ),
    (
        "[reverse_ws]\npath = \"x\"",
        "reverse_ws.path",
        "must start with `/`",
    ),
    (
        "[accounts.\"a b\"]",
        "accounts.a b",
        "account ids use letters, digits, `_` and `-`",
    ),
    (
        "[accounts.\"\"]",
        "accounts.",
        "account ids use letters, digits, `_` and `-`",
    ),
    (
        "[accounts.a]\nws_url = \"wss://x\"",
        "accounts.a.ws_url",
        "wss:// is not supported; reach the implementation over ws:// (loopback or a private network) or terminate TLS in front of it",
    ),
    (
        "[accounts.a]\nws_url = \"http://x\"",
        "accounts.a.ws_url",
        "must be a ws:// URL with a host",
    ),
    (
        "[accounts.a]\nws_url = \"::\"",
        "accounts.a.ws_url",
        "invalid URL: relative URL without a base",
    ),
    (
        "[accounts.a]\nhttp_url = \"ftp://x\"",
        "accounts.a.http_url",
        "must be an http:// or https:// URL",
    ),
    (
        "[accounts.a]\nmilky_url = \"http://127.0.0.1:3010\"\nws_url = \"ws://127.0.0.1:3001\"\nreverse = true",
        "accounts.a.milky_url",
        "an account speaks either Milky (milky_url) or OneBot v11 (ws_url, http_url, reverse); remove milky_url or ws_url and reverse",
    ),
    (
        "[accounts.a]\nmilky_url = \"ws://127.0.0.1:3010\"",
        "accounts.a.milky_url",
        "must be an http:// or https:// URL with a host",
    ),
    (
        "[accounts.a]\nws_url = \"ws://127.0.0.1:3001\"\nmilky_media = \"http\"",
        "accounts.a.milky_media",
        "applies to Milky accounts only (set milky_url or remove it)",
    ),
    (
        "[accounts.a]\nws_url = \"ws://127.0.0.1:3001\"\nmilky_media_listen = \"127.0.0.1:0\"",
        "accounts.a.milky_media_listen",
        "applies to Milky accounts only (set milky_url or remove it)",
    ),
    (
        "[accounts.a]\nmilky_media_url = \"http://127.0.0.1:8900\"",
        "accounts.a.milky_media_url",
        "applies to Milky accounts only (set milky_url or remove it)",
    ),
    (
        "[accounts.a]\nmilky_url = \"http://127.0.0.1:3010\"\nmilky_media_listen = \"localhost:80\"",
        "accounts.a.milky_media_listen",
        "\"localhost:80\" is not an address: expected IP:port, such as 127.0.0.1:0",
    ),
    (
        "[accounts.a]\nmilky_url = \"http://127.0.0.1:3010\"\nmilky_media_url = \"ftp://gw:21\"",
        "accounts.a.milky_media_url",
        "must be an http:// or https:// URL with a host and no query or fragment",
    ),
    (
        "[accounts.a]\nmilky_url = \"http://127.0.0.1:3010\"\nmilky_media_url = \"http://gw:8900/?a=1\"",
        "accounts.a.milky_media_url",
        "must be an http:// or https:// URL with a host and no query or fragment",
    ),
    (
        "[accounts.a]\nmilky_url = \"http://127.0.0.1:3010\"\nmilky_media_url = \"gw:8900\"",
        "accounts.a.milky_media_url",
        "must be an http:// or https:// URL with a host and no query or fragment",
    ),
    (
        "[accounts.a]\nhttp_url = \"nope\"",
        "accounts.a.http_url",
        "invalid URL: relative URL without a base",
    ),
    (
        "[accounts.a]\nreverse = true",
        "accounts.a.reverse",
        "needs a [reverse_ws] listener section",
    ),
    (
        "[reverse_ws]\n[accounts.a]\nreverse = true",
        "accounts.a.self_id",
        "a reverse account needs the bot's QQ number",
    ),
    (
        "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 0",
        "accounts.a.self_id",
        "a reverse account needs the bot's QQ number",
    ),
    (
        "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 1\nws_url = \"ws://x\"",
        "accounts.a.ws_url",
        "a reverse account is dialled by the implementation; remove ws_url or reverse",
    ),
    (
        "[reverse_ws]\nlisten = \"0.0.0.0:8082\"\n[accounts.a]\nreverse = true\nself_id = 1",
        "accounts.a.access_token",
        "a reverse account needs an access_token when reverse_ws.listen (0.0.0.0:8082) is not a loopback address: anyone who reaches the listener could connect as this bot",
    ),
    (
        "[accounts.a]\nflavor = \"qq\"",
        "accounts.a.flavor",
        "unknown flavor \"qq\"; expected auto, napcat, llonebot, lagrange, snowluma, go-cqhttp or generic",
    ),
    (
        "[accounts.a]\nhistory_anchor = \"seq\"",
        "accounts.a.history_anchor",
        "unknown history anchor \"seq\"; expected auto, message_seq, real_seq, message_id_as_seq, message_id or both",
    ),
    (
        "[accounts.a]\nrequest_timeout_ms = 0",
        "accounts.a.request_timeout_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\nconnect_timeout_ms = 0",
        "accounts.a.connect_timeout_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\nbackoff_min_ms = 0",
        "accounts.a.backoff_min_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\nbackoff_min_ms = 20000",
        "accounts.a.backoff_min_ms",
        "must not exceed backoff_max_ms",
    ),
    (
        "[accounts.a]\nauth_retry_ms = 999",
        "accounts.a.auth_retry_ms",
        "must be at least 1000",
    ),
    (
        "[accounts.a]\nping_interval_ms = 0",
        "accounts.a.ping_interval_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\ngroups = [1, -1]",
        "accounts.a.groups[1]",
        "group ids are positive",
    ),
    (
        "[accounts.a]\nreply_chunk_size = 0",
        "accounts.a.reply_chunk_size",
        "must be in 1..=20000",
    ),
    (
        "[accounts.a]\nreply_chunk_size = 20001",
        "accounts.a.reply_chunk_size",
        "must be in 1..=20000",
    ),
    (
        "[accounts.a]\nqueue_max_entries = 0",
        "accounts.a.queue_max_entries",
        "must be positive",
    ),
    (
        "[accounts.a]\nqueue_ttl_secs = 0",
        "accounts.a.queue_ttl_secs",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_group_per_minute = 0",
        "accounts.a.rate_group_per_minute",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_group_burst = 0",
        "accounts.a.rate_group_burst",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_account_per_minute = 0",
        "accounts.a.rate_account_per_minute",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_account_burst = 0",
        "accounts.a.rate_account_burst",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_poke_per_minute = 0",
        "accounts.a.rate_poke_per_minute",
        "must be positive",
    ),
    (
        "[accounts.a]\nrisk_backoff_min_secs = 0",
        "accounts.a.risk_backoff_min_secs",
        "must be positive",
    ),
    (
        "[accounts.a]\nrisk_backoff_min_secs = 4000",
        "accounts.a.risk_backoff_min_secs",
        "must not exceed risk_backoff_max_secs",
    ),
    (
        "[accounts.a]\nmax_pending_calls = 0",
        "accounts.a.max_pending_calls",
        "must be positive",
    ),
    (
        "[accounts.a]\nshared_dir = { local = \"rel\", peer = \"/p\" }",
        "accounts.a.shared_dir",
        "local and peer must be absolute paths",
    ),
    (
        "[accounts.a]\nshared_dir = { local = \"/l\", peer = \"rel\" }",
        "accounts.a.shared_dir",
        "local and peer must be absolute paths",
    ),
    (
        "[server]\nhttp2_keepalive_timeout_ms = 0",
        "server.http2_keepalive_timeout_ms",
        "must be positive when keepalive pings are on",
    ),
    (
        "[server.tls]\ncert_file = \"\"\nkey_file = \"k\"",
        "server.tls.cert_file",
        "must not be empty",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"\"",
        "server.tls.key_file",
        "must not be empty",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nclient_ca_file = \"\"",
        "server.tls.client_ca_file",
        "must not be empty",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nreload_interval_ms = 99",
        "server.tls.reload_interval_ms",
        "must be at least 100",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nhandshake_timeout_ms = 0",
        "server.tls.handshake_timeout_ms",
        "must be positive",
    ),
    (
        "[[auth.tokens]]\nname = \"\"\nvalue = \"x\"\naccounts = [\"*\"]",
        "auth.tokens[0].name",
        "token names use letters, digits, `_`, `-` and `.`",
    ),
    (
        "[[auth.tokens]]\nname = \"a b\"\nvalue = \"x\"\naccounts = [\"*\"]",
        "auth.tokens[0].name",
        "token names use letters, digits, `_`, `-` and `.`",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\n[[auth.tokens]]\nname = \"t\"\nvalue = \"y\"\naccounts = [\"*\"]",
        "auth.tokens[1].name",
        "duplicate token name \"t\"",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\naccounts = [\"*\"]",
        "auth.tokens[0].value",
        "set exactly one of value, value_file and value_env",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\nvalue_env = \"E\"\naccounts = [\"*\"]",
        "auth.tokens[0].value",
        "set exactly one of value, value_file and value_env",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"  \"\naccounts = [\"*\"]",
        "auth.tokens[0].value",
        "must not be empty",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue_env = \"\"\naccounts = [\"*\"]",
        "auth.tokens[0].value_env",
        "must name a variable",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = []",
        "auth.tokens[0].accounts",
        "list the account ids the token may use, or \"*\" for all",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\", \"nope\"]",
        "auth.tokens[0].accounts[1]",
        "unknown account \"nope\"",
    ),
    (
        "[accounts.a]\n[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"a\", \"default\"]",
        "auth.tokens[0].accounts[1]",
        "unknown account \"default\"",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = []",
        "auth.tokens[0].groups",
        "list at least one group, or leave groups out for every group",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = [5, 0]",
        "auth.tokens[0].groups[1]",
        "group ids are positive",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\nusers = []",
        "auth.tokens[0].users",
        "list at least one user, or leave users out",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\nusers = [-3]",
        "auth.tokens[0].users[0]",
        "QQ numbers are positive",
    ),
    (
        "[limits]\nmax_request_bytes = 0",
        "limits.max_request_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_upload_message_bytes = 0",
        "limits.max_upload_message_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_response_bytes = 0",
        "limits.max_response_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_concurrent_requests = 0",
        "limits.max_concurrent_requests",
        "must be positive",
    ),
    (
        "[limits]\nmax_event_streams = 0",
        "limits.max_event_streams",
        "must be positive",
    ),
    (
        "[limits]\nmax_anonymous_health_watches = 0",
        "limits.max_anonymous_health_watches",
        "must be positive",
    ),
    (
        "[limits]\nmax_anonymous_health_watches_per_address = 129",
        "limits.max_anonymous_health_watches_per_address",
        "must be at most limits.max_anonymous_health_watches",
    ),
    (
        "[limits]\nmax_event_streams_per_client = 0",
        "limits.max_event_streams_per_client",
        "must be positive",
    ),
    (
        "[limits]\nmax_concurrent_streams_per_connection = 0",
        "limits.max_concurrent_streams_per_connection",
        "must be positive",
    ),
    (
        "[limits]\nrequest_timeout_ms = 0",
        "limits.request_timeout_ms",
        "must be positive",
    ),
    (
        "[limits]\nupload_timeout_ms = 0",
        "limits.upload_timeout_ms",
        "must be positive",
    ),
    (
        "[limits]\nmax_share_per_client = 0.0",
        "limits.max_share_per_client",
        "must be above 0 and at most 1",
    ),
    (
        "[limits]\nmax_share_per_client = 1.5",
        "limits.max_share_per_client",
        "must be above 0 and at most 1",
    ),
    (
        "[limits]\nfirst_message_timeout_ms = 0",
        "limits.first_message_timeout_ms",
        "must be positive",
    ),
    (
        "[limits]\nmax_share_per_client = 0.01",
        "limits.max_share_per_client",
        "leaves one client less of media.staging_quota_bytes than the largest upload",
    ),
    (
        "[limits]\nmax_request_bytes = 4294967296",
        "limits.max_request_bytes",
        "must be below 4 GiB",
    ),
    (
        "[limits]\nmax_upload_message_bytes = 4294967296",
        "limits.max_upload_message_bytes",
        "must be below 4 GiB",
    ),
    (
        "[limits]\nmax_response_bytes = 4294967296",
        "limits.max_response_bytes",
        "must be below 4 GiB",
    ),
    (
        "[metrics]\npath = \"x\"",
        "metrics.path",
        "must start with `/`",
    ),
    (
        "[metrics]\nlisten = \"127.0.0.1:50051\"",
        "metrics.listen",
        "must differ from server.listen",
    ),
];

/// Several bad values: the check that runs first decides the error.
const FIRST_CHECK_WINS: &[(&str, &str, &str)] = &[
    (
        "timezone = \"Mars/Olympus\"\n[server]\ngrace_period_ms = 3600001",
        "server.grace_period_ms",
        "must be at most 3600000 (one hour)",
    ),
    (
        "timezone = \"Mars/Olympus\"\n[sandbox]\nflavor = \"qq\"",
        "timezone",
        "unknown time zone \"Mars/Olympus\"",
    ),
    (
        "[sandbox]\nflavor = \"qq\"\n[media]\nttl_secs = 0",
        "sandbox.flavor",
        "unknown flavor \"qq\"; expected napcat, llonebot, lagrange, snowluma or go-cqhttp",
    ),
    (
        "[media]\nmedia_roots = [\"rel\"]\nurl_allow_networks = [\"x\"]",
        "media.url_allow_networks[0]",
        "\"x\" is not a network in CIDR form (e.g. 10.1.2.0/24)",
    ),
    (
        "[media]\nimage_max_bytes = 0\nvideo_max_bytes = 38797313",
        "media.image_max_bytes",
        "must be positive",
    ),
    (
        "[media]\nimage_max_bytes = 38797313\nvideo_max_bytes = 0",
        "media.image_max_bytes",
        "38797313 bytes cannot be carried to the peer: NapCat's 50 MB WebSocket frame holds about 38797312 bytes of base64-encoded media",
    ),
    (
        "[media]\nurl_timeout_ms = 0\nstaging_quota_bytes = 1",
        "media.staging_quota_bytes",
        "must hold at least one largest upload",
    ),
    (
        "[events]\nbuffer_size = 0\n[media]\nttl_secs = 0",
        "media.ttl_secs",
        "must be positive",
    ),
    (
        "[events]\nbuffer_size = 0\n[reverse_ws]\npath = \"x\"",
        "events.buffer_size",
        "must be positive",
    ),
    (
        "[reverse_ws]\npath = \"x\"\n[accounts.a]\nflavor = \"qq\"",
        "reverse_ws.path",
        "must start with `/`",
    ),
    (
        "[accounts.b]\nflavor = \"qq\"\n[accounts.a]\nping_interval_ms = 0",
        "accounts.a.ping_interval_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\nflavor = \"qq\"\nws_url = \"http://x\"",
        "accounts.a.ws_url",
        "must be a ws:// URL with a host",
    ),
    (
        "[accounts.a]\nreverse = true\nhttp_url = \"ftp://x\"",
        "accounts.a.http_url",
        "must be an http:// or https:// URL",
    ),
    (
        "[accounts.a]\nbackoff_min_ms = 0\nbackoff_max_ms = 0",
        "accounts.a.backoff_min_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\nrisk_backoff_min_secs = 0\nrisk_backoff_max_secs = 0",
        "accounts.a.risk_backoff_min_secs",
        "must be positive",
    ),
    (
        "[accounts.a]\nrate_poke_per_minute = 0\nrate_group_burst = 0\nqueue_ttl_secs = 0",
        "accounts.a.queue_ttl_secs",
        "must be positive",
    ),
    (
        "[accounts.a]\nshared_dir = { local = \"rel\", peer = \"/p\" }\nmax_pending_calls = 0",
        "accounts.a.max_pending_calls",
        "must be positive",
    ),
    (
        "[accounts.a]\ngroups = [0]\nping_interval_ms = 0",
        "accounts.a.ping_interval_ms",
        "must be positive",
    ),
    (
        "[accounts.a]\ngroups = [0]\nreply_chunk_size = 0",
        "accounts.a.groups[0]",
        "group ids are positive",
    ),
    (
        "[accounts.a]\nping_interval_ms = 0\n[server]\nhttp2_keepalive_timeout_ms = 0",
        "accounts.a.ping_interval_ms",
        "must be positive",
    ),
    (
        "[server]\nhttp2_keepalive_timeout_ms = 0\n[server.tls]\ncert_file = \"\"\nkey_file = \"k\"",
        "server.http2_keepalive_timeout_ms",
        "must be positive when keepalive pings are on",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"\"\nreload_interval_ms = 1\n[[auth.tokens]]\nname = \"\"\nvalue = \"x\"\naccounts = [\"*\"]",
        "server.tls.key_file",
        "must not be empty",
    ),
    (
        "[server.tls]\ncert_file = \"c\"\nkey_file = \"k\"\nreload_interval_ms = 1\nhandshake_timeout_ms = 0",
        "server.tls.reload_interval_ms",
        "must be at least 100",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\n[[auth.tokens]]\nname = \"t\"\naccounts = []",
        "auth.tokens[1].name",
        "duplicate token name \"t\"",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"\"\naccounts = []",
        "auth.tokens[0].value",
        "must not be empty",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"nope\"]\ngroups = []",
        "auth.tokens[0].accounts[0]",
        "unknown account \"nope\"",
    ),
    (
        "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"*\"]\ngroups = [0]\n[limits]\nmax_event_streams = 0",
        "auth.tokens[0].groups[0]",
        "group ids are positive",
    ),
    (
        "[limits]\nmax_event_streams = 0\nmax_request_bytes = 0",
        "limits.max_request_bytes",
        "must be positive",
    ),
    (
        "[limits]\nmax_request_bytes = 4294967296\nupload_timeout_ms = 0",
        "limits.upload_timeout_ms",
        "must be positive",
    ),
    (
        "[limits]\nmax_response_bytes = 4294967296\nmax_request_bytes = 4294967296",
        "limits.max_request_bytes",
        "must be below 4 GiB",
    ),
    (
        "[limits]\nupload_timeout_ms = 0\n[metrics]\npath = \"x\"",
        "limits.upload_timeout_ms",
        "must be positive",
    ),
    (
        "[metrics]\npath = \"x\"\nlisten = \"127.0.0.1:50051\"",
        "metrics.path",
        "must start with `/`",
    ),
];

/// Values on the edge of their range, and settings that switch a check off.
const ACCEPTED: &[&str] = &[
    "[server]\ngrace_period_ms = 3600000",
    "[server]\nworker_threads = 1",
    "[server]\nworker_threads = 1024",
    "[reverse_ws]\n[accounts.a]\nreverse = true\nself_id = 1",
    "[reverse_ws]\nlisten = \"[::1]:8082\"\n[accounts.a]\nreverse = true\nself_id = 1",
    "[reverse_ws]\nlisten = \"0.0.0.0:8082\"\n[accounts.a]\nreverse = true\nself_id = 1\naccess_token = \"t\"",
    "[accounts.a]\nflavor = \" LLBot \"",
    "[accounts.a]\nflavor = \"\"",
    "[accounts.a]\nbackoff_min_ms = 10000",
    "[accounts.a]\nauth_retry_ms = 1000",
    "[accounts.a]\nreply_chunk_size = 20000",
    "[server]\nhttp2_keepalive_timeout_ms = 0\nhttp2_keepalive_interval_ms = 0",
    "[[auth.tokens]]\nname = \"t\"\nvalue = \"x\"\naccounts = [\"default\"]",
    "[limits]\nmax_response_bytes = 4294967295",
    "[limits]\noverload_retry_after_ms = 0",
    "[limits]\nmax_share_per_client = 1.0",
    "[server]\nlisten = \"127.0.0.1:0\"\n[metrics]\nlisten = \"127.0.0.1:0\"",
];

#[test]
fn the_policy_section_reads_as_documented() {
    let config = Config::from_toml(
        r#"
[policy]
owners = [10001]
approval_timeout_secs = 600

[[policy.rules]]
actions = ["mention_all"]
chats = ["group:123456789"]
allow_requesters = ["bot_owner", "owner", "admin"]
approval = "bot_owner"

[[policy.rules]]
actions = ["recall", "poke"]
"#,
    )
    .unwrap();
    let p = &config.policy;
    assert_eq!(p.owners, vec![10001]);
    assert_eq!(p.rules.len(), 2);
    assert_eq!(p.rules[0].approval, crate::Approval::BotOwner);
    assert_eq!(p.rules[1].allow_requesters, None);
    assert_eq!(p.rules[1].approval, crate::Approval::None);
    let unknown = Config::from_toml("[[policy.rules]]\nactions = [\"send\"]\nwho = 1");
    assert!(
        matches!(&unknown, Err(ConfigError::Load(m)) if m.contains("who")),
        "{unknown:?}"
    );
}

#[test]
fn every_check_reports_its_key_and_message() {
    for (text, key, message) in ONE_BAD_VALUE {
        assert_eq!(
            refusal(text),
            (key.to_string(), message.to_string()),
            "{text:?}"
        );
    }
}

#[test]
fn checks_run_in_a_fixed_order() {
    for (text, key, message) in FIRST_CHECK_WINS {
        assert_eq!(
            refusal(text),
            (key.to_string(), message.to_string()),
            "{text:?}"
        );
    }
}

#[test]
fn edge_values_are_accepted() {
    for text in ACCEPTED {
        if let Err(e) = Config::from_toml(text) {
            panic!("{text:?} gave {e}");
        }
    }
}

#[cfg(not(feature = "otlp"))]
#[test]
fn otlp_needs_the_feature() {
    let text = "[telemetry.otlp]\nendpoint = \"http://collector:4317\"";
    assert_eq!(
        refusal(text),
        (
            "telemetry.otlp".to_string(),
            "this binary was built without the `otlp` feature".to_string()
        )
    );
}

#[cfg(feature = "otlp")]
#[test]
fn otlp_endpoint_and_ratio_are_checked() {
    for (text, key, message) in [
        (
            "[telemetry.otlp]\nendpoint = \"ftp://x\"\nsample_ratio = 2.0",
            "telemetry.otlp.endpoint",
            "must be an http:// or https:// URL",
        ),
        (
            "[telemetry.otlp]\nsample_ratio = 1.5",
            "telemetry.otlp.sample_ratio",
            "must be between 0.0 and 1.0",
        ),
    ] {
        assert_eq!(
            refusal(text),
            (key.to_string(), message.to_string()),
            "{text:?}"
        );
    }
    assert!(Config::from_toml("[telemetry.otlp]\nsample_ratio = 0.0").is_ok());
}

#[test]
fn secret_parse_errors_hide_the_value() {
    for (text, key) in [
        ("[accounts.a]\naccess_token = 5", "accounts.a.access_token"),
        (
            "[[auth.tokens]]\nname = \"t\"\nvalue = 3\naccounts = [\"*\"]",
            "auth.tokens.0.value",
        ),
    ] {
        let err = Config::from_toml(text).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("configuration: key `{key}`: invalid value (not shown: it is a secret)")
        );
    }
}

#[test]
fn received_media_defaults_and_checks() {
    let config = Config::default();
    let capture = &config.media.capture;
    assert!(capture.enabled);
    assert_eq!(capture.kinds, ["image", "record"]);
    assert_eq!(capture.max_bytes, 10 * 1024 * 1024);
    assert_eq!(capture.ttl_secs, 30 * 24 * 3600);
    assert_eq!(capture.quota_bytes, 2 * 1024 * 1024 * 1024);
    assert!(config.media.peer_url_hosts.iter().any(|h| h == "qq.com.cn"));
    assert!(config.media.peer_url_hosts.iter().any(|h| h == "localhost"));
    for (text, key, message) in [
        (
            "[media.capture]\nkinds = [\"image\", \"sticker\"]",
            "media.capture.kinds[1]",
            "\"sticker\" is not one of image, record, video, file",
        ),
        (
            "[media.capture]\nmax_bytes = 0",
            "media.capture.max_bytes",
            "must be positive",
        ),
        (
            "[media.capture]\nttl_secs = 0",
            "media.capture.ttl_secs",
            "must be positive",
        ),
        (
            "[media.capture]\nquota_bytes = 100\nmax_bytes = 200",
            "media.capture.quota_bytes",
            "must hold at least one largest capture (max_bytes)",
        ),
        (
            "[media]\npeer_url_hosts = [\"qq.com\", \"http://x\"]",
            "media.peer_url_hosts[1]",
            "must be a host name or suffix (letters, digits, `-` and `.`)",
        ),
    ] {
        assert_eq!(
            refusal(text),
            (key.to_string(), message.to_string()),
            "{text:?}"
        );
    }
    let c = Config::from_toml(
        "[media]\npeer_url_hosts = [\".example.org\"]\n[media.capture]\nenabled = false\nkinds = [\"file\"]",
    )
    .unwrap();
    assert!(!c.media.capture.enabled);
    assert_eq!(c.media.peer_url_hosts, [".example.org"]);
}

#[test]
fn history_anchor_defaults_to_auto_and_takes_each_style() {
    let c = Config::from_toml("[accounts.a]\nws_url = \"ws://x\"").unwrap();
    let a = &c.accounts["a"];
    assert_eq!(a.history_anchor, "auto");
    assert_eq!(a.history_anchor_included, None);
    for style in [
        "message_seq",
        "real_seq",
        "message_id_as_seq",
        "message_id",
        "both",
    ] {
        let text = format!(
            "[accounts.a]\nws_url = \"ws://x\"\nhistory_anchor = \"{style}\"\nhistory_anchor_included = false"
        );
        let c = Config::from_toml(&text).unwrap_or_else(|e| panic!("{style}: {e}"));
        assert_eq!(c.accounts["a"].history_anchor, style);
        assert_eq!(c.accounts["a"].history_anchor_included, Some(false));
    }
}

#[test]
fn mcp_defaults_and_checks() {
    let c = Config::default();
    assert!(c.mcp.enabled);
    assert_eq!(c.mcp.path, "/mcp");
    assert_eq!(c.mcp.listen, None);
    assert!(c.mcp.allowed_origins.is_empty() && c.mcp.allowed_hosts.is_empty());
    assert_eq!(
        (
            c.mcp.max_request_bytes,
            c.mcp.max_sessions,
            c.mcp.session_idle_timeout_ms
        ),
        (4 * 1024 * 1024, 256, 300_000)
    );
    let ok = Config::from_toml(
        "[mcp]\npath = \"/agents/mcp\"\nlisten = \"127.0.0.1:0\"\nallowed_origins = [\"https://app.example.com\", \"http://localhost:5173\", \"null\"]\nallowed_hosts = [\"gateway.internal:50051\"]",
    )
    .unwrap();
    assert_eq!(ok.mcp.path, "/agents/mcp");
    for (text, key, message) in [
        ("[mcp]\npath = \"mcp\"", "mcp.path", "must start with `/`"),
        (
            "[mcp]\npath = \"/onebot.gateway.v1.MessageService/GetHistory\"",
            "mcp.path",
            "use `/` followed by letters, digits, `_`, `-` and `/` (not ending in `/`), e.g. /mcp",
        ),
        (
            "[mcp]\npath = \"/\"",
            "mcp.path",
            "use `/` followed by letters, digits, `_`, `-` and `/` (not ending in `/`), e.g. /mcp",
        ),
        (
            "[mcp]\nlisten = \"127.0.0.1:50051\"",
            "mcp.listen",
            "must differ from server.listen (leave it out to serve MCP on the gRPC listener)",
        ),
        (
            "[mcp]\nallowed_origins = [\"https://a.example/path\"]",
            "mcp.allowed_origins[0]",
            "\"https://a.example/path\" is not an origin; write scheme://host or scheme://host:port, e.g. https://app.example.com",
        ),
        (
            "[mcp]\nallowed_hosts = [\"\"]",
            "mcp.allowed_hosts[0]",
            "\"\" is not a host; write a name or name:port",
        ),
        (
            "[mcp]\nmax_sessions = 0",
            "mcp.max_sessions",
            "must be positive",
        ),
        (
            "[mcp]\nsession_idle_timeout_ms = 10",
            "mcp.session_idle_timeout_ms",
            "must be at least 1000",
        ),
        (
            "[mcp]\nmax_request_bytes = 10",
            "mcp.max_request_bytes",
            "must be at least 1024",
        ),
    ] {
        assert_eq!(
            refusal(text),
            (key.to_string(), message.to_string()),
            "{text:?}"
        );
    }
    assert_eq!(
        normalize_origin("HTTPS://App.Example.com:443").as_deref(),
        Some("https://app.example.com")
    );
    assert_eq!(
        normalize_origin("http://localhost:5173").as_deref(),
        Some("http://localhost:5173")
    );
    assert_eq!(normalize_origin("https://a.example/"), None);
    assert_eq!(normalize_origin("https://user@a.example"), None);
}

#[test]
fn ha_takes_the_archive_url_by_default_and_its_own_url_is_redacted() {
    let c = Config::from_toml("[archive]\nurl = \"postgres://u:pw@db/gw\"\n[ha]").unwrap();
    let ha = c.ha.as_ref().expect("[ha]");
    assert_eq!(ha.ttl_secs, 10);
    assert_eq!(
        ha.lease_url(c.archive.url.as_ref()).map(|u| u.expose()),
        Some("postgres://u:pw@db/gw")
    );
    let c = Config::from_toml("[ha]\nurl = \"postgres://u:secret@db/leases\"").unwrap();
    let printed = c.to_redacted_toml();
    assert!(!printed.contains("secret"), "{printed}");
    assert!(printed.contains("[ha]"), "{printed}");
    assert!(!format!("{:?}", c.ha).contains("secret"));
}
