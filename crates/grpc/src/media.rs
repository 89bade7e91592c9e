//! `MediaService`: streamed uploads into the staging area, and downloads
//! of received (and uploaded) media.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::media_service_server::MediaService;
use pb::upload_media_request::Payload;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status, Streaming};

use crate::convert;
use crate::status::{status_of, to_status};
use onebot_gateway_domain::call::CallCtx;
use onebot_gateway_domain::error::{Error, Kind, Result};
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::media::staging::{MediaOwner, StagedMedia};
use onebot_gateway_domain::media::upload::UploadHeader;
use onebot_gateway_domain::model::media::read_full;
use onebot_gateway_domain::model::{MediaKind, ReceivedKind};
use onebot_gateway_domain::read::download::{
    DOWNLOAD_CHUNK_BYTES, Download, DownloadRequest, DownloadTarget,
};
use onebot_gateway_domain::shares;

/// The MediaService implementation.
pub struct MediaApi {
    gw: Arc<Gateway>,
}

impl MediaApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }

    async fn upload(
        &self,
        ctx: CallCtx,
        client: Option<Arc<str>>,
        stream: &mut Streaming<pb::UploadMediaRequest>,
    ) -> Result<pb::UploadMediaResponse> {
        let header = match next(stream).await? {
            Some(Payload::Header(h)) => h,
            Some(Payload::Chunk(_)) | None => {
                return Err(Error::new(
                    Kind::UploadHeaderMissing,
                    "the upload stream must start with a header",
                )
                .field("header"));
            }
        };
        let account = self.gw.account(&header.account_id, &ctx)?;
        let header = upload_header(header)?;
        let mut upload = self.gw.write().media().begin_as(
            MediaOwner::of(&account.id, &ctx.caller),
            client,
            header,
        )?;
        while let Some(payload) = next(stream).await? {
            match payload {
                Payload::Chunk(bytes) => upload.write(bytes).await?,
                Payload::Header(_) => {
                    return Err(Error::new(
                        Kind::UploadHeaderRepeated,
                        "the upload stream has a second header",
                    )
                    .field("header"));
                }
            }
        }
        let staged = upload.finish().await?;
        onebot_gateway_telemetry::metrics::upload_bytes(
            &account.id,
            staged.kind.name(),
            staged.size,
        );
        Ok(response(staged))
    }
}

/// The next payload of the stream; a message without payload is invalid,
/// a broken stream is the client's cancellation.
async fn next(stream: &mut Streaming<pb::UploadMediaRequest>) -> Result<Option<Payload>> {
    match stream.message().await {
        Ok(Some(msg)) => match msg.payload {
            Some(p) => Ok(Some(p)),
            None => Err(Error::invalid(
                "payload",
                "every upload message needs a header or a chunk",
            )),
        },
        Ok(None) => Ok(None),
        // A limit of the listener (REQUEST_TOO_LARGE) keeps its own error;
        // an undecodable message is the client's invalid request.
        Err(status) if crate::decode::is_decode_error(&status) => {
            Err(crate::decode::invalid_message(&status))
        }
        Err(status) => Err(crate::status::gateway_error(&status).unwrap_or_else(|| {
            Error::new(Kind::Cancelled, "the upload stream was cancelled")
                .with("detail", status.message())
        })),
    }
}

fn upload_header(h: pb::UploadMediaHeader) -> Result<UploadHeader> {
    let kind = match pb::MediaKind::try_from(h.kind) {
        Ok(pb::MediaKind::Image) => MediaKind::Image,
        Ok(pb::MediaKind::Video) => MediaKind::Video,
        Ok(pb::MediaKind::File) => MediaKind::File,
        Ok(pb::MediaKind::Record) => MediaKind::Voice,
        Ok(pb::MediaKind::Unspecified) | Err(_) => {
            return Err(Error::invalid(
                "header.kind",
                "kind must be IMAGE, VIDEO, FILE or RECORD (a voice)",
            ));
        }
    };
    let size = match h.size {
        Some(n) => Some(
            u64::try_from(n)
                .map_err(|_| Error::invalid("header.size", "size must not be negative"))?,
        ),
        None => None,
    };
    Ok(UploadHeader {
        kind,
        file_name: h.file_name,
        size,
        sha256: h.sha256,
    })
}

fn response(m: StagedMedia) -> pb::UploadMediaResponse {
    let kind = match m.kind {
        MediaKind::Image => pb::MediaKind::Image,
        MediaKind::Video => pb::MediaKind::Video,
        MediaKind::File => pb::MediaKind::File,
        MediaKind::Voice => pb::MediaKind::Record,
    };
    pb::UploadMediaResponse {
        media_id: m.id,
        kind: kind as i32,
        size: i64::try_from(m.size).unwrap_or(i64::MAX),
        sha256: m.sha256,
        mime_type: m.mime,
        expires_at: Some(convert::timestamp_ms(m.expires_at_ms)),
    }
}

/// The kind of a download header.
fn received_kind(kind: ReceivedKind) -> pb::MediaKind {
    match kind {
        ReceivedKind::Image => pb::MediaKind::Image,
        ReceivedKind::Record => pb::MediaKind::Record,
        ReceivedKind::Video => pb::MediaKind::Video,
        ReceivedKind::File => pb::MediaKind::File,
    }
}

