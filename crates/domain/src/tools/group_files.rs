//! `qq_list_group_files` ([`Gateway::list_group_files`]) and
//! `qq_get_group_file` ([`Gateway::download_group_file`]): a group's files
//! (群文件). A file comes back the way `qq_get_media` gives media: an
//! image as image content, a text file as its text, anything else as a
//! line with its size and MIME type.

use std::io::Read as _;

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::arg_error::ArgError;
use super::args::Args;
use super::input::{AccountId, Number, QqNumber, Target, account_rule, group_alias, target_rule};
use super::output::{ToolOutput, domain_failure};
use super::props::{clamp_rule, group_rule, strict_rules};
use super::texts::Failure;
use super::view::time_text;
use crate::call::CallCtx;
use crate::error::{Error, Result};
use crate::gateway::Gateway;
use crate::media::kind::{IMAGE_MIMES, OCTET_STREAM};
use crate::model::{GroupFile, GroupFolder, ReceivedKind};
use crate::read::group_content::FILES_PAGE;
use crate::render;
use onebot_gateway_config::Locale;

/// Most bytes of a text file returned as text; longer files are cut.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The description of `qq_list_group_files`, for a model.
pub const LIST_DESCRIPTION: &str = concat!(
    "\
List one page of a folder of a whitelisted QQ group's files (群文件): its folders first, then its files. Never throws. Read-only.

Arguments:
",
    group_rule!(),
    "\
- folderId: the folder to list, a folderId from an earlier page; absent, empty or \"/\" lists the root. (Some implementations never list the folders inside a folder.)
- pageSize: entries (folders and files together) per page. Default 50. ",
    clamp_rule!(200, 50),
    "
- pageToken: details.nextPageToken of the previous page, for the next one (it keeps the first page's size); keep folderId the same. A token of another listing is refused.
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

Result text: one line per folder, `[文件夹] name（folderId <id>，<n> 个文件）`, then one per file, `[文件] name（fileId <id>，<size> 字节，上传者 <QQ number>，<YYYY-MM-DD HH:mm> 上传）` (the parts QQ does not report left out). `（该文件夹为空）` when there is nothing. When more entries exist, a last line gives the pageToken. Read a file with qq_get_group_file and its fileId.
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"folders\":[{\"folderId\",\"name\",\"creatorId\",\"createTime\",\"fileCount\"}],\"files\":[{\"fileId\",\"name\",\"size\",\"folderId\",\"uploaderId\",\"uploaderName\",\"uploadTime\",\"expireTime\",\"downloadCount\"}],\"nextPageToken\" (only when more entries exist)} (times RFC 3339; fields the implementation does not report left out).
On failure (bad target or groupId, group not whitelisted, no group given with several whitelisted groups, bad pageToken, offline, the implementation cannot list files, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The description of `qq_get_group_file`, for a model.
pub const GET_DESCRIPTION: &str = concat!(
    "\
Get one file of a whitelisted QQ group's files (群文件) by its fileId. Never throws. Read-only.

Arguments:
- fileId (required): the file, a fileId from qq_list_group_files.
",
    group_rule!(),
    "\
- accountId: gateway account, default \"default\".
",
    strict_rules!(),
    "

The gateway asks QQ for the file's download link and fetches it (within the group-file limit, 30 MiB by default).
Result: a first line `[文件] 群文件 <fileId>：<mime type>，<size> 字节，文件名 <name>`; then an image (JPEG/PNG/GIF/BMP/WEBP, at most the image limit) as image content; a text file (UTF-8 text) as its text after the line, at most 64 KiB (longer text is cut, and the line says so); any other file only as that line (use MediaService / DownloadGroupFile for its bytes).
details on success: {\"status\":\"ok\",\"groupId\":<number>,\"fileId\",\"fileName\",\"mimeType\",\"size\",\"sha256\",\"content\":\"image\"|\"text\"|\"summary\",\"truncated\" (text only)}.
On failure (no fileId, an unknown fileId, bad target or groupId, group not whitelisted, file too large or not fetchable, offline, the implementation cannot give files, implementation error) the result is an error whose text equals details.error, details = {\"status\":\"failed\",\"error\":\"...\"}."
);

/// The properties of `qq_list_group_files`' details on success.
pub fn list_details_properties() -> (Value, Value) {
    let string = json!({"type": "string"});
    let int = json!({"type": "integer"});
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "folders": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "folderId": string,
                        "name": string,
                        "creatorId": int,
                        "createTime": string,
                        "fileCount": int
                    },
                    "required": ["folderId", "name"],
                    "additionalProperties": false
                }
            },
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "fileId": string,
                        "name": string,
                        "size": {"type": "integer", "minimum": 0},
                        "folderId": string,
                        "uploaderId": int,
                        "uploaderName": string,
                        "uploadTime": string,
                        "expireTime": string,
                        "downloadCount": int
                    },
                    "required": ["fileId", "name", "size"],
                    "additionalProperties": false
                }
            },
            "nextPageToken": {"type": "string", "minLength": 1}
        }),
        json!(["status", "groupId", "folders", "files"]),
    )
}

