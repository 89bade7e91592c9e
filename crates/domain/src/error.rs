//! The domain error type.
//!
//! Domain and adapter code return [`Error`]: a [`Kind`] (which decides the gRPC
//! code and the `ErrorInfo.reason`, in one exhaustive table in
//! `grpc::status`), a stable English message, metadata for every dynamic
//! value (AIP-193), an optional offending field (for `BadRequest`) and an
//! optional retry delay (for `RetryInfo`). Nothing here knows tonic.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// Result alias for domain code.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong; each variant has exactly one gRPC code and reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request field is missing or out of range.
    InvalidRequest,
    /// The account id is unknown or has no transport.
    AccountNotConfigured,
    /// No transport can carry the action right now.
    AccountOffline,
    /// The implementation refused our access token.
    OnebotAuthFailed,
    /// No reply within the per-call timeout.
    OnebotTimeout,
    /// The implementation rejected the parameters (1400 / HTTP 400).
    OnebotBadRequest,
    /// The implementation does not know the action (1404 / 404).
    OnebotActionUnsupported,
    /// The implementation reported an explicit failure.
    OnebotActionFailed,
    /// The implementation answered with a status other than ok/failed.
    OnebotActionUnknown,
    /// The implementation answered something undecodable.
    OnebotProtocolError,
    /// The connection dropped while the call was pending.
    OnebotConnectionLost,
    /// Bot muted in the group.
    BotMuted,
    /// Bot removed from the group.
    RemovedFromGroup,
    /// Rich media transfer failed at the implementation.
    MediaTransferFailed,
    /// The send may or may not have been delivered.
    SendOutcomeUnknown,
    /// Platform risk control refused the send.
    RiskControlled,
    /// The implementation cannot poke.
    PokeUnsupported,
    /// The implementation cannot take this media form.
    UnsupportedByPeer,
    /// The implementation has no history for this chat kind.
    HistoryUnsupported,
    /// Group not in the whitelist.
    GroupNotAllowed,
    /// No group given and none or several whitelisted.
    GroupRequired,
    /// Nothing to send.
    EmptyMessage,
    /// Text over 20000 characters.
    TextTooLong,
    /// More than 4 images.
    TooManyImages,
    /// More than 1 video.
    TooManyVideos,
    /// Media over the size limit.
    MediaTooLarge,
    /// Bytes not of the declared kind.
    MediaTypeMismatch,
    /// Media id unknown, expired or not the caller's.
    MediaNotFound,
    /// SHA-256 differs from the declared one.
    MediaChecksumMismatch,
    /// Length differs from the declared size.
    MediaSizeMismatch,
    /// Upload stream without a header first.
    UploadHeaderMissing,
    /// Upload stream with a second header.
    UploadHeaderRepeated,
    /// Staging quota used up.
    StagingQuotaExceeded,
    /// URL refused by the SSRF guard.
    UrlForbidden,
    /// URL fetch failed.
    UrlFetchFailed,
    /// Path outside the media roots.
    PathForbidden,
    /// Path missing or not a file.
    PathNotFound,
    /// Media source kind disabled by configuration.
    MediaSourceDisabled,
    /// Offline queue full.
    QueueFull,
    /// Rate limit hit.
    RateLimited,
    /// Idempotency key reused with another request.
    IdempotencyKeyReused,
    /// Event subscriber fell behind.
    EventStreamLagged,
    /// Resume point older than the event buffer.
    EventGapTooOld,
    /// Tool service or write tools disabled.
    ToolsDisabled,
    /// Missing or invalid bearer token.
    Unauthenticated,
    /// Token scope does not cover the request.
    TokenScope,
    /// The gateway is shutting down.
    ShuttingDown,
    /// Load shedding.
    Overloaded,
    /// A bug or I/O failure inside the gateway.
    Internal,
    /// The client cancelled.
    Cancelled,
    /// The caller's deadline passed inside the gateway.
    DeadlineExceeded,
    /// A request message over the RPC's size limit.
    RequestTooLarge,
    /// No way of getting a received media item's bytes worked.
    MediaDownloadFailed,
    /// The private chat's user is not in the account's `users` whitelist.
    UserNotAllowed,
    /// The peer does not know the message (or forward bundle).
    MessageNotFound,
    /// The data directory could not be written (disk full, read-only or
    /// failing); nothing of the request was stored.
    StorageFailed,
    /// The message archive is turned off (`archive.enabled = false`).
    ArchiveDisabled,
    /// The bot is not a member of the group (metadata `group_id`), decided
    /// from the peer's group list.
    GroupNotFound,
    /// The chat is not one the archive keeps (metadata `target`).
    ChatNotArchived,
    /// A `[policy]` rule refuses the action for the requester's role
    /// (metadata `rule`, `action`, `role`).
    PolicyDenied,
    /// The action waits for a bot owner's approval (metadata
    /// `approval_id`); it was stored, not executed.
    ApprovalPending,
    /// No approval has this id.
    ApprovalNotFound,
    /// The approval was already decided, expired or executed.
    ApprovalDecided,
    /// The account's implementation has no such action (metadata
    /// `implementation`, `action`); decided from the implementation's
    /// flavor, nothing was sent.
    NotSupportedByImplementation,
    /// The bot lacks the group role the action needs (metadata
    /// `group_id`, `bot_role`, `needed_role`); nothing was sent.
    BotNotAdmin,
    /// The action targets the group's owner or the bot itself, which the
    /// gateway never mutes, kicks or re-cards (metadata `user_id`, `why`).
    ProtectedMember,
    /// Under `[ha]`, another gateway leads the account (metadata
    /// `account_id`, `leader`, `advertise`); nothing was done here.
    NotLeader,
}

