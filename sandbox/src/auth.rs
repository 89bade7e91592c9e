//! Access-token checks per flavor:
//!
//! | flavor              | token sources                                             |
//! |---------------------|-----------------------------------------------------------|
//! | NapCat              | query `access_token` first, else `Authorization: Bearer t` |
//! | LLOneBot / Lagrange | `Authorization: Bearer t` first, else query               |
//! | go-cqhttp           | `Authorization` (any scheme: text after the first space), else query |
//! | SnowLuma            | header exactly `Bearer t`, or query                       |
//!
//! The failure *form* (HTTP status before upgrade, 1403 frame, close 1008) is chosen by the
//! caller from the [`AuthOutcome`].

use http::HeaderMap;
use http::header::AUTHORIZATION;

use crate::flavor::Flavor;

/// Result of checking a request's credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuthOutcome {
    Ok,
    /// No token presented.
    Missing,
    /// A token was presented but it is wrong.
    Wrong,
}

/// Query parameters, percent-decoded, in order.
pub(crate) fn parse_query(query: Option<&str>) -> Vec<(String, String)> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// `application/x-www-form-urlencoded` decoding (`+` is a space).
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(hi), Some(lo)) => {
                    out.push(hi << 4 | lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_val(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Checks credentials; `reject` forces a failure (the `RejectAuth` fault).
pub(crate) fn check(
    flavor: Flavor,
    token: Option<&str>,
    headers: &HeaderMap,
    query: &[(String, String)],
    reject: bool,
) -> AuthOutcome {
    let header = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
    let from_query = query
        .iter()
        .find(|(k, _)| k == "access_token")
        .map(|(_, v)| v.as_str());
    let bearer = header.map(|h| h.strip_prefix("Bearer ").unwrap_or(h).trim());
    let presented: Option<&str> = match flavor {
        Flavor::NapCat => from_query.or(bearer),
        Flavor::LlOneBot | Flavor::Lagrange => bearer.or(from_query),
        Flavor::GoCqhttp => header
            .map(|h| h.split_once(' ').map_or("", |(_, t)| t))
            .or(from_query),
        Flavor::SnowLuma => {
            let header_ok = match (header, token) {
                (Some(h), Some(t)) => h == format!("Bearer {t}"),
                _ => false,
            };
            if header_ok {
                token
            } else {
                from_query.or(header)
            }
        }
    };
    match (token, presented) {
        _ if reject && presented.is_none_or(str::is_empty) => AuthOutcome::Missing,
        _ if reject => AuthOutcome::Wrong,
        (None, _) => AuthOutcome::Ok,
        (Some(_), None) => AuthOutcome::Missing,
        (Some(_), Some("")) => AuthOutcome::Missing,
        (Some(t), Some(p)) if t == p => AuthOutcome::Ok,
        (Some(_), Some(_)) => AuthOutcome::Wrong,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(auth: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(a) = auth {
            h.insert(AUTHORIZATION, HeaderValue::from_str(a).unwrap());
        }
        h
    }

    fn q(s: &str) -> Vec<(String, String)> {
        parse_query(Some(s))
    }

    #[test]
    fn per_flavor_sources() {
        let t = Some("s3cret");
        use AuthOutcome::*;
        assert_eq!(
            check(
                Flavor::NapCat,
                t,
                &headers(None),
                &q("access_token=s3cret"),
                false
            ),
            Ok
        );
        assert_eq!(
            check(
                Flavor::NapCat,
                t,
                &headers(Some("Bearer s3cret")),
                &[],
                false
            ),
            Ok
        );
        assert_eq!(
            check(Flavor::NapCat, t, &headers(None), &[], false),
            Missing
        );
        assert_eq!(
            check(Flavor::NapCat, t, &headers(Some("Bearer x")), &[], false),
            Wrong
        );
        assert_eq!(
            check(
                Flavor::GoCqhttp,
                t,
                &headers(Some("Token s3cret")),
                &[],
                false
            ),
            Ok
        );
        assert_eq!(
            check(Flavor::GoCqhttp, t, &headers(Some("s3cret")), &[], false),
            Missing
        );
        assert_eq!(
            check(
                Flavor::SnowLuma,
                t,
                &headers(Some("Token s3cret")),
                &[],
                false
            ),
            Wrong
        );
        assert_eq!(
            check(
                Flavor::SnowLuma,
                t,
                &headers(Some("Bearer s3cret")),
                &[],
                false
            ),
            Ok
        );
        assert_eq!(
            check(
                Flavor::SnowLuma,
                t,
                &headers(None),
                &q("access_token=s3cret"),
                false
            ),
            Ok
        );
        assert_eq!(
            check(Flavor::LlOneBot, None, &headers(None), &[], false),
            Ok
        );
        assert_eq!(
            check(Flavor::LlOneBot, None, &headers(None), &[], true),
            Missing
        );
        assert_eq!(
            check(
                Flavor::LlOneBot,
                t,
                &headers(Some("Bearer s3cret")),
                &[],
                true
            ),
            Wrong
        );
    }

    #[test]
    fn decodes_query() {
        assert_eq!(
            q("a=1&b=%E4%BD%A0+x&c&d=%zz"),
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "你 x".into()),
                ("c".into(), "".into()),
                ("d".into(), "%zz".into())
            ]
        );
    }
}
