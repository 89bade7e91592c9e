//! Group operations shared by the OneBot actions, the Milky API and the control endpoints:
//! reactions, essence, mutes, kicks, cards, admins, group files and group names. Each checks
//! QQ's rules (who may do it to whom), changes the world and pushes the notice the face and
//! flavor push (a Milky event on the Milky face). An operation that changes nothing (a reaction
//! already there, an essence already set) succeeds and pushes nothing.
//!
//! QQ's rules: muting, kicking and changing someone else's card need the actor to outrank the
//! target (the owner outranks admins, admins outrank members; nobody acts on the owner or on
//! themselves, except for their own card); essence, whole-group mutes and renames need an admin
//! or the owner; only the owner sets admins.

use serde_json::Value;

use crate::events::{self, EssenceNotice, ReactionNotice};
use crate::flavor::Flavor;
use crate::media::{Loaded, MediaKind};
use crate::milky;
use crate::shared::Shared;
use crate::state::{ChatRef, Essence, GroupFile, Reaction, Role, World};

/// Why an operation was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    NoGroup(i64),
    NotMember(i64, i64),
    /// Unknown or recalled message id.
    NoMessage(i64),
    NotGroupMessage(i64),
    /// The actor's role does not allow it.
    NoRights,
    /// The target is the owner.
    TargetOwner,
    /// The target is an admin and the actor is not the owner.
    TargetAdmin,
    NoFolder(String),
    NoFile(String),
}

impl Refusal {
    /// The sandbox's own wording (the actions put each implementation's text over it).
    pub(crate) fn text(&self) -> String {
        match self {
            Refusal::NoGroup(g) => format!("群{g}不存在"),
            Refusal::NotMember(g, u) => format!("群({g})成员{u}不存在"),
            Refusal::NoMessage(id) => format!("消息{id}不存在"),
            Refusal::NotGroupMessage(id) => format!("消息{id}不是群消息"),
            Refusal::NoRights => "权限不足".to_owned(),
            Refusal::TargetOwner => "不能对群主操作".to_owned(),
            Refusal::TargetAdmin => "只有群主能对管理员操作".to_owned(),
            Refusal::NoFolder(f) => format!("文件夹{f}不存在"),
            Refusal::NoFile(f) => format!("文件{f}不存在"),
        }
    }

    /// The Milky error of this refusal (`-404` for what does not exist, `-406` for the rules).
    pub(crate) fn milky(&self) -> milky::MilkyError {
        match self {
            Refusal::NoRights | Refusal::TargetOwner | Refusal::TargetAdmin => {
                milky::MilkyError::refused(self.text())
            }
            _ => milky::MilkyError::not_found(self.text()),
        }
    }
}

fn rank(r: Role) -> u8 {
    match r {
        Role::Owner => 2,
        Role::Admin => 1,
        Role::Member => 0,
    }
}

/// The actor may mute, kick or re-card `target` in `group_id`.
pub(crate) fn may_manage(w: &World, group_id: i64, actor: i64, target: i64) -> Result<(), Refusal> {
    let g = w.group(group_id).ok_or(Refusal::NoGroup(group_id))?;
    let t = g
        .member(target)
        .ok_or(Refusal::NotMember(group_id, target))?;
    let a = g
        .member(actor)
        .ok_or(Refusal::NotMember(group_id, actor))?
        .role;
    if t.role == Role::Owner {
        return Err(Refusal::TargetOwner);
    }
    if rank(a) == 0 || actor == target {
        return Err(Refusal::NoRights);
    }
    if t.role == Role::Admin && a != Role::Owner {
        return Err(Refusal::TargetAdmin);
    }
    Ok(())
}

/// The actor is an admin or the owner of `group_id`.
pub(crate) fn is_admin(w: &World, group_id: i64, actor: i64) -> Result<(), Refusal> {
    let g = w.group(group_id).ok_or(Refusal::NoGroup(group_id))?;
    let role = g
        .member(actor)
        .ok_or(Refusal::NotMember(group_id, actor))?
        .role;
    if rank(role) == 0 {
        return Err(Refusal::NoRights);
    }
    Ok(())
}

