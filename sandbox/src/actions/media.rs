//! Received media actions per flavor: `get_image`, `get_record`,
//! `get_file`, the stream downloads, and the download keys.
//!
//! | flavor | `get_image` / `get_file` | `get_record` | streams | keys |
//! |---|---|---|---|---|
//! | NapCat | `file` = a path on its host, `url` (signed), `file_size`, `file_name`; `base64` only with `local_file_to_url` | `out_format` required; `base64` (converted) always | `download_file_stream`, `…_image_stream`, `…_record_stream` | `nc_get_rkey` |
//! | LLOneBot | as NapCat; `base64` only with `local_file_to_url` (never for images with a URL) | `out_format` default mp3; `base64` only with `local_file_to_url` | — | `get_rkey` |
//! | SnowLuma | `get_image`: `file` = `url` (signed); `get_file`: image/voice cache only | `base64` when `out_format` is given | as NapCat (no `out_format`) | `get_rkey` (`nc_get_rkey`) |
//! | go-cqhttp | `get_image`: `size`, `filename`, `url`, `file` (a cache path) | — | — | — |
//! | Lagrange | — | — | — | — |

use base64::Engine as _;
use serde_json::{Value, json};

use crate::files::{MediaFile, to_mp3};
use crate::flavor::Flavor;
use crate::media::MediaKind;
use crate::params::Params;
use crate::response::{ActionError, ActionResult};
use crate::shared::Shared;
use crate::state::ChatRef;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn key(p: Params<'_>) -> Option<String> {
    p.str("file_id")
        .filter(|s| !s.is_empty())
        .or_else(|| p.str("file").filter(|s| !s.is_empty()))
}

fn not_found(flavor: Flavor, what: &str) -> ActionError {
    match flavor {
        Flavor::SnowLuma => ActionError::failed(format!("{what} not found in cache")),
        _ => ActionError::failed("file not found"),
    }
}

fn lookup(
    shared: &Shared,
    p: Params<'_>,
    what: &str,
) -> Result<(MediaFile, Option<String>), ActionError> {
    let flavor = shared.cfg.flavor;
    let key = key(p).ok_or_else(|| ActionError::bad_params("file is required"))?;
    let w = shared.world.lock();
    let file = w
        .files
        .get(&key)
        .cloned()
        .ok_or_else(|| not_found(flavor, what))?;
    // Media URLs are signed as a group's.
    let url = w.files.signed(file.kind, ChatRef::Group(0), &file.name);
    Ok((file, url))
}

fn host_path(flavor: Flavor, name: &str) -> String {
    match flavor {
        Flavor::LlOneBot => format!("/root/llonebot/temp/{name}"),
        Flavor::GoCqhttp => format!("data/cache/{name}"),
        _ => format!("/app/.config/QQ/NapCat/temp/{name}"),
    }
}

/// `get_image` and `get_file`.
pub(super) fn get_image_or_file(shared: &Shared, name: &str, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let what = if name == "get_image" { "image" } else { "file" };
    let (file, url) = lookup(shared, p, what)?;
    if flavor == Flavor::SnowLuma
        && name == "get_file"
        && !matches!(file.kind, MediaKind::Image | MediaKind::Record)
    {
        return Err(ActionError::failed(
            "file_id not found in the image/voice cache; use get_group_file_url for group files",
        ));
    }
    let path = host_path(flavor, &file.name);
    let size = file.len();
    Ok(match flavor {
        Flavor::GoCqhttp => json!({
            "size": size,
            "filename": file.name,
            "url": url.unwrap_or_default(),
            "file": path,
        }),
        Flavor::SnowLuma => json!({
            "file": url.clone().unwrap_or_default(),
            "url": url.unwrap_or_default(),
            "file_size": size.to_string(),
            "file_name": file.name,
        }),
        _ => {
            let remote = match file.kind {
                MediaKind::Image | MediaKind::Video => url,
                _ => None,
            };
            let url_field = remote.clone().unwrap_or_else(|| path.clone());
            let mut out = json!({
                "file": path,
                "url": url_field,
                "file_size": size.to_string(),
                "file_name": file.name,
            });
            // LLOneBot: base64 only when `url` is the path itself.
            let with_base64 =
                shared.cfg.local_file_to_url && (flavor != Flavor::LlOneBot || remote.is_none());
            if with_base64 {
                out["base64"] = json!(b64(&file.bytes()));
            }
            out
        }
    })
}

