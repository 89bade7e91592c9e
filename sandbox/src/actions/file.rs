//! `upload_group_file`.
//!
//! NapCat requires `name`; go-cqhttp accepts only an existing local path. The upload is
//! recorded as [`ReceivedMedia`] of kind `File` and announced with a `group_upload` notice;
//! it does not land in message history.

use serde_json::{Value, json};

use crate::events;
use crate::flavor::Flavor;
use crate::media::{self, DigestCache, MediaKind, MediaSource, ReceivedMedia};
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
    let (sha, len) = match &loaded.digest {
        Some(d) => (Some(d.sha256.clone()), Some(d.len)),
        None => (None, None),
    };
    let file_id = format!(
        "/{}",
        sha.as_deref().map_or_else(
            || format!("sandbox-{}", events::now()),
            |s| s[..32].to_owned()
        )
    );
    shared.media.lock().push(ReceivedMedia {
        kind: MediaKind::File,
        sha256: sha,
        len,
        source: loaded.source,
        group_id: Some(group_id),
        user_id: None,
        name: Some(name.clone()),
    });
    let self_id = shared.cfg.self_id;
    shared.emit(&events::group_upload(
        self_id,
        group_id,
        self_id,
        &file_id,
        &name,
        len.unwrap_or(0),
    ));
    Ok(match flavor {
        Flavor::GoCqhttp | Flavor::Lagrange => Value::Null,
        _ => json!({"file_id": file_id}),
    })
}
