//! Fault switches: ways to make the peer misbehave like real ones do.
//!
//! At most one fault of each [`FaultKind`] is active; setting a fault replaces the previous one
//! of the same kind. Faults are read at the moment they matter (when a frame arrives, when a
//! reply is about to be written, on each heartbeat tick), so switching them is immediate.

use std::collections::BTreeMap;
use std::time::Duration;

/// The NT kernel call NapCat waits on when sending, named in its send-failure texts below.
pub(crate) const NT_SEND_EVENT: &str = "NTEvent serviceAndMethod:NodeIKernelMsgService/sendMsg ListenerName:NodeIKernelMsgListener/onMsgInfoListUpdate";

/// NapCat's send-timeout error text (`result` 0, empty `errMsg`).
pub(crate) fn timeout_text() -> String {
    format!("Timeout: {NT_SEND_EVENT} EventRet:\n{{\n    \"result\": 0,\n    \"errMsg\": \"\"\n}}")
}

/// NapCat's event-checker error text.
pub(crate) fn event_checker_text(result: i64, err_msg: &str) -> String {
    let err = serde_json::Value::String(err_msg.to_owned());
    format!(
        "EventChecker Failed: {NT_SEND_EVENT} EventRet:\n{{\n    \"result\": {result},\n    \"errMsg\": {err}\n}}"
    )
}

/// A misbehaviour of the peer. Set with [`SandboxControl::set_fault`](crate::SandboxControl::set_fault).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// Treat every client as presenting a wrong token, in the flavor's auth-failure form
    /// (go-cqhttp HTTP 403 before upgrade; NapCat/LLOneBot/Lagrange 1403 frame then close;
    /// SnowLuma close 1008; HTTP API per flavor).
    RejectAuth,
    /// Receive (and record) matching actions — `None` = all — but never answer them and do not
    /// execute them. Clearing the fault stops stalling new requests; stalled ones stay unanswered.
    Stall {
        /// Only stall this action (after `_async` stripping); `None` stalls everything.
        action: Option<String>,
    },
    /// WebSocket only: hold replies until `batch` are pending on a connection, then write them
    /// in reverse order. Clearing the fault flushes held replies in order.
    OutOfOrder {
        /// How many replies to collect before releasing them reversed (values < 2 disable reordering).
        batch: usize,
    },
    /// WebSocket only: before each reply write one garbage frame (cycling `{not json`, a binary
    /// frame, `[]`, `{"echo":`).
    MalformedFrames,
    /// Half-dead link: no heartbeats, no events, no replies, not even WebSocket pongs. The socket
    /// stays open but is not read, so requests pile up unrecorded in the buffers and are
    /// processed once the fault is cleared. Events emitted meanwhile are lost. HTTP requests
    /// are recorded but never answered.
    SilenceHeartbeats,
    /// Sends fail with NapCat's `Timeout: NTEvent … sendMsg …` text (flavor's handler-failure
    /// retcode, 1200 on NapCat WS) but the message **is** stored and announced: an ambiguous outcome.
    SendTimeout,
    /// Sends fail with `EventChecker Failed: … {"result": <result>, "errMsg": "<err_msg>"}`;
    /// nothing is stored.
    SendEventChecker {
        /// Kernel result code (e.g. 110 removed from group, -1 rich media transfer failed).
        result: i64,
        /// Kernel error message.
        err_msg: String,
    },
    /// Account risk control (风控). go-cqhttp: retcode 100, `msg` `SEND_MSG_API_ERROR`, wording
    /// `请参考 go-cqhttp 端输出`, and the log line `账号可能被风控`. Other flavors: the NapCat
    /// Timeout text with result 0. Nothing is stored.
    RiskControl,
    /// Poke actions fail: NapCat 1400 `packetBackend发包能力不可用`, Lagrange retcode 1,
    /// SnowLuma retcode 100, LLOneBot swallows the error and answers ok without poking.
    PokeUnsupported,
    /// Close the connection (WebSocket or HTTP) abruptly when this action arrives; no reply.
    DropOnAction {
        /// Action name (after `_async` stripping).
        action: String,
    },
    /// Delay every reply by this long (tokio time, so paused-clock tests can advance it).
    SlowReplies(Duration),
}