/// The properties of `qq_get_group_file`'s details on success.
pub fn get_details_properties() -> (Value, Value) {
    (
        json!({
            "groupId": {"type": "integer", "minimum": 1},
            "fileId": {"type": "string", "minLength": 1},
            "fileName": {"type": "string"},
            "mimeType": {"type": "string", "minLength": 1},
            "size": {"type": "integer", "minimum": 0},
            "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "content": {"enum": ["image", "text", "summary"]},
            "truncated": {"type": "boolean"}
        }),
        json!([
            "status", "groupId", "fileId", "fileName", "mimeType", "size", "sha256", "content"
        ]),
    )
}

/// The arguments object of `qq_list_group_files` as a model sends it: the
/// source of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListGroupFilesInput {
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    /// The folder to list (a folderId from an earlier page); absent, empty or "/" lists the root.
    pub folder_id: Option<String>,
    #[doc = concat!("Entries (folders and files) per page. ", clamp_rule!(200, 50))]
    #[schemars(extend("default" = FILES_PAGE.0))]
    pub page_size: Option<Number>,
    /// details.nextPageToken of the previous page; absent for the first page.
    #[schemars(length(min = 1))]
    pub page_token: Option<String>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// The arguments object of `qq_get_group_file` as a model sends it: the
/// source of its input schema ([`super::input`]).
#[derive(JsonSchema)]
#[schemars(rename_all = "camelCase", deny_unknown_fields)]
pub struct GetGroupFileInput {
    /// The file: a fileId from qq_list_group_files.
    #[schemars(length(min = 1))]
    pub file_id: String,
    #[doc = concat!("The group (`group:<id>`), whitelisted; a private chat is refused. Omit it and groupId for the account's only whitelisted group. ", target_rule!())]
    pub target: Option<Target>,
    #[doc = group_alias!()]
    pub group_id: Option<QqNumber>,
    #[doc = account_rule!()]
    pub account_id: Option<AccountId>,
}

/// Parsed arguments of `qq_list_group_files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListGroupFilesArgs {
    /// Account id.
    pub account_id: String,
    /// The group; `None`: the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// The folder; `None`: the root.
    pub folder_id: Option<String>,
    /// Entries per page, in `[1, 200]`.
    pub page_size: u32,
    /// The page token (empty: the first page).
    pub page_token: String,
}

impl ListGroupFilesArgs {
    /// The group as [`Args::group`] reads it; `pageSize` clamped to
    /// `[1, 200]` (50 when absent or not a finite number).
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            group_id: args.group("qq_list_group_files")?,
            folder_id: args
                .optional_string("folderId")?
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty() && f != "/"),
            page_size: args.clamped("pageSize", FILES_PAGE.0, FILES_PAGE.1),
            page_token: args
                .optional_string("pageToken")?
                .unwrap_or_default()
                .trim()
                .to_owned(),
            account_id: args.account_id()?,
        })
    }
}

/// Parsed arguments of `qq_get_group_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GetGroupFileArgs {
    /// Account id.
    pub account_id: String,
    /// The group; `None`: the account's only whitelisted group.
    pub group_id: Option<i64>,
    /// The file.
    pub file_id: String,
}

impl GetGroupFileArgs {
    /// `fileId` required (a non-blank string); the group as
    /// [`Args::group`] reads it.
    pub fn parse(args: &Args) -> Result<Self, ArgError> {
        Ok(Self {
            file_id: args
                .optional_string("fileId")?
                .map(|f| f.trim().to_owned())
                .filter(|f| !f.is_empty())
                .ok_or(ArgError::Missing("fileId"))?,
            group_id: args.group("qq_get_group_file")?,
            account_id: args.account_id()?,
        })
    }
}

