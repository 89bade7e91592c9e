//! Downloads of received (and uploaded) media and of group files:
//! MediaService.DownloadMedia and DownloadGroupFile streamed to a file or into
//! memory, checked against the header's SHA-256.

use std::path::{Path, PathBuf};

use bytes::{Bytes, BytesMut};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use crate::client::Client;
use crate::error::Error;
use crate::pb;

/// What to download: a media id, or a segment of a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MediaRef {
    /// A segment's `media_id` (or an UploadMedia id).
    Id(String),
    /// Segment `segment_index` (0-based) of message `message_id`.
    Message {
        /// The message id.
        message_id: i64,
        /// Index into the message's segments.
        segment_index: i32,
    },
}

impl MediaRef {
    /// Segment `segment_index` of message `message_id`.
    pub fn message(message_id: i64, segment_index: i32) -> Self {
        MediaRef::Message {
            message_id,
            segment_index,
        }
    }
}

impl From<&str> for MediaRef {
    fn from(id: &str) -> Self {
        MediaRef::Id(id.to_owned())
    }
}

impl From<String> for MediaRef {
    fn from(id: String) -> Self {
        MediaRef::Id(id)
    }
}

impl From<(i64, i32)> for MediaRef {
    fn from((message_id, segment_index): (i64, i32)) -> Self {
        MediaRef::message(message_id, segment_index)
    }
}

/// A downloaded item in memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Downloaded {
    /// The header (media id, kind, MIME type, size, SHA-256, file name).
    pub header: pb::DownloadMediaHeader,
    /// The bytes (their SHA-256 checked against the header's).
    pub data: Bytes,
}

fn request(client: &Client, target: MediaRef) -> pb::DownloadMediaRequest {
    use pb::download_media_request::Target;
    pb::DownloadMediaRequest {
        account_id: client.account_id().to_owned(),
        target: Some(match target {
            MediaRef::Id(id) => Target::MediaId(id),
            MediaRef::Message {
                message_id,
                segment_index,
            } => Target::Message(pb::MessageMediaRef {
                message_id,
                segment_index,
            }),
        }),
    }
}

/// One message of a download stream, whichever RPC it came from.
enum Part {
    Header(pb::DownloadMediaHeader),
    Chunk(Vec<u8>),
    Empty,
}

impl From<pb::DownloadMediaResponse> for Part {
    fn from(response: pb::DownloadMediaResponse) -> Self {
        use pb::download_media_response::Payload;
        match response.payload {
            Some(Payload::Header(h)) => Part::Header(h),
            Some(Payload::Chunk(c)) => Part::Chunk(c),
            None => Part::Empty,
        }
    }
}

impl From<pb::DownloadGroupFileResponse> for Part {
    fn from(response: pb::DownloadGroupFileResponse) -> Self {
        use pb::download_group_file_response::Payload;
        match response.payload {
            Some(Payload::Header(h)) => Part::Header(h),
            Some(Payload::Chunk(c)) => Part::Chunk(c),
            None => Part::Empty,
        }
    }
}

type Parts = futures_util::stream::BoxStream<'static, Result<Part, tonic::Status>>;

/// What a download reads: a media item or segment, or a group file.
#[derive(Clone, Debug)]
enum Source {
    Media(MediaRef),
    GroupFile {
        group_id: Option<i64>,
        file_id: String,
    },
}

/// A download in progress: the header, then chunks checked as they come.
struct Incoming {
    header: pb::DownloadMediaHeader,
    stream: Parts,
    hasher: Sha256,
    received: u64,
    total: u64,
}

impl Incoming {
    async fn open(client: &Client, source: Source) -> Result<Incoming, Error> {
        use futures_util::StreamExt;
        let mut stream: Parts = match source {
            Source::Media(target) => client
                .media_service()
                .download_media(request(client, target))
                .await
                .map_err(Error::from)?
                .into_inner()
                .map(|r| r.map(Part::from))
                .boxed(),
            Source::GroupFile { group_id, file_id } => client
                .media_service()
                .download_group_file(pb::DownloadGroupFileRequest {
                    account_id: client.account_id().to_owned(),
                    group_id,
                    file_id,
                })
                .await
                .map_err(Error::from)?
                .into_inner()
                .map(|r| r.map(Part::from))
                .boxed(),
        };
        let header = match stream.next().await.transpose().map_err(Error::from)? {
            Some(Part::Header(h)) => h,
            _ => {
                return Err(Error::InvalidInput(
                    "the download stream did not start with a header".into(),
                ));
            }
        };
        let total = u64::try_from(header.size).unwrap_or(0);
        Ok(Incoming {
            header,
            stream,
            hasher: Sha256::new(),
            received: 0,
            total,
        })
    }

    /// The next chunk, `None` at the end.
    async fn next(&mut self) -> Result<Option<Vec<u8>>, Error> {
        use futures_util::StreamExt;
        match self.stream.next().await.transpose().map_err(Error::from)? {
            None => Ok(None),
            Some(Part::Chunk(chunk)) => {
                self.hasher.update(&chunk);
                self.received += chunk.len() as u64;
                Ok(Some(chunk))
            }
            Some(_) => Err(Error::InvalidInput(
                "the download stream had a second header".into(),
            )),
        }
    }

