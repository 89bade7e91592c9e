//! `OnBehalfOf` of write requests: who the call acts for.

use onebot_gateway_client::pb;
use onebot_gateway_domain::error::Error;
use onebot_gateway_domain::policy::OnBehalfOf;
use tonic::Status;

use super::status::to_status;

/// The requester a request names: absent is nobody; a message set with
/// neither `message_id` nor `user_id` is refused (`INVALID_ARGUMENT`),
/// never read as nobody.
pub fn on_behalf_of(value: Option<pb::OnBehalfOf>) -> Result<Option<OnBehalfOf>, Status> {
    use pb::on_behalf_of::Requester;
    match value {
        None => Ok(None),
        Some(pb::OnBehalfOf {
            requester: Some(Requester::MessageId(id)),
        }) => Ok(Some(OnBehalfOf::Message(id))),
        Some(pb::OnBehalfOf {
            requester: Some(Requester::UserId(id)),
        }) => Ok(Some(OnBehalfOf::User(id))),
        Some(pb::OnBehalfOf { requester: None }) => to_status(Err(Error::invalid(
            "on_behalf_of",
            "on_behalf_of is set but names nobody: set message_id (the requester's message) or user_id, or leave on_behalf_of out",
        ))),
    }
}
