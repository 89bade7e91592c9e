//! Streaming uploads and sends with local media.

use std::path::{Path, PathBuf};

use bytes::Bytes;
use futures_util::StreamExt;
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

use crate::client::Client;
use crate::error::Error;
use crate::pb;

/// Size of the chunks [`Client::upload`] streams.
pub const CHUNK_SIZE: usize = 256 * 1024;

/// Bytes to upload: a local file or data in memory.
#[derive(Clone, Debug)]
pub enum MediaInput {
    /// A local file, read and streamed in chunks (never held whole).
    Path(PathBuf),
    /// Bytes in memory, with the file name to report.
    Bytes {
        /// The content.
        data: Bytes,
        /// File name (display name of a group file); may be empty.
        file_name: String,
    },
}

impl MediaInput {
    /// Bytes in memory named `file_name`.
    pub fn bytes(data: impl Into<Bytes>, file_name: impl Into<String>) -> Self {
        MediaInput::Bytes {
            data: data.into(),
            file_name: file_name.into(),
        }
    }

    fn file_name(&self) -> String {
        match self {
            MediaInput::Path(p) => p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            MediaInput::Bytes { file_name, .. } => file_name.clone(),
        }
    }
}

impl From<PathBuf> for MediaInput {
    fn from(path: PathBuf) -> Self {
        MediaInput::Path(path)
    }
}

impl From<&Path> for MediaInput {
    fn from(path: &Path) -> Self {
        MediaInput::Path(path.to_path_buf())
    }
}

impl From<Vec<u8>> for MediaInput {
    fn from(data: Vec<u8>) -> Self {
        MediaInput::bytes(data, "")
    }
}

impl From<Bytes> for MediaInput {
    fn from(data: Bytes) -> Self {
        MediaInput::bytes(data, "")
    }
}

/// What an upload staged on the gateway.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Uploaded {
    /// Id for `MediaSource.media_id` (and [`Media::id`]).
    pub media_id: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256 of the content, lowercase hex (checked against the bytes
    /// sent).
    pub sha256: String,
    /// MIME type the gateway detected.
    pub mime_type: String,
    /// The full response.
    pub response: pb::UploadMediaResponse,
}

/// One image, video, voice or file of an [`OutgoingMessage`].
#[derive(Clone, Debug)]
pub enum Media {
    /// Local bytes: uploaded with [`Client::upload`] first.
    Local(MediaInput),
    /// An http(s) URL the gateway fetches.
    Url(String),
    /// A media id from an earlier upload.
    Id(String),
    /// An absolute path on the gateway host (under its `media_roots`).
    ServerPath(String),
}

impl Media {
    /// A local file, uploaded before sending.
    pub fn path(path: impl Into<PathBuf>) -> Self {
        Media::Local(MediaInput::Path(path.into()))
    }

    /// Bytes in memory, uploaded before sending.
    pub fn bytes(data: impl Into<Bytes>, file_name: impl Into<String>) -> Self {
        Media::Local(MediaInput::bytes(data, file_name))
    }

    /// An http(s) URL the gateway fetches.
    pub fn url(url: impl Into<String>) -> Self {
        Media::Url(url.into())
    }

    /// A media id from an earlier upload.
    pub fn id(media_id: impl Into<String>) -> Self {
        Media::Id(media_id.into())
    }
}

impl From<Uploaded> for Media {
    fn from(uploaded: Uploaded) -> Self {
        Media::Id(uploaded.media_id)
    }
}

/// A message for [`Client::send`].
#[derive(Clone, Debug, Default)]
pub struct OutgoingMessage {
    /// Target group; `None` (and no `user_id`) = the account's only
    /// whitelisted group.
    pub group_id: Option<i64>,
    /// Target private chat (the other side's QQ number), instead of a group.
    pub user_id: Option<i64>,
    /// Quote (reply to) this message in the first message.
    pub reply_to: Option<i64>,
    /// Mention these users (at most 20) in the first message.
    pub mentions: Vec<i64>,
    /// Mention everyone (`@全体成员`; the bot must be a group admin).
    pub mention_all: bool,
    /// Text (at most 20000 characters).
    pub text: String,
    /// Up to 4 images.
    pub images: Vec<Media>,
    /// Up to 1 video.
    pub videos: Vec<Media>,
    /// Up to 1 voice message (语音: MP3, WAV, OGG, AMR or SILK), sent as its
    /// own message after the text and other media; local voices are
    /// uploaded with [`pb::MediaKind::Record`].
    pub voices: Vec<Media>,
    /// An optional group file.
    pub file: Option<Media>,
    /// Display name of `file` (default: its upload name).
    pub file_name: String,
    /// Idempotency key (empty = none).
    pub idempotency_key: String,
    /// The QQ user the message is sent for (`[policy]` decides by their
    /// role); `None` = nobody.
    pub on_behalf_of: Option<pb::OnBehalfOf>,
}

