//! Message ids of every shape, carried in the API's `int64`.
//!
//! Peers write message ids as JSON numbers, numeric strings and, in some
//! forks, non-numeric strings; some write 64-bit unsigned ids beyond
//! `i64`. Ids that fit an `i64` (numbers, numeric strings, integral
//! floats) are that number. Every other id, the **text** the peer wrote
//! (a string as it is, a number by its decimal digits), is carried as its
//! minted id ([`ids::mint`]: a negative number in `(-2^53, -2^32]`, a pure
//! function of the text).
//!
//! Every action the adapter sends has its known minted ids turned back
//! into the peer's own text ([`outbound`]: `message_id`, `message_seq`,
//! and the `id` of `reply` segments), so `reply_to_message_id`,
//! `GetMessage`, `RecallMessage`, media references and history anchors all
//! take a minted id as they take any other. A number in the minted range
//! that the gateway never minted goes out unchanged.

use std::sync::Arc;

use onebot_gateway_domain::ids;
use serde_json::{Number, Value};

/// The domain id of a message id as the peer wrote it: the number itself
/// when it fits an `i64`, else the minted id of its text (remembered for
/// the way back). `None` for `null`, booleans, containers, empty strings
/// and non-integral numbers.
pub fn message_id_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Some(i),
            (None, Some(u)) => Some(message_id_of_u64(u)),
            (None, None) => message_id_of_f64(n.as_f64()?),
        },
        Value::String(s) => message_id_of_str(s),
        _ => None,
    }
}

/// [`message_id_of`] for an id given as an unsigned integer: itself when it
/// fits an `i64`, else the minted id of its digits.
pub fn message_id_of_u64(u: u64) -> i64 {
    i64::try_from(u).unwrap_or_else(|_| ids::mint(&u.to_string()))
}

/// [`message_id_of`] for an id given as a float: only integral values in
/// range.
pub fn message_id_of_f64(f: f64) -> Option<i64> {
    // `as` saturates; the range check keeps only exact conversions.
    (f.is_finite() && f.fract() == 0.0 && (-9.0e18..=9.0e18).contains(&f)).then_some(f as i64)
}

/// [`message_id_of`] for an id given as a string: its integer when it is
/// one (surrounding spaces allowed), else the minted id of its text; `None`
/// when blank.
pub fn message_id_of_str(s: &str) -> Option<i64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    Some(t.parse::<i64>().unwrap_or_else(|_| ids::mint(t)))
}

/// A message id carried as text (a `reply` segment's `id`): unchanged when
/// it is an `i64` or empty, else the minted id's digits.
pub fn message_id_text(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() || t.parse::<i64>().is_ok() {
        return text.to_owned();
    }
    ids::mint(t).to_string()
}

/// The peer's own text of a minted id, if the gateway minted it.
pub fn peer_text(id: i64) -> Option<Arc<str>> {
    ids::text_of(id)
}

/// The value the peer knows a domain id by: its own text (a number again
/// when it was one) for a minted id, else the number.
pub fn peer_value(id: i64) -> Value {
    match peer_text(id) {
        Some(text) => match text.parse::<u64>() {
            Ok(u) => Value::Number(Number::from(u)),
            Err(_) => Value::String(text.to_string()),
        },
        None => Value::from(id),
    }
}

/// Turns the known minted ids of an action's parameters back into the
/// peer's own: top-level `message_id` and `message_seq`, and the `id` of
/// every `reply` segment in `message`.
pub fn outbound(params: &mut Value) {
    let Some(o) = params.as_object_mut() else {
        return;
    };
    for key in ["message_id", "message_seq"] {
        if let Some(v) = o.get_mut(key) {
            back(v);
        }
    }
    if let Some(Value::Array(segments)) = o.get_mut("message") {
        for seg in segments {
            if seg.get("type").and_then(Value::as_str) == Some("reply")
                && let Some(id) = seg.get_mut("data").and_then(|d| d.get_mut("id"))
            {
                back(id);
            }
        }
    }
}

fn back(v: &mut Value) {
    let id = match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse::<i64>().ok(),
        _ => None,
    };
    if let Some(id) = id
        && peer_text(id).is_some()
    {
        *v = peer_value(id);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use onebot_gateway_domain::ids::{is_minted, mint};

    #[test]
    fn ids_that_fit_stay_and_the_rest_are_minted_in_their_range() {
        assert_eq!(message_id_of(&json!(5)), Some(5));
        assert_eq!(message_id_of(&json!(-1_834_567_890)), Some(-1_834_567_890));
        assert_eq!(message_id_of(&json!(" 42 ")), Some(42));
        assert_eq!(message_id_of(&json!(7.0)), Some(7));
        for bad in [json!(null), json!(""), json!(true), json!([1]), json!(1.5)] {
            assert_eq!(message_id_of(&bad), None, "{bad}");
        }
        let text = message_id_of(&json!("msg-abc")).unwrap();
        assert!(is_minted(text));
        assert_eq!(text, mint("msg-abc"), "the same id every time");
        let wide = message_id_of(&json!(u64::MAX)).unwrap();
        assert!(is_minted(wide));
        assert_eq!(message_id_of(&json!(u64::MAX.to_string())), Some(wide));
        assert!(!is_minted(i64::from(i32::MIN)) && !is_minted(0) && !is_minted(-1));
        assert!(is_minted(-(1 << 32)) && !is_minted(-(1 << 53)));
        // JavaScript-safe.
        assert!(text.unsigned_abs() < 1 << 53);
        assert_eq!(message_id_text("12"), "12");
        assert_eq!(message_id_text("x-1"), mint("x-1").to_string());
    }

    #[test]
    fn minted_ids_go_back_as_the_peer_wrote_them() {
        let t = message_id_of(&json!("fork-7f3a")).unwrap();
        let w = message_id_of(&json!(18_446_744_073_709_551_000u64)).unwrap();
        let mut params = json!({
            "message_id": t,
            "message_seq": w.to_string(),
            "group_id": 7,
            "message": [{"type": "reply", "data": {"id": t.to_string()}}, {"type": "text", "data": {"text": "x"}}],
        });
        outbound(&mut params);
        assert_eq!(
            params,
            json!({
                "message_id": "fork-7f3a",
                "message_seq": 18_446_744_073_709_551_000u64,
                "group_id": 7,
                "message": [{"type": "reply", "data": {"id": "fork-7f3a"}}, {"type": "text", "data": {"text": "x"}}],
            })
        );
        // Unknown numbers in the range, and ordinary ids, go out unchanged.
        let mut p = json!({"message_id": -(1i64 << 40), "message_seq": 5});
        outbound(&mut p);
        assert_eq!(p, json!({"message_id": -(1i64 << 40), "message_seq": 5}));
        assert_eq!(peer_value(5), json!(5));
    }
}
