//! Message ids of every shape, carried in the API's `int64`.
//!
//! Peers write message ids as JSON numbers, numeric strings and, in some
//! forks, non-numeric strings; some write 64-bit unsigned ids beyond
//! `i64`. Ids that fit an `i64` (numbers, numeric strings, integral
//! floats) are that number. Every other id, the **text** the peer wrote
//! (a string as it is, a number by its decimal digits), is mapped to a
//! negative number:
//!
//! ```text
//! mapped(text) = -(2^32 + (first 8 bytes of SHA-256(text), big-endian) mod (2^53 - 2^32))
//! ```
//!
//! so mapped ids lie in `(-2^53, -2^32]`: beyond every real
//! implementation's ids (signed 32-bit hashes, positive NT ids), and still
//! exact in a JavaScript number. The mapping is a pure function of the
//! text: the same id on every run, in every process, whatever the account.
//!
//! It is reversible: each mapping is remembered (in memory, and in an
//! [`IdMap`] once [`persist_with`] has opened one), and
//! every action the adapter sends has its known mapped ids turned back into
//! the peer's own text ([`outbound`]: `message_id`, `message_seq`, and the
//! `id` of `reply` segments), so `reply_to_message_id`, `GetMessage`,
//! `RecallMessage`, media references and history anchors all take a mapped
//! id as they take any other. A number in the mapped range that the
//! gateway never mapped goes out unchanged.
//!
//! The store is the adapter's own (nothing of the domain's), one per
//! process: the first one opened holds every mapping.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, OnceLock};

use parking_lot::Mutex;
use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

/// The magnitude mapped ids start at (`2^32`).
const FLOOR: u64 = 1 << 32;
/// How many mapped ids there are (`2^53 - 2^32`).
const SPAN: u64 = (1 << 53) - FLOOR;

/// The mapped id of `text`.
pub fn mapped(text: &str) -> i64 {
    let digest = Sha256::digest(text.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    let h = u64::from_be_bytes(head) % SPAN;
    -((FLOOR + h) as i64)
}

/// True when `id` lies in the range mapped ids take.
pub fn is_mapped(id: i64) -> bool {
    (-((FLOOR + SPAN) as i64 - 1)..=-(FLOOR as i64)).contains(&id)
}

/// The domain id of a message id as the peer wrote it: the number itself
/// when it fits an `i64`, else the mapped id of its text (remembered for
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
/// fits an `i64`, else the mapped id of its digits.
pub fn message_id_of_u64(u: u64) -> i64 {
    i64::try_from(u).unwrap_or_else(|_| remember(&u.to_string()))
}

/// [`message_id_of`] for an id given as a float: only integral values in
/// range.
pub fn message_id_of_f64(f: f64) -> Option<i64> {
    // `as` saturates; the range check keeps only exact conversions.
    (f.is_finite() && f.fract() == 0.0 && (-9.0e18..=9.0e18).contains(&f)).then_some(f as i64)
}

/// [`message_id_of`] for an id given as a string: its integer when it is
/// one (surrounding spaces allowed), else the mapped id of its text; `None`
/// when blank.
pub fn message_id_of_str(s: &str) -> Option<i64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    Some(t.parse::<i64>().unwrap_or_else(|_| remember(t)))
}

/// A message id carried as text (a `reply` segment's `id`): unchanged when
/// it is an `i64` or empty, else the mapped id's digits.
pub fn message_id_text(text: &str) -> String {
    let t = text.trim();
    if t.is_empty() || t.parse::<i64>().is_ok() {
        return text.to_owned();
    }
    remember(t).to_string()
}

/// The peer's own text of a mapped id, if the gateway mapped it.
pub fn peer_text(id: i64) -> Option<Arc<str>> {
    if !is_mapped(id) {
        return None;
    }
    REGISTRY.lock().get(&id).cloned()
}

/// The value the peer knows a domain id by: its own text (a number again
/// when it was one) for a mapped id, else the number.
pub fn peer_value(id: i64) -> Value {
    match peer_text(id) {
        Some(text) => match text.parse::<u64>() {
            Ok(u) => Value::Number(Number::from(u)),
            Err(_) => Value::String(text.to_string()),
        },
        None => Value::from(id),
    }
}

