//! Action results and their wire form per flavor:
//!
//! | flavor    | success fields                                   | failure text fields        |
//! |-----------|--------------------------------------------------|----------------------------|
//! | NapCat    | status, retcode, data, message, wording, echo, stream | message = wording     |
//! | LLOneBot  | status, retcode, data, message, wording, echo    | message = wording          |
//! | go-cqhttp | data, retcode, status, message (+echo)           | msg, wording, message      |
//! | SnowLuma  | status, retcode, data (+echo)                    | wording                    |
//! | Lagrange  | status, retcode, data (+echo, stringified)       | —                          |

use http::StatusCode;
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::flavor::Flavor;

/// Which transport an action arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Transport {
    /// A WebSocket frame.
    Ws,
    /// An HTTP request.
    Http,
}

/// Failure classes; each flavor maps them to its own retcodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// Schema/parameter validation (NapCat 1400/400, SnowLuma 1400, go-cqhttp 100, Lagrange 1).
    BadParams,
    /// The handler threw (NapCat 1200/200, SnowLuma 100, go-cqhttp 100, Lagrange 1).
    Failed,
    /// No such action (1404; go-cqhttp 404; NapCat HTTP 200).
    UnknownAction,
}

/// A failed action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ActionError {
    pub kind: ErrorKind,
    /// Human-readable text (`message`/`wording`).
    pub text: String,
    /// go-cqhttp's machine `msg` (e.g. `SEND_MSG_API_ERROR`); defaults per kind.
    pub code: Option<&'static str>,
}

impl ActionError {
    pub(crate) fn bad_params(text: impl Into<String>) -> Self {
        ActionError {
            kind: ErrorKind::BadParams,
            text: text.into(),
            code: None,
        }
    }

    pub(crate) fn failed(text: impl Into<String>) -> Self {
        ActionError {
            kind: ErrorKind::Failed,
            text: text.into(),
            code: None,
        }
    }

    pub(crate) fn unknown(text: impl Into<String>) -> Self {
        ActionError {
            kind: ErrorKind::UnknownAction,
            text: text.into(),
            code: None,
        }
    }

    pub(crate) fn with_code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }
}

/// What a handler returns.
pub(crate) type ActionResult = Result<Value, ActionError>;

/// A reply ready to be written: the JSON frame/body and, for HTTP, the status code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    pub body: Value,
    pub status: StatusCode,
    /// The envelope's fields in the order the implementation writes them.
    pub order: &'static [&'static str],
}

impl Reply {
    /// The body as the implementation writes it: the envelope's fields in
    /// its order (NapCat: `status, retcode, data, message, wording, echo,
    /// stream`), then any others; values inside keep serde_json's order.
    pub(crate) fn text(&self) -> String {
        let Value::Object(o) = &self.body else {
            return self.body.to_string();
        };
        let known = self.order.iter().filter_map(|k| o.get_key_value(*k));
        let rest = o.iter().filter(|(k, _)| !self.order.contains(&k.as_str()));
        let mut out = String::with_capacity(256);
        out.push('{');
        for (i, (k, v)) in known.chain(rest).enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&Value::String(k.clone()).to_string());
            out.push(':');
            out.push_str(&v.to_string());
        }
        out.push('}');
        out
    }
}

/// The order of a flavor's envelope fields (go-cqhttp writes a map: its keys
/// come sorted, as serde_json writes them).
fn order(flavor: Flavor) -> &'static [&'static str] {
    match flavor {
        Flavor::NapCat => &[
            "status", "retcode", "data", "message", "wording", "echo", "stream",
        ],
        Flavor::LlOneBot | Flavor::SnowLuma => {
            &["status", "retcode", "data", "message", "wording", "echo"]
        }
        Flavor::Lagrange => &["status", "retcode", "data", "echo"],
        Flavor::GoCqhttp => &[],
    }
}

