//! `react`, `essence`, `essences`, `typing`, `files`, `group-file`,
//! `mute`, `mute-all`, `kick` and `card`: reactions, essence messages,
//! typing, group files and moderation.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use onebot_gateway_client::{Error, pb};
use sha2::{Digest, Sha256};

use super::connection::Connection;
use super::governance::Requester;
use super::output::{self, outln};

/// Arguments of `react`.
#[derive(Args, Debug)]
pub struct ReactArgs {
    /// The group message to react to.
    #[arg(allow_hyphen_values = true)]
    pub message_id: i64,
    /// The emoji: a QQ face id (76 = 赞) or an emoji's code point in decimal
    /// (128077 = 👍).
    pub emoji_id: String,
    /// Remove the bot's reaction instead of adding it.
    #[arg(long)]
    pub remove: bool,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `essence`.
#[derive(Args, Debug)]
pub struct EssenceArgs {
    /// The group message to mark as essence (精华).
    #[arg(allow_hyphen_values = true)]
    pub message_id: i64,
    /// Unmark it instead.
    #[arg(long)]
    pub remove: bool,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `essences`.
#[derive(Args, Debug)]
pub struct EssencesArgs {
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    /// Entries per page (1-50; default 20).
    #[arg(long, default_value_t = 0)]
    pub page_size: i32,
    /// The `next_page_token` of the previous page.
    #[arg(long, default_value = "")]
    pub page_token: String,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `typing`.
#[derive(Args, Debug)]
pub struct TypingArgs {
    /// The user of the private chat (must be in the `users` whitelist).
    pub user_id: i64,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `files`.
#[derive(Args, Debug)]
pub struct FilesArgs {
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    /// A folder's id (default: the root).
    #[arg(long, default_value = "")]
    pub folder: String,
    /// Entries per page (1-200; default 50).
    #[arg(long, default_value_t = 0)]
    pub page_size: i32,
    /// The `next_page_token` of the previous page.
    #[arg(long, default_value = "")]
    pub page_token: String,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `group-file`.
#[derive(Args, Debug)]
pub struct GroupFileArgs {
    /// The file's id (from `files`).
    pub file_id: String,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    /// The file to write (written beside it first, renamed when complete
    /// and its SHA-256 checked).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `mute`.
#[derive(Args, Debug)]
pub struct MuteArgs {
    /// The member to mute.
    pub user_id: i64,
    /// Seconds (at most 2592000, 30 days); 0 lifts the mute.
    #[arg(long)]
    pub duration: i64,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `mute-all`.
#[derive(Args, Debug)]
pub struct MuteAllArgs {
    /// Turn the whole-group mute off instead of on.
    #[arg(long)]
    pub off: bool,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `kick`.
#[derive(Args, Debug)]
pub struct KickArgs {
    /// The member to remove.
    pub user_id: i64,
    /// Refuse their later join requests.
    #[arg(long)]
    pub reject_rejoin: bool,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `card`.
#[derive(Args, Debug)]
pub struct CardArgs {
    /// The member.
    pub user_id: i64,
    /// The new card (at most 60 bytes); empty clears it.
    pub card: String,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short)]
    pub group: Option<i64>,
    #[command(flatten)]
    pub requester: Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Runs `react`.
pub async fn react(args: ReactArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .message_service()
        .react_to_message(pb::ReactToMessageRequest {
            account_id: client.account_id().to_owned(),
            message_id: args.message_id,
            emoji_id: args.emoji_id.clone(),
            remove: args.remove,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        let verb = if args.remove { "removed" } else { "added" };
        outln!(
            "reaction {} {verb} on message {} in group {}",
            args.emoji_id,
            args.message_id,
            done.group_id
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `essence`.
pub async fn essence(args: EssenceArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .message_service()
        .set_essence(pb::SetEssenceRequest {
            account_id: client.account_id().to_owned(),
            message_id: args.message_id,
            remove: args.remove,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        let verb = if args.remove { "unmarked" } else { "marked" };
        outln!(
            "message {} {verb} as essence in group {}",
            args.message_id,
            done.group_id
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// One essence entry as a line: `[HH:MM:SS] 名字(QQ号): 文本 (marked by
/// 名字(QQ号))`, the time `--:--:--` when the peer reports none.
fn essence_line(e: &pb::EssenceMessage) -> String {
    let m = e.message.clone().unwrap_or_default();
    let sender = m.sender.unwrap_or_default();
    let name = [&sender.card, &sender.nickname]
        .into_iter()
        .find(|n| !n.is_empty())
        .cloned()
        .unwrap_or_else(|| sender.user_id.to_string());
    let text = if m.text.is_empty() {
        "（无内容）".to_owned()
    } else {
        m.text
    };
    let by = if e.operator_name.is_empty() {
        e.operator_id.to_string()
    } else {
        format!("{}({})", e.operator_name, e.operator_id)
    };
    format!(
        "[{}] {name}({}): {text} (marked by {by})",
        super::events::clock(m.time.as_ref()),
        sender.user_id
    )
}

/// Runs `essences`.
pub async fn essences(args: EssencesArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let page = client
        .message_service()
        .list_essence(pb::ListEssenceRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            page_size: args.page_size,
            page_token: args.page_token.clone(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&page)?;
        return Ok(ExitCode::SUCCESS);
    }
    if page.messages.is_empty() {
        outln!("group {}: no essence messages", page.group_id);
    }
    for e in &page.messages {
        outln!("{}", essence_line(e));
    }
    if !page.next_page_token.is_empty() {
        outln!("next page: --page-token {}", page.next_page_token);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `typing`.
pub async fn typing(args: TypingArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .message_service()
        .set_typing(pb::SetTypingRequest {
            account_id: client.account_id().to_owned(),
            user_id: args.user_id,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        outln!("typing shown to {}", args.user_id);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `files`.
pub async fn files(args: FilesArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let page = client
        .group_service()
        .list_group_files(pb::ListGroupFilesRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            folder_id: args.folder.clone(),
            page_size: args.page_size,
            page_token: args.page_token.clone(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&page)?;
        return Ok(ExitCode::SUCCESS);
    }
    if page.folders.is_empty() && page.files.is_empty() {
        outln!("group {}: no files here", page.group_id);
    }
    for f in &page.folders {
        outln!(
            "folder {}  {}/  ({} files)",
            f.folder_id,
            f.name,
            f.file_count
        );
    }
    for f in &page.files {
        outln!(
            "file {}  {}  {} bytes  by {}",
            f.file_id,
            f.name,
            f.size,
            f.uploader_id
        );
    }
    if !page.next_page_token.is_empty() {
        outln!("next page: --page-token {}", page.next_page_token);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `group-file`: streams the file beside `--output`, checks its size
/// and SHA-256 against the header, then renames it into place.
pub async fn group_file(args: GroupFileArgs) -> Result<ExitCode, Error> {
    use pb::download_group_file_response::Payload;
    let client = args.conn.client()?;
    let mut stream = client
        .media_service()
        .download_group_file(pb::DownloadGroupFileRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            file_id: args.file_id.clone(),
        })
        .await?
        .into_inner();
    let header = match stream.message().await? {
        Some(pb::DownloadGroupFileResponse {
            payload: Some(Payload::Header(h)),
        }) => h,
        _ => {
            return Err(Error::InvalidInput(
                "the download stream did not start with a header".into(),
            ));
        }
    };
    let partial = args.output.with_extension("part");
    let io = |e: std::io::Error| Error::InvalidInput(format!("{}: {e}", partial.display()));
    let mut out = std::fs::File::create(&partial).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut received = 0u64;
    while let Some(msg) = stream.message().await? {
        let Some(Payload::Chunk(chunk)) = msg.payload else {
            let _ = std::fs::remove_file(&partial);
            return Err(Error::InvalidInput(
                "the download stream had a second header".into(),
            ));
        };
        hasher.update(&chunk);
        received += chunk.len() as u64;
        out.write_all(&chunk).map_err(io)?;
    }
    out.sync_all().map_err(io)?;
    drop(out);
    let actual = hex::encode(hasher.finalize());
    if u64::try_from(header.size).ok() != Some(received) || actual != header.sha256 {
        let _ = std::fs::remove_file(&partial);
        return Err(Error::DownloadMismatch {
            expected: header.sha256,
            actual,
        });
    }
    std::fs::rename(&partial, &args.output).map_err(io)?;
    if args.conn.json {
        output::print_message(&header)?;
    } else {
        outln!(
            "wrote {} ({} bytes, {}, sha256 {})",
            args.output.display(),
            received,
            header.mime_type,
            header.sha256
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `mute`.
pub async fn mute(args: MuteArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .group_service()
        .mute_member(pb::MuteMemberRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            user_id: args.user_id,
            duration_secs: args.duration,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else if args.duration == 0 {
        outln!("unmuted {} in group {}", done.user_id, done.group_id);
    } else {
        outln!(
            "muted {} in group {} for {}s",
            done.user_id,
            done.group_id,
            args.duration
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `mute-all`.
pub async fn mute_all(args: MuteAllArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .group_service()
        .mute_all(pb::MuteAllRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            enable: !args.off,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        let state = if args.off { "off" } else { "on" };
        outln!("whole-group mute {state} in group {}", done.group_id);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `kick`.
pub async fn kick(args: KickArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .group_service()
        .kick_member(pb::KickMemberRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            user_id: args.user_id,
            reject_rejoin: args.reject_rejoin,
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        outln!("removed {} from group {}", done.user_id, done.group_id);
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `card`.
pub async fn card(args: CardArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let done = client
        .group_service()
        .set_member_card(pb::SetMemberCardRequest {
            account_id: client.account_id().to_owned(),
            group_id: args.group,
            user_id: args.user_id,
            card: args.card.clone(),
            on_behalf_of: args.requester.on_behalf_of(),
        })
        .await?
        .into_inner();
    if args.conn.json {
        output::print_message(&done)?;
    } else {
        outln!(
            "card of {} in group {} set to {:?}",
            done.user_id,
            done.group_id,
            args.card
        );
    }
    Ok(ExitCode::SUCCESS)
}
