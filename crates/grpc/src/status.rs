//! The one mapping from the domain [`Error`] to `tonic::Status`.
//!
//! Every [`Kind`] has one gRPC code and one `ErrorReason` (exhaustive match,
//! no wildcard). The status carries `google.rpc.ErrorInfo` (domain
//! `onebot-gateway`, reason without the `ERROR_REASON_` prefix, the error's
//! metadata), a `BadRequest` field violation when a field is at fault, and
//! `RetryInfo` when a retry delay is known.

use onebot_gateway_client::pb::ErrorReason;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

use onebot_gateway_domain::error::{Error, Kind};

/// `ErrorInfo.domain` of every error.
pub const ERROR_DOMAIN: &str = "onebot-gateway";

/// The gRPC code and reason of a kind.
pub fn classify(kind: Kind) -> (Code, ErrorReason) {
    use ErrorReason as R;
    match kind {
        Kind::InvalidRequest => (Code::InvalidArgument, R::InvalidRequest),
        Kind::AccountNotConfigured => (Code::FailedPrecondition, R::AccountNotConfigured),
        Kind::AccountOffline => (Code::Unavailable, R::AccountOffline),
        Kind::OnebotAuthFailed => (Code::FailedPrecondition, R::OnebotAuthFailed),
        Kind::OnebotTimeout => (Code::DeadlineExceeded, R::OnebotTimeout),
        Kind::OnebotBadRequest => (Code::InvalidArgument, R::OnebotBadRequest),
        Kind::OnebotActionUnsupported => (Code::Unimplemented, R::OnebotActionUnsupported),
        Kind::OnebotActionFailed => (Code::FailedPrecondition, R::OnebotActionFailed),
        Kind::OnebotActionUnknown => (Code::Unknown, R::OnebotActionFailed),
        Kind::OnebotProtocolError => (Code::Internal, R::OnebotProtocolError),
        Kind::OnebotConnectionLost => (Code::Unavailable, R::OnebotConnectionLost),
        Kind::BotMuted => (Code::FailedPrecondition, R::BotMuted),
        Kind::RemovedFromGroup => (Code::FailedPrecondition, R::RemovedFromGroup),
        Kind::MediaTransferFailed => (Code::Aborted, R::MediaTransferFailed),
        Kind::SendOutcomeUnknown => (Code::Unknown, R::SendOutcomeUnknown),
        Kind::RiskControlled => (Code::FailedPrecondition, R::RiskControlled),
        Kind::PokeUnsupported => (Code::Unimplemented, R::PokeUnsupported),
        Kind::UnsupportedByPeer => (Code::FailedPrecondition, R::UnsupportedByPeer),
        Kind::HistoryUnsupported => (Code::Unimplemented, R::HistoryUnsupported),
        Kind::GroupNotAllowed => (Code::PermissionDenied, R::GroupNotAllowed),
        Kind::GroupRequired => (Code::InvalidArgument, R::GroupRequired),
        Kind::EmptyMessage => (Code::InvalidArgument, R::EmptyMessage),
        Kind::TextTooLong => (Code::InvalidArgument, R::TextTooLong),
        Kind::TooManyImages => (Code::InvalidArgument, R::TooManyImages),
        Kind::TooManyVideos => (Code::InvalidArgument, R::TooManyVideos),
        Kind::MediaTooLarge => (Code::ResourceExhausted, R::MediaTooLarge),
        Kind::MediaTypeMismatch => (Code::InvalidArgument, R::MediaTypeMismatch),
        Kind::MediaNotFound => (Code::NotFound, R::MediaNotFound),
        Kind::MediaChecksumMismatch => (Code::InvalidArgument, R::MediaChecksumMismatch),
        Kind::MediaSizeMismatch => (Code::InvalidArgument, R::MediaSizeMismatch),
        Kind::UploadHeaderMissing => (Code::InvalidArgument, R::UploadHeaderMissing),
        Kind::UploadHeaderRepeated => (Code::InvalidArgument, R::UploadHeaderRepeated),
        Kind::StagingQuotaExceeded => (Code::ResourceExhausted, R::StagingQuotaExceeded),
        Kind::UrlForbidden => (Code::PermissionDenied, R::UrlForbidden),
        Kind::UrlFetchFailed => (Code::FailedPrecondition, R::UrlFetchFailed),
        Kind::PathForbidden => (Code::PermissionDenied, R::PathForbidden),
        Kind::PathNotFound => (Code::NotFound, R::PathNotFound),
        Kind::MediaSourceDisabled => (Code::FailedPrecondition, R::MediaSourceDisabled),
        Kind::QueueFull => (Code::ResourceExhausted, R::QueueFull),
        Kind::RateLimited => (Code::ResourceExhausted, R::RateLimited),
        Kind::IdempotencyKeyReused => (Code::InvalidArgument, R::IdempotencyKeyReused),
        Kind::EventStreamLagged => (Code::ResourceExhausted, R::EventStreamLagged),
        Kind::EventGapTooOld => (Code::OutOfRange, R::EventGapTooOld),
        Kind::ToolsDisabled => (Code::Unimplemented, R::ToolsDisabled),
        Kind::Unauthenticated => (Code::Unauthenticated, R::Unauthenticated),
        Kind::TokenScope => (Code::PermissionDenied, R::TokenScope),
        Kind::ShuttingDown => (Code::Unavailable, R::ShuttingDown),
        Kind::Overloaded => (Code::ResourceExhausted, R::Overloaded),
        Kind::Internal => (Code::Internal, R::Internal),
        Kind::Cancelled => (Code::Cancelled, R::Cancelled),
        Kind::DeadlineExceeded => (Code::DeadlineExceeded, R::DeadlineExceeded),
        Kind::RequestTooLarge => (Code::ResourceExhausted, R::RequestTooLarge),
        Kind::MediaDownloadFailed => (Code::FailedPrecondition, R::MediaTransferFailed),
        Kind::UserNotAllowed => (Code::PermissionDenied, R::UserNotAllowed),
        Kind::MessageNotFound => (Code::NotFound, R::MessageNotFound),
        Kind::StorageFailed => (Code::Unavailable, R::StorageFailed),
        Kind::ArchiveDisabled => (Code::FailedPrecondition, R::ArchiveDisabled),
        Kind::GroupNotFound => (Code::NotFound, R::GroupNotFound),
        Kind::ChatNotArchived => (Code::FailedPrecondition, R::ChatNotArchived),
        Kind::PolicyDenied => (Code::PermissionDenied, R::PolicyDenied),
        Kind::ApprovalPending => (Code::FailedPrecondition, R::ApprovalPending),
        Kind::ApprovalNotFound => (Code::NotFound, R::ApprovalNotFound),
        Kind::ApprovalDecided => (Code::FailedPrecondition, R::ApprovalDecided),
        Kind::NotSupportedByImplementation => {
            (Code::Unimplemented, R::NotSupportedByImplementation)
        }
        Kind::BotNotAdmin => (Code::FailedPrecondition, R::BotNotAdmin),
        Kind::ProtectedMember => (Code::PermissionDenied, R::ProtectedMember),
        Kind::NotLeader => (Code::Unavailable, R::NotLeader),
    }
}