/// `get_record`.
pub(super) fn get_record(shared: &Shared, p: Params<'_>) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let format = p.str("out_format").filter(|s| !s.is_empty());
    if flavor == Flavor::NapCat && format.is_none() {
        return Err(ActionError::bad_params("out_format 字段必须存在"));
    }
    let (file, url) = lookup(shared, p, "record")?;
    let converted = || match format.as_deref().unwrap_or("mp3") {
        "mp3" => Ok(to_mp3(&file.bytes())),
        other => Err(ActionError::failed(format!(
            "转换失败 out_format 字段可能格式不正确: {other}"
        ))),
    };
    let path = host_path(flavor, &file.name);
    let stem = file
        .name
        .rsplit_once('.')
        .map_or(file.name.as_str(), |(s, _)| s);
    let out_name = format!("{stem}.{}", format.as_deref().unwrap_or("mp3"));
    Ok(match flavor {
        Flavor::NapCat => json!({
            "file": path,
            "url": path,
            "file_size": file.len().to_string(),
            "file_name": out_name,
            "base64": b64(&converted()?),
        }),
        Flavor::SnowLuma => {
            let mut out = json!({
                "file": url.clone().unwrap_or_default(),
                "url": url.unwrap_or_default(),
                "file_size": file.len().to_string(),
                "file_name": file.name,
            });
            if let Some(f) = &format {
                out["out_format"] = json!(f);
                out["base64"] = json!(b64(&converted()?));
            }
            out
        }
        _ => {
            let mut out = json!({
                "file": path,
                "file_size": file.len().to_string(),
                "file_name": out_name,
            });
            if shared.cfg.local_file_to_url {
                out["base64"] = json!(b64(&converted()?));
            }
            out
        }
    })
}

/// `nc_get_rkey` (NapCat: the key with its `&rkey=` prefix) and `get_rkey`.
pub(super) fn rkeys(shared: &Shared, name: &str) -> ActionResult {
    let flavor = shared.cfg.flavor;
    let (rkey, left) = shared.world.lock().files.rkey();
    let ttl = left.as_secs().max(1);
    let now = crate::events::now();
    Ok(match (flavor, name) {
        (Flavor::NapCat, "nc_get_rkey") => json!([
            {"rkey": format!("&rkey={rkey}"), "ttl": ttl.to_string(), "time": now, "type": 10},
            {"rkey": format!("&rkey={rkey}"), "ttl": ttl.to_string(), "time": now, "type": 20},
        ]),
        (Flavor::LlOneBot, _) => json!({
            "private_key": rkey, "group_key": rkey, "expired_time": now + ttl as i64,
        }),
        _ => json!([
            {"rkey": rkey, "ttl": ttl, "create_time": now, "type": 10},
            {"rkey": rkey, "ttl": ttl, "create_time": now, "type": 20},
        ]),
    })
}

/// The frames of a stream download (`download_file_stream`,
/// `download_file_image_stream`, `download_file_record_stream`): the file's
/// info, its chunks, then the completion.
pub(crate) fn stream(
    shared: &Shared,
    name: &str,
    p: Params<'_>,
) -> Result<Vec<Value>, ActionError> {
    let flavor = shared.cfg.flavor;
    let (file, _) = lookup(shared, p, "file").map_err(|_| match flavor {
        Flavor::SnowLuma => ActionError::failed(
            "file not found (expected a stream-dir path, an http(s) URL, or a cached image/voice id)",
        ),
        _ => ActionError::failed("Download failed: file not found"),
    })?;
    let chunk_size = p
        .int("chunk_size")?
        .filter(|n| *n > 0)
        .map_or(65_536, |n| n.min(16 << 20) as usize);
    let bytes = if name == "download_file_record_stream"
        && flavor == Flavor::NapCat
        && p.str("out_format").is_some_and(|f| !f.is_empty())
    {
        to_mp3(&file.bytes())
    } else {
        file.bytes().to_vec()
    };
    let total = bytes.len();
    let mut frames = vec![json!({
        "type": "stream", "data_type": "file_info",
        "file_name": file.name, "file_size": file.len(), "chunk_size": chunk_size,
    })];
    let chunks: Vec<&[u8]> = bytes.chunks(chunk_size).collect();
    let n = chunks.len();
    for (i, c) in chunks.into_iter().enumerate() {
        let data = b64(c);
        frames.push(json!({
            "type": "stream", "data_type": "file_chunk", "index": i,
            "base64_size": data.len(), "data": data, "size": c.len(),
            "progress": ((i + 1) * 100 / n.max(1)),
        }));
    }
    let mut done = json!({
        "type": "response", "data_type": "file_complete",
        "total_chunks": n, "total_bytes": total, "message": "Download completed",
    });
    if flavor == Flavor::SnowLuma {
        done["file_name"] = json!(file.name);
    }
    frames.push(done);
    Ok(frames)
}