/// Pushes the OneBot notice `onebot` builds for the flavor, or the Milky event.
fn notify(
    shared: &Shared,
    onebot: impl FnOnce(Flavor, i64) -> Option<Value>,
    milky: Option<(&str, Value)>,
) {
    if shared.milky() {
        if let Some((kind, data)) = milky {
            milky::events::emit(shared, kind, data);
        }
    } else if let Some(ev) = onebot(shared.cfg.flavor, shared.cfg.self_id) {
        shared.emit(&ev);
    }
}

/// The group message `message_id` (not recalled): its group and seq.
pub(crate) fn group_message(w: &World, message_id: i64) -> Result<(i64, i64), Refusal> {
    match w.find(message_id) {
        Some((ChatRef::Group(g), m)) => Ok((g, m.seq)),
        Some(_) => Err(Refusal::NotGroupMessage(message_id)),
        None => Err(Refusal::NoMessage(message_id)),
    }
}

/// The `msg_random` QQ keeps with a message (derived from its id).
pub(crate) fn msg_random(message_id: i64) -> i64 {
    (message_id.unsigned_abs().wrapping_mul(2_654_435_761) % 4_294_967_296) as i64
}

/// `user_id` adds (or removes) the reaction `emoji` to the group message `message_id`.
pub(crate) fn react(
    shared: &Shared,
    message_id: i64,
    user_id: i64,
    emoji: &str,
    add: bool,
) -> Result<(), Refusal> {
    let (group_id, seq, count) = {
        let mut w = shared.world.lock();
        let (group_id, seq) = group_message(&w, message_id)?;
        let list = w.reactions.entry(message_id).or_default();
        let at = list
            .iter()
            .position(|r| r.user_id == user_id && r.emoji == emoji);
        match (at, add) {
            (None, true) => list.push(Reaction {
                user_id,
                emoji: emoji.to_owned(),
            }),
            (Some(i), false) => {
                list.remove(i);
            }
            _ => return Ok(()),
        }
        let count = list.iter().filter(|r| r.emoji == emoji).count();
        (group_id, seq, count)
    };
    let n = ReactionNotice {
        group_id,
        user_id,
        message_id,
        message_seq: seq,
        emoji,
        is_add: add,
        count,
    };
    notify(
        shared,
        |f, s| events::reaction(f, s, &n),
        Some((
            "group_message_reaction",
            milky::events::reaction(group_id, user_id, seq, emoji, add),
        )),
    );
    Ok(())
}

/// `operator_id` marks (or unmarks) the group message `message_id` as essence.
pub(crate) fn set_essence(
    shared: &Shared,
    message_id: i64,
    operator_id: i64,
    on: bool,
) -> Result<(), Refusal> {
    let n = {
        let mut w = shared.world.lock();
        let (group_id, seq) = group_message(&w, message_id)?;
        is_admin(&w, group_id, operator_id)?;
        let at = w.essence.iter().position(|e| e.message_id == message_id);
        match (at, on) {
            (None, true) => w.essence.push(Essence {
                group_id,
                message_id,
                operator_id,
                time: events::now(),
            }),
            (Some(i), false) => {
                w.essence.remove(i);
            }
            _ => return Ok(()),
        }
        let sender_id = w.find(message_id).map_or(0, |(_, m)| m.sender.user_id);
        EssenceNotice {
            group_id,
            sender_id,
            operator_id,
            message_id,
            message_seq: seq,
            random: msg_random(message_id),
            is_set: on,
        }
    };
    notify(
        shared,
        |f, s| events::essence(f, s, &n),
        Some((
            "group_essence_message_change",
            milky::events::essence(n.group_id, n.message_seq, operator_id, on),
        )),
    );
    Ok(())
}

/// `operator_id` mutes `user_id` for `duration` seconds (0 lifts the mute).
pub(crate) fn mute(
    shared: &Shared,
    group_id: i64,
    operator_id: i64,
    user_id: i64,
    duration: i64,
) -> Result<(), Refusal> {
    {
        let mut w = shared.world.lock();
        may_manage(&w, group_id, operator_id, user_id)?;
        let until = if duration > 0 {
            events::now() + duration
        } else {
            0
        };
        if let Some(m) = w
            .group_mut(group_id)
            .and_then(|g| g.members.iter_mut().find(|m| m.user_id == user_id))
        {
            m.shut_up_until = until;
        }
    }
    let duration = duration.max(0);
    notify(
        shared,
        |_, s| {
            Some(events::group_ban(
                s,
                group_id,
                user_id,
                operator_id,
                duration,
            ))
        },
        Some((
            "group_mute",
            milky::events::mute(group_id, user_id, operator_id, duration),
        )),
    );
    Ok(())
}

