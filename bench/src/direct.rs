//! The direct hop: OneBot actions sent straight to the sandbox over one
//! forward WebSocket, many in flight, replies matched by `echo` (what the
//! gateway's adapter does, minus everything else).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

type Waiters = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

/// A multiplexed OneBot WebSocket client.
#[derive(Clone)]
pub struct DirectClient {
    out: mpsc::Sender<Message>,
    waiters: Waiters,
    next: Arc<AtomicU64>,
}

impl DirectClient {
    /// Connects to `ws_url` and starts the reader and writer tasks.
    pub async fn connect(ws_url: &str) -> Result<DirectClient> {
        let (ws, _) = tokio_tungstenite::connect_async(ws_url)
            .await
            .with_context(|| format!("connecting to {ws_url}"))?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::channel::<Message>(256);
        tokio::spawn(async move {
            while let Some(m) = out_rx.recv().await {
                if sink.send(m).await.is_err() {
                    break;
                }
            }
        });
        let waiters: Waiters = Arc::default();
        let w = waiters.clone();
        tokio::spawn(async move {
            while let Some(Ok(msg)) = stream.next().await {
                let Message::Text(text) = msg else { continue };
                let Ok(frame) = serde_json::from_str::<Value>(&text) else {
                    continue;
                };
                let Some(echo) = frame.get("echo").and_then(Value::as_str) else {
                    continue; // an event
                };
                let waiter = w.lock().ok().and_then(|mut m| m.remove(echo));
                if let Some(tx) = waiter {
                    let _ = tx.send(frame);
                }
            }
            // Connection gone: dropping the senders fails every waiter.
            if let Ok(mut m) = w.lock() {
                m.clear();
            }
        });
        Ok(DirectClient {
            out,
            waiters,
            next: Arc::default(),
        })
    }

    /// Sends one action and waits for its reply; fails unless `status` is
    /// `ok`. Returns the reply's `data`.
    pub async fn call(&self, action: &str, params: &Value) -> Result<Value> {
        let echo = format!("b{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.waiters
            .lock()
            .map_err(|_| anyhow!("poisoned"))?
            .insert(echo.clone(), tx);
        let frame = json!({ "action": action, "params": params, "echo": echo });
        self.out
            .send(Message::text(frame.to_string()))
            .await
            .map_err(|_| anyhow!("connection closed"))?;
        let mut reply = rx.await.map_err(|_| anyhow!("connection closed"))?;
        if reply.get("status").and_then(Value::as_str) != Some("ok") {
            return Err(anyhow!("{action} failed: {reply}"));
        }
        Ok(reply
            .get_mut("data")
            .map(Value::take)
            .unwrap_or(Value::Null))
    }
}