impl OutgoingMessage {
    /// A message to `group_id`.
    pub fn to_group(group_id: i64) -> Self {
        Self {
            group_id: Some(group_id),
            ..Self::default()
        }
    }

    /// A message to the private chat with `user_id`.
    pub fn to_user(user_id: i64) -> Self {
        Self {
            user_id: Some(user_id),
            ..Self::default()
        }
    }

    /// A reply to a received message, in one call: to its chat, quoting
    /// it, sent on behalf of its sender.
    pub fn reply_for(message: &pb::ChatMessage) -> Self {
        let (group_id, user_id) = match message.chat.as_ref().and_then(|c| c.kind.as_ref()) {
            Some(pb::chat::Kind::GroupId(g)) => (Some(*g), None),
            Some(pb::chat::Kind::UserId(u)) => (None, Some(*u)),
            None => (None, None),
        };
        Self {
            group_id,
            user_id,
            reply_to: Some(message.message_id),
            on_behalf_of: Some(pb::OnBehalfOf::message(message.message_id)),
            ..Self::default()
        }
    }

    /// Sends it on behalf of the sender of `message_id` (a message of the
    /// same chat).
    pub fn on_behalf_of_message(mut self, message_id: i64) -> Self {
        self.on_behalf_of = Some(pb::OnBehalfOf::message(message_id));
        self
    }

    /// Sends it on behalf of the QQ user `user_id`.
    pub fn on_behalf_of_user(mut self, user_id: i64) -> Self {
        self.on_behalf_of = Some(pb::OnBehalfOf::user(user_id));
        self
    }

    /// Quotes (replies to) `message_id`.
    pub fn reply_to(mut self, message_id: i64) -> Self {
        self.reply_to = Some(message_id);
        self
    }

    /// Mentions `user_id` (call again for more).
    pub fn mention(mut self, user_id: i64) -> Self {
        self.mentions.push(user_id);
        self
    }

    /// Mentions everyone.
    pub fn mention_all(mut self) -> Self {
        self.mention_all = true;
        self
    }

    /// Sets the text.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = text.into();
        self
    }

    /// Adds an image.
    pub fn image(mut self, image: impl Into<Media>) -> Self {
        self.images.push(image.into());
        self
    }

    /// Adds a video.
    pub fn video(mut self, video: impl Into<Media>) -> Self {
        self.videos.push(video.into());
        self
    }

    /// Adds a voice message (语音), for example `Media::path("hello.mp3")`.
    pub fn voice(mut self, voice: impl Into<Media>) -> Self {
        self.voices.push(voice.into());
        self
    }

    /// Sets the group file.
    pub fn file(mut self, file: impl Into<Media>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// Sets the idempotency key.
    pub fn idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = key.into();
        self
    }
}

/// State of the chunk stream of one upload.
struct Chunks {
    input: ChunkSource,
    hasher: Sha256,
    sent: u64,
    done: Option<tokio::sync::oneshot::Sender<(u64, String)>>,
}

enum ChunkSource {
    File(tokio::fs::File),
    Bytes(Bytes),
}

impl Chunks {
    /// The next chunk, `None` at the end (then the digest is reported).
    async fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let chunk = match &mut self.input {
            ChunkSource::File(file) => {
                let mut buf = Vec::with_capacity(CHUNK_SIZE);
                while buf.len() < CHUNK_SIZE {
                    let n = (&mut *file)
                        .take((CHUNK_SIZE - buf.len()) as u64)
                        .read_to_end(&mut buf)
                        .await?;
                    if n == 0 {
                        break;
                    }
                }
                buf
            }
            ChunkSource::Bytes(data) => data.split_to(data.len().min(CHUNK_SIZE)).to_vec(),
        };
        if chunk.is_empty() {
            if let Some(done) = self.done.take() {
                let digest = hex::encode(std::mem::take(&mut self.hasher).finalize());
                let _ = done.send((self.sent, digest));
            }
            return Ok(None);
        }
        self.hasher.update(&chunk);
        self.sent += chunk.len() as u64;
        Ok(Some(chunk))
    }
}

