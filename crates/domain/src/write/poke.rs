//! The PokeMember use case: not a message (never queued, no history entry),
//! with its own per-account rate limit.

use super::send_checks::resolve_group;
use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::ChatRef;
use crate::policy::audit::Note;
use crate::policy::held::Held;
use crate::policy::{Action, OnBehalfOf};

impl Gateway {
    /// Pokes `user_id` in `group_id` (resolved as for sends); returns the
    /// group used. The whitelist and the caller's scope come first (a group
    /// outside the whitelist is `GroupNotAllowed` whether the bot is in it
    /// or not), then a group the bot is not in is `GroupNotFound`, then an
    /// offline account is `AccountOffline`.
    ///
    /// The `[policy]` rules decide after the whitelist and the caller's
    /// scope; the outcome goes to the audit trail.
    pub async fn poke_member(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        user_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<i64> {
        let mut note = Note::new(account_id, vec![Action::Poke], format!("poke {user_id}"));
        let outcome = self
            .poke_checked(
                account_id,
                group_id,
                user_id,
                on_behalf_of,
                &ctx,
                false,
                &mut note,
            )
            .await;
        self.audit_outcome(&note, &ctx, &outcome, |_| String::new())
            .await;
        outcome
    }

    /// Pokes for an approval an owner gave: the same checks but the
    /// policy's.
    pub(crate) async fn poke_approved(
        &self,
        account_id: &str,
        group_id: i64,
        user_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: CallCtx,
    ) -> Result<i64> {
        let mut note = Note::new(account_id, vec![Action::Poke], String::new());
        self.poke_checked(
            account_id,
            Some(group_id),
            user_id,
            on_behalf_of,
            &ctx,
            true,
            &mut note,
        )
        .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn poke_checked(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        user_id: i64,
        on_behalf_of: Option<OnBehalfOf>,
        ctx: &CallCtx,
        approved: bool,
        note: &mut Note,
    ) -> Result<i64> {
        let account = self.account(account_id, ctx)?;
        note.account_id = account.id.clone();
        if user_id <= 0 {
            return Err(
                Error::invalid("user_id", "user_id must be positive").with("user_id", user_id)
            );
        }
        let group_id = resolve_group(&account, group_id)?;
        ctx.caller.check_write()?;
        ctx.caller.check_group(group_id)?;
        let chat = ChatRef::Group(group_id);
        note.chat = Some(chat);
        onebot_gateway_telemetry::record_chat(&chat.target());
        self.require_joined(&account, group_id, ctx.deadline)
            .await?;
        if !approved {
            self.govern(&account, note, on_behalf_of, ctx, || Held::Poke {
                group_id,
                user_id,
            })
            .await?;
        }
        let status = account.peer.status();
        if !status.online {
            return Err(Error::new(
                Kind::AccountOffline,
                format!("account {:?} is offline; pokes are not queued", account.id),
            )
            .with("account_id", &account.id)
            .with("state", status.state.name())
            .retry_after(std::time::Duration::from_secs(5)));
        }
        let limit = self.write().poke_limit(&account.id)?;
        loop {
            match limit.try_take(&(), 1) {
                Ok(()) => break,
                Err(wait) => {
                    let refused = ctx
                        .deadline
                        .instant()
                        .is_some_and(|d| tokio::time::Instant::now() + wait > d);
                    onebot_gateway_telemetry::metrics::rate_limited(&account.id, "poke", refused);
                    if refused {
                        return Err(Error::new(
                            Kind::RateLimited,
                            "the poke rate limit is reached; waiting would pass the deadline",
                        )
                        .with("scope", "poke")
                        .with("group_id", group_id)
                        .retry_after(wait));
                    }
                    tokio::time::sleep(wait).await;
                }
            }
        }
        account
            .peer
            .poke(group_id, user_id, ctx.deadline)
            .await
            .map_err(|e| match e.kind {
                Kind::OnebotActionUnsupported => {
                    let mut p = Error::new(
                        Kind::PokeUnsupported,
                        "the OneBot implementation cannot poke",
                    );
                    p.metadata = e.metadata;
                    p
                }
                _ => e,
            })
            .map_err(|e| e.with("group_id", group_id).with("user_id", user_id))?;
        Ok(group_id)
    }
}