fn folder_line(f: &GroupFolder, locale: Locale) -> String {
    let name = render::sanitize_name(&f.name);
    match locale {
        Locale::Zh => format!(
            "[文件夹] {name}（folderId {}，{} 个文件）",
            f.folder_id, f.file_count
        ),
        Locale::En => format!(
            "[folder] {name} (folderId {}, {} files)",
            f.folder_id, f.file_count
        ),
    }
}

fn file_line(f: &GroupFile, tz: &jiff::tz::TimeZone, locale: Locale) -> String {
    let name = render::sanitize_name(&f.name);
    let when = if f.upload_time > 0 {
        jiff::Timestamp::from_second(f.upload_time)
            .map(|t| {
                t.to_zoned_datetime(tz.clone())
                    .strftime("%Y-%m-%d %H:%M")
                    .to_string()
            })
            .unwrap_or_default()
    } else {
        String::new()
    };
    match locale {
        Locale::Zh => {
            let mut line = format!("[文件] {name}（fileId {}，{} 字节", f.file_id, f.size);
            if f.uploader_id != 0 {
                line.push_str(&format!("，上传者 {}", f.uploader_id));
            }
            if !when.is_empty() {
                line.push_str(&format!("，{when} 上传"));
            }
            line.push('）');
            line
        }
        Locale::En => {
            let mut line = format!("[file] {name} (fileId {}, {} bytes", f.file_id, f.size);
            if f.uploader_id != 0 {
                line.push_str(&format!(", uploaded by {}", f.uploader_id));
            }
            if !when.is_empty() {
                line.push_str(&format!(" at {when}"));
            }
            line.push(')');
            line
        }
    }
}

fn folder_details(f: &GroupFolder, tz: &jiff::tz::TimeZone) -> Value {
    let mut v = json!({"folderId": f.folder_id, "name": f.name});
    if f.creator_id != 0 {
        v["creatorId"] = json!(f.creator_id);
    }
    if f.create_time > 0 {
        v["createTime"] = json!(time_text(f.create_time, tz));
    }
    if f.file_count != 0 {
        v["fileCount"] = json!(f.file_count);
    }
    v
}

fn file_details(f: &GroupFile, tz: &jiff::tz::TimeZone) -> Value {
    let mut v = json!({"fileId": f.file_id, "name": f.name, "size": f.size});
    if !f.folder_id.is_empty() {
        v["folderId"] = json!(f.folder_id);
    }
    if f.uploader_id != 0 {
        v["uploaderId"] = json!(f.uploader_id);
    }
    if !f.uploader_name.is_empty() {
        v["uploaderName"] = json!(f.uploader_name);
    }
    if f.upload_time > 0 {
        v["uploadTime"] = json!(time_text(f.upload_time, tz));
    }
    if f.expire_time > 0 {
        v["expireTime"] = json!(time_text(f.expire_time, tz));
    }
    if f.download_count != 0 {
        v["downloadCount"] = json!(f.download_count);
    }
    v
}

/// Runs `qq_list_group_files`.
pub(super) async fn run_list(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = ListGroupFilesArgs::parse(args).map_err(Failure::Args)?;
    let listing = gw
        .list_group_files(
            &args.account_id,
            args.group_id,
            args.folder_id.as_deref(),
            // In [1, 200], which the domain keeps as it is.
            args.page_size as i32,
            &args.page_token,
            ctx,
        )
        .await
        .map_err(domain_failure(&args.account_id))?;
    let locale = gw.config.tools.locale;
    let mut lines: Vec<String> = listing
        .folders
        .iter()
        .map(|f| folder_line(f, locale))
        .chain(listing.files.iter().map(|f| file_line(f, &gw.tz, locale)))
        .collect();
    if lines.is_empty() {
        lines.push(match locale {
            Locale::Zh => "（该文件夹为空）".to_owned(),
            Locale::En => "(the folder is empty)".to_owned(),
        });
    }
    let token = &listing.next_page_token;
    if !token.is_empty() {
        lines.push(match locale {
            Locale::Zh => format!("（还有更多：pageToken = {token}）"),
            Locale::En => format!("(more entries: pageToken = {token})"),
        });
    }
    let mut details = json!({
        "status": "ok",
        "groupId": listing.group_id,
        "folders": listing.folders.iter().map(|f| folder_details(f, &gw.tz)).collect::<Vec<_>>(),
        "files": listing.files.iter().map(|f| file_details(f, &gw.tz)).collect::<Vec<_>>(),
    });
    if !token.is_empty() {
        details["nextPageToken"] = json!(token);
    }
    Ok(ToolOutput::ok(lines.join("\n"), details))
}