/// `operator_id` turns the whole-group mute on or off.
pub(crate) fn whole_mute(
    shared: &Shared,
    group_id: i64,
    operator_id: i64,
    on: bool,
) -> Result<(), Refusal> {
    {
        let mut w = shared.world.lock();
        is_admin(&w, group_id, operator_id)?;
        let changed = if on {
            w.whole_muted.insert(group_id)
        } else {
            w.whole_muted.remove(&group_id)
        };
        if !changed {
            return Ok(());
        }
    }
    notify(
        shared,
        |f, s| events::whole_ban(f, s, group_id, operator_id, on),
        Some((
            "group_whole_mute",
            milky::events::whole_mute(group_id, operator_id, on),
        )),
    );
    Ok(())
}

/// `operator_id` removes `user_id` from the group.
pub(crate) fn kick(
    shared: &Shared,
    group_id: i64,
    operator_id: i64,
    user_id: i64,
) -> Result<(), Refusal> {
    {
        let mut w = shared.world.lock();
        may_manage(&w, group_id, operator_id, user_id)?;
        if let Some(g) = w.group_mut(group_id) {
            g.members.retain(|m| m.user_id != user_id);
        }
    }
    notify(
        shared,
        |_, s| Some(events::group_kick(s, group_id, user_id, operator_id)),
        Some((
            "group_member_decrease",
            milky::events::kicked(group_id, user_id, operator_id),
        )),
    );
    Ok(())
}

/// Sets a member's card and pushes `group_card` (the Milky face has no such event); no rights
/// check. `None` when there is no such member.
pub(crate) fn apply_card(shared: &Shared, group_id: i64, user_id: i64, card: &str) -> Option<()> {
    let old = {
        let mut w = shared.world.lock();
        w.group_mut(group_id)
            .and_then(|g| g.members.iter_mut().find(|m| m.user_id == user_id))
            .map(|m| std::mem::replace(&mut m.card, card.to_owned()))?
    };
    notify(
        shared,
        |_, s| Some(events::group_card(s, group_id, user_id, card, &old)),
        None,
    );
    Some(())
}

/// `operator_id` sets `user_id`'s card (their own, or someone they outrank).
pub(crate) fn set_card(
    shared: &Shared,
    group_id: i64,
    operator_id: i64,
    user_id: i64,
    card: &str,
) -> Result<(), Refusal> {
    {
        let w = shared.world.lock();
        let g = w.group(group_id).ok_or(Refusal::NoGroup(group_id))?;
        g.member(user_id)
            .ok_or(Refusal::NotMember(group_id, user_id))?;
        if operator_id != user_id {
            may_manage(&w, group_id, operator_id, user_id)?;
        }
    }
    apply_card(shared, group_id, user_id, card).ok_or(Refusal::NotMember(group_id, user_id))
}

/// The group's owner makes `user_id` an admin (or a member again).
pub(crate) fn set_admin(
    shared: &Shared,
    group_id: i64,
    user_id: i64,
    on: bool,
) -> Result<(), Refusal> {
    let owner = {
        let mut w = shared.world.lock();
        let g = w.group_mut(group_id).ok_or(Refusal::NoGroup(group_id))?;
        let owner = g
            .members
            .iter()
            .find(|m| m.role == Role::Owner)
            .map_or(0, |m| m.user_id);
        let m = g
            .members
            .iter_mut()
            .find(|m| m.user_id == user_id)
            .ok_or(Refusal::NotMember(group_id, user_id))?;
        let role = if on { Role::Admin } else { Role::Member };
        match m.role {
            Role::Owner => return Err(Refusal::TargetOwner),
            r if r == role => return Ok(()),
            _ => m.role = role,
        }
        owner
    };
    notify(
        shared,
        |_, s| Some(events::group_admin(s, group_id, user_id, on)),
        Some((
            "group_admin_change",
            milky::events::admin_change(group_id, user_id, owner, on),
        )),
    );
    Ok(())
}