fn download_request(req: pb::DownloadMediaRequest) -> DownloadRequest {
    use pb::download_media_request::Target;
    DownloadRequest {
        account_id: req.account_id,
        target: req.target.map(|t| match t {
            Target::MediaId(id) => DownloadTarget::MediaId(id),
            Target::Message(m) => DownloadTarget::Message {
                message_id: m.message_id,
                segment_index: m.segment_index,
            },
        }),
    }
}

/// The response stream of a download: the header, then the file's chunks
/// read on the blocking pool. A client that goes away ends the reader (and
/// closes the file) at its next chunk.
fn download_stream(
    download: Download,
) -> ReceiverStream<Result<pb::DownloadMediaResponse, Status>> {
    use pb::download_media_response::Payload as Out;
    stream_download(
        download,
        |h| pb::DownloadMediaResponse {
            payload: Some(Out::Header(h)),
        },
        |c| pb::DownloadMediaResponse {
            payload: Some(Out::Chunk(c)),
        },
    )
}

/// The response stream of a group file's download, as [`download_stream`].
fn group_file_stream(
    download: Download,
) -> ReceiverStream<Result<pb::DownloadGroupFileResponse, Status>> {
    use pb::download_group_file_response::Payload as Out;
    stream_download(
        download,
        |h| pb::DownloadGroupFileResponse {
            payload: Some(Out::Header(h)),
        },
        |c| pb::DownloadGroupFileResponse {
            payload: Some(Out::Chunk(c)),
        },
    )
}

fn stream_download<T: Send + 'static>(
    download: Download,
    header_of: fn(pb::DownloadMediaHeader) -> T,
    chunk_of: fn(Vec<u8>) -> T,
) -> ReceiverStream<Result<T, Status>> {
    let (tx, rx) = mpsc::channel(4);
    // The file stays readable through its open handle after the download's
    // guards drop.
    let Download { header, file, .. } = download;
    let size = header.size;
    let first = header_of(pb::DownloadMediaHeader {
        media_id: header.media_id,
        kind: received_kind(header.kind) as i32,
        mime_type: header.mime,
        size: i64::try_from(header.size).unwrap_or(i64::MAX),
        sha256: header.sha256,
        file_name: header.file_name,
    });
    tokio::task::spawn_blocking(move || {
        if tx.blocking_send(Ok(first)).is_err() {
            return;
        }
        let mut file = file;
        let mut sent = 0u64;
        loop {
            let mut buf = vec![0u8; DOWNLOAD_CHUNK_BYTES];
            let n = match read_full(&mut file, &mut buf) {
                Ok(n) => n,
                Err(e) => {
                    let _ = tx.blocking_send(Err(status_of(Error::internal(format!(
                        "reading the media: {e}"
                    )))));
                    return;
                }
            };
            if n == 0 {
                break;
            }
            buf.truncate(n);
            sent += n as u64;
            if tx.blocking_send(Ok(chunk_of(buf))).is_err() {
                // The client went away.
                return;
            }
        }
        if sent != size {
            let _ = tx.blocking_send(Err(status_of(Error::internal(format!(
                "the media changed while it was read ({sent} of {size} bytes)"
            )))));
        }
    });
    ReceiverStream::new(rx)
}

#[tonic::async_trait]
impl MediaService for MediaApi {
    type DownloadMediaStream = ReceiverStream<Result<pb::DownloadMediaResponse, Status>>;
    type DownloadGroupFileStream = ReceiverStream<Result<pb::DownloadGroupFileResponse, Status>>;

    async fn download_group_file(
        &self,
        request: Request<pb::DownloadGroupFileRequest>,
    ) -> Result<Response<Self::DownloadGroupFileStream>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::DownloadGroupFileRequest {
            account_id,
            group_id,
            file_id,
        } = request.into_inner();
        let download = to_status(
            self.gw
                .download_group_file(&account_id, group_id, &file_id, ctx)
                .await,
        )?;
        Ok(Response::new(group_file_stream(download)))
    }

    async fn download_media(
        &self,
        request: Request<pb::DownloadMediaRequest>,
    ) -> Result<Response<Self::DownloadMediaStream>, Status> {
        let ctx = super::deadline::ctx(&request);
        let req = download_request(request.into_inner());
        match self.gw.download_media(req, ctx).await {
            Ok(download) => Ok(Response::new(download_stream(download))),
            Err(e) => {
                tracing::debug!(error = ?e, "download refused");
                Err(status_of(e))
            }
        }
    }

    async fn upload_media(
        &self,
        request: Request<Streaming<pb::UploadMediaRequest>>,
    ) -> Result<Response<pb::UploadMediaResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        // Staged bytes count against the client's share: its token, else
        // its address.
        let client = match ctx.caller.token_name() {
            Some(name) => Some(shares::token_client(name)),
            None => request
                .remote_addr()
                .map(|a| shares::address_client(a.ip())),
        };
        let mut stream = request.into_inner();
        let result = self.upload(ctx, client, &mut stream).await;
        match result {
            Ok(r) => Ok(Response::new(r)),
            Err(e) => {
                tracing::debug!(error = ?e, "upload refused");
                Err(status_of(e))
            }
        }
    }
}
