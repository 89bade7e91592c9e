//! "ok" that is not ok: the `data` of actions that must return something.
//!
//! Some implementations (mocks, forks, proxies) answer an action they do
//! not have with `status: ok` and empty data, and `get_msg` of a message
//! they do not know with `{}`. Where an action must return data, empty data
//! is the peer's failure, never a fake success with empty fields:
//!
//! | action returns | `null`                             | `{}`                         | wrong JSON type        |
//! |----------------|------------------------------------|------------------------------|------------------------|
//! | a list that may be empty (`get_group_list`) | `[]`  | `OnebotActionUnsupported`    | `OnebotProtocolError`  |
//! | a list that cannot be empty (`get_group_member_list`) | `OnebotActionUnsupported` | `OnebotActionUnsupported` | `OnebotProtocolError` |
//! | one object (`get_msg`) | not found (`MessageNotFound`, `missing`) | not found | `OnebotProtocolError` |
//!
//! History answers follow the same rule in `history.rs`
//! (`HistoryUnsupported`).

use serde_json::Value;

use onebot_gateway_domain::error::{Error, Kind, Result};

/// The items of a list answer. `may_be_empty`: whether `null` can mean an
/// empty list (a bot in no group) rather than a missing action.
pub fn list(action: &str, data: Value, may_be_empty: bool) -> Result<Vec<Value>> {
    match data {
        Value::Array(items) => Ok(items),
        Value::Null if may_be_empty => Ok(Vec::new()),
        Value::Null => Err(lacks(action)),
        Value::Object(o) if o.is_empty() => Err(lacks(action)),
        other => Err(Error::new(
            Kind::OnebotProtocolError,
            format!("{action}: expected an array, got {}", json_kind(&other)),
        )
        .with("action", action)),
    }
}

/// The object of a look-up answer: `null` or `{}` means the peer does not
/// have what was asked (`what`, for the message).
pub fn object(action: &str, data: Value, what: impl FnOnce() -> String) -> Result<Value> {
    match &data {
        Value::Object(o) if !o.is_empty() => Ok(data),
        Value::Null | Value::Object(_) => {
            let what = what();
            Err(Error::new(
                Kind::MessageNotFound,
                format!("{action}: the OneBot implementation answered ok with no data: it does not have {what}"),
            )
            .with("action", action)
            .with("missing", what)
            .with("peer_message", ""))
        }
        other => Err(Error::new(
            Kind::OnebotProtocolError,
            format!("{action}: expected an object, got {}", json_kind(other)),
        )
        .with("action", action)),
    }
}

/// The error of an action answered `ok` with nothing: the peer evidently
/// lacks it.
pub fn lacks(action: &str) -> Error {
    Error::new(
        Kind::OnebotActionUnsupported,
        format!(
            "{action}: the OneBot implementation answered ok with no data; it evidently lacks the action"
        ),
    )
    .with("action", action)
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn empty_data_is_the_peers_failure() {
        assert_eq!(
            list("get_group_list", json!([1]), true).unwrap(),
            [json!(1)]
        );
        assert!(
            list("get_group_list", json!(null), true)
                .unwrap()
                .is_empty()
        );
        let kind = |r: Result<Vec<Value>>| r.unwrap_err().kind;
        assert_eq!(
            kind(list("get_group_list", json!({}), true)),
            Kind::OnebotActionUnsupported
        );
        assert_eq!(
            kind(list("get_group_member_list", json!(null), false)),
            Kind::OnebotActionUnsupported
        );
        assert_eq!(
            kind(list("get_group_list", json!("x"), true)),
            Kind::OnebotProtocolError
        );
        let what = || "message 5".to_string();
        assert!(object("get_msg", json!({"message_id": 5}), what).is_ok());
        for empty in [json!({}), json!(null)] {
            let e = object("get_msg", empty, what).unwrap_err();
            assert_eq!(e.kind, Kind::MessageNotFound);
            assert_eq!(e.meta("missing"), Some("message 5"));
        }
        assert_eq!(
            object("get_msg", json!([]), what).unwrap_err().kind,
            Kind::OnebotProtocolError
        );
    }
}
