//! Identification: `get_login_info` then `get_version_info`, over whichever
//! transport just came up, and what their answers say (the bot's QQ number
//! and nickname, the implementation, the flavor to use).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::inner::Inner;
use super::routing::Route;
use crate::flavor;
use crate::history::profile::{AnchorStyle, HistoryProfile};
use crate::model::int_of;
use crate::transport::body::ParamsJson;
use onebot_gateway_domain::error::Result;

/// The identity actions, in the order they are asked.
const IDENTITY: [&str; 2] = ["get_login_info", "get_version_info"];

/// How long identification may take on a route.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Budget {
    /// Both calls within `Duration` from the start (a fresh WebSocket link).
    Shared(Duration),
    /// Each call within `Duration` of its own (an HTTP probe).
    EachCall(Duration),
}

impl Inner {
    /// Asks the identity actions over `route`; returns the `data` of
    /// `get_login_info` and of `get_version_info`. Answers are classified
    /// with the configured flavor, or the generic one before detection.
    pub(crate) async fn identify(&self, route: &Route, budget: Budget) -> Result<(Value, Value)> {
        let flavor = self.setting_flavor();
        let start = Instant::now();
        let params = ParamsJson::new(json!({}));
        let mut out = Vec::with_capacity(IDENTITY.len());
        for action in IDENTITY {
            let (deadline, timeout) = match budget {
                Budget::Shared(t) => (start + t, t),
                Budget::EachCall(t) => (Instant::now() + t, t),
            };
            let answer = self.send_on(route, action, &params, deadline).await;
            out.push(self.settle(action, answer, timeout, flavor)?.into_value());
        }
        let version = out.pop().unwrap_or_default();
        let login = out.pop().unwrap_or_default();
        Ok((login, version))
    }

    /// Takes in what the identity actions said: the bot's number and
    /// nickname, the implementation and its version, and (unless fixed by
    /// the configuration) the flavor detected from `app_name`.
    pub(crate) fn apply_identity(&self, login: &Value, version: &Value) {
        let text = |v: &Value, k: &str| match v.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let self_id = login.get("user_id").and_then(int_of).unwrap_or(0);
        let app_name = text(version, "app_name");
        let flavor = self
            .flavor_setting
            .unwrap_or_else(|| flavor::detect(&app_name));
        if let Some(expected) = self.cfg.self_id
            && self_id != 0
            && self_id != expected
        {
            tracing::warn!(
                account_id = %self.id, expected, self_id,
                "the implementation is logged in as another QQ number than configured"
            );
        }
        *self.flavor.lock() = Some(flavor);
        let history = {
            let mut learned = self.learned.lock();
            let identity = format!(
                "{}\u{0}{}\u{0}{}",
                app_name,
                text(version, "app_version"),
                if self_id != 0 {
                    self_id
                } else {
                    self.status.borrow().self_id
                }
            );
            // A new peer (or a first connect) starts from its flavor's
            // convention and the configured parts; the same peer keeps what
            // was learned of it.
            if learned.probed_for.as_deref() != Some(identity.as_str()) {
                let anchor = AnchorStyle::parse_setting(&self.cfg.history_anchor)
                    .ok()
                    .flatten();
                learned.profile =
                    HistoryProfile::with_settings(flavor, anchor, self.cfg.history_anchor_included);
                learned.probed_for = None;
                learned.gave_up = false;
            }
            learned.profile
        };
        self.update("", |s| {
            if self_id != 0 {
                s.self_id = self_id;
            }
            s.nickname = text(login, "nickname");
            s.implementation = app_name;
            s.implementation_version = text(version, "app_version");
            s.profile = Some(flavor.name());
            s.history = Some(history.display(false));
        });
    }
}
