//! History pages as the peer really pages, whatever it calls itself.
//!
//! - On connect, once per identity (`app_name`, `app_version`, `self_id`),
//!   a probe reads two pages of a chat with history: the newest rows, then
//!   a page anchored at the second newest in each anchor style (the
//!   flavor's first). The style whose answer is exactly the rows below the
//!   anchor wins, and the answer tells whether the anchor row comes back;
//!   the first page tells whether `count` is honoured. A chat too short, or
//!   a peer that answers no style, leaves the flavor's convention in place.
//! - Every anchored page is judged against its anchor
//!   ([`probe::judge`](crate::history::probe::judge)): rows at or
//!   above it (a page that would repeat), or an answer that cannot be told
//!   apart from a skip while the profile is still unverified, start a probe
//!   of that very chat; the page is then asked again in the style it found.
//!   Rows at or above the anchor never reach the client either way.
//! - A profile fixed in the configuration (`history_anchor`) is never
//!   second-guessed.
//!
//! Every change of profile is logged (`history paging learned`) and shown
//! in the account status.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::inner::Inner;
use super::routing::{ReadData, Route};
use crate::answer;
use crate::frame::{Data, FrameText};
use crate::history::probe::{Mark, Probe, Verdict, check_probe};
use crate::history::profile::{AnchorStyle, Basis, HistoryProfile};
use crate::history::{self, Fetched};
use crate::ids;
use crate::model::{decode_group, decode_message};
use crate::transport::body::ParamsJson;
use onebot_gateway_domain::call::Deadline;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::model::ChatRef;
use onebot_gateway_domain::ports::HistoryPage;

/// Rows of the probe's first page.
const PROBE_ROWS: u32 = 8;
/// Chats a probe on connect tries before giving up.
const PROBE_CHATS: usize = 3;
/// How long the probe on connect may take in all.
const PROBE_BUDGET: Duration = Duration::from_secs(5);

/// How a probe's calls travel.
#[derive(Clone, Copy)]
enum Path<'a> {
    /// Over the route that just identified, before the account is online.
    Route(&'a Route, Instant),
    /// Routed like any call, within the caller's deadline.
    Routed(Deadline),
}

/// True for failures of the transport or the clock, which end a probe
/// (the peer's own answers only rule a style out).
fn ends_probe(e: &Error) -> bool {
    matches!(
        e.kind,
        Kind::AccountOffline
            | Kind::OnebotTimeout
            | Kind::OnebotConnectionLost
            | Kind::DeadlineExceeded
            | Kind::Overloaded
            | Kind::OnebotAuthFailed
    )
}

impl Inner {
    /// The profile history calls are made with.
    pub(crate) fn history_profile(&self) -> HistoryProfile {
        self.learned.lock().profile
    }

    /// Takes `profile` in, logging and publishing it when it changed.
    pub(crate) fn set_history_profile(&self, profile: HistoryProfile, why: &str) {
        let before = {
            let mut learned = self.learned.lock();
            std::mem::replace(&mut learned.profile, profile)
        };
        if before != profile {
            tracing::info!(
                account_id = %self.id, profile = %profile, was = %before, %why,
                "history paging learned"
            );
        }
        self.update("", |s| s.history = Some(profile.display(false)));
    }

    /// The probe on connect, over the route that just identified: skipped
    /// for a configured profile and for an identity already probed.
    pub(crate) async fn learn_history(&self, route: &Route) {
        let identity = {
            let s = self.status.borrow();
            format!(
                "{}\u{0}{}\u{0}{}",
                s.implementation, s.implementation_version, s.self_id
            )
        };
        let prior = {
            let learned = self.learned.lock();
            if learned.profile.basis == Basis::Configured
                || learned.probed_for.as_deref() == Some(identity.as_str())
            {
                return;
            }
            learned.profile
        };
        self.update("", |s| s.history = Some(prior.display(true)));
        let path = Path::Route(route, Instant::now() + PROBE_BUDGET);
        let chats = self.probe_chats(path).await;
        let mut found = None;
        for chat in chats {
            match self.probe_chat(path, chat, prior).await {
                Ok(Some(p)) => {
                    found = Some((p, chat));
                    break;
                }
                Ok(None) => continue,
                Err(e) => {
                    tracing::debug!(account_id = %self.id, error = %e, "history probe stopped");
                    break;
                }
            }
        }
        self.learned.lock().probed_for = Some(identity);
        match found {
            Some((p, chat)) => self.set_history_profile(p, &format!("probe of {}", chat.target())),
            None => {
                tracing::info!(
                    account_id = %self.id, profile = %prior,
                    "history paging not probed (no chat with enough history answered); keeping the flavor's convention until a page shows otherwise"
                );
                self.set_history_profile(prior, "no probe");
            }
        }
    }

