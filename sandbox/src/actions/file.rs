//! `upload_group_file`.
//!
//! NapCat requires `name`; go-cqhttp accepts only an existing local path. The upload is
//! recorded as [`ReceivedMedia`] of kind `File`, joins the group's files (`folder_id` or
//! `folder`, default the root; its bytes served when the sandbox has them) and is announced
//! with a `group_upload` notice; it does not land in message history.

use serde_json::{Value, json};

use crate::flavor::Flavor;
use crate::media::{self, DigestCache, MediaKind, MediaSource, ReceivedMedia};
use crate::ops;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;

pub(super) fn upload_group_file(
    shared: &Shared,
    p: Params<'_>,
    cache: &DigestCache<'_>,
) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let file = p
        .str("file")
        .filter(|f| !f.is_empty())
        .ok_or_else(|| ActionError::bad_params("缺少参数 file"))?;
    let name = p.str("name").filter(|n| !n.is_empty());
    if flavor == Flavor::NapCat && name.is_none() {
        return Err(ActionError::bad_params("缺少参数 name"));
    }
    if shared.world.lock().group(group_id).is_none() {
        return Err(ActionError::failed(format!("群{group_id}不存在")).with_code("GROUP_NOT_FOUND"));
    }
    let loaded = media::load(&file, cache).map_err(|e| ActionError::failed(e.to_string()))?;
    if flavor == Flavor::GoCqhttp
        && !(matches!(loaded.source, MediaSource::Path(_)) && loaded.digest.is_some())
    {
        // go-cqhttp: `file` must be a local path that exists.
        return Err(ActionError::failed("file not found").with_code("FILE_NOT_FOUND"));
    }
    let name = name.unwrap_or_else(|| loaded.stored_name(MediaKind::File));
    let folder = p
        .str("folder_id")
        .or_else(|| p.str("folder"))
        .filter(|f| !f.is_empty())
        .unwrap_or_else(|| "/".to_owned());
    let self_id = shared.cfg.self_id;
    let file = ops::upload(shared, group_id, self_id, &name, &folder, &loaded, true)
        .map_err(|e| ActionError::failed(e.text()))?;
    let file_id = file.file_id;
    shared.media.lock().push(ReceivedMedia {
        kind: MediaKind::File,
        sha256: loaded.digest.as_ref().map(|d| d.sha256.clone()),
        len: loaded.digest.as_ref().map(|d| d.len),
        source: loaded.source,
        group_id: Some(group_id),
        user_id: None,
        name: Some(name.clone()),
    });
    Ok(match flavor {
        Flavor::GoCqhttp | Flavor::Lagrange => Value::Null,
        _ => json!({"file_id": file_id}),
    })
}