/// `operator_id` renames the group.
pub(crate) fn rename(
    shared: &Shared,
    group_id: i64,
    operator_id: i64,
    name: &str,
) -> Result<(), Refusal> {
    {
        let mut w = shared.world.lock();
        is_admin(&w, group_id, operator_id)?;
        if let Some(g) = w.group_mut(group_id) {
            g.name = name.to_owned();
        }
    }
    notify(
        shared,
        |f, s| events::group_name(f, s, group_id, operator_id, name),
        Some((
            "group_name_change",
            milky::events::name_change(group_id, name, operator_id),
        )),
    );
    Ok(())
}

/// `user_id` uploads `loaded` as `name` into `folder_id` (`/`: the root) of the group's files;
/// its bytes (when the sandbox has them) are served at [`file_url`]. Pushes the upload notice
/// when `announce`.
pub(crate) fn upload(
    shared: &Shared,
    group_id: i64,
    user_id: i64,
    name: &str,
    folder_id: &str,
    loaded: &Loaded,
    announce: bool,
) -> Result<GroupFile, Refusal> {
    let (file, url) = {
        let mut w = shared.world.lock();
        let g = w.group(group_id).ok_or(Refusal::NoGroup(group_id))?;
        g.member(user_id)
            .ok_or(Refusal::NotMember(group_id, user_id))?;
        if folder_id != "/"
            && !w
                .group_folders
                .iter()
                .any(|f| f.group_id == group_id && f.folder_id == folder_id)
        {
            return Err(Refusal::NoFolder(folder_id.to_owned()));
        }
        let kept = w.files.keep(MediaKind::File, loaded);
        let field = |k: &str| {
            kept.as_ref()
                .and_then(|d| d.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let (key, file_id) = match (field("file"), field("file_id")) {
            (Some(key), Some(id)) => (key, id),
            _ => (
                String::new(),
                format!("/sandbox-{}-{}", events::now(), w.group_files.len()),
            ),
        };
        let size = loaded.digest.as_ref().map_or(0, |d| d.len);
        let file = GroupFile {
            group_id,
            file_id,
            name: name.to_owned(),
            size,
            folder_id: folder_id.to_owned(),
            upload_time: events::now(),
            uploader: user_id,
            uploader_name: w.display_name(group_id, user_id),
            downloads: 0,
            key,
        };
        w.group_files
            .retain(|f| !(f.group_id == group_id && f.file_id == file.file_id));
        w.group_files.push(file.clone());
        let url = file_url(&w, group_id, &file.file_id).ok();
        (file, url)
    };
    if announce {
        notify(
            shared,
            |f, s| {
                Some(events::group_upload(
                    f,
                    s,
                    group_id,
                    user_id,
                    (&file.file_id, &file.name, file.size),
                    url.as_deref(),
                ))
            },
            Some((
                "group_file_upload",
                milky::events::file_upload(group_id, user_id, &file.file_id, &file.name, file.size),
            )),
        );
    }
    Ok(file)
}

/// The group file `file_id` of `group_id`.
pub(crate) fn group_file<'w>(
    w: &'w World,
    group_id: i64,
    file_id: &str,
) -> Result<&'w GroupFile, Refusal> {
    w.group(group_id).ok_or(Refusal::NoGroup(group_id))?;
    w.group_files
        .iter()
        .find(|f| f.group_id == group_id && f.file_id == file_id)
        .ok_or_else(|| Refusal::NoFile(file_id.to_owned()))
}

/// The download URL of a group file on the media host (signed with the current key).
pub(crate) fn file_url(w: &World, group_id: i64, file_id: &str) -> Result<String, Refusal> {
    let f = group_file(w, group_id, file_id)?;
    w.files
        .get(&f.key)
        .and_then(|m| w.files.signed(m.kind, ChatRef::Group(group_id), &m.name))
        .ok_or_else(|| Refusal::NoFile(file_id.to_owned()))
}
