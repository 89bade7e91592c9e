//! The transport-independent part of handling one action: record it, apply the
//! action-level faults, run the handler and render the flavor's reply.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::actions;
use crate::media::DigestCache;
use crate::response::{self, ActionError, Reply, Transport};
use crate::shared::{RecordedAction, Shared};

/// What the transport should do with a request.
#[derive(Debug)]
pub(crate) enum Disposition {
    /// Write this reply, after `delay` if set.
    Reply {
        reply: Reply,
        delay: Option<Duration>,
    },
    /// Never answer (stall / half-dead link).
    Silent,
    /// Close the connection abruptly, no reply.
    Drop,
}

/// Handles one action request.
pub(crate) fn execute(
    shared: &Shared,
    action: &str,
    params: Result<Map<String, Value>, Value>,
    echo: Option<Value>,
    transport: Transport,
) -> Disposition {
    let mut cache = DigestCache::default();
    let (params, bad_params) = match params {
        Ok(p) => (Value::Object(p), false),
        Err(raw) => (raw, true),
    };
    shared.log.push(RecordedAction {
        action: action.to_owned(),
        params: actions::redact(&params, &mut cache),
        transport,
        echo: echo.clone(),
    });
    let faults = shared.faults();
    let name = actions::canonical_name(action);
    if faults.drops_on(name) {
        tracing::debug!(action, "fault: dropping connection");
        return Disposition::Drop;
    }
    if faults.silenced() || faults.stalls(name) {
        tracing::debug!(action, "fault: not answering");
        return Disposition::Silent;
    }
    let result = match params.as_object() {
        Some(p) if !bad_params => actions::dispatch(shared, action, p, &cache),
        _ => Err(ActionError::bad_params("params 必须是对象")),
    };
    if let Err(e) = &result {
        tracing::debug!(action, error = %e.text, "action failed");
    }
    Disposition::Reply {
        reply: response::render(shared.cfg.flavor, transport, &result, echo.as_ref()),
        delay: faults.slow(),
    }
}
