//! `send`: uploads local files (with a progress bar), then sends. The text
//! `-` is read from standard input. A send the gateway holds (for its send
//! rate limits) says so on stderr while it waits, and how long it waited.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use onebot_gateway_client::{Client, Error, Media, OutgoingMessage, pb};
use onebot_gateway_domain::model::media::is_http_url;

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `send`.
#[derive(Args, Debug)]
pub struct SendArgs {
    /// Text to send; `-` reads it from standard input.
    pub text: Option<String>,
    /// Group (default: the account's only whitelisted group).
    #[arg(long, short, conflicts_with = "user")]
    pub group: Option<i64>,
    /// A private chat instead of a group: the other side's QQ number (must
    /// be in the account's `users` whitelist).
    #[arg(long, short)]
    pub user: Option<i64>,
    /// Quote (reply to) this message id.
    #[arg(long, value_name = "MESSAGE_ID", allow_hyphen_values = true)]
    pub reply_to: Option<i64>,
    /// Mention (@) this QQ number; repeatable, at most 20.
    #[arg(long = "mention", value_name = "QQ")]
    pub mentions: Vec<i64>,
    /// Mention everyone (@全体成员; the bot must be a group admin).
    #[arg(long)]
    pub mention_all: bool,
    /// An image: a local file (uploaded first) or an http(s) URL. Up to 4.
    #[arg(long = "image", value_name = "PATH|URL")]
    pub images: Vec<String>,
    /// A video: a local file or an http(s) URL. At most 1.
    #[arg(long = "video", value_name = "PATH|URL")]
    pub videos: Vec<String>,
    /// A voice message (MP3, WAV, OGG, AMR or SILK): a local file or an
    /// http(s) URL, sent as its own message after the rest.
    #[arg(long, value_name = "PATH|URL")]
    pub voice: Option<String>,
    /// A file sent as a group file: a local file or an http(s) URL.
    #[arg(long, value_name = "PATH|URL")]
    pub file: Option<String>,
    /// Display name of the group file.
    #[arg(long)]
    pub file_name: Option<String>,
    /// Idempotency key: a repeated send with the same key is not sent again.
    #[arg(long)]
    pub idempotency_key: Option<String>,
    #[command(flatten)]
    pub requester: super::governance::Requester,
    #[command(flatten)]
    pub conn: Connection,
}

/// Uploads `source` (when local) with a progress bar on stderr.
async fn resolve(
    client: &Client,
    source: &str,
    kind: pb::MediaKind,
    show_progress: bool,
) -> Result<Media, Error> {
    if is_http_url(source) {
        return Ok(Media::url(source));
    }
    let path = PathBuf::from(source);
    let bar = ProgressBar::with_draw_target(Some(0), draw_target(show_progress));
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30.cyan/blue}] {bytes}/{total_bytes} {bytes_per_sec}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(format!("uploading {}", path.display()));
    let progress = bar.clone();
    let uploaded = client
        .upload_with_progress(path.as_path(), kind, move |sent, total| {
            progress.set_length(total);
            progress.set_position(sent);
        })
        .await;
    match &uploaded {
        Ok(u) => bar.finish_with_message(format!("uploaded {} ({})", path.display(), u.mime_type)),
        Err(_) => bar.abandon_with_message(format!("upload of {} failed", path.display())),
    }
    Ok(Media::id(uploaded?.media_id))
}

fn draw_target(show: bool) -> ProgressDrawTarget {
    if show {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}

/// How long a send may be pending before the command says it is waiting.
const PENDING_NOTICE: Duration = Duration::from_secs(1);

/// The text argument: `-` is all of standard input (one trailing newline
/// removed, as a shell's `echo` adds one).
fn text(arg: Option<String>) -> Result<String, Error> {
    match arg.as_deref() {
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::InvalidInput(format!("reading the text from stdin: {e}")))?;
            if text.ends_with('\n') {
                text.pop();
                if text.ends_with('\r') {
                    text.pop();
                }
            }
            Ok(text)
        }
        _ => Ok(arg.unwrap_or_default()),
    }
}

/// The line saying how long a send waited for the rate limits; `None` when
/// it did not wait.
pub fn wait_line(r: &pb::SendMessageResponse) -> Option<String> {
    let wait = r.rate_limit_wait.as_ref()?;
    let wait = Duration::try_from(*wait).ok().filter(|w| !w.is_zero())?;
    Some(format!(
        "waited {:.1} s for the gateway's send rate limit",
        wait.as_secs_f64()
    ))
}

/// Refuses a text that is only a chat's name (`group:<id>`,
/// `private:<id>`) when no chat was given: `send` names its chat with
/// `-g`/`-u`, and that text would otherwise go to the default group.
fn not_a_chat_name(text: &str, group: Option<i64>, user: Option<i64>) -> Result<(), Error> {
    if group.is_some() || user.is_some() || !text.contains(':') {
        return Ok(());
    }
    match super::history::parse_target(text) {
        Ok(chat) => {
            let flag = match chat.kind {
                Some(pb::chat::Kind::GroupId(id)) => format!("-g {id}"),
                Some(pb::chat::Kind::UserId(id)) => format!("-u {id}"),
                None => return Ok(()),
            };
            Err(Error::InvalidInput(format!(
                "{text:?} names a chat, not a text: send names its chat with {flag} (`onebot-gateway send {flag} \"text\"`); with -g or -u given, a text like this is sent as written"
            )))
        }
        Err(_) => Ok(()),
    }
}

