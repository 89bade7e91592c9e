//! `MessageService`: history, single messages, forward bundles, sending,
//! recalling, reactions, essence and typing.

use std::sync::Arc;

use onebot_gateway_client::pb;
use pb::message_service_server::MessageService;
use tonic::{Request, Response, Status};

use crate::{convert, status::to_status};
use onebot_gateway_domain::error::Error;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::media::resolve::MediaSource;
use onebot_gateway_domain::read::history::HistoryRequest;
use onebot_gateway_domain::read::search::SearchRequest;
use onebot_gateway_domain::write::send::{SendRequest, SendResult};

/// The MessageService implementation.
pub struct MessageApi {
    gw: Arc<Gateway>,
}

impl MessageApi {
    /// Serves `gw`.
    pub fn new(gw: Arc<Gateway>) -> Self {
        Self { gw }
    }
}

#[tonic::async_trait]
impl MessageService for MessageApi {
    async fn get_history(
        &self,
        request: Request<pb::GetHistoryRequest>,
    ) -> Result<Response<pb::GetHistoryResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::GetHistoryRequest {
            account_id,
            chat,
            count,
            anchor_message_id,
            until,
        } = request.into_inner();
        // Media ids are minted for the account the read is for: the one the
        // call context resolves (body, else routing, else `default`).
        let account = to_status(ctx.account_id(&account_id))?.to_owned();
        let req = HistoryRequest {
            account_id,
            chat: convert::chat_ref(chat.as_ref()),
            count,
            anchor_message_id,
            until: until.as_ref().map(convert::ceil_secs),
        };
        let page = to_status(self.gw.get_history(req, ctx).await)?;
        let mut response = convert::history(page);
        let ids = self.gw.received().ids();
        for m in &mut response.messages {
            convert::with_media_ids(ids, &account, m);
        }
        Ok(Response::new(response))
    }

    async fn send_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendMessageResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let req = send_request(request.into_inner())?;
        let result = to_status(self.gw.send_message(req, ctx).await)?;
        Ok(Response::new(send_response(result)))
    }

    async fn get_message(
        &self,
        request: Request<pb::GetMessageRequest>,
    ) -> Result<Response<pb::GetMessageResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::GetMessageRequest {
            account_id,
            message_id,
        } = request.into_inner();
        let account = to_status(ctx.account_id(&account_id))?.to_owned();
        let view = to_status(self.gw.get_message(&account_id, message_id, ctx).await)?;
        let mut response = convert::message_view(view);
        if let Some(m) = response.message.as_mut() {
            convert::with_media_ids(self.gw.received().ids(), &account, m);
        }
        Ok(Response::new(response))
    }

    async fn recall_message(
        &self,
        request: Request<pb::RecallMessageRequest>,
    ) -> Result<Response<pb::RecallMessageResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::RecallMessageRequest {
            account_id,
            message_id,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        to_status(
            self.gw
                .recall_message(&account_id, message_id, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::RecallMessageResponse {}))
    }

    async fn get_forward_messages(
        &self,
        request: Request<pb::GetForwardMessagesRequest>,
    ) -> Result<Response<pb::GetForwardMessagesResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::GetForwardMessagesRequest {
            account_id,
            forward_id,
        } = request.into_inner();
        let forward = to_status(self.gw.get_forward(&account_id, &forward_id, ctx).await)?;
        Ok(Response::new(convert::forward(forward)))
    }

    async fn search_messages(
        &self,
        request: Request<pb::SearchMessagesRequest>,
    ) -> Result<Response<pb::SearchMessagesResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::SearchMessagesRequest {
            account_id,
            chat,
            query,
            since,
            until,
            sender_id,
            limit,
            page_token,
            include_recalled,
        } = request.into_inner();
        let chat = match &chat {
            None => None,
            Some(c) => Some(to_status(convert::chat_ref(Some(c)).ok_or_else(|| {
                Error::invalid(
                    "chat",
                    "chat has neither group_id nor user_id: set one, or leave chat out to search every archived chat",
                )
            }))?),
        };
        let req = SearchRequest {
            account_id,
            chat,
            query,
            since: since.as_ref().map(convert::ceil_secs),
            until: until.as_ref().map(convert::ceil_secs),
            sender_id,
            limit,
            page_token,
            include_recalled,
        };
        let page = to_status(self.gw.search_messages(req, ctx).await)?;
        Ok(Response::new(convert::search(&page)))
    }

    async fn react_to_message(
        &self,
        request: Request<pb::ReactToMessageRequest>,
    ) -> Result<Response<pb::ReactToMessageResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ReactToMessageRequest {
            account_id,
            message_id,
            emoji_id,
            remove,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let group_id = to_status(
            self.gw
                .react_to_message(
                    &account_id,
                    message_id,
                    &emoji_id,
                    remove,
                    on_behalf_of,
                    ctx,
                )
                .await,
        )?;
        Ok(Response::new(pb::ReactToMessageResponse { group_id }))
    }

    async fn set_essence(
        &self,
        request: Request<pb::SetEssenceRequest>,
    ) -> Result<Response<pb::SetEssenceResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::SetEssenceRequest {
            account_id,
            message_id,
            remove,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        let group_id = to_status(
            self.gw
                .set_essence(&account_id, message_id, remove, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::SetEssenceResponse { group_id }))
    }

    async fn list_essence(
        &self,
        request: Request<pb::ListEssenceRequest>,
    ) -> Result<Response<pb::ListEssenceResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::ListEssenceRequest {
            account_id,
            group_id,
            page_size,
            page_token,
        } = request.into_inner();
        let account = to_status(ctx.account_id(&account_id))?.to_owned();
        let listing = to_status(
            self.gw
                .list_essence(&account_id, group_id, page_size, &page_token, ctx)
                .await,
        )?;
        let mut response = convert::essence(listing);
        let ids = self.gw.received().ids();
        for m in response
            .messages
            .iter_mut()
            .filter_map(|e| e.message.as_mut())
        {
            convert::with_media_ids(ids, &account, m);
        }
        Ok(Response::new(response))
    }

    async fn set_typing(
        &self,
        request: Request<pb::SetTypingRequest>,
    ) -> Result<Response<pb::SetTypingResponse>, Status> {
        let ctx = super::deadline::ctx(&request);
        let pb::SetTypingRequest {
            account_id,
            user_id,
            on_behalf_of,
        } = request.into_inner();
        let on_behalf_of = super::requester::on_behalf_of(on_behalf_of)?;
        to_status(
            self.gw
                .set_typing(&account_id, user_id, on_behalf_of, ctx)
                .await,
        )?;
        Ok(Response::new(pb::SetTypingResponse {}))
    }
}

