//! Group file system: `get_group_root_files`, `get_group_files_by_folder`, `get_group_file_url`
//! (docs/group-actions.md §6). Answers `{files, folders}` and `{url}`; the URL is the media
//! host's, so the file's bytes download byte-exact.
//!
//! Per flavor:
//! - NapCat: `file_count` (default 50) caps the entries (folders first, no paging);
//!   by-folder takes `folder_id` or `folder` and never lists sub-folders; files carry `size`
//!   and `file_size`, folders `folder` and `folder_name`; the URL needs the packet backend
//!   (else, and for an unknown file, `real fileUUID not found!`).
//! - LLOneBot: by-folder requires `folder_id` and lists no sub-folders; the URL gets the
//!   URL-encoded file name appended (`&fname=`).
//! - Lagrange: root and by-folder are one handler (`folder_id`, default `/`); `busid` 0.
//! - SnowLuma: by-folder takes `folder_id` or `folder` (default `/`); folders spell the
//!   creator's name `create_name`.
//! - go-cqhttp: by-folder takes `folder_id`.

use serde_json::{Value, json};

use crate::files;
use crate::flavor::Flavor;
use crate::ops::{self, Refusal};
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::{GroupFile, GroupFolder, World};

fn file_object(flavor: Flavor, f: &GroupFile) -> Value {
    let busid = if flavor == Flavor::Lagrange { 0 } else { 102 };
    let mut o = json!({
        "group_id": f.group_id,
        "file_id": f.file_id,
        "file_name": f.name,
        "busid": busid,
        "file_size": f.size,
        "upload_time": f.upload_time,
        "dead_time": 0,
        "modify_time": f.upload_time,
        "download_times": f.downloads,
        "uploader": f.uploader,
        "uploader_name": f.uploader_name,
    });
    if flavor == Flavor::NapCat {
        o["size"] = json!(f.size);
    }
    o
}

fn folder_object(flavor: Flavor, w: &World, d: &GroupFolder) -> Value {
    let count = w
        .group_files
        .iter()
        .filter(|f| f.group_id == d.group_id && f.folder_id == d.folder_id)
        .count();
    let name_key = if flavor == Flavor::SnowLuma {
        "create_name"
    } else {
        "creator_name"
    };
    let mut o = json!({
        "group_id": d.group_id,
        "folder_id": d.folder_id,
        "folder_name": d.name,
        "create_time": d.create_time,
        "creator": d.creator,
        "total_file_count": count,
    });
    o[name_key] = json!(d.creator_name);
    if flavor == Flavor::NapCat {
        o["folder"] = json!(d.folder_id);
    }
    o
}

fn failed(flavor: Flavor, e: &Refusal) -> ActionError {
    let err = match flavor {
        Flavor::Lagrange => ActionError::failed(""),
        _ => ActionError::failed(e.text()),
    };
    match e {
        Refusal::NoGroup(_) => err.with_code("GROUP_NOT_FOUND"),
        _ => err,
    }
}

/// `get_group_root_files` and `get_group_files_by_folder`.
pub(super) fn list(shared: &Shared, by_folder: bool, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let folder_param = || {
        p.str("folder_id")
            .filter(|f| !f.is_empty())
            .or_else(|| p.str("folder").filter(|f| !f.is_empty()))
    };
    let folder = match flavor {
        Flavor::Lagrange => p
            .str("folder_id")
            .filter(|f| !f.is_empty())
            .unwrap_or_else(|| "/".into()),
        _ if !by_folder => "/".to_owned(),
        Flavor::LlOneBot | Flavor::GoCqhttp => p
            .str("folder_id")
            .filter(|f| !f.is_empty())
            .ok_or_else(|| ActionError::bad_params("缺少参数 folder_id"))?,
        Flavor::NapCat => {
            folder_param().ok_or_else(|| ActionError::bad_params("缺少参数 folder_id"))?
        }
        Flavor::SnowLuma => folder_param().unwrap_or_else(|| "/".into()),
    };
    let cap = match flavor {
        Flavor::NapCat => usize::try_from(p.int("file_count")?.unwrap_or(50).max(0)).unwrap_or(0),
        _ => usize::MAX,
    };
    let w = shared.world.lock();
    if w.group(group_id).is_none() {
        return Err(failed(flavor, &Refusal::NoGroup(group_id)));
    }
    if folder != "/"
        && !w
            .group_folders
            .iter()
            .any(|d| d.group_id == group_id && d.folder_id == folder)
    {
        return Err(failed(flavor, &Refusal::NoFolder(folder)));
    }
    // Folders live one level under the root; NapCat and LLOneBot list none by folder.
    let sub_folders =
        folder == "/" && !(by_folder && matches!(flavor, Flavor::NapCat | Flavor::LlOneBot));
    let mut folders: Vec<Value> = if sub_folders {
        w.group_folders
            .iter()
            .filter(|d| d.group_id == group_id)
            .map(|d| folder_object(flavor, &w, d))
            .collect()
    } else {
        Vec::new()
    };
    let mut files: Vec<Value> = w
        .group_files
        .iter()
        .filter(|f| f.group_id == group_id && f.folder_id == folder)
        .map(|f| file_object(flavor, f))
        .collect();
    folders.truncate(cap);
    files.truncate(cap - folders.len());
    Ok(json!({"files": files, "folders": folders}))
}

/// `get_group_file_url`.
pub(super) fn url(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let group_id = p.req_int("group_id")?;
    let file_id = p
        .str("file_id")
        .filter(|f| !f.is_empty())
        .ok_or_else(|| ActionError::bad_params("缺少参数 file_id"))?;
    if flavor == Flavor::NapCat && !shared.cfg.packet_backend {
        return Err(ActionError::failed("real fileUUID not found!"));
    }
    let w = shared.world.lock();
    let url = ops::file_url(&w, group_id, &file_id).map_err(|e| match flavor {
        Flavor::NapCat => ActionError::failed("real fileUUID not found!"),
        _ => failed(flavor, &e),
    })?;
    let url = match flavor {
        Flavor::LlOneBot => {
            let name =
                ops::group_file(&w, group_id, &file_id).map_or(String::new(), |f| f.name.clone());
            format!("{url}&fname={}", files::percent_encode(&name))
        }
        _ => url,
    };
    Ok(json!({"url": url}))
}
