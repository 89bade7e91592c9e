//! Redaction of secrets in URLs, printed configs and parse errors.

/// What a redacted secret reads as.
pub const REDACTED: &str = "<redacted>";

/// `url` with the values of credential-bearing query parameters
/// (`access_token`, `token`) and any user info replaced by `<redacted>`,
/// for logs and errors. Unparsable input is returned redacted whole.
pub fn redact_url(url: &str) -> String {
    let Ok(mut parsed) = url::Url::parse(url) else {
        return REDACTED.to_string();
    };
    if !parsed.username().is_empty() || parsed.password().is_some() {
        let _ = parsed.set_username(REDACTED);
        let _ = parsed.set_password(None);
    }
    if parsed.query().is_some() {
        let pairs: Vec<(String, String)> = parsed
            .query_pairs()
            .map(|(k, v)| {
                let secret = matches!(k.to_ascii_lowercase().as_str(), "access_token" | "token");
                let v = if secret {
                    REDACTED.to_string()
                } else {
                    v.into_owned()
                };
                (k.into_owned(), v)
            })
            .collect();
        parsed.query_pairs_mut().clear().extend_pairs(pairs);
    }
    parsed.to_string()
}

/// Keys whose values are secrets: their parse errors name the key but not
/// the value (figment's messages quote the offending value). `url` is the
/// archive's database URL, which may carry a password.
pub(super) const SECRET_KEYS: [&str; 3] = ["access_token", "value", "url"];
