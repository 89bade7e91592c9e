//! HTTP body wrappers used by the tower layers: one that reports how a
//! response ended (its `grpc-status` trailer, or that it was dropped), and
//! one that refuses request messages over a size limit as soon as their
//! gRPC frame header arrives.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body as HttpBody, Frame, SizeHint};
use tonic::Status;
use tonic::body::Body;

/// How a response body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The trailers (or headers) carried this status.
    Status(tonic::Code),
    /// The body ended without a `grpc-status`.
    NoStatus,
    /// The body was dropped before its end (client went away).
    Dropped,
}

/// The `grpc-status` of a header map, if present.
pub fn grpc_status(headers: &http::HeaderMap) -> Option<tonic::Code> {
    headers
        .get("grpc-status")
        .map(|v| tonic::Code::from_bytes(v.as_bytes()))
}

type OnEnd = Box<dyn FnOnce(End) + Send>;

/// A response body that calls `on_end` once, when it ends or is dropped.
pub struct ObservedBody {
    inner: Body,
    on_end: Option<OnEnd>,
}

impl ObservedBody {
    /// Wraps `inner`.
    pub fn new(inner: Body, on_end: impl FnOnce(End) + Send + 'static) -> Self {
        Self {
            inner,
            on_end: Some(Box::new(on_end)),
        }
    }

    fn finish(&mut self, end: End) {
        if let Some(f) = self.on_end.take() {
            f(end);
        }
    }
}

impl Drop for ObservedBody {
    fn drop(&mut self) {
        self.finish(End::Dropped);
    }
}

impl HttpBody for ObservedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(code) = frame.trailers_ref().and_then(grpc_status) {
                    this.finish(End::Status(code));
                }
            }
            Poll::Ready(Some(Err(status))) => this.finish(End::Status(status.code())),
            Poll::Ready(None) => this.finish(End::NoStatus),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A request body that fails with `error()` when a gRPC message longer than
/// `limit` bytes starts, before its payload is buffered.
pub struct LimitedBody {
    inner: Body,
    limit: usize,
    error: fn(usize, usize) -> Status,
    /// Bytes of the current 5-byte message header seen so far.
    header: [u8; 5],
    header_len: usize,
    /// Payload bytes of the current message still to pass.
    payload_left: usize,
    failed: bool,
}

impl LimitedBody {
    /// Wraps `inner`; `error(found, limit)` builds the refusal.
    pub fn new(inner: Body, limit: usize, error: fn(usize, usize) -> Status) -> Self {
        Self {
            inner,
            limit,
            error,
            header: [0; 5],
            header_len: 0,
            payload_left: 0,
            failed: false,
        }
    }

    /// Walks the gRPC framing of `chunk`; `Err(len)` when a message over the
    /// limit starts.
    fn scan(&mut self, mut chunk: &[u8]) -> Result<(), usize> {
        while !chunk.is_empty() {
            if self.payload_left > 0 {
                let n = self.payload_left.min(chunk.len());
                self.payload_left -= n;
                chunk = chunk.get(n..).unwrap_or_default();
                continue;
            }
            let want = 5 - self.header_len;
            let n = want.min(chunk.len());
            if let (Some(dst), Some(src)) = (
                self.header.get_mut(self.header_len..self.header_len + n),
                chunk.get(..n),
            ) {
                dst.copy_from_slice(src);
            }
            self.header_len += n;
            chunk = chunk.get(n..).unwrap_or_default();
            if self.header_len == 5 {
                let [_, a, b, c, d] = self.header;
                let len = u32::from_be_bytes([a, b, c, d]) as usize;
                if len > self.limit {
                    return Err(len);
                }
                self.header_len = 0;
                self.payload_left = len;
            }
        }
        Ok(())
    }
}

impl HttpBody for LimitedBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        if this.failed {
            return Poll::Ready(None);
        }
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
            && let Err(found) = this.scan(data)
        {
            this.failed = true;
            return Poll::Ready(Some(Err((this.error)(found, this.limit))));
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.failed || self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A request body that says when its first frame (or its end, or an error)
/// arrives, once: the first-message timeout waits on it.
pub struct ArrivalBody {
    inner: Body,
    arrived: Option<tokio::sync::oneshot::Sender<()>>,
}

impl ArrivalBody {
    /// Wraps `inner`; `arrived` fires at its first frame.
    pub fn new(inner: Body, arrived: tokio::sync::oneshot::Sender<()>) -> Self {
        Self {
            inner,
            arrived: Some(arrived),
        }
    }
}

impl HttpBody for ArrivalBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        if polled.is_ready()
            && let Some(arrived) = this.arrived.take()
        {
            let _ = arrived.send(());
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(len: u32) -> Vec<u8> {
        let mut v = vec![0u8];
        v.extend_from_slice(&len.to_be_bytes());
        v.extend(std::iter::repeat_n(7u8, len as usize));
        v
    }

    fn limited(limit: usize) -> LimitedBody {
        LimitedBody::new(Body::empty(), limit, |found, limit| {
            Status::resource_exhausted(format!("{found} > {limit}"))
        })
    }

    #[test]
    fn scan_follows_frames_across_chunk_boundaries() {
        let mut stream = frame(10);
        stream.extend(frame(0));
        stream.extend(frame(20));
        // Every split point, including inside headers.
        for split in 0..stream.len() {
            let mut b = limited(20);
            let (x, y) = stream.split_at(split);
            assert_eq!(b.scan(x).and_then(|()| b.scan(y)), Ok(()), "split {split}");
            assert_eq!((b.header_len, b.payload_left), (0, 0));
        }
        let mut b = limited(19);
        assert_eq!(b.scan(&stream), Err(20));
        let mut b = limited(5);
        // The header alone is enough to refuse.
        assert_eq!(b.scan(&frame(1_000_000)[..5]), Err(1_000_000));
    }
}
