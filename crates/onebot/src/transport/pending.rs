//! Calls waiting for their reply: echo → oneshot, bounded, with a drop guard.
//!
//! Every action sent over a WebSocket gets a fresh echo (an account-wide
//! counter rendered as a decimal string, so it survives a peer that turns it
//! into a number or stringifies it). A reply is matched by [`echo_key`]
//! whatever JSON type the echo comes back as. Dropping the [`PendingCall`]
//! (timeout, cancelled RPC) removes the entry; [`Pending::fail_all`] answers
//! every waiting call at once when the connection drops.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::frame::{Frame, FrameText, Reply};

/// How a pending call ended, from the connection's side.
#[derive(Debug)]
pub enum Answer {
    /// The peer answered with this frame (a stream action's frames are
    /// always [`Reply::Frame`]).
    Reply(Reply),
    /// The connection dropped before an answer.
    Lost,
}

/// The pending calls of one connection.
#[derive(Debug)]
pub struct Pending {
    max: usize,
    inner: Mutex<Inner>,
}

/// Who waits for an echo: one reply, or every frame of a stream action.
#[derive(Debug)]
enum Waiter {
    Once(oneshot::Sender<Answer>),
    Stream(mpsc::UnboundedSender<Answer>),
}

#[derive(Debug, Default)]
struct Inner {
    waiting: HashMap<String, Waiter>,
    /// Set once the connection is gone: later registrations fail.
    closed: bool,
}

/// Why a call could not be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterError {
    /// `max_pending_calls` calls are already waiting.
    Full,
    /// The connection has already dropped.
    Closed,
}

impl Pending {
    /// An empty map holding at most `max` calls.
    pub fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            inner: Mutex::new(Inner::default()),
        })
    }

    /// Registers a call under `echo`; the returned guard removes it on drop.
    pub fn register(self: &Arc<Self>, echo: String) -> Result<PendingCall, RegisterError> {
        let (tx, rx) = oneshot::channel();
        let mut inner = self.inner.lock();
        if inner.closed {
            return Err(RegisterError::Closed);
        }
        if inner.waiting.len() >= self.max {
            return Err(RegisterError::Full);
        }
        inner.waiting.insert(echo.clone(), Waiter::Once(tx));
        Ok(PendingCall {
            map: self.clone(),
            echo,
            rx,
        })
    }

    /// Registers a stream action under `echo`: every frame with that echo
    /// goes to the returned call until one is terminal (see
    /// [`Pending::complete`]); the guard removes it on drop.
    pub fn register_stream(self: &Arc<Self>, echo: String) -> Result<PendingStream, RegisterError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut inner = self.inner.lock();
        if inner.closed {
            return Err(RegisterError::Closed);
        }
        if inner.waiting.len() >= self.max {
            return Err(RegisterError::Full);
        }
        inner.waiting.insert(echo.clone(), Waiter::Stream(tx));
        Ok(PendingStream {
            map: self.clone(),
            echo,
            rx,
        })
    }

    /// True when a call waits for `key`.
    pub fn is_waiting(&self, key: &str) -> bool {
        self.inner.lock().waiting.contains_key(key)
    }

    /// Delivers a reply frame. Gives the frame back when no call waits for
    /// `key` (late reply after a timeout, or a frame for someone else).
    ///
    /// A stream action's frame stays registered unless it is terminal: not
    /// marked `"stream": "stream-action"`, a failure, or `data.type`
    /// `response` / `error`.
    pub fn complete(&self, key: &str, frame: Frame) -> Result<(), Frame> {
        let mut inner = self.inner.lock();
        match inner.waiting.get(key) {
            Some(Waiter::Stream(tx)) => {
                let tx = tx.clone();
                if is_terminal(&frame) {
                    inner.waiting.remove(key);
                }
                drop(inner);
                // A receiver gone means the caller gave up: drop the frame.
                let _ = tx.send(Answer::Reply(Reply::Frame(frame)));
                Ok(())
            }
            Some(Waiter::Once(_)) => {
                let Some(Waiter::Once(tx)) = inner.waiting.remove(key) else {
                    return Err(frame);
                };
                drop(inner);
                // The receiver may have just been dropped: the call is over
                // either way.
                let _ = tx.send(Answer::Reply(Reply::Frame(frame)));
                Ok(())
            }
            None => Err(frame),
        }
    }

    /// Delivers a reply still undecoded to the single call waiting for
    /// `key`. Gives the text back when no such call waits, or when a stream
    /// action does (its frames are decoded here, to tell the last one).
    pub fn complete_text(&self, key: &str, text: FrameText) -> Result<(), FrameText> {
        let mut inner = self.inner.lock();
        if !matches!(inner.waiting.get(key), Some(Waiter::Once(_))) {
            return Err(text);
        }
        let Some(Waiter::Once(tx)) = inner.waiting.remove(key) else {
            return Err(text);
        };
        drop(inner);
        let _ = tx.send(Answer::Reply(Reply::Text(text)));
        Ok(())
    }

    /// Fails every waiting call with [`Answer::Lost`] and refuses new ones.
    pub fn fail_all(&self) -> usize {
        let drained: Vec<_> = {
            let mut inner = self.inner.lock();
            inner.closed = true;
            inner.waiting.drain().map(|(_, tx)| tx).collect()
        };
        let n = drained.len();
        for waiter in drained {
            match waiter {
                Waiter::Once(tx) => {
                    let _ = tx.send(Answer::Lost);
                }
                Waiter::Stream(tx) => {
                    let _ = tx.send(Answer::Lost);
                }
            }
        }
        n
    }

    /// Number of calls waiting now.
    pub fn len(&self) -> usize {
        self.inner.lock().waiting.len()
    }

    /// True when no call waits.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn remove(&self, echo: &str) {
        self.inner.lock().waiting.remove(echo);
    }
}

