//! `upload_group_file` / `upload_private_file` (the bytes are stored as a file of the media
//! host and recorded as received media; the answer's `file_id` names it),
//! `get_group_file_download_url` / `get_private_file_download_url` and `get_resource_temp_url`
//! (a URL on the media host signed with the current download key, so it expires with it).

use serde_json::json;

use super::super::params::Body;
use super::super::{MilkyError, MilkyResult, media};
use crate::media::{MediaKind, ReceivedMedia};
use crate::ops;
use crate::shared::Shared;
use crate::state::ChatRef;

pub(super) async fn upload(shared: &Shared, b: Body<'_>, group: bool) -> MilkyResult {
    let peer = if group {
        b.uin("group_id")?
    } else {
        b.uin("user_id")?
    };
    let folder = if group {
        b.opt_string("parent_folder_id")?.unwrap_or("/")
    } else {
        "/"
    };
    let uri = b.string("file_uri")?;
    let name = b.string("file_name")?;
    {
        let w = shared.world.lock();
        let known = if group {
            w.group(peer).is_some()
        } else {
            w.friend(peer).is_some()
        };
        if !known {
            let field = if group { "group_id" } else { "user_id" };
            return Err(MilkyError::not_found(format!(
                "{field}: no such peer {peer}"
            )));
        }
    }
    let loaded = media::resolve(uri, "file_uri").await?;
    let (sha256, len) = match &loaded.digest {
        Some(d) => (Some(d.sha256.clone()), Some(d.len)),
        None => (None, None),
    };
    if loaded.bytes.is_none() {
        return Err(MilkyError::media("file_uri: no bytes"));
    }
    let file_id = if group {
        // The bot's own upload joins the group's files; QQ pushes no upload event for it.
        let self_id = shared.cfg.self_id;
        ops::upload(shared, peer, self_id, name, folder, &loaded, false)
            .map_err(|e| e.milky())?
            .file_id
    } else {
        shared
            .world
            .lock()
            .files
            .keep(MediaKind::File, &loaded)
            .and_then(|d| d.get("file_id").and_then(|v| v.as_str()).map(str::to_owned))
            .ok_or_else(|| MilkyError::media("file_uri: no bytes"))?
    };
    shared.media.lock().push(ReceivedMedia {
        kind: MediaKind::File,
        sha256,
        len,
        source: loaded.source,
        group_id: group.then_some(peer),
        user_id: (!group).then_some(peer),
        name: Some(name.to_owned()),
    });
    Ok(json!({"file_id": file_id}))
}

/// A signed URL of the stored file `key` (a resource id, file name or file id).
fn signed(shared: &Shared, key: &str, field: &str, chat: ChatRef) -> Result<String, MilkyError> {
    let w = shared.world.lock();
    let file = w
        .files
        .get(key)
        .ok_or_else(|| MilkyError::not_found(format!("{field}: no such resource {key}")))?;
    w.files
        .signed(file.kind, chat, &file.name)
        .ok_or_else(|| MilkyError::not_found(format!("{field}: the media host is not listening")))
}

pub(super) fn temp_url(shared: &Shared, b: Body<'_>) -> MilkyResult {
    let id = b.string("resource_id")?;
    let url = signed(shared, id, "resource_id", ChatRef::Group(0))?;
    Ok(json!({"url": url}))
}

pub(super) fn download_url(shared: &Shared, b: Body<'_>, group: bool) -> MilkyResult {
    let chat = if group {
        let g = b.uin("group_id")?;
        if shared.world.lock().group(g).is_none() {
            return Err(MilkyError::not_found(format!(
                "group_id: group {g} not found"
            )));
        }
        ChatRef::Group(g)
    } else {
        let user_id = b.uin("user_id")?;
        b.string("file_hash")?;
        ChatRef::Private(user_id)
    };
    let id = b.string("file_id")?;
    if let ChatRef::Group(g) = chat {
        let w = shared.world.lock();
        if let Ok(url) = ops::file_url(&w, g, id) {
            return Ok(json!({"download_url": url}));
        }
    }
    let url = signed(shared, id, "file_id", chat)?;
    Ok(json!({"download_url": url}))
}
