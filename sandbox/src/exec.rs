//! The transport-independent part of handling one action: record it, apply the
//! action-level faults, run the handler and render the flavor's reply.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::actions;
use crate::media::DigestCache;
use crate::params::Params;
use crate::response::{self, ActionError, ActionResult, Reply, Transport};
use crate::shared::{RecordedAction, Shared};

/// What the transport should do with a request.
#[derive(Debug)]
pub(crate) enum Disposition {
    /// Write this reply, after `delay` if set.
    Reply {
        reply: Reply,
        delay: Option<Duration>,
    },
    /// Write these frames in order (a stream action), after `delay` if set.
    Stream {
        frames: Vec<Reply>,
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
    if actions::is_stream(shared.cfg.flavor, name)
        && let Some(p) = params.as_object().filter(|_| !bad_params)
    {
        let results: Vec<ActionResult> = match actions::media::stream(shared, name, Params(p)) {
            Ok(frames) => frames.into_iter().map(Ok).collect(),
            Err(e) => vec![Err(e)],
        };
        let frames = results
            .iter()
            .map(|r| {
                let mut reply = response::render(shared.cfg.flavor, transport, r, echo.as_ref());
                if let Some(o) = reply.body.as_object_mut() {
                    o.insert("stream".into(), Value::String("stream-action".into()));
                    if r.is_err() {
                        o.insert(
                            "data".into(),
                            serde_json::json!({"type": "error", "data_type": "error"}),
                        );
                    }
                }
                reply
            })
            .collect();
        return Disposition::Stream {
            frames,
            delay: faults.slow(),
        };
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