fn media_source(source: pb::MediaSource) -> Option<MediaSource> {
    use pb::media_source::Source;
    Some(match source.source? {
        Source::MediaId(id) => MediaSource::MediaId(id),
        Source::Url(url) => MediaSource::Url(url),
        Source::Path(path) => MediaSource::Path(path),
        Source::Data(data) => MediaSource::Data(data.into()),
    })
}

fn send_request(r: pb::SendMessageRequest) -> Result<SendRequest, Status> {
    let pb::SendMessageRequest {
        account_id,
        group_id,
        text,
        images,
        videos,
        file,
        file_name,
        idempotency_key,
        user_id,
        reply_to_message_id,
        mention_user_ids,
        mention_all,
        on_behalf_of,
        voices,
    } = r;
    Ok(SendRequest {
        account_id,
        group_id,
        user_id,
        reply_to: reply_to_message_id,
        mentions: mention_user_ids,
        mention_all,
        text,
        images: images.into_iter().map(media_source).collect(),
        videos: videos.into_iter().map(media_source).collect(),
        voices: voices.into_iter().map(media_source).collect(),
        file: file.map(media_source),
        file_name,
        idempotency_key,
        on_behalf_of: super::requester::on_behalf_of(on_behalf_of)?,
    })
}

fn send_response(r: SendResult) -> pb::SendMessageResponse {
    let SendResult {
        group_id,
        user_id,
        chunks,
        queued,
        message_ids,
        media,
        replayed,
        rate_limit_wait,
    } = r;
    pb::SendMessageResponse {
        group_id,
        chunks: i32::try_from(chunks).unwrap_or(i32::MAX),
        queued,
        message_ids,
        media: media.map(|m| pb::MediaSummary {
            images: i32::try_from(m.images).unwrap_or(i32::MAX),
            videos: i32::try_from(m.videos).unwrap_or(i32::MAX),
            file: m.file,
            voices: i32::try_from(m.voices).unwrap_or(i32::MAX),
        }),
        replayed,
        user_id,
        rate_limit_wait: Some(prost_types::Duration::try_from(rate_limit_wait).unwrap_or_default()),
    }
}