    /// Sends one call along `path`.
    async fn ask(&self, path: Path<'_>, action: &str, params: Value) -> Result<Result<Data>> {
        match path {
            Path::Route(route, until) => {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(Error::new(
                        Kind::DeadlineExceeded,
                        "the history probe ran out of time",
                    ));
                }
                let timeout = left.min(self.cfg.request_timeout());
                let mut params = params;
                ids::outbound(&mut params);
                let params = ParamsJson::new(params);
                let answer = self
                    .send_on(route, action, &params, Instant::now() + timeout)
                    .await;
                Ok(self.settle(action, answer, timeout, self.flavor()))
            }
            Path::Routed(deadline) => Ok(self.call_data(action, params, deadline).await),
        }
    }

    /// The chats a probe on connect reads: the whitelisted groups first,
    /// then the peer's group list.
    async fn probe_chats(&self, path: Path<'_>) -> Vec<ChatRef> {
        let mut chats: Vec<ChatRef> = self.cfg.groups.iter().map(|g| ChatRef::Group(*g)).collect();
        if chats.len() < PROBE_CHATS
            && let Ok(Ok(data)) = self.ask(path, "get_group_list", json!({})).await
            && let Value::Array(groups) = data.into_value()
        {
            for g in groups.iter().filter_map(decode_group) {
                let chat = ChatRef::Group(g.group_id);
                if !chats.contains(&chat) {
                    chats.push(chat);
                }
            }
        }
        chats.truncate(PROBE_CHATS);
        chats
    }

    /// Probes one chat: `Ok(None)` when it cannot tell (too few rows, no
    /// style fits), `Err` when the transport failed.
    async fn probe_chat(
        &self,
        path: Path<'_>,
        chat: ChatRef,
        prior: HistoryProfile,
    ) -> Result<Option<HistoryProfile>> {
        let (action, params) = history::request(&prior, chat, PROBE_ROWS, None);
        let reference = match self.ask(path, action, params).await? {
            Ok(data) => match history::rows(chat, data) {
                Ok(Some(rows)) => rows,
                _ => return Ok(None),
            },
            Err(e) if ends_probe(&e) => return Err(e),
            Err(_) => return Ok(None),
        };
        let (rows, returned) = reference;
        if rows.len() < 3 {
            return Ok(None);
        }
        let asked = history::fetch_count(PROBE_ROWS, false) as usize;
        let honours_count = if returned > asked + 1 {
            false
        } else if returned >= asked {
            true
        } else {
            prior.honours_count
        };
        let k = rows.len() - 2;
        let mark = Mark::of(&rows[k]);
        let mut tried: Vec<(&'static str, i64)> = Vec::new();
        let styles = std::iter::once(prior.anchor)
            .chain(AnchorStyle::PROBED)
            .filter(|s| *s != AnchorStyle::Both)
            .chain([AnchorStyle::Both]);
        for style in styles {
            let Some(value) = mark.value(style) else {
                continue;
            };
            let field = match style {
                AnchorStyle::Id => "message_id",
                AnchorStyle::Both => "both",
                _ => "message_seq",
            };
            if tried.contains(&(field, value)) {
                continue;
            }
            tried.push((field, value));
            let candidate = HistoryProfile {
                anchor: style,
                honours_count,
                basis: Basis::Probed,
                ..prior
            };
            let (action, params) = history::request(&candidate, chat, 2, Some(&mark));
            let answer = match self.ask(path, action, params).await? {
                Ok(data) => data,
                Err(e) if ends_probe(&e) => return Err(e),
                Err(_) => continue,
            };
            let Ok(Some((got, _))) = history::rows(chat, answer) else {
                continue;
            };
            if let Probe::Works { included } = check_probe(&rows, k, &got) {
                return Ok(Some(HistoryProfile {
                    anchor_included: included,
                    ..candidate
                }));
            }
        }
        Ok(None)
    }

    /// What is known of the anchor `id` in `chat`, with the value `style`
    /// anchors on: from messages seen, else from `get_msg`.
    async fn anchor_mark(
        &self,
        chat: ChatRef,
        id: i64,
        style: AnchorStyle,
        deadline: Deadline,
    ) -> Result<Mark> {
        let known = self.marks.lock().get(chat, id);
        if let Some(m) = known.filter(|m| m.value(style).is_some()) {
            return Ok(m);
        }
        let bare = Mark {
            id,
            peer_seq: None,
            real_seq: None,
            time: 0,
        };
        if bare.value(style).is_some() {
            return Ok(known.unwrap_or(bare));
        }
        let data = self
            .call_action("get_msg", json!({ "message_id": id }), deadline)
            .await?;
        let data = answer::object("get_msg", data, || format!("message {id}"))?;
        let mark = decode_message(&data, Some(chat))
            .map(|m| {
                self.marks.lock().learn(&m);
                Mark::of(&m)
            })
            .filter(|m| m.value(style).is_some())
            .or_else(|| {
                // The seq alone, when the rest does not decode.
                history::raw_seq(&data).map(|seq| Mark {
                    peer_seq: Some(seq),
                    ..bare
                })
            })
            .filter(|m| m.value(style).is_some());
        mark.ok_or_else(|| {
            Error::new(
                Kind::OnebotProtocolError,
                format!(
                    "get_msg of message {id} reported no {}, which this peer's history anchors on",
                    style.name()
                ),
            )
            .with("action", "get_msg")
            .with("message_id", id)
            .with("history_anchor", style.name())
        })
    }

    /// One page request in `profile`'s style.
    async fn fetch(
        &self,
        profile: &HistoryProfile,
        chat: ChatRef,
        count: u32,
        anchor: Option<&Mark>,
        deadline: Deadline,
    ) -> Result<Fetched> {
        let (action, params) = history::request(profile, chat, count, anchor);
        let answer = self
            .call_reading(action, params, deadline, &HistoryRows(chat))
            .await;
        history::page_of_rows(profile, chat, count, anchor, answer)
    }

    /// `GetHistory`'s page: fetched in the learned style, judged against
    /// the anchor, corrected by a probe of this chat when it does not fit.
    pub(crate) async fn history_page(
        &self,
        chat: ChatRef,
        count: u32,
        anchor: Option<i64>,
        deadline: Deadline,
    ) -> Result<HistoryPage> {
        // The profile follows identification: make sure it happened.
        self.route(history::action(chat), deadline).await?;
        let mut profile = self.history_profile();
        let mut mark = match anchor {
            Some(id) => Some(self.anchor_mark(chat, id, profile.anchor, deadline).await?),
            None => None,
        };
        let mut fetched = self
            .fetch(&profile, chat, count, mark.as_ref(), deadline)
            .await?;
        if let (Some(verdict), Some(id)) = (fetched.verdict, anchor)
            && profile.basis != Basis::Configured
        {
            let doubt = match verdict {
                Verdict::Fits { included } => {
                    if profile.basis == Basis::Assumed || included != profile.anchor_included {
                        profile = HistoryProfile {
                            anchor_included: included,
                            basis: Basis::Observed,
                            ..profile
                        };
                        self.set_history_profile(profile, &format!("a page of {}", chat.target()));
                    }
                    false
                }
                Verdict::Misread => true,
                Verdict::Unsure => profile.basis == Basis::Assumed && !self.learned.lock().gave_up,
            };
            if doubt {
                tracing::warn!(
                    account_id = %self.id, chat = %chat.target(), anchor = id, ?verdict,
                    profile = %profile,
                    "a history page did not fit its anchor; probing this chat"
                );
                match self.probe_chat(Path::Routed(deadline), chat, profile).await {
                    Ok(Some(found)) => {
                        let found = HistoryProfile {
                            basis: Basis::Observed,
                            ..found
                        };
                        self.set_history_profile(
                            found,
                            &format!("a page of {} did not fit its anchor", chat.target()),
                        );
                        if found.anchor != profile.anchor
                            || found.anchor_included != profile.anchor_included
                        {
                            profile = found;
                            mark =
                                Some(self.anchor_mark(chat, id, profile.anchor, deadline).await?);
                            fetched = self
                                .fetch(&profile, chat, count, mark.as_ref(), deadline)
                                .await?;
                        }
                    }
                    Ok(None) | Err(_) => {
                        if verdict == Verdict::Unsure {
                            self.learned.lock().gave_up = true;
                        }
                        tracing::warn!(
                            account_id = %self.id, chat = %chat.target(),
                            "the probe could not tell how the peer pages; rows at or above the anchor were dropped"
                        );
                    }
                }
            }
        }
        {
            let mut marks = self.marks.lock();
            let mut seqs = self.seqs.lock();
            for m in &fetched.page.messages {
                marks.learn(m);
                seqs.learn(m);
            }
        }
        Ok(fetched.page)
    }
}

/// A history page's rows, read in the same pass as the reply when the
/// connection hands it over undecoded.
struct HistoryRows(ChatRef);

impl ReadData for HistoryRows {
    type Out = history::Rows;

    fn data(&self, data: Data) -> history::Rows {
        history::rows(self.0, data)
    }

    fn frame(&self, text: &FrameText) -> Option<(Value, history::Rows)> {
        history::rows_of_frame(self.0, text)
    }
}
