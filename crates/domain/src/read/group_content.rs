//! ListEssence, ListGroupFiles and DownloadGroupFile: what a group holds
//! besides messages and members.
//!
//! The group is resolved as for sends (whitelisted, inside the caller's
//! scope, one the bot is in). Pages are the gateway's: a page token names
//! where the next page starts, and a token of another listing is
//! `InvalidRequest`.

use crate::call::CallCtx;
use crate::error::{Error, Kind, Result};
use crate::gateway::Gateway;
use crate::model::{EssenceEntry, GroupFile, GroupFolder, ReceivedKind};
use crate::read::download::{Download, DownloadHeader};
use crate::write::send_checks::resolve_group;

/// Default and largest essence page.
pub const ESSENCE_PAGE: (u32, u32) = (20, 50);

/// Default and largest group-file page.
pub const FILES_PAGE: (u32, u32) = (50, 200);

/// One page of a group's essence messages.
#[derive(Debug, Clone, PartialEq)]
pub struct EssenceListing {
    /// The group.
    pub group_id: i64,
    /// The entries.
    pub entries: Vec<EssenceEntry>,
    /// The next page's token; empty on the last page.
    pub next_page_token: String,
}

/// One page of a folder of a group's files: folders first, then files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilesListing {
    /// The group.
    pub group_id: i64,
    /// This page's folders.
    pub folders: Vec<GroupFolder>,
    /// This page's files.
    pub files: Vec<GroupFile>,
    /// The next page's token; empty on the last page.
    pub next_page_token: String,
}

/// The page size of a request: 0 means the default; 1 to the maximum.
fn page_size(requested: i32, (default, max): (u32, u32)) -> Result<u32> {
    match requested {
        0 => Ok(default),
        n if n > 0 && (n as u32) <= max => Ok(n as u32),
        n => Err(Error::invalid(
            "page_size",
            format!("page_size must be 0 (default {default}) or 1 to {max}, got {n}"),
        )),
    }
}

/// The numbers of a page token `<prefix><a>.<b>`.
fn parse_token(token: &str, prefix: char) -> Result<(u32, u32)> {
    let bad = || {
        Error::invalid(
            "page_token",
            "page_token is not a next_page_token of this listing: pass it back unchanged, or leave it empty for the first page",
        )
    };
    let rest = token.strip_prefix(prefix).ok_or_else(bad)?;
    let (a, b) = rest.split_once('.').ok_or_else(bad)?;
    Ok((a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?))
}

/// A short tag of a folder id (8 hex digits of its SHA-256), for page
/// tokens.
fn folder_tag(folder_id: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(&Sha256::digest(folder_id.as_bytes())[..4])
}

impl Gateway {
    /// One page of a group's essence messages. A page token keeps the page
    /// size of the first page.
    pub async fn list_essence(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        page_size_requested: i32,
        page_token: &str,
        ctx: CallCtx,
    ) -> Result<EssenceListing> {
        let account = self.account(account_id, &ctx)?;
        let (page, size) = if page_token.is_empty() {
            (0, page_size(page_size_requested, ESSENCE_PAGE)?)
        } else {
            let (page, size) = parse_token(page_token, 'e')?;
            if size == 0 || size > ESSENCE_PAGE.1 {
                return Err(Error::invalid("page_token", "page_token is not valid"));
            }
            (page, size)
        };
        let group_id = resolve_group(&account, group_id)?;
        ctx.caller.check_group(group_id)?;
        self.require_joined(&account, group_id, ctx.deadline)
            .await?;
        let listed = account
            .peer
            .list_essence(group_id, page, size, ctx.deadline)
            .await
            .map_err(|e| e.with("group_id", group_id))?;
        let next_page_token = match page.checked_add(1) {
            Some(next) if !listed.is_end && !listed.entries.is_empty() => {
                format!("e{next}.{size}")
            }
            _ => String::new(),
        };
        Ok(EssenceListing {
            group_id,
            entries: listed.entries,
            next_page_token,
        })
    }

