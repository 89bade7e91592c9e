//! `download`: one received (or uploaded) media item into a file, with a
//! progress bar.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use onebot_gateway_client::{Error, MediaRef};
use serde_json::json;

use super::connection::Connection;
use super::output::{self, outln};

/// Arguments of `download`.
#[derive(Args, Debug)]
pub struct DownloadArgs {
    /// A media id (a segment's `media_id`, or an UploadMedia id), or
    /// `<message-id>:<segment-index>`.
    #[arg(value_parser = parse_ref)]
    pub target: MediaRef,
    /// The file to write (written beside it first, renamed when complete
    /// and its SHA-256 checked).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    #[command(flatten)]
    pub conn: Connection,
}

/// Parses `<message-id>:<segment-index>` (a message id may be negative), or
/// takes the text as a media id.
pub fn parse_ref(s: &str) -> Result<MediaRef, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("give a media id or <message-id>:<segment-index>".into());
    }
    if let Some((message, index)) = s.rsplit_once(':')
        && let Ok(message_id) = message.parse::<i64>()
    {
        let segment_index = index
            .parse::<i32>()
            .ok()
            .filter(|i| *i >= 0)
            .ok_or_else(|| format!("{index:?} is not a segment index (0, 1, ...)"))?;
        return Ok(MediaRef::message(message_id, segment_index));
    }
    Ok(MediaRef::Id(s.to_owned()))
}

/// Runs `download`.
pub async fn run(args: DownloadArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let show = !args.conn.json;
    let bar = ProgressBar::with_draw_target(
        Some(0),
        if show {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    bar.set_style(
        ProgressStyle::with_template(
            "{msg} [{bar:30.cyan/blue}] {bytes}/{total_bytes} {bytes_per_sec}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_message(format!("downloading to {}", args.output.display()));
    let progress = bar.clone();
    let result = client
        .download_to_with_progress(args.target, &args.output, move |got, total| {
            progress.set_length(total);
            progress.set_position(got);
        })
        .await;
    let header = match result {
        Ok(h) => {
            bar.finish_with_message(format!("downloaded {}", args.output.display()));
            h
        }
        Err(e) => {
            bar.abandon_with_message("download failed");
            return Err(e);
        }
    };
    if args.conn.json {
        let mut value = output::to_json(&header)?;
        value["path"] = json!(args.output.display().to_string());
        output::print_json(&value);
    } else {
        outln!(
            "{} {} {} bytes sha256 {} → {}",
            header.media_id,
            header.mime_type,
            header.size,
            header.sha256,
            args.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse() {
        assert_eq!(parse_ref("-12:3"), Ok(MediaRef::message(-12, 3)));
        assert_eq!(parse_ref("7:0"), Ok(MediaRef::message(7, 0)));
        assert_eq!(
            parse_ref("r_ab_1_0"),
            Ok(MediaRef::Id("r_ab_1_0".to_owned()))
        );
        assert!(parse_ref("7:-1").is_err());
        assert!(parse_ref(" ").is_err());
    }
}