/// `ErrorInfo.reason` of a proto reason: its name without `ERROR_REASON_`.
pub fn reason_str(reason: ErrorReason) -> &'static str {
    let name = reason.as_str_name();
    name.strip_prefix("ERROR_REASON_").unwrap_or(name)
}

/// Longest status message, in bytes; longer ones are cut (with `…`).
pub const MAX_MESSAGE_BYTES: usize = 1024;
/// Longest `ErrorInfo.metadata` value, in bytes; longer ones are cut.
pub const MAX_METADATA_VALUE_BYTES: usize = 256;

/// `text` cut to at most `max` bytes at a character boundary, `…` marking
/// the cut. Errors echo client and peer values; the status travels in
/// HTTP/2 trailers, and trailers over the client's header-list limit make
/// it tear down the whole connection (every call on it fails).
pub fn bounded(mut text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text.push('…');
    text
}

/// The one mapping from a domain [`Error`] to a gRPC [`Status`]: canonical
/// code, `google.rpc.ErrorInfo` reason and metadata, `BadRequest` for a
/// field, `RetryInfo` for a delay.
pub fn status_of(err: Error) -> Status {
    let (code, reason) = classify(err.kind);
    let message = bounded(err.message, MAX_MESSAGE_BYTES);
    let mut details = ErrorDetails::with_error_info(
        reason_str(reason),
        ERROR_DOMAIN,
        err.metadata
            .into_iter()
            .map(|(k, v)| (k, bounded(v, MAX_METADATA_VALUE_BYTES)))
            .collect::<std::collections::HashMap<_, _>>(),
    );
    if let Some(field) = err.field {
        details.add_bad_request_violation(field, message.clone());
    }
    if let Some(delay) = err.retry_after {
        details.set_retry_info(Some(delay));
    }
    Status::with_error_details(code, message, details)
}