/// Runs `send`.
pub async fn run(args: SendArgs) -> Result<ExitCode, Error> {
    let text = text(args.text)?;
    not_a_chat_name(&text, args.group, args.user)?;
    let client = args.conn.client()?;
    let progress = !args.conn.json;
    let mut message = OutgoingMessage {
        group_id: args.group,
        user_id: args.user,
        reply_to: args.reply_to,
        mentions: args.mentions,
        mention_all: args.mention_all,
        text,
        file_name: args.file_name.unwrap_or_default(),
        idempotency_key: args.idempotency_key.unwrap_or_default(),
        on_behalf_of: args.requester.on_behalf_of(),
        ..OutgoingMessage::default()
    };
    for image in &args.images {
        message
            .images
            .push(resolve(&client, image, pb::MediaKind::Image, progress).await?);
    }
    for video in &args.videos {
        message
            .videos
            .push(resolve(&client, video, pb::MediaKind::Video, progress).await?);
    }
    if let Some(file) = &args.file {
        message.file = Some(resolve(&client, file, pb::MediaKind::File, progress).await?);
    }
    if let Some(voice) = &args.voice {
        message
            .voices
            .push(resolve(&client, voice, pb::MediaKind::Record, progress).await?);
    }
    let send = client.send(message);
    tokio::pin!(send);
    let sent = tokio::select! {
        sent = &mut send => sent?,
        () = tokio::time::sleep(PENDING_NOTICE) => {
            eprintln!(
                "waiting for the gateway to send (it may be holding the message for its send rate limit)..."
            );
            send.await?
        }
    };
    if let Some(line) = wait_line(&sent) {
        eprintln!("{line}");
    }
    if args.conn.json {
        output::print_message(&sent)?;
    } else {
        outln!("{}", render(&sent));
    }
    Ok(ExitCode::SUCCESS)
}

/// A one-line summary of a send.
pub fn render(r: &pb::SendMessageResponse) -> String {
    let target = if r.user_id != 0 {
        format!("user {}", r.user_id)
    } else {
        format!("group {}", r.group_id)
    };
    let mut line = if r.queued {
        format!(
            "queued for {target} ({} text chunk(s)); sent once the account is back online",
            r.chunks
        )
    } else {
        let ids: Vec<String> = r.message_ids.iter().map(i64::to_string).collect();
        format!("sent to {target}: message ids [{}]", ids.join(", "))
    };
    if let Some(m) = &r.media {
        line.push_str(&format!("; {} image(s), {} video(s)", m.images, m.videos));
        if !m.file.is_empty() {
            line.push_str(&format!(", file {}", m.file));
        }
        if m.voices > 0 {
            line.push_str(&format!(", {} voice(s)", m.voices));
        }
    }
    if r.replayed {
        line.push_str(" (replayed: nothing sent again)");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_name_is_not_sent_as_text_to_the_default_group() {
        let refused = not_a_chat_name("group:20000003", None, None).unwrap_err();
        assert!(refused.to_string().contains("-g 20000003"), "{refused}");
        let refused = not_a_chat_name("private:10001", None, None).unwrap_err();
        assert!(refused.to_string().contains("-u 10001"), "{refused}");
        assert!(not_a_chat_name("group:20000003", Some(20000003), None).is_ok());
        assert!(not_a_chat_name("会议: 下午三点", None, None).is_ok());
        assert!(not_a_chat_name("10001", None, None).is_ok());
    }

    #[test]
    fn renders_sent_and_queued() {
        let sent = pb::SendMessageResponse {
            group_id: 20000003,
            chunks: 1,
            message_ids: vec![11, 12],
            media: Some(pb::MediaSummary {
                images: 1,
                videos: 0,
                file: String::new(),
                voices: 0,
            }),
            ..Default::default()
        };
        assert_eq!(
            render(&sent),
            "sent to group 20000003: message ids [11, 12]; 1 image(s), 0 video(s)"
        );
        let queued = pb::SendMessageResponse {
            group_id: 5,
            chunks: 2,
            queued: true,
            ..Default::default()
        };
        assert!(render(&queued).starts_with("queued for group 5 (2 text chunk(s))"));
        let private = pb::SendMessageResponse {
            user_id: 10001,
            chunks: 1,
            message_ids: vec![3],
            ..Default::default()
        };
        assert_eq!(render(&private), "sent to user 10001: message ids [3]");
    }

    #[test]
    fn the_wait_is_said_in_tenths_of_seconds() {
        let mut r = pb::SendMessageResponse::default();
        assert_eq!(wait_line(&r), None);
        r.rate_limit_wait = Some(prost_types::Duration::default());
        assert_eq!(wait_line(&r), None);
        r.rate_limit_wait = Some(prost_types::Duration {
            seconds: 1,
            nanos: 230_000_000,
        });
        assert_eq!(
            wait_line(&r).as_deref(),
            Some("waited 1.2 s for the gateway's send rate limit")
        );
    }
}
