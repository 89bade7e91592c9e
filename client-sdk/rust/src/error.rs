//! Typed errors: the gateway's `google.rpc` details decoded from a status.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use tonic_types::StatusExt;

use crate::pb;

/// `ErrorInfo.domain` of the gateway's errors.
pub const ERROR_DOMAIN: &str = "onebot-gateway";

/// Everything a [`crate::Client`] call can fail with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The address or TLS settings are invalid, or the connection failed.
    #[error("connecting to the gateway: {0}")]
    Connect(#[from] tonic::transport::Error),
    /// The gateway (or the transport) answered with a non-OK status.
    #[error(transparent)]
    Rpc(#[from] Box<RpcError>),
    /// Reading a local file failed.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The caller passed something unusable (a bad address, token or file).
    #[error("{0}")]
    InvalidInput(String),
    /// The gateway stored different bytes than were read and sent.
    #[error("upload integrity check failed: sent sha256 {sent}, gateway stored {stored}")]
    IntegrityMismatch {
        /// SHA-256 of the bytes the client streamed.
        sent: String,
        /// SHA-256 the gateway reported.
        stored: String,
    },
    /// A download's bytes differ from the size or SHA-256 its header states.
    #[error("download integrity check failed: header sha256 {expected}, received {actual}")]
    DownloadMismatch {
        /// SHA-256 the header stated.
        expected: String,
        /// SHA-256 of the bytes received.
        actual: String,
    },
}

impl Error {
    /// True when the call never reached a gateway: the connection failed
    /// (refused, unresolvable host, TLS handshake) rather than the gateway
    /// answering with an error.
    pub fn is_unreachable(&self) -> bool {
        match self {
            Error::Connect(_) => true,
            Error::Rpc(rpc) => rpc.code == tonic::Code::Unavailable && rpc.domain.is_none(),
            _ => false,
        }
    }

    /// The RPC error, when this is one.
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            Error::Rpc(e) => Some(e),
            _ => None,
        }
    }

    /// The gateway's `ErrorInfo.reason` (for example `GROUP_NOT_ALLOWED`),
    /// when this is an RPC error that carries one.
    pub fn reason(&self) -> Option<&str> {
        self.rpc().and_then(RpcError::reason)
    }

    /// True when a standby gateway refused the call because another
    /// gateway leads the account (UNAVAILABLE `NOT_LEADER`, under `[ha]`):
    /// nothing was done, so a retry is safe. The [`crate::Client`] retries
    /// these by itself ([`crate::ClientBuilder::not_leader_retry`]); this is
    /// the last refusal when its budget ran out.
    pub fn is_not_leader(&self) -> bool {
        self.rpc().is_some_and(RpcError::is_not_leader)
    }
}

impl From<tonic::Status> for Error {
    fn from(status: tonic::Status) -> Self {
        Error::Rpc(Box::new(RpcError::from_status(&status)))
    }
}

/// A non-OK gRPC status with the gateway's error details decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    /// The gRPC status code.
    pub code: tonic::Code,
    /// The status message.
    pub message: String,
    /// `ErrorInfo.reason`, without the `ERROR_REASON_` prefix; absent when
    /// the status carried no `ErrorInfo` (for example a transport error).
    pub reason: Option<String>,
    /// `ErrorInfo.domain` (`onebot-gateway` for the gateway's errors).
    pub domain: Option<String>,
    /// `ErrorInfo.metadata`: every dynamic value of the message.
    pub metadata: BTreeMap<String, String>,
    /// `RetryInfo.retry_delay`: how long to wait before retrying, when the
    /// gateway knows.
    pub retry_delay: Option<Duration>,
    /// `BadRequest` field violations: which request field is at fault.
    pub field_violations: Vec<FieldViolation>,
}

/// One `BadRequest.FieldViolation`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// The request field, as a dotted path.
    pub field: String,
    /// Why it is invalid.
    pub description: String,
}