/// At most `max` bytes from the start of `file`.
async fn read_prefix(file: std::fs::File, max: usize) -> Result<Vec<u8>> {
    tokio::task::spawn_blocking(move || {
        let mut buf = Vec::new();
        file.take(max as u64)
            .read_to_end(&mut buf)
            .map_err(|e| Error::internal(format!("reading the group file: {e}")))?;
        Ok(buf)
    })
    .await
    .map_err(|e| Error::internal(format!("reading the group file failed: {e}")))?
}

/// The text of `bytes` when they are UTF-8 text (no NUL; a multi-byte
/// character cut at the end of a prefix is dropped).
fn as_text(bytes: &[u8], cut: bool) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(s) => Some(s.to_owned()),
        // Only an incomplete character at the very end of a cut prefix.
        Err(e) if cut && e.error_len().is_none() && bytes.len() - e.valid_up_to() < 4 => {
            Some(String::from_utf8_lossy(&bytes[..e.valid_up_to()]).into_owned())
        }
        Err(_) => None,
    }
}

/// Runs `qq_get_group_file`.
pub(super) async fn run_get(
    gw: &Gateway,
    args: &Args,
    ctx: CallCtx,
) -> Result<ToolOutput, Failure> {
    let args = GetGroupFileArgs::parse(args).map_err(Failure::Args)?;
    let download = gw
        .download_group_file(&args.account_id, args.group_id, &args.file_id, ctx)
        .await
        .map_err(domain_failure(&args.account_id))?;
    let group_id = match args.group_id {
        Some(g) => g,
        None => gw
            .config
            .accounts
            .get(&args.account_id)
            .and_then(|a| a.groups.first().copied())
            .unwrap_or_default(),
    };
    let h = download.header.clone();
    let file_name = h.file_name.clone();
    let image_limit = gw.received().limit(ReceivedKind::Image);
    let is_image = IMAGE_MIMES.contains(&h.mime.as_str()) && h.size <= image_limit;
    let maybe_text = h.mime == OCTET_STREAM || h.mime.starts_with("text/");
    let (content, mime, body, truncated, image) = if is_image {
        let data = read_prefix(download.file, image_limit as usize)
            .await
            .map_err(domain_failure(&args.account_id))?;
        (
            "image",
            h.mime.clone(),
            None,
            None,
            Some(bytes::Bytes::from(data)),
        )
    } else if maybe_text {
        let cut = h.size > MAX_TEXT_BYTES as u64;
        let data = read_prefix(download.file, MAX_TEXT_BYTES)
            .await
            .map_err(domain_failure(&args.account_id))?;
        match as_text(&data, cut) {
            Some(text) => (
                "text",
                "text/plain; charset=utf-8".to_owned(),
                Some(text),
                Some(cut),
                None,
            ),
            None => ("summary", h.mime.clone(), None, None, None),
        }
    } else {
        ("summary", h.mime.clone(), None, None, None)
    };
    let name = if file_name.is_empty() {
        String::new()
    } else {
        format!("，文件名 {}", render::sanitize_name(&file_name))
    };
    let mut text = format!(
        "[文件] 群文件 {}：{mime}，{} 字节{name}",
        args.file_id, h.size
    );
    if truncated == Some(true) {
        text.push_str(&match gw.config.tools.locale {
            Locale::Zh => format!("（文本过长，仅显示前 {} KiB）", MAX_TEXT_BYTES / 1024),
            Locale::En => format!(" (long text: only the first {} KiB)", MAX_TEXT_BYTES / 1024),
        });
    }
    if let Some(body) = &body {
        text.push_str("\n\n");
        text.push_str(body);
    }
    let mut details = json!({
        "status": "ok",
        "groupId": group_id,
        "fileId": args.file_id,
        "fileName": file_name,
        "mimeType": mime,
        "size": h.size,
        "sha256": h.sha256,
        "content": content,
    });
    if let Some(t) = truncated {
        details["truncated"] = json!(t);
    }
    let output = ToolOutput::ok(text, details);
    Ok(match image {
        Some(data) => output.with_images([(h.mime, data)]),
        None => output,
    })
}