    /// One page of a folder (`None`: the root) of a group's files.
    pub async fn list_group_files(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        folder_id: Option<&str>,
        page_size_requested: i32,
        page_token: &str,
        ctx: CallCtx,
    ) -> Result<FilesListing> {
        let account = self.account(account_id, &ctx)?;
        let folder_id = folder_id
            .map(str::trim)
            .filter(|f| !f.is_empty() && *f != "/");
        // A token names the folder it pages: another folder's is refused.
        let folder_tag = folder_tag(folder_id.unwrap_or("/"));
        let (offset, size) = if page_token.is_empty() {
            (0usize, page_size(page_size_requested, FILES_PAGE)? as usize)
        } else {
            let (rest, tag) = page_token.rsplit_once('.').unwrap_or((page_token, ""));
            if tag != folder_tag {
                return Err(Error::invalid(
                    "page_token",
                    "page_token is not a next_page_token of this folder's listing: list the same folder_id, or leave page_token empty for the first page",
                ));
            }
            let (offset, size) = parse_token(rest, 'f')?;
            if size == 0 || size > FILES_PAGE.1 {
                return Err(Error::invalid("page_token", "page_token is not valid"));
            }
            (offset as usize, size as usize)
        };
        let group_id = resolve_group(&account, group_id)?;
        ctx.caller.check_group(group_id)?;
        self.require_joined(&account, group_id, ctx.deadline)
            .await?;
        let listed = account
            .peer
            .list_group_files(group_id, folder_id, ctx.deadline)
            .await
            .map_err(|e| e.with("group_id", group_id))?;
        // Folders, then files, as one sequence paged by offset.
        let n_folders = listed.folders.len();
        let total = n_folders + listed.files.len();
        let start = offset.min(total);
        let end = (offset + size).min(total);
        let folders: Vec<GroupFolder> = listed
            .folders
            .into_iter()
            .take(end.min(n_folders))
            .skip(start.min(n_folders))
            .collect();
        let files: Vec<GroupFile> = listed
            .files
            .into_iter()
            .take(end.saturating_sub(n_folders))
            .skip(start.saturating_sub(n_folders))
            .collect();
        let next_page_token = if end < total {
            format!("f{end}.{size}.{folder_tag}")
        } else {
            String::new()
        };
        Ok(FilesListing {
            group_id,
            folders,
            files,
            next_page_token,
        })
    }

    /// The bytes of file `file_id` of a group's files: the peer's URL for
    /// it, fetched through the peer-media guard within the file limit.
    pub async fn download_group_file(
        &self,
        account_id: &str,
        group_id: Option<i64>,
        file_id: &str,
        ctx: CallCtx,
    ) -> Result<Download> {
        let account = self.account(account_id, &ctx)?;
        let file_id = file_id.trim();
        if file_id.is_empty() {
            return Err(Error::invalid(
                "file_id",
                "file_id is empty: use a GroupFile.file_id from ListGroupFiles",
            ));
        }
        let group_id = resolve_group(&account, group_id)?;
        ctx.caller.check_group(group_id)?;
        self.require_joined(&account, group_id, ctx.deadline)
            .await?;
        let url = account
            .peer
            .group_file_url(group_id, file_id, ctx.deadline)
            .await
            .map_err(|e| e.with("group_id", group_id).with("file_id", file_id))?;
        let received = self.received();
        let limit = received.limit(ReceivedKind::File);
        let fetched = received
            .fetch_file(&url, limit, ctx.deadline)
            .await
            .map_err(|e| match e.kind {
                Kind::UrlFetchFailed | Kind::UrlForbidden => {
                    let mut failed = Error::new(
                        Kind::MediaDownloadFailed,
                        format!("the group file could not be fetched: {}", e.message),
                    );
                    failed.metadata = e.metadata;
                    failed.with("file_id", file_id)
                }
                _ => e.with("file_id", file_id),
            })?;
        Ok(Download::fetched(
            DownloadHeader {
                media_id: String::new(),
                kind: ReceivedKind::File,
                mime: fetched.mime.clone(),
                size: fetched.size,
                sha256: fetched.sha256.clone(),
                file_name: fetched.url_name.clone(),
            },
            fetched,
        ))
    }
}