impl RpcError {
    /// Decodes `status` and its `grpc-status-details-bin` details.
    pub fn from_status(status: &tonic::Status) -> Self {
        let details = status.get_error_details();
        let info = details.error_info();
        // A transport failure's status says only "tcp connect error"; its
        // cause (connection refused, no such host) is in the source chain.
        let message = match (info, root_cause(status)) {
            (None, Some(cause)) if !status.message().contains(&cause) => {
                format!("{}: {cause}", status.message())
            }
            _ => status.message().to_owned(),
        };
        Self {
            code: status.code(),
            message,
            reason: info.map(|i| i.reason.clone()),
            domain: info.map(|i| i.domain.clone()),
            metadata: info
                .map(|i| {
                    i.metadata
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            retry_delay: details.retry_info().and_then(|r| r.retry_delay),
            field_violations: details
                .bad_request()
                .map(|b| {
                    b.field_violations
                        .iter()
                        .map(|v| FieldViolation {
                            field: v.field.clone(),
                            description: v.description.clone(),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// `ErrorInfo.reason`, when present.
    pub fn reason(&self) -> Option<&str> {
        self.reason.as_deref()
    }

    /// The reason as the proto enum, when it is one the client knows.
    pub fn error_reason(&self) -> Option<pb::ErrorReason> {
        self.reason
            .as_deref()
            .and_then(pb::ErrorReason::from_reason)
    }

    /// True when the gateway reported `reason`.
    pub fn is(&self, reason: pb::ErrorReason) -> bool {
        self.reason.as_deref() == Some(reason.reason())
    }

    /// True for errors of the gateway (domain `onebot-gateway`).
    pub fn is_gateway_error(&self) -> bool {
        self.domain.as_deref() == Some(ERROR_DOMAIN)
    }

    /// True for a standby's refusal: UNAVAILABLE with reason `NOT_LEADER`
    /// (another gateway leads the account; nothing was done).
    pub fn is_not_leader(&self) -> bool {
        self.code == tonic::Code::Unavailable && self.is(pb::ErrorReason::NotLeader)
    }

    /// Of a `NOT_LEADER` refusal: the instance name of the account's
    /// leader, when the standby knows it (metadata `leader`).
    pub fn leader(&self) -> Option<&str> {
        self.metadata.get("leader").map(String::as_str)
    }

    /// Of a `NOT_LEADER` refusal: the leader's advertised `host:port`,
    /// when it gave one (metadata `advertise`).
    pub fn advertise(&self) -> Option<&str> {
        self.metadata.get("advertise").map(String::as_str)
    }
}

/// The innermost cause of `err`, as a short lower-case text: an I/O
/// error by its kind (`connection refused`), anything else as it prints.
fn root_cause(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source = err.source()?;
    loop {
        if let Some(io) = source.downcast_ref::<std::io::Error>() {
            return Some(io_text(io));
        }
        match source.source() {
            Some(next) => source = next,
            None => return Some(source.to_string()),
        }
    }
}

fn io_text(io: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match io.kind() {
        K::ConnectionRefused => "connection refused".into(),
        K::ConnectionReset => "connection reset".into(),
        K::TimedOut => "timed out".into(),
        K::HostUnreachable => "host unreachable".into(),
        K::NetworkUnreachable => "network unreachable".into(),
        K::AddrNotAvailable => "address not available".into(),
        _ => {
            let text = io.to_string();
            match text.rsplit_once(" (os error ") {
                Some((head, _)) => head.to_lowercase(),
                None => text,
            }
        }
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.code)?;
        if let Some(reason) = &self.reason {
            write!(f, " ({reason})")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(delay) = self.retry_delay {
            write!(f, " [retry after {} ms]", delay.as_millis())?;
        }
        Ok(())
    }
}

impl std::error::Error for RpcError {}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use tonic_types::ErrorDetails;

    use super::*;

    #[test]
    fn decodes_error_info_retry_info_and_bad_request() {
        let mut details = ErrorDetails::with_error_info(
            "ACCOUNT_OFFLINE",
            ERROR_DOMAIN,
            HashMap::from([("account_id".to_owned(), "a".to_owned())]),
        );
        details.set_retry_info(Some(Duration::from_millis(1500)));
        details.add_bad_request_violation("group_id", "must be positive");
        let status =
            tonic::Status::with_error_details(tonic::Code::Unavailable, "offline", details);

        let err = Error::from(status);
        let rpc = err.rpc().unwrap();
        assert_eq!(rpc.code, tonic::Code::Unavailable);
        assert_eq!(err.reason(), Some("ACCOUNT_OFFLINE"));
        assert!(rpc.is(pb::ErrorReason::AccountOffline));
        assert_eq!(rpc.error_reason(), Some(pb::ErrorReason::AccountOffline));
        assert!(rpc.is_gateway_error());
        assert_eq!(rpc.metadata["account_id"], "a");
        assert_eq!(rpc.retry_delay, Some(Duration::from_millis(1500)));
        assert_eq!(rpc.field_violations[0].field, "group_id");
        assert_eq!(
            rpc.to_string(),
            "Unavailable (ACCOUNT_OFFLINE): offline [retry after 1500 ms]"
        );
    }

    #[test]
    fn plain_status_has_no_reason() {
        let err = Error::from(tonic::Status::unimplemented("not yet"));
        let rpc = err.rpc().unwrap();
        assert_eq!(rpc.reason, None);
        assert_eq!(rpc.error_reason(), None);
        assert!(!rpc.is_gateway_error());
        assert!(rpc.metadata.is_empty());
    }

    #[test]
    fn reason_strings_round_trip() {
        assert_eq!(
            pb::ErrorReason::GroupNotAllowed.reason(),
            "GROUP_NOT_ALLOWED"
        );
        assert_eq!(
            pb::ErrorReason::from_reason("GROUP_NOT_ALLOWED"),
            Some(pb::ErrorReason::GroupNotAllowed)
        );
        assert_eq!(pb::ErrorReason::from_reason("NOPE"), None);
    }
}