/// Turns the known mapped ids of an action's parameters back into the
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

static REGISTRY: LazyLock<Mutex<HashMap<i64, Arc<str>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));
/// New mappings on their way to the store, once one is open.
static WRITER: OnceLock<Mutex<mpsc::Sender<(i64, String)>>> = OnceLock::new();

/// Maps `text` and remembers the way back.
fn remember(text: &str) -> i64 {
    let id = mapped(text);
    let new = {
        let mut reg = REGISTRY.lock();
        match reg.get(&id) {
            Some(known) if &**known == text => false,
            Some(known) => {
                // Two texts with one hash: the first keeps the id.
                tracing::warn!(id, first = %known, second = %text, "two message ids map to one gateway id");
                false
            }
            None => {
                reg.insert(id, Arc::from(text));
                true
            }
        }
    };
    if new && let Some(w) = WRITER.get() {
        let _ = w.lock().send((id, text.to_owned()));
    }
    id
}

/// The adapter's durable store of mapped ids: mapped id → the peer's
/// text. Its calls block.
pub trait IdMap: Send + 'static {
    /// Every mapping stored.
    fn load(&self) -> Result<Vec<(i64, String)>, String>;

    /// Stores mappings, all or none.
    fn put(&self, entries: &[(i64, String)]) -> Result<(), String>;
}

/// Makes the mappings of this process durable in the store `open` opens:
/// loads what an earlier run stored and writes every new mapping from now
/// on (a thread of its own, so decoding never waits on the disk). The
/// first call in a process wins; later ones (another gateway in the same
/// test process) keep the first store and do not call `open`.
pub fn persist_with<M: IdMap>(open: impl FnOnce() -> Result<M, String>) -> Result<(), String> {
    if WRITER.get().is_some() {
        return Ok(());
    }
    let store = open()?;
    let stored = store.load()?;
    let pending: Vec<(i64, String)> = {
        let mut reg = REGISTRY.lock();
        let pending = reg
            .iter()
            .map(|(id, text)| (*id, text.to_string()))
            .collect();
        for (id, text) in stored {
            reg.entry(id).or_insert_with(|| Arc::from(text.as_str()));
        }
        pending
    };
    store.put(&pending)?;
    let (tx, rx) = mpsc::channel::<(i64, String)>();
    if WRITER.set(Mutex::new(tx)).is_err() {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("onebot-ids".into())
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut batch = vec![first];
                batch.extend(rx.try_iter());
                if let Err(e) = store.put(&batch) {
                    tracing::warn!(error = %e, "message id mappings not stored");
                }
            }
        })
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_that_fit_stay_and_the_rest_map_into_their_range() {
        assert_eq!(message_id_of(&json!(5)), Some(5));
        assert_eq!(message_id_of(&json!(-1_834_567_890)), Some(-1_834_567_890));
        assert_eq!(message_id_of(&json!(" 42 ")), Some(42));
        assert_eq!(message_id_of(&json!(7.0)), Some(7));
        for bad in [json!(null), json!(""), json!(true), json!([1]), json!(1.5)] {
            assert_eq!(message_id_of(&bad), None, "{bad}");
        }
        let text = message_id_of(&json!("msg-abc")).unwrap();
        assert!(is_mapped(text));
        assert_eq!(text, mapped("msg-abc"), "the same id every time");
        let wide = message_id_of(&json!(u64::MAX)).unwrap();
        assert!(is_mapped(wide));
        assert_eq!(message_id_of(&json!(u64::MAX.to_string())), Some(wide));
        assert!(!is_mapped(i64::from(i32::MIN)) && !is_mapped(0) && !is_mapped(-1));
        assert!(is_mapped(-(1 << 32)) && !is_mapped(-(1 << 53)));
        // JavaScript-safe.
        assert!(text.unsigned_abs() < 1 << 53);
        assert_eq!(message_id_text("12"), "12");
        assert_eq!(message_id_text("x-1"), mapped("x-1").to_string());
    }

    #[test]
    fn mapped_ids_go_back_as_the_peer_wrote_them() {
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
