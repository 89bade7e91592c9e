//! An account's connection to its peer, as the adapter reports it.

/// Connection state of an account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ConnState {
    /// Connecting, or connected and not yet identified.
    #[default]
    Connecting,
    /// Connected, and the peer has said who it is.
    Connected,
    /// Waiting before reconnecting.
    Backoff,
    /// The peer refused the token.
    AuthFailed,
    /// No transport configured.
    NotConfigured,
}

impl ConnState {
    /// Every state, in declaration order.
    pub const ALL: [ConnState; 5] = [
        ConnState::Connecting,
        ConnState::Connected,
        ConnState::Backoff,
        ConnState::AuthFailed,
        ConnState::NotConfigured,
    ];

    /// Lower-case name for logs, metrics and error metadata.
    pub fn name(self) -> &'static str {
        match self {
            ConnState::Connecting => "connecting",
            ConnState::Connected => "connected",
            ConnState::Backoff => "backoff",
            ConnState::AuthFailed => "auth_failed",
            ConnState::NotConfigured => "not_configured",
        }
    }
}

/// Which transport currently carries actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TransportKind {
    /// None usable.
    #[default]
    None,
    /// Forward WebSocket (the gateway dials the peer).
    ForwardWs,
    /// HTTP.
    Http,
    /// Reverse WebSocket (the peer dials the gateway).
    ReverseWs,
}

/// A snapshot of an account's connection, published on a watch channel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccountStatus {
    /// Connection state.
    pub state: ConnState,
    /// Transport actions go through now.
    pub transport: TransportKind,
    /// True when some transport can carry an action right now (the account is
    /// "online"; with the WebSocket down and HTTP up it is online via HTTP).
    pub online: bool,
    /// Bot QQ number (0 until known).
    pub self_id: i64,
    /// Bot nickname.
    pub nickname: String,
    /// The peer's implementation name as it reports it.
    pub implementation: String,
    /// The peer's implementation version as it reports it.
    pub implementation_version: String,
    /// Name of the behaviour profile the adapter uses for this peer (for
    /// example `napcat`); `None` until known.
    pub profile: Option<&'static str>,
    /// How the adapter pages this peer's history, once it has a view; `None`
    /// until the peer has identified itself.
    pub history: Option<HistoryPaging>,
    /// Time of the last frame or heartbeat, as Unix milliseconds.
    pub last_heartbeat_ms: Option<i64>,
    /// Last connection error.
    pub last_error: String,
}

/// How an adapter pages its peer's history, as it describes it for display
/// (protocol-neutral: the names are the adapter's own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryPaging {
    /// Where the adapter puts the anchor of an older page, in the adapter's
    /// words (for OneBot: `message_seq`, `message_id`, ...).
    pub anchor: &'static str,
    /// Whether the peer returns the anchor message itself.
    pub anchor_included: bool,
    /// How the adapter knows: `assumed`, `probing`, `probed`, `observed` or
    /// `configured`.
    pub basis: &'static str,
}