/// The domain error a status of this gateway carries (its `ErrorInfo`
/// reason, metadata and retry delay), e.g. a limit the tower layers hit
/// while a handler reads a request stream. `None` for other statuses.
pub fn gateway_error(status: &Status) -> Option<Error> {
    let details = status.get_error_details();
    let info = details.error_info()?;
    if info.domain != ERROR_DOMAIN {
        return None;
    }
    let kind = Kind::ALL
        .iter()
        .copied()
        .find(|k| reason_str(classify(*k).1) == info.reason && classify(*k).0 == status.code())?;
    let mut err = Error::new(kind, status.message());
    err.metadata = info.metadata.clone().into_iter().collect();
    err.retry_after = details.retry_info().and_then(|r| r.retry_delay);
    Some(err)
}

/// Converts a domain result for a handler.
pub fn to_status<T>(r: onebot_gateway_domain::error::Result<T>) -> Result<T, Status> {
    r.map_err(status_of)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::time::Duration;

    use super::*;

    /// The audit trail keeps the very reason a client gets for each kind.
    #[test]
    fn audit_reasons_are_the_wire_reasons() {
        for kind in Kind::ALL {
            assert_eq!(
                onebot_gateway_domain::policy::audit::reason_of(*kind),
                reason_str(classify(*kind).1),
                "{kind:?}"
            );
        }
    }

    /// Every proto reason (but UNSPECIFIED) is produced by some kind, every
    /// kind produces a real reason, and the reason string is the enum name
    /// without its prefix (AIP-193: UPPER_SNAKE_CASE, at most 63 chars).
    #[test]
    fn reasons_are_pinned_to_proto_names() {
        let produced: HashSet<ErrorReason> = Kind::ALL.iter().map(|k| classify(*k).1).collect();
        let mut value = 1;
        while let Ok(reason) = ErrorReason::try_from(value) {
            assert!(produced.contains(&reason), "{reason:?} is never produced");
            let s = reason_str(reason);
            assert_eq!(format!("ERROR_REASON_{s}"), reason.as_str_name());
            assert!(s.len() <= 63);
            assert!(s.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
            value += 1;
        }
        assert!(value > 45, "only {value} reasons found");
        assert!(!produced.contains(&ErrorReason::Unspecified));
        assert_eq!(
            reason_str(ErrorReason::AccountNotConfigured),
            "ACCOUNT_NOT_CONFIGURED"
        );
    }

    #[test]
    fn gateway_errors_round_trip_through_statuses() {
        let err = Error::new(Kind::RequestTooLarge, "too large")
            .with("limit_bytes", 10)
            .retry_after(Duration::from_secs(1));
        let back = gateway_error(&status_of(err.clone())).unwrap();
        assert_eq!(back.kind, Kind::RequestTooLarge);
        assert_eq!(back.message, "too large");
        assert_eq!(back.meta("limit_bytes"), Some("10"));
        assert_eq!(back.retry_after, Some(Duration::from_secs(1)));
        assert!(gateway_error(&Status::cancelled("client went away")).is_none());
    }

    #[test]
    fn huge_messages_and_metadata_are_cut() {
        let huge = "账".repeat(10_000);
        let status = status_of(
            Error::new(Kind::AccountNotConfigured, format!("account {huge}"))
                .with("account_id", &huge),
        );
        assert!(status.message().len() <= MAX_MESSAGE_BYTES);
        assert!(status.message().starts_with("account 账"));
        assert!(status.message().ends_with('…'));
        let details = status.get_error_details();
        let value = &details.error_info().unwrap().metadata["account_id"];
        assert!(value.len() <= MAX_METADATA_VALUE_BYTES && value.ends_with('…'));
        assert_eq!(bounded("short".into(), 8), "short");
        assert_eq!(bounded("abcdefgh".into(), 6), "abc…");
    }

    #[test]
    fn status_carries_error_info_bad_request_and_retry_info() {
        let err = Error::new(Kind::AccountOffline, "account \"a\" is offline")
            .with("account_id", "a")
            .retry_after(Duration::from_secs(2));
        let status = status_of(err);
        assert_eq!(status.code(), Code::Unavailable);
        let details = status.get_error_details();
        let info = details.error_info().unwrap();
        assert_eq!(info.reason, "ACCOUNT_OFFLINE");
        assert_eq!(info.domain, ERROR_DOMAIN);
        assert_eq!(info.metadata["account_id"], "a");
        assert_eq!(
            details.retry_info().unwrap().retry_delay,
            Some(Duration::from_secs(2))
        );

        let status = status_of(Error::invalid("count", "bad count"));
        let details = status.get_error_details();
        assert_eq!(status.code(), Code::InvalidArgument);
        assert_eq!(
            details.bad_request().unwrap().field_violations[0].field,
            "count"
        );
    }
}