impl Client {
    /// Streams `input` to the gateway's staging area as `kind` in
    /// [`CHUNK_SIZE`] chunks and returns the media id. The content is hashed
    /// while it streams and checked against the gateway's digest.
    pub async fn upload(
        &self,
        input: impl Into<MediaInput>,
        kind: pb::MediaKind,
    ) -> Result<Uploaded, Error> {
        self.upload_with_progress(input, kind, |_, _| {}).await
    }

    /// Like [`Client::upload`], calling `progress(sent_bytes, total_bytes)`
    /// after each chunk is handed to the transport.
    pub async fn upload_with_progress(
        &self,
        input: impl Into<MediaInput>,
        kind: pb::MediaKind,
        mut progress: impl FnMut(u64, u64) + Send + 'static,
    ) -> Result<Uploaded, Error> {
        let input = input.into();
        let file_name = input.file_name();
        let (source, total, path) = match input {
            MediaInput::Path(path) => {
                let io = |source| Error::Io {
                    path: path.clone(),
                    source,
                };
                let file = tokio::fs::File::open(&path).await.map_err(io)?;
                let meta = file.metadata().await.map_err(io)?;
                if !meta.is_file() {
                    return Err(Error::InvalidInput(format!(
                        "{} is not a regular file",
                        path.display()
                    )));
                }
                (ChunkSource::File(file), meta.len(), Some(path))
            }
            MediaInput::Bytes { data, .. } => {
                let len = data.len() as u64;
                (ChunkSource::Bytes(data), len, None)
            }
        };
        let size = i64::try_from(total)
            .map_err(|_| Error::InvalidInput("file too large to upload".into()))?;
        let header = pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Header(
                pb::UploadMediaHeader {
                    account_id: self.account_id().to_owned(),
                    kind: kind as i32,
                    file_name,
                    size: Some(size),
                    sha256: None,
                },
            )),
        };
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        let (err_tx, err_rx) = tokio::sync::oneshot::channel::<std::io::Error>();
        let chunks = Chunks {
            input: source,
            hasher: Sha256::new(),
            sent: 0,
            done: Some(done_tx),
        };
        // The header, then chunks until EOF; a read error ends the stream
        // early (the gateway then reports a size mismatch) and is reported
        // instead of the gateway's error.
        let body = futures_util::stream::iter([header]).chain(
            futures_util::stream::unfold(
                (chunks, Some(err_tx)),
                move |(mut chunks, mut err_tx)| async move {
                    match chunks.next().await {
                        Ok(Some(chunk)) => Some(((chunks.sent, chunk), (chunks, err_tx))),
                        Ok(None) => None,
                        Err(e) => {
                            if let Some(tx) = err_tx.take() {
                                let _ = tx.send(e);
                            }
                            None
                        }
                    }
                },
            )
            .map(move |(sent, chunk)| {
                progress(sent, total);
                pb::UploadMediaRequest {
                    payload: Some(pb::upload_media_request::Payload::Chunk(chunk)),
                }
            }),
        );
        let result = self.media_service().upload_media(body).await;
        let mut err_rx = err_rx;
        if let Ok(source) = err_rx.try_recv() {
            return Err(Error::Io {
                path: path.unwrap_or_default(),
                source,
            });
        }
        let response = result?.into_inner();
        let (sent, digest) = done_rx.await.map_err(|_| {
            Error::InvalidInput("the upload stream ended before the end of the input".into())
        })?;
        if response.sha256 != digest || response.size != sent as i64 {
            return Err(Error::IntegrityMismatch {
                sent: digest,
                stored: response.sha256,
            });
        }
        Ok(Uploaded {
            media_id: response.media_id.clone(),
            size: sent,
            sha256: digest,
            mime_type: response.mime_type.clone(),
            response,
        })
    }

    async fn media_source(
        &self,
        media: Media,
        kind: pb::MediaKind,
    ) -> Result<pb::MediaSource, Error> {
        use pb::media_source::Source;
        let source = match media {
            Media::Local(input) => Source::MediaId(self.upload(input, kind).await?.media_id),
            Media::Url(url) => Source::Url(url),
            Media::Id(id) => Source::MediaId(id),
            Media::ServerPath(path) => Source::Path(path),
        };
        Ok(pb::MediaSource {
            source: Some(source),
        })
    }

    /// Uploads the message's local media (in order), then sends it with
    /// `SendMessage`.
    pub async fn send(&self, message: OutgoingMessage) -> Result<pb::SendMessageResponse, Error> {
        let mut images = Vec::with_capacity(message.images.len());
        for image in message.images {
            images.push(self.media_source(image, pb::MediaKind::Image).await?);
        }
        let mut videos = Vec::with_capacity(message.videos.len());
        for video in message.videos {
            videos.push(self.media_source(video, pb::MediaKind::Video).await?);
        }
        let mut voices = Vec::with_capacity(message.voices.len());
        for voice in message.voices {
            voices.push(self.media_source(voice, pb::MediaKind::Record).await?);
        }
        let file = match message.file {
            Some(file) => Some(self.media_source(file, pb::MediaKind::File).await?),
            None => None,
        };
        let request = pb::SendMessageRequest {
            account_id: self.account_id().to_owned(),
            group_id: message.group_id,
            text: message.text,
            images,
            videos,
            file,
            file_name: message.file_name,
            idempotency_key: message.idempotency_key,
            user_id: message.user_id,
            reply_to_message_id: message.reply_to,
            mention_user_ids: message.mentions,
            mention_all: message.mention_all,
            on_behalf_of: message.on_behalf_of,
            voices,
        };
        Ok(self
            .message_service()
            .send_message(request)
            .await?
            .into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn drain(mut chunks: Chunks) -> (Vec<usize>, Vec<u8>) {
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        while let Some(c) = chunks.next().await.unwrap() {
            sizes.push(c.len());
            all.extend_from_slice(&c);
        }
        (sizes, all)
    }

    #[tokio::test]
    async fn files_stream_in_full_chunks_and_report_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        let data: Vec<u8> = (0..CHUNK_SIZE * 2 + 10).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let chunks = Chunks {
            input: ChunkSource::File(tokio::fs::File::open(&path).await.unwrap()),
            hasher: Sha256::new(),
            sent: 0,
            done: Some(tx),
        };
        let (sizes, all) = drain(chunks).await;
        assert_eq!(sizes, vec![CHUNK_SIZE, CHUNK_SIZE, 10]);
        assert_eq!(all, data);
        let (sent, digest) = rx.await.unwrap();
        assert_eq!(sent, data.len() as u64);
        assert_eq!(digest, hex::encode(Sha256::digest(&data)));
    }

    #[tokio::test]
    async fn bytes_stream_in_chunks() {
        let (tx, _rx) = tokio::sync::oneshot::channel();
        let chunks = Chunks {
            input: ChunkSource::Bytes(Bytes::from(vec![7u8; CHUNK_SIZE + 1])),
            hasher: Sha256::new(),
            sent: 0,
            done: Some(tx),
        };
        let (sizes, _) = drain(chunks).await;
        assert_eq!(sizes, vec![CHUNK_SIZE, 1]);
    }

    #[tokio::test]
    async fn a_missing_file_fails_before_any_rpc() {
        let client = Client::builder("http://127.0.0.1:1")
            .connect_lazy()
            .unwrap();
        let err = client
            .upload(Path::new("/nonexistent/x.png"), pb::MediaKind::Image)
            .await
            .unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err:?}");
    }

    #[test]
    fn builder_collects_media() {
        let m = OutgoingMessage::to_group(1)
            .text("hi")
            .image(Media::path("a.png"))
            .video(Media::url("https://example.com/v.mp4"))
            .voice(Media::bytes(vec![1u8, 2, 3], "hi.amr"))
            .file(Media::id("m1"));
        assert_eq!(m.group_id, Some(1));
        assert_eq!(m.voices.len(), 1);
        assert!(
            matches!(m.voices[0], Media::Local(MediaInput::Bytes { ref file_name, .. }) if file_name == "hi.amr")
        );
        assert_eq!(m.images.len(), 1);
        assert_eq!(m.videos.len(), 1);
        assert!(matches!(m.file, Some(Media::Id(ref id)) if id == "m1"));
    }
}