fn retcode(flavor: Flavor, transport: Transport, kind: ErrorKind) -> i64 {
    use ErrorKind::*;
    use Flavor::*;
    use Transport::*;
    match (flavor, kind, transport) {
        (NapCat | LlOneBot, BadParams, Ws) => 1400,
        (NapCat | LlOneBot, BadParams, Http) => 400,
        (NapCat | LlOneBot, Failed, Ws) => 1200,
        (NapCat | LlOneBot, Failed, Http) => 200,
        (NapCat, UnknownAction, Http) => 200,
        (NapCat | LlOneBot, UnknownAction, _) => 1404,
        (SnowLuma, BadParams, _) => 1400,
        (SnowLuma, Failed, _) => 100,
        (SnowLuma, UnknownAction, _) => 1404,
        (GoCqhttp, BadParams | Failed, _) => 100,
        (GoCqhttp, UnknownAction, _) => 404,
        (Lagrange, BadParams | Failed, _) => 1,
        (Lagrange, UnknownAction, _) => 1404,
    }
}

/// How the request's `echo` comes back (WebSocket only; HTTP replies carry none).
fn echo_out(
    flavor: Flavor,
    transport: Transport,
    echo: Option<&Value>,
    error: Option<ErrorKind>,
) -> Option<Value> {
    if transport == Transport::Http {
        return None;
    }
    let present = echo.filter(|e| !e.is_null());
    match flavor {
        // Verbatim; missing (or null: `echo ?? ''`) → "" on normal replies, null on
        // parse/unknown-action errors.
        Flavor::NapCat => Some(match (present, error) {
            (Some(e), _) => e.clone(),
            (None, Some(ErrorKind::BadParams | ErrorKind::UnknownAction)) => Value::Null,
            (None, _) => Value::String(String::new()),
        }),
        Flavor::LlOneBot => present.cloned(),
        Flavor::GoCqhttp | Flavor::SnowLuma => echo.cloned(),
        // Old Lagrange typed echo as string.
        Flavor::Lagrange => present.map(|e| match e {
            Value::String(s) => Value::String(s.clone()),
            other => Value::String(other.to_string()),
        }),
    }
}

/// Renders a result as the flavor's response frame.
pub(crate) fn render(
    flavor: Flavor,
    transport: Transport,
    result: &ActionResult,
    echo: Option<&Value>,
) -> Reply {
    let mut o = Map::new();
    let mut status = StatusCode::OK;
    let error = result.as_ref().err().map(|e| e.kind);
    match result {
        Ok(data) => {
            o.insert("status".into(), json!("ok"));
            o.insert("retcode".into(), json!(0));
            o.insert("data".into(), data.clone());
            match flavor {
                Flavor::NapCat | Flavor::LlOneBot => {
                    o.insert("message".into(), json!(""));
                    o.insert("wording".into(), json!(""));
                }
                Flavor::GoCqhttp => {
                    o.insert("message".into(), json!(""));
                }
                Flavor::SnowLuma | Flavor::Lagrange => {}
            }
        }
        Err(e) => {
            let code = retcode(flavor, transport, e.kind);
            o.insert("status".into(), json!("failed"));
            o.insert("retcode".into(), json!(code));
            o.insert("data".into(), Value::Null);
            match flavor {
                Flavor::NapCat | Flavor::LlOneBot => {
                    o.insert("message".into(), json!(e.text));
                    o.insert("wording".into(), json!(e.text));
                }
                Flavor::GoCqhttp => {
                    let msg = e.code.unwrap_or(match e.kind {
                        ErrorKind::BadParams => "PARAM_ERROR",
                        ErrorKind::Failed => "ACTION_FAILED",
                        ErrorKind::UnknownAction => "API_NOT_FOUND",
                    });
                    o.insert("msg".into(), json!(msg));
                    o.insert("wording".into(), json!(e.text));
                    o.insert("message".into(), json!(e.text));
                }
                Flavor::SnowLuma => {
                    o.insert("wording".into(), json!(e.text));
                }
                Flavor::Lagrange => {}
            }
            if flavor == Flavor::SnowLuma
                && transport == Transport::Http
                && e.kind == ErrorKind::UnknownAction
            {
                status = StatusCode::NOT_FOUND;
            }
        }
    }
    if let Some(echo) = echo_out(flavor, transport, echo, error) {
        o.insert("echo".into(), echo);
    }
    if flavor == Flavor::NapCat {
        o.insert("stream".into(), json!("normal-action"));
    }
    Reply {
        body: Value::Object(o),
        status,
        order: order(flavor),
    }
}

