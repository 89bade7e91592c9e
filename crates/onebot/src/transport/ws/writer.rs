//! The write half of a WebSocket session: callers write their own frames
//! one at a time under a fair lock; a write abandoned after its frame was
//! buffered is flushed by the session; the first write error fails the
//! link.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::{Sink, SinkExt};
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_util::sync::CancellationToken;

use crate::transport::body::Fragments;

/// The write half of a session's socket, shared by everyone who writes.
pub(super) struct Writer {
    /// `None` once the session has closed it.
    sink: Arc<tokio::sync::Mutex<Option<BoxSink>>>,
    /// Cancelled on the first write error; the session then ends with it.
    pub(super) failed: CancellationToken,
    error: Mutex<Option<String>>,
    /// A writer gave up after its frame was buffered but before it was
    /// flushed: the session flushes what is left.
    pub(super) unflushed: Notify,
}

pub(super) type BoxSink = Pin<Box<dyn Sink<Message, Error = tungstenite::Error> + Send>>;

/// Leaves a no-op waker in the socket's writer slot. tokio-tungstenite wakes
/// the last writer as well as the reader whenever the socket turns readable;
/// without this, every reply would wake the caller that wrote last (already
/// waiting for its own reply) along with the session, and two runnable tasks
/// make tokio wake a second worker thread for nothing. The flush has nothing
/// left to write here: no system call.
fn forget_writer<S: Sink<Message> + Unpin + ?Sized>(sink: &mut S) {
    let _ =
        Pin::new(sink).poll_flush(&mut std::task::Context::from_waker(std::task::Waker::noop()));
}

/// Asks the session to flush when dropped armed (the write was abandoned).
struct FlushOnDrop<'a>(Option<&'a Notify>);

impl Drop for FlushOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(n) = self.0 {
            n.notify_one();
        }
    }
}

impl Writer {
    /// A writer over `sink`, not failed.
    pub(super) fn new(sink: BoxSink) -> Self {
        Self {
            sink: Arc::new(tokio::sync::Mutex::new(Some(sink))),
            failed: CancellationToken::new(),
            error: Mutex::new(None),
            unflushed: Notify::new(),
        }
    }

    fn fail(&self, e: &tungstenite::Error) {
        self.fail_with(format!("write failed: {e}"));
    }

    fn fail_with(&self, why: String) {
        let mut error = self.error.lock();
        error.get_or_insert(why);
        self.failed.cancel();
    }

    pub(super) fn error(&self) -> String {
        self.error
            .lock()
            .clone()
            .unwrap_or_else(|| "writer stopped".into())
    }

    /// Writes and flushes `msg`. `buffered` turns true once the frame is in
    /// the socket's buffer: from then on it goes out even if this future is
    /// dropped (the session flushes the rest).
    pub(super) async fn write(&self, msg: Message, buffered: &AtomicBool) -> Result<(), ()> {
        let mut sink = self.sink.lock().await;
        let Some(sink) = sink.as_mut().filter(|_| !self.failed.is_cancelled()) else {
            return Err(());
        };
        let mut abandoned = FlushOnDrop(Some(&self.unflushed));
        let result = match sink.feed(msg).await {
            Ok(()) => {
                buffered.store(true, Ordering::Release);
                sink.flush().await
            }
            Err(e) => Err(e),
        };
        abandoned.0 = None;
        forget_writer(sink);
        result.map_err(|e| self.fail(&e))
    }

    /// Writes the fragments of one message back to back as they are
    /// produced, each flushed before the next is made; runs to the end (or
    /// `close`) whoever waits for it. Media that cannot be read end the
    /// link once part of the message is out (the peer would wait for the
    /// rest).
    pub(super) async fn write_fragments(
        self: Arc<Self>,
        mut frames: Fragments,
        buffered: Arc<AtomicBool>,
        close: CancellationToken,
    ) -> Result<(), ()> {
        enum Failed {
            Socket(tungstenite::Error),
            Media(std::io::Error),
        }
        let mut sink = self.sink.lock().await;
        let Some(sink) = sink.as_mut().filter(|_| !self.failed.is_cancelled()) else {
            return Err(());
        };
        let all = async {
            while let Some(f) = frames.next_frame().await.map_err(Failed::Media)? {
                sink.feed(Message::Frame(f)).await.map_err(Failed::Socket)?;
                buffered.store(true, Ordering::Release);
                sink.flush().await.map_err(Failed::Socket)?;
            }
            Ok(())
        };
        let result = tokio::select! {
            _ = close.cancelled() => Err(()),
            r = all => r.map_err(|e| match e {
                Failed::Socket(e) => self.fail(&e),
                Failed::Media(e) => {
                    tracing::warn!(error = %e, "cannot read media while sending them");
                    if buffered.load(Ordering::Acquire) {
                        self.fail_with(format!("media could not be read mid-message: {e}"));
                    }
                }
            }),
        };
        forget_writer(sink);
        result
    }

    /// Flushes what an abandoned write left, from a task of its own (the
    /// session keeps reading meanwhile).
    pub(super) fn spawn_flush(self: &Arc<Self>, close: CancellationToken) {
        let this = self.clone();
        tokio::spawn(async move {
            let sink = this.sink.clone().lock_owned().await;
            this.flush_with(sink, None, close).await;
        });
    }

    /// Sends a ping from a task of its own, unless someone is writing: that
    /// traffic is proof of life enough.
    pub(super) fn spawn_ping(self: &Arc<Self>, close: CancellationToken) {
        let Ok(sink) = self.sink.clone().try_lock_owned() else {
            return;
        };
        let this = self.clone();
        tokio::spawn(async move {
            let ping = Message::Ping(Default::default());
            this.flush_with(sink, Some(ping), close).await;
        });
    }

    async fn flush_with(
        &self,
        mut sink: tokio::sync::OwnedMutexGuard<Option<BoxSink>>,
        msg: Option<Message>,
        close: CancellationToken,
    ) {
        let Some(sink) = sink.as_mut() else { return };
        let work = async {
            if let Some(msg) = msg {
                sink.feed(msg).await?;
            }
            sink.flush().await
        };
        tokio::select! {
            _ = close.cancelled() => {}
            r = work => if let Err(e) = r { self.fail(&e) },
        }
        forget_writer(sink);
    }

    /// Sends a close frame (best effort, at most a second) and drops the
    /// socket's write half.
    pub(super) async fn shut(&self) {
        let closing = async {
            let mut sink = self.sink.lock().await;
            if let Some(mut sink) = sink.take() {
                let _ = sink.close().await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), closing).await;
    }
}
