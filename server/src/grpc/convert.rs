//! Conversions between domain types and protobuf messages, at the edge.

use onebot_gateway_client::pb;

use crate::domain::Account;
use crate::onebot::{AccountStatus, ConnState, Flavor, TransportKind};

/// A timestamp from Unix milliseconds.
pub fn timestamp_ms(ms: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: ms.div_euclid(1000),
        nanos: (ms.rem_euclid(1000) * 1_000_000) as i32,
    }
}

/// A timestamp from Unix seconds.
pub fn timestamp_secs(secs: i64) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: secs,
        nanos: 0,
    }
}

/// The proto connection state.
pub fn conn_state(state: ConnState) -> pb::ConnectionState {
    match state {
        ConnState::Connecting => pb::ConnectionState::Connecting,
        ConnState::Connected => pb::ConnectionState::Connected,
        ConnState::Backoff => pb::ConnectionState::Backoff,
        ConnState::AuthFailed => pb::ConnectionState::AuthFailed,
        ConnState::NotConfigured => pb::ConnectionState::NotConfigured,
    }
}

/// The proto flavor.
pub fn flavor(flavor: Option<Flavor>) -> pb::Flavor {
    match flavor {
        None => pb::Flavor::Unspecified,
        Some(Flavor::Generic) => pb::Flavor::Generic,
        Some(Flavor::NapCat) => pb::Flavor::Napcat,
        Some(Flavor::LlOneBot) => pb::Flavor::Llonebot,
        Some(Flavor::Lagrange) => pb::Flavor::Lagrange,
        Some(Flavor::SnowLuma) => pb::Flavor::Snowluma,
        Some(Flavor::GoCqhttp) => pb::Flavor::GoCqhttp,
    }
}

/// The proto transport.
pub fn transport(t: TransportKind) -> pb::Transport {
    match t {
        TransportKind::None => pb::Transport::Unspecified,
        TransportKind::ForwardWs => pb::Transport::ForwardWebsocket,
        TransportKind::Http => pb::Transport::Http,
        TransportKind::ReverseWs => pb::Transport::ReverseWebsocket,
    }
}

/// An account with its status snapshot.
pub fn account(account: &Account, status: &AccountStatus, queue_depth: usize) -> pb::Account {
    let state = if account.config.has_transport() {
        status.state
    } else {
        ConnState::NotConfigured
    };
    pb::Account {
        account_id: account.id.clone(),
        self_id: status.self_id,
        nickname: status.nickname.clone(),
        implementation: status.implementation.clone(),
        implementation_version: status.implementation_version.clone(),
        flavor: flavor(status.flavor) as i32,
        state: conn_state(state) as i32,
        transport: transport(status.transport) as i32,
        last_heartbeat: status.last_heartbeat_ms.map(timestamp_ms),
        queue_depth: i32::try_from(queue_depth).unwrap_or(i32::MAX),
        last_error: status.last_error.clone(),
        groups: account.config.groups.clone(),
    }
}
