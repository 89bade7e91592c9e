//! The `milky_media*` keys: what `auto` picks, the listener's defaults and
//! what `serve --print-config` says of a Milky account's media.

use crate::{Config, MilkyMedia};

#[test]
fn milky_media_picks_http_on_loopback_unless_set() {
    let account = |text: &str| {
        Config::from_toml(&format!("[accounts.m]\n{text}"))
            .unwrap()
            .accounts
            .remove("m")
            .unwrap()
    };
    for (url, http) in [
        ("http://127.0.0.1:3010", true),
        ("http://127.9.0.1:3010", true),
        ("http://[::1]:3010", true),
        ("http://localhost:3010", true),
        ("http://LocalHost./", true),
        ("http://10.0.0.5:3010", false),
        ("https://milky.example", false),
    ] {
        let a = account(&format!("milky_url = \"{url}\""));
        assert_eq!(a.milky_media_setting(), MilkyMedia::Auto);
        assert_eq!(a.milky_media_by_http(), http, "{url}");
    }
    let a = account("milky_url = \"http://10.0.0.5:3010\"\nmilky_media = \"http\"");
    assert!(a.milky_media_by_http());
    let a = account("milky_url = \"http://127.0.0.1:3010\"\nmilky_media = \"base64\"");
    assert!(!a.milky_media_by_http());
    assert_eq!(a.milky_media_listen_addr(), "127.0.0.1:0".parse().unwrap());
    let a = account(
        "milky_url = \"http://10.0.0.5:3010\"\nmilky_media = \"http\"\nmilky_media_listen = \"0.0.0.0:8900\"\nmilky_media_url = \"http://gw.internal:8900/base\"",
    );
    assert_eq!(a.milky_media_listen_addr(), "0.0.0.0:8900".parse().unwrap());
    assert_eq!(
        a.milky_media_url.as_deref(),
        Some("http://gw.internal:8900/base")
    );
    let err = Config::from_toml("[accounts.m]\nmilky_url = \"http://x\"\nmilky_media = \"file\"")
        .unwrap_err()
        .to_string();
    assert!(err.contains("milky_media"), "{err}");
}

#[test]
fn print_config_says_how_a_milky_account_sends_media() {
    let c = Config::from_toml(
        "[accounts.local]\nmilky_url = \"http://127.0.0.1:3010\"\n[accounts.far]\nmilky_url = \"http://10.0.0.5:3010\"\nmilky_media_url = \"http://u:pw@gw.internal:8900\"\n[accounts.ob]\nws_url = \"ws://127.0.0.1:3001\"",
    )
    .unwrap();
    let printed = c.to_redacted_toml();
    for line in [
        "# accounts.local speaks milky; media by one-time http:// URLs (milky_media = auto)\n",
        "# accounts.far speaks milky; media by base64:// in the request (milky_media = auto)\n",
        "# accounts.ob speaks onebot_v11\n",
    ] {
        assert!(printed.contains(line), "{printed}");
    }
    assert!(!printed.contains("pw@"), "{printed}");
    assert!(printed.contains("gw.internal:8900"), "{printed}");
}