/// One registered call: await [`PendingCall::answer`]; dropping it removes
/// the entry.
#[derive(Debug)]
pub struct PendingCall {
    map: Arc<Pending>,
    echo: String,
    rx: oneshot::Receiver<Answer>,
}

impl PendingCall {
    /// The echo this call was registered under.
    pub fn echo(&self) -> &str {
        &self.echo
    }

    /// Waits for the answer. A map dropped without answering counts as lost.
    pub async fn answer(&mut self) -> Answer {
        (&mut self.rx).await.unwrap_or(Answer::Lost)
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        self.map.remove(&self.echo);
    }
}

/// One registered stream action: its frames in order; dropping it removes
/// the entry.
#[derive(Debug)]
pub struct PendingStream {
    map: Arc<Pending>,
    echo: String,
    rx: mpsc::UnboundedReceiver<Answer>,
}

impl PendingStream {
    /// The echo this call was registered under.
    pub fn echo(&self) -> &str {
        &self.echo
    }

    /// The next frame; [`Answer::Lost`] once the connection dropped (or the
    /// map was dropped).
    pub async fn next(&mut self) -> Answer {
        self.rx.recv().await.unwrap_or(Answer::Lost)
    }
}

impl Drop for PendingStream {
    fn drop(&mut self) {
        self.map.remove(&self.echo);
    }
}

/// True when a frame ends a stream action.
pub fn is_terminal(frame: &Frame) -> bool {
    #[derive(serde::Deserialize)]
    struct Kind {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    let head = frame.head();
    if head.get("stream").and_then(Value::as_str) != Some("stream-action") {
        return true;
    }
    if head.get("status").and_then(Value::as_str) == Some("failed") {
        return true;
    }
    let kind = frame
        .data()
        .raw()
        .and_then(|raw| serde_json::from_str::<Kind>(raw.get()).ok())
        .and_then(|k| k.kind);
    !matches!(kind.as_deref(), Some("stream"))
}

/// The matching key of an echo as it came back: strings as they are (a
/// stringified JSON string or number is unwrapped), numbers in decimal,
/// objects and arrays as compact JSON. `None` for a missing, null or empty
/// echo, which matches nothing.
pub fn echo_key(echo: Option<&Value>) -> Option<String> {
    let key = match echo? {
        Value::Null => return None,
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            // `"\"17\""` (stringified string) and `"17"` both mean 17.
            Ok(Value::String(inner)) => inner,
            Ok(Value::Number(n)) => n.to_string(),
            Ok(v @ (Value::Object(_) | Value::Array(_))) => v.to_string(),
            _ => s.clone(),
        },
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        v @ (Value::Object(_) | Value::Array(_)) => v.to_string(),
    };
    (!key.is_empty()).then_some(key)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn echo_keys_match_whatever_the_type() {
        let sent = "17";
        for back in [
            json!("17"),
            json!(17),
            json!("\"17\""),
            Value::String(json!("17").to_string()),
        ] {
            assert_eq!(echo_key(Some(&back)).as_deref(), Some(sent), "{back}");
        }
        let obj = json!({"id": 3});
        assert_eq!(
            echo_key(Some(&Value::String(obj.to_string()))),
            echo_key(Some(&obj))
        );
        assert_eq!(echo_key(Some(&json!(""))), None);
        assert_eq!(echo_key(Some(&Value::Null)), None);
        assert_eq!(echo_key(None), None);
        assert_eq!(echo_key(Some(&json!("ab"))).as_deref(), Some("ab"));
    }

    #[tokio::test]
    async fn bounded_removed_on_drop_and_failed_all() {
        let p = Pending::new(2);
        let a = p.register("1".into()).unwrap();
        let mut b = p.register("2".into()).unwrap();
        assert_eq!(p.register("3".into()).unwrap_err(), RegisterError::Full);
        drop(a);
        assert_eq!(p.len(), 1);
        assert!(
            p.complete("1", Frame::from_value(json!({}))).is_err(),
            "dropped call is gone"
        );
        assert!(
            p.complete("2", Frame::from_value(json!({"echo": "2"})))
                .is_ok()
        );
        assert!(matches!(b.answer().await, Answer::Reply(_)));
        let mut c = p.register("4".into()).unwrap();
        assert_eq!(p.fail_all(), 1);
        assert!(matches!(c.answer().await, Answer::Lost));
        assert_eq!(p.register("5".into()).unwrap_err(), RegisterError::Closed);
        drop(c);
        assert!(p.is_empty());
    }
}