/// The discriminant of a [`Fault`], used to clear one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// [`Fault::RejectAuth`].
    RejectAuth,
    /// [`Fault::Stall`].
    Stall,
    /// [`Fault::OutOfOrder`].
    OutOfOrder,
    /// [`Fault::MalformedFrames`].
    MalformedFrames,
    /// [`Fault::SilenceHeartbeats`].
    SilenceHeartbeats,
    /// [`Fault::SendTimeout`].
    SendTimeout,
    /// [`Fault::SendEventChecker`].
    SendEventChecker,
    /// [`Fault::RiskControl`].
    RiskControl,
    /// [`Fault::PokeUnsupported`].
    PokeUnsupported,
    /// [`Fault::DropOnAction`].
    DropOnAction,
    /// [`Fault::SlowReplies`].
    SlowReplies,
}

impl Fault {
    /// This fault's kind.
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::RejectAuth => FaultKind::RejectAuth,
            Fault::Stall { .. } => FaultKind::Stall,
            Fault::OutOfOrder { .. } => FaultKind::OutOfOrder,
            Fault::MalformedFrames => FaultKind::MalformedFrames,
            Fault::SilenceHeartbeats => FaultKind::SilenceHeartbeats,
            Fault::SendTimeout => FaultKind::SendTimeout,
            Fault::SendEventChecker { .. } => FaultKind::SendEventChecker,
            Fault::RiskControl => FaultKind::RiskControl,
            Fault::PokeUnsupported => FaultKind::PokeUnsupported,
            Fault::DropOnAction { .. } => FaultKind::DropOnAction,
            Fault::SlowReplies(_) => FaultKind::SlowReplies,
        }
    }
}

/// The active faults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Faults {
    active: BTreeMap<FaultKind, Fault>,
}

impl Faults {
    pub(crate) fn set(&mut self, f: Fault) {
        self.active.insert(f.kind(), f);
    }

    pub(crate) fn clear(&mut self, kind: FaultKind) -> bool {
        self.active.remove(&kind).is_some()
    }

    pub(crate) fn clear_all(&mut self) -> bool {
        let had = !self.active.is_empty();
        self.active.clear();
        had
    }

    pub(crate) fn get(&self, kind: FaultKind) -> Option<&Fault> {
        self.active.get(&kind)
    }

    pub(crate) fn has(&self, kind: FaultKind) -> bool {
        self.active.contains_key(&kind)
    }

    /// All active faults.
    pub(crate) fn list(&self) -> Vec<Fault> {
        self.active.values().cloned().collect()
    }

    pub(crate) fn stalls(&self, action: &str) -> bool {
        match self.get(FaultKind::Stall) {
            Some(Fault::Stall { action: None }) => true,
            Some(Fault::Stall { action: Some(a) }) => a == action,
            _ => false,
        }
    }

    pub(crate) fn drops_on(&self, action: &str) -> bool {
        matches!(self.get(FaultKind::DropOnAction), Some(Fault::DropOnAction { action: a }) if a == action)
    }

    pub(crate) fn out_of_order(&self) -> Option<usize> {
        match self.get(FaultKind::OutOfOrder) {
            Some(Fault::OutOfOrder { batch }) if *batch >= 2 => Some(*batch),
            _ => None,
        }
    }

    pub(crate) fn slow(&self) -> Option<Duration> {
        match self.get(FaultKind::SlowReplies) {
            Some(Fault::SlowReplies(d)) if !d.is_zero() => Some(*d),
            _ => None,
        }
    }

    pub(crate) fn silenced(&self) -> bool {
        self.has(FaultKind::SilenceHeartbeats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_match_napcat() {
        assert_eq!(
            timeout_text(),
            "Timeout: NTEvent serviceAndMethod:NodeIKernelMsgService/sendMsg ListenerName:NodeIKernelMsgListener/onMsgInfoListUpdate EventRet:\n{\n    \"result\": 0,\n    \"errMsg\": \"\"\n}"
        );
        assert!(
            event_checker_text(110, "发送失败")
                .ends_with("\"result\": 110,\n    \"errMsg\": \"发送失败\"\n}")
        );
    }

    #[test]
    fn one_fault_per_kind() {
        let mut f = Faults::default();
        f.set(Fault::Stall { action: None });
        f.set(Fault::Stall {
            action: Some("get_msg".into()),
        });
        assert!(f.stalls("get_msg"));
        assert!(!f.stalls("send_msg"));
        assert!(f.clear(FaultKind::Stall));
        assert!(!f.stalls("get_msg"));
    }
}