/// The JSON frame NapCat/LLOneBot/Lagrange send before closing a WebSocket with a bad token.
pub(crate) fn token_failed_frame() -> Value {
    json!({
        "status": "failed",
        "retcode": 1403,
        "data": null,
        "message": "token验证失败",
        "wording": "token验证失败",
        "echo": null
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn napcat_echo_defaults() {
        let ok: ActionResult = Ok(json!(null));
        let r = render(Flavor::NapCat, Transport::Ws, &ok, None);
        assert_eq!(r.body["echo"], json!(""));
        let bad: ActionResult = Err(ActionError::bad_params("x"));
        let r = render(Flavor::NapCat, Transport::Ws, &bad, None);
        assert_eq!(r.body["echo"], Value::Null);
        assert_eq!(r.body["retcode"], json!(1400));
        let r = render(Flavor::NapCat, Transport::Http, &bad, None);
        assert_eq!(r.body["retcode"], json!(400));
        assert!(r.body.get("echo").is_none());
    }

    #[test]
    fn lagrange_stringifies_echo() {
        let ok: ActionResult = Ok(json!(1));
        let r = render(Flavor::Lagrange, Transport::Ws, &ok, Some(&json!(7)));
        assert_eq!(r.body["echo"], json!("7"));
        let r = render(Flavor::Lagrange, Transport::Ws, &ok, Some(&json!({"a": 1})));
        assert_eq!(r.body["echo"], json!("{\"a\":1}"));
        assert!(r.body.get("message").is_none());
    }

    #[test]
    fn gocq_failure_fields() {
        let e: ActionResult = Err(ActionError::unknown("API不存在"));
        let r = render(Flavor::GoCqhttp, Transport::Ws, &e, Some(&json!("a")));
        assert_eq!(
            r.body,
            json!({"status":"failed","retcode":404,"data":null,"msg":"API_NOT_FOUND","wording":"API不存在","message":"API不存在","echo":"a"})
        );
    }

    /// The order of a reply's top-level keys as written.
    fn keys(text: &str) -> Vec<String> {
        let mut de = serde_json::Deserializer::from_str(text);
        let mut keys = Vec::new();
        serde::Deserializer::deserialize_map(&mut de, Keys(&mut keys)).unwrap();
        keys
    }

    struct Keys<'a>(&'a mut Vec<String>);

    impl<'de> serde::de::Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(k) = map.next_key::<String>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                self.0.push(k);
            }
            Ok(())
        }
    }

    #[test]
    fn envelope_fields_come_in_the_implementations_order() {
        let ok: ActionResult = Ok(json!({"b": 1, "a": 2}));
        let echo = json!("9");
        let napcat = render(Flavor::NapCat, Transport::Ws, &ok, Some(&echo));
        assert_eq!(
            keys(&napcat.text()),
            [
                "status", "retcode", "data", "message", "wording", "echo", "stream"
            ]
        );
        assert_eq!(
            serde_json::from_str::<Value>(&napcat.text()).unwrap(),
            napcat.body
        );
        let lagrange = render(Flavor::Lagrange, Transport::Ws, &ok, Some(&echo));
        assert_eq!(
            keys(&lagrange.text()),
            ["status", "retcode", "data", "echo"]
        );
        let gocq = render(Flavor::GoCqhttp, Transport::Ws, &ok, Some(&echo));
        let mut sorted = keys(&gocq.text());
        assert!(sorted.is_sorted(), "{sorted:?}");
        sorted.sort();
        assert_eq!(sorted, keys(&gocq.body.to_string()));
    }
}
