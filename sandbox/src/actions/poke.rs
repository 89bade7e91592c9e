//! `group_poke`, `friend_poke`, `send_poke`. go-cqhttp has none of them
//! (it pokes via a `[CQ:poke,qq=N]` segment, see `send.rs`).
//!
//! A poke emits a `notify`/`poke` notice and never lands in history.

use serde_json::Value;

use crate::events;
use crate::fault::FaultKind;
use crate::flavor::Flavor;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;

pub(super) fn poke(shared: &Shared, name: &str, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let unsupported = shared.faults().has(FaultKind::PokeUnsupported)
        || (flavor == Flavor::NapCat && !shared.cfg.packet_backend);

    // Parameters per implementation.
    let (group_id, target) = match (flavor, name) {
        // NapCat: one handler for all three: user_id required, group_id optional, target_id optional.
        (Flavor::NapCat, _) => {
            if unsupported {
                return Err(ActionError::bad_params("packetBackend发包能力不可用"));
            }
            let user_id = p.req_int("user_id")?;
            let target = p.int("target_id")?.unwrap_or(user_id);
            (p.int("group_id")?, target)
        }
        (_, "group_poke") => (Some(p.req_int("group_id")?), p.req_int("user_id")?),
        (_, "friend_poke") => {
            let user_id = p.req_int("user_id")?;
            (None, p.int("target_id")?.unwrap_or(user_id))
        }
        _ => (p.int("group_id")?, p.req_int("user_id")?),
    };
    if unsupported {
        return match flavor {
            // LLOneBot swallows poke errors and answers ok.
            Flavor::LlOneBot => Ok(Value::Null),
            Flavor::Lagrange => Err(ActionError::failed("")),
            _ => Err(ActionError::failed(
                "poke failed: packet backend unavailable",
            )),
        };
    }
    if let Some(g) = group_id {
        let w = shared.world.lock();
        let group = w
            .group(g)
            .ok_or_else(|| ActionError::failed(format!("群{g}不存在")))?;
        if group.member(target).is_none() {
            return Err(ActionError::failed(format!("群({g})成员{target}不存在")));
        }
    }
    let self_id = shared.cfg.self_id;
    shared.emit(&events::poke(self_id, group_id, self_id, target));
    Ok(Value::Null)
}
