//! The relay: a measured floor for a gateway's call on the replay peer.
//!
//! It is the echo RPC (the same tonic service, codec, runtime and server
//! settings as `echo-server`) where each call first makes one OneBot action
//! round trip over one shared WebSocket, as the gateway's account
//! connection does: the action frame is written by the connection's task,
//! the reply is matched to its call by the echo read off the end of its
//! text (the gateway's own [`frame::peek_echo`]), and the call passes over
//! the reply's JSON once with serde_json building nothing (`IgnoredAny`).
//! Then it answers as many bytes as the gateway's answer.
//!
//! Whatever a gateway does beyond that (decoding the reply into its model,
//! rendering, building the proto answer, auth, limits, metrics, tracing,
//! the archive) is above this floor. `bench echo-server --relay-peer <ws>
//! --relay-rpc history|members` serves it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, bail};
use futures_util::{SinkExt, StreamExt};
use onebot_gateway::onebot::frame;
use serde::de::IgnoredAny;
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};
use tonic::Status;

type Waiters = Mutex<HashMap<u64, oneshot::Sender<Utf8Bytes>>>;

/// One OneBot connection that every call shares, and the action each call
/// makes on it.
pub struct Relay {
    out: mpsc::Sender<Message>,
    waiters: Arc<Waiters>,
    next: AtomicU64,
    /// The action frame's text before the echo value (`…,"echo":`).
    head: String,
}

/// Hands a reply to the call its echo names; replies for no call (and
/// events) are dropped.
fn deliver(waiters: &Waiters, text: Utf8Bytes) {
    let Some(echo) = frame::peek_echo(text.as_str()).and_then(|e| e.parse::<u64>().ok()) else {
        return;
    };
    let waiter = waiters.lock().ok().and_then(|mut m| m.remove(&echo));
    if let Some(tx) = waiter {
        let _ = tx.send(text);
    }
}

impl Relay {
    /// Connects to the OneBot peer at `ws_url`; each call will send the
    /// action the gateway sends for `rpc` (`history` or `members`).
    pub async fn connect(ws_url: &str, rpc: &str) -> Result<Relay> {
        let (action, params) = match rpc {
            "history" => crate::run::direct_history(),
            "members" => crate::run::direct_members(),
            other => bail!("unknown relay rpc {other:?} (history or members)"),
        };
        let (ws, _) = tokio_tungstenite::connect_async_with_config(ws_url, None, true)
            .await
            .with_context(|| format!("connecting to {ws_url}"))?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::channel::<Message>(1024);
        let waiters: Arc<Waiters> = Arc::default();
        let w = waiters.clone();
        // One task reads and writes the connection, as the gateway's
        // session does.
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    m = out_rx.recv() => match m {
                        Some(m) => if sink.send(m).await.is_err() { break },
                        None => break,
                    },
                    frame = stream.next() => match frame {
                        Some(Ok(Message::Text(text))) => deliver(&w, text),
                        Some(Ok(_)) => {}
                        None | Some(Err(_)) => break,
                    },
                }
            }
            // Connection gone: no call can send any more, and dropping the
            // senders fails every waiter.
            out_rx.close();
            if let Ok(mut m) = w.lock() {
                m.clear();
            }
        });
        Ok(Relay {
            out,
            waiters,
            next: AtomicU64::new(1),
            head: format!(r#"{{"action":"{action}","params":{params},"echo":"#),
        })
    }

    /// One action round trip: sent, its reply awaited and passed over once.
    pub async fn round_trip(&self) -> Result<(), Status> {
        let echo = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiters
            .lock()
            .map_err(|_| Status::internal("poisoned"))?
            .insert(echo, tx);
        let mut text = String::with_capacity(self.head.len() + 24);
        text.push_str(&self.head);
        text.push_str(&echo.to_string());
        text.push('}');
        self.out
            .send(Message::text(text))
            .await
            .map_err(|_| Status::unavailable("relay: connection closed"))?;
        let reply = rx
            .await
            .map_err(|_| Status::unavailable("relay: connection closed"))?;
        serde_json::from_str::<IgnoredAny>(reply.as_str())
            .map_err(|e| Status::internal(format!("relay: reply is not JSON: {e}")))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tokio::net::TcpListener;

    use super::*;

    /// A peer on loopback answering each action with `reply(echo)`, the
    /// action's echo as its text; `None` closes the connection instead.
    async fn peer(reply: fn(&str) -> Option<String>) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut ws = tokio_tungstenite::accept_async(stream).await.unwrap();
            while let Some(Ok(Message::Text(text))) = ws.next().await {
                let action: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(action["action"], "get_group_member_list");
                match reply(&action["echo"].to_string()) {
                    Some(answer) => ws.send(Message::text(answer)).await.unwrap(),
                    None => return,
                }
            }
        });
        url
    }

    #[tokio::test]
    async fn a_round_trip_waits_for_the_reply_that_carries_its_echo() {
        let url = peer(|echo| {
            Some(format!(
                r#"{{"status":"ok","retcode":0,"data":[{{"user_id":1}}],"echo":{echo}}}"#
            ))
        })
        .await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        for _ in 0..3 {
            relay.round_trip().await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_reply_that_is_not_json_fails_the_call() {
        // The echo reads off the end; the rest is not JSON.
        let url = peer(|echo| Some(format!(r#"{{"data":[1,,],"echo":{echo}}}"#))).await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        let err = relay.round_trip().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal, "{err}");
    }

    #[tokio::test]
    async fn a_closed_connection_fails_the_waiting_call() {
        let url = peer(|_| None).await;
        let relay = Relay::connect(&url, "members").await.unwrap();
        let err = relay.round_trip().await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Unavailable, "{err}");
    }

    #[tokio::test]
    async fn an_unknown_rpc_is_refused() {
        let err = Relay::connect("ws://127.0.0.1:1/", "events")
            .await
            .err()
            .unwrap();
        assert!(err.to_string().contains("history or members"), "{err}");
    }
}