impl Kind {
    /// Every kind, for exhaustive tests of the mapping tables.
    pub const ALL: &'static [Kind] = &[
        Kind::InvalidRequest,
        Kind::AccountNotConfigured,
        Kind::AccountOffline,
        Kind::OnebotAuthFailed,
        Kind::OnebotTimeout,
        Kind::OnebotBadRequest,
        Kind::OnebotActionUnsupported,
        Kind::OnebotActionFailed,
        Kind::OnebotActionUnknown,
        Kind::OnebotProtocolError,
        Kind::OnebotConnectionLost,
        Kind::BotMuted,
        Kind::RemovedFromGroup,
        Kind::MediaTransferFailed,
        Kind::SendOutcomeUnknown,
        Kind::RiskControlled,
        Kind::PokeUnsupported,
        Kind::UnsupportedByPeer,
        Kind::HistoryUnsupported,
        Kind::GroupNotAllowed,
        Kind::GroupRequired,
        Kind::EmptyMessage,
        Kind::TextTooLong,
        Kind::TooManyImages,
        Kind::TooManyVideos,
        Kind::MediaTooLarge,
        Kind::MediaTypeMismatch,
        Kind::MediaNotFound,
        Kind::MediaChecksumMismatch,
        Kind::MediaSizeMismatch,
        Kind::UploadHeaderMissing,
        Kind::UploadHeaderRepeated,
        Kind::StagingQuotaExceeded,
        Kind::UrlForbidden,
        Kind::UrlFetchFailed,
        Kind::PathForbidden,
        Kind::PathNotFound,
        Kind::MediaSourceDisabled,
        Kind::QueueFull,
        Kind::RateLimited,
        Kind::IdempotencyKeyReused,
        Kind::EventStreamLagged,
        Kind::EventGapTooOld,
        Kind::ToolsDisabled,
        Kind::Unauthenticated,
        Kind::TokenScope,
        Kind::ShuttingDown,
        Kind::Overloaded,
        Kind::Internal,
        Kind::Cancelled,
        Kind::DeadlineExceeded,
        Kind::RequestTooLarge,
        Kind::MediaDownloadFailed,
        Kind::UserNotAllowed,
        Kind::MessageNotFound,
        Kind::StorageFailed,
        Kind::ArchiveDisabled,
        Kind::GroupNotFound,
        Kind::ChatNotArchived,
        Kind::PolicyDenied,
        Kind::ApprovalPending,
        Kind::ApprovalNotFound,
        Kind::ApprovalDecided,
        Kind::NotSupportedByImplementation,
        Kind::BotNotAdmin,
        Kind::ProtectedMember,
        Kind::NotLeader,
    ];
}

/// A domain error: kind, message, metadata, field and retry hint.
#[derive(Clone, PartialEq, Eq)]
pub struct Error {
    /// What went wrong.
    pub kind: Kind,
    /// Stable, human-readable message (English).
    pub message: String,
    /// Dynamic values of the message, as `ErrorInfo.metadata`.
    pub metadata: BTreeMap<String, String>,
    /// The request field at fault, for a `BadRequest` violation.
    pub field: Option<String>,
    /// How long to wait before retrying, for `RetryInfo`.
    pub retry_after: Option<Duration>,
}

impl Error {
    /// A new error of `kind` with `message`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            metadata: BTreeMap::new(),
            field: None,
            retry_after: None,
        }
    }

    /// Adds a metadata entry.
    pub fn with(mut self, key: &str, value: impl ToString) -> Self {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    /// Names the request field at fault.
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// Adds a retry delay.
    pub fn retry_after(mut self, delay: Duration) -> Self {
        self.retry_after = Some(delay);
        self
    }

    /// An INVALID_REQUEST error about `field`.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        Self::new(Kind::InvalidRequest, message).field(field)
    }

    /// The account is not configured (or has no transport).
    pub fn account_not_configured(account_id: &str) -> Self {
        Self::new(
            Kind::AccountNotConfigured,
            format!("account {account_id:?} is not configured with ws_url or http_url"),
        )
        .with("account_id", account_id)
    }

    /// The account's implementation (`implementation`: its flavor or
    /// protocol name) has no such `action` (the gateway's name of it).
    pub fn not_supported(implementation: &str, action: &str) -> Self {
        Self::new(
            Kind::NotSupportedByImplementation,
            format!("{implementation} has no {action} action; nothing was sent"),
        )
        .with("implementation", implementation)
        .with("action", action)
    }

    /// An internal failure.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Kind::Internal, message)
    }

    /// A metadata value, if present.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)?;
        if !self.metadata.is_empty() {
            write!(f, " {:?}", self.metadata)?;
        }
        Ok(())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::internal(format!("I/O error: {e}"))
    }
}