    /// The header, once every byte was received and checked.
    fn finish(self) -> Result<pb::DownloadMediaHeader, Error> {
        let actual = hex::encode(self.hasher.finalize());
        if self.received != self.total || actual != self.header.sha256 {
            return Err(Error::DownloadMismatch {
                expected: self.header.sha256,
                actual,
            });
        }
        Ok(self.header)
    }
}

impl Client {
    /// Downloads `target` into memory, checking the header's size and
    /// SHA-256.
    pub async fn download(&self, target: impl Into<MediaRef>) -> Result<Downloaded, Error> {
        self.download_source(Source::Media(target.into())).await
    }

    /// Downloads `target` into the file `path` (written beside it first and
    /// renamed when complete and checked, so a failed download leaves
    /// nothing behind); returns the header.
    pub async fn download_to(
        &self,
        target: impl Into<MediaRef>,
        path: impl AsRef<Path>,
    ) -> Result<pb::DownloadMediaHeader, Error> {
        self.download_to_with_progress(target, path, |_, _| {})
            .await
    }

    /// Like [`Client::download_to`], calling `progress(received_bytes,
    /// total_bytes)` after each chunk.
    pub async fn download_to_with_progress(
        &self,
        target: impl Into<MediaRef>,
        path: impl AsRef<Path>,
        progress: impl FnMut(u64, u64),
    ) -> Result<pb::DownloadMediaHeader, Error> {
        self.download_source_to(Source::Media(target.into()), path.as_ref(), progress)
            .await
    }

    /// Downloads a file of a group's files (a `GroupFile.file_id` of
    /// [`Client::list_group_files`]) into memory, checking the header's
    /// size and SHA-256. `group_id` `None` = the account's only whitelisted
    /// group.
    pub async fn download_group_file(
        &self,
        group_id: Option<i64>,
        file_id: impl Into<String>,
    ) -> Result<Downloaded, Error> {
        self.download_source(Source::GroupFile {
            group_id,
            file_id: file_id.into(),
        })
        .await
    }

    /// Downloads a group file into the file `path`, as
    /// [`Client::download_to`] does; returns the header (kind FILE, the
    /// file's name, an empty media id).
    pub async fn download_group_file_to(
        &self,
        group_id: Option<i64>,
        file_id: impl Into<String>,
        path: impl AsRef<Path>,
    ) -> Result<pb::DownloadMediaHeader, Error> {
        self.download_group_file_to_with_progress(group_id, file_id, path, |_, _| {})
            .await
    }

    /// Like [`Client::download_group_file_to`], calling
    /// `progress(received_bytes, total_bytes)` after each chunk.
    pub async fn download_group_file_to_with_progress(
        &self,
        group_id: Option<i64>,
        file_id: impl Into<String>,
        path: impl AsRef<Path>,
        progress: impl FnMut(u64, u64),
    ) -> Result<pb::DownloadMediaHeader, Error> {
        let source = Source::GroupFile {
            group_id,
            file_id: file_id.into(),
        };
        self.download_source_to(source, path.as_ref(), progress)
            .await
    }

    async fn download_source(&self, source: Source) -> Result<Downloaded, Error> {
        let mut incoming = Incoming::open(self, source).await?;
        let mut data =
            BytesMut::with_capacity(usize::try_from(incoming.total).unwrap_or(0).min(64 << 20));
        while let Some(chunk) = incoming.next().await? {
            data.extend_from_slice(&chunk);
        }
        Ok(Downloaded {
            header: incoming.finish()?,
            data: data.freeze(),
        })
    }

    async fn download_source_to(
        &self,
        source: Source,
        path: &Path,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<pb::DownloadMediaHeader, Error> {
        let path = path.to_path_buf();
        let partial = partial_path(&path);
        let mut incoming = Incoming::open(self, source).await?;
        let result = async {
            let io = |source| Error::Io {
                path: partial.clone(),
                source,
            };
            let file = tokio::fs::File::create(&partial).await.map_err(io)?;
            let mut file = tokio::io::BufWriter::new(file);
            while let Some(chunk) = incoming.next().await? {
                file.write_all(&chunk).await.map_err(io)?;
                progress(incoming.received, incoming.total);
            }
            file.flush().await.map_err(io)?;
            file.into_inner().sync_all().await.map_err(io)?;
            incoming.finish()
        }
        .await;
        match result {
            Ok(header) => {
                tokio::fs::rename(&partial, &path)
                    .await
                    .map_err(|source| Error::Io {
                        path: path.clone(),
                        source,
                    })?;
                Ok(header)
            }
            Err(e) => {
                let _ = tokio::fs::remove_file(&partial).await;
                Err(e)
            }
        }
    }
}

fn partial_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".part");
    path.with_file_name(name)
}
