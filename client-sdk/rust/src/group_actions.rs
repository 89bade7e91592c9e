//! Group actions: reactions ([`Client::react`]), essence
//! ([`Client::set_essence`], [`Client::list_essence`]), typing
//! ([`Client::set_typing`]), group files ([`Client::list_group_files`]; the
//! downloads are in `download.rs`) and moderation ([`Client::mute_member`],
//! [`Client::mute_all`], [`Client::kick_member`],
//! [`Client::set_member_card`]).
//!
//! Moderation is refused unless a `[[policy.rules]]` entry names the action
//! (PERMISSION_DENIED, `POLICY_DENIED`, metadata `rule` = `none`); the bot
//! must be a group admin (`BOT_NOT_ADMIN`), and the owner and the bot are
//! never targets (`PROTECTED_MEMBER`).

use std::time::Duration;

use crate::client::Client;
use crate::error::Error;
use crate::pb;

impl Client {
    /// Adds the emoji reaction `emoji_id` (a QQ face id such as `"76"`, or a
    /// Unicode emoji's code point in decimal such as `"128077"`) to a group
    /// message.
    pub async fn react(
        &self,
        message_id: i64,
        emoji_id: impl Into<String>,
    ) -> Result<pb::ReactToMessageResponse, Error> {
        self.react_for(message_id, emoji_id, false, None).await
    }

    /// Removes the bot's reaction `emoji_id` from a group message.
    pub async fn unreact(
        &self,
        message_id: i64,
        emoji_id: impl Into<String>,
    ) -> Result<pb::ReactToMessageResponse, Error> {
        self.react_for(message_id, emoji_id, true, None).await
    }

    /// Adds (or with `remove`, removes) a reaction on behalf of a QQ user
    /// (`[policy]` decides by their role).
    pub async fn react_for(
        &self,
        message_id: i64,
        emoji_id: impl Into<String>,
        remove: bool,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::ReactToMessageResponse, Error> {
        let request = pb::ReactToMessageRequest {
            account_id: self.account_id().to_owned(),
            message_id,
            emoji_id: emoji_id.into(),
            remove,
            on_behalf_of,
        };
        Ok(self
            .message_service()
            .react_to_message(request)
            .await?
            .into_inner())
    }

    /// Marks a group message as essence (精华); the bot must be a group
    /// admin.
    pub async fn set_essence(&self, message_id: i64) -> Result<pb::SetEssenceResponse, Error> {
        self.set_essence_for(message_id, false, None).await
    }

    /// Unmarks an essence message.
    pub async fn remove_essence(&self, message_id: i64) -> Result<pb::SetEssenceResponse, Error> {
        self.set_essence_for(message_id, true, None).await
    }

    /// Marks (or with `remove`, unmarks) an essence message on behalf of a
    /// QQ user.
    pub async fn set_essence_for(
        &self,
        message_id: i64,
        remove: bool,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::SetEssenceResponse, Error> {
        let request = pb::SetEssenceRequest {
            account_id: self.account_id().to_owned(),
            message_id,
            remove,
            on_behalf_of,
        };
        Ok(self
            .message_service()
            .set_essence(request)
            .await?
            .into_inner())
    }

    /// A group's essence messages (`group_id` `None` = the account's only
    /// whitelisted group), `page_size` (1..50, 0 = 20) at a time, newest
    /// marking first; fetch them with [`EssencePages::next_page`] or
    /// [`EssencePages::collect_all`].
    pub fn list_essence(&self, group_id: Option<i64>, page_size: i32) -> EssencePages {
        EssencePages {
            client: self.clone(),
            request: pb::ListEssenceRequest {
                account_id: self.account_id().to_owned(),
                group_id,
                page_size,
                page_token: String::new(),
            },
            done: false,
        }
    }

    /// Shows "正在输入" (typing) to `user_id` in their private chat (the
    /// user must be in the private whitelist).
    pub async fn set_typing(&self, user_id: i64) -> Result<(), Error> {
        self.set_typing_for(user_id, None).await
    }

    /// Shows typing on behalf of a QQ user.
    pub async fn set_typing_for(
        &self,
        user_id: i64,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<(), Error> {
        let request = pb::SetTypingRequest {
            account_id: self.account_id().to_owned(),
            user_id,
            on_behalf_of,
        };
        self.message_service().set_typing(request).await?;
        Ok(())
    }

    /// One folder of a group's files (`folder_id` `""` = the root; `group_id`
    /// `None` = the account's only whitelisted group): its folders, then its
    /// files, fetched a page at a time by [`GroupFilePages::next_page`];
    /// [`GroupFilePages::collect_all`] reads every page.
    pub fn list_group_files(
        &self,
        group_id: Option<i64>,
        folder_id: impl Into<String>,
    ) -> GroupFilePages {
        GroupFilePages {
            client: self.clone(),
            request: pb::ListGroupFilesRequest {
                account_id: self.account_id().to_owned(),
                group_id,
                folder_id: folder_id.into(),
                page_size: 0,
                page_token: String::new(),
            },
            done: false,
        }
    }

    /// Mutes a member (禁言) for `duration` (whole seconds, at most 30
    /// days); `Duration::ZERO` lifts the mute.
    pub async fn mute_member(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        duration: Duration,
    ) -> Result<pb::MuteMemberResponse, Error> {
        self.mute_member_for(group_id, user_id, duration, None)
            .await
    }

    /// Mutes a member on behalf of a QQ user (`[policy]` decides by their
    /// role).
    pub async fn mute_member_for(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        duration: Duration,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::MuteMemberResponse, Error> {
        let request =
            mute_member_request(self.account_id(), group_id, user_id, duration, on_behalf_of)?;
        Ok(self
            .group_service()
            .mute_member(request)
            .await?
            .into_inner())
    }

    /// Turns the whole-group mute (全员禁言) on or off.
    pub async fn mute_all(
        &self,
        group_id: Option<i64>,
        enable: bool,
    ) -> Result<pb::MuteAllResponse, Error> {
        self.mute_all_for(group_id, enable, None).await
    }

    /// Turns the whole-group mute on or off on behalf of a QQ user.
    pub async fn mute_all_for(
        &self,
        group_id: Option<i64>,
        enable: bool,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::MuteAllResponse, Error> {
        let request = pb::MuteAllRequest {
            account_id: self.account_id().to_owned(),
            group_id,
            enable,
            on_behalf_of,
        };
        Ok(self.group_service().mute_all(request).await?.into_inner())
    }

    /// Removes a member from the group (踢出); `reject_rejoin` refuses their
    /// later join requests.
    pub async fn kick_member(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        reject_rejoin: bool,
    ) -> Result<pb::KickMemberResponse, Error> {
        self.kick_member_for(group_id, user_id, reject_rejoin, None)
            .await
    }

    /// Removes a member on behalf of a QQ user.
    pub async fn kick_member_for(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        reject_rejoin: bool,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::KickMemberResponse, Error> {
        let request = pb::KickMemberRequest {
            account_id: self.account_id().to_owned(),
            group_id,
            user_id,
            reject_rejoin,
            on_behalf_of,
        };
        Ok(self
            .group_service()
            .kick_member(request)
            .await?
            .into_inner())
    }

    /// Sets a member's group card (群名片, at most 60 bytes); `""` clears it.
    pub async fn set_member_card(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        card: impl Into<String>,
    ) -> Result<pb::SetMemberCardResponse, Error> {
        self.set_member_card_for(group_id, user_id, card, None)
            .await
    }

    /// Sets a member's card on behalf of a QQ user.
    pub async fn set_member_card_for(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        card: impl Into<String>,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::SetMemberCardResponse, Error> {
        let request = pb::SetMemberCardRequest {
            account_id: self.account_id().to_owned(),
            group_id,
            user_id,
            card: card.into(),
            on_behalf_of,
        };
        Ok(self
            .group_service()
            .set_member_card(request)
            .await?
            .into_inner())
    }
}

/// The longest mute the platform allows: 30 days.
pub const MAX_MUTE: Duration = Duration::from_secs(2_592_000);

fn mute_member_request(
    account_id: &str,
    group_id: Option<i64>,
    user_id: i64,
    duration: Duration,
    on_behalf_of: Option<pb::OnBehalfOf>,
) -> Result<pb::MuteMemberRequest, Error> {
    if duration > MAX_MUTE {
        return Err(Error::InvalidInput(format!(
            "a mute lasts at most 30 days ({} s), not {} s",
            MAX_MUTE.as_secs(),
            duration.as_secs()
        )));
    }
    // A part second would otherwise round down to 0, which lifts the mute.
    let secs = duration.as_secs() + u64::from(duration.subsec_nanos() > 0);
    Ok(pb::MuteMemberRequest {
        account_id: account_id.to_owned(),
        group_id,
        user_id,
        duration_secs: secs.min(MAX_MUTE.as_secs()) as i64,
        on_behalf_of,
    })
}

/// Where a page listing stands: the request of the next page, or done.
fn advance(page_token: &mut String, done: &mut bool, next_page_token: &str) {
    if next_page_token.is_empty() {
        *done = true;
    } else {
        next_page_token.clone_into(page_token);
    }
}

/// The pages of a group's essence messages ([`Client::list_essence`]).
#[derive(Debug)]
pub struct EssencePages {
    client: Client,
    request: pb::ListEssenceRequest,
    done: bool,
}

impl EssencePages {
    /// The next page; `None` after the last one.
    pub async fn next_page(&mut self) -> Result<Option<pb::ListEssenceResponse>, Error> {
        if self.done {
            return Ok(None);
        }
        let page = self
            .client
            .message_service()
            .list_essence(self.request.clone())
            .await?
            .into_inner();
        advance(
            &mut self.request.page_token,
            &mut self.done,
            &page.next_page_token,
        );
        Ok(Some(page))
    }

    /// Every remaining essence message, in the peer's order (fetches every
    /// page).
    pub async fn collect_all(mut self) -> Result<Vec<pb::EssenceMessage>, Error> {
        let mut all = Vec::new();
        while let Some(page) = self.next_page().await? {
            all.extend(page.messages);
        }
        Ok(all)
    }
}

/// The pages of a group files folder ([`Client::list_group_files`]).
#[derive(Debug)]
pub struct GroupFilePages {
    client: Client,
    request: pb::ListGroupFilesRequest,
    done: bool,
}

impl GroupFilePages {
    /// Entries (folders and files together) per page, 1..200 (default 50).
    pub fn page_size(mut self, page_size: i32) -> Self {
        self.request.page_size = page_size;
        self
    }

    /// The next page; `None` after the last one.
    pub async fn next_page(&mut self) -> Result<Option<pb::ListGroupFilesResponse>, Error> {
        if self.done {
            return Ok(None);
        }
        let page = self
            .client
            .group_service()
            .list_group_files(self.request.clone())
            .await?
            .into_inner();
        advance(
            &mut self.request.page_token,
            &mut self.done,
            &page.next_page_token,
        );
        Ok(Some(page))
    }

    /// Every remaining folder and file of the folder (fetches every page).
    pub async fn collect_all(
        mut self,
    ) -> Result<(Vec<pb::GroupFolder>, Vec<pb::GroupFile>), Error> {
        let (mut folders, mut files) = (Vec::new(), Vec::new());
        while let Some(page) = self.next_page().await? {
            folders.extend(page.folders);
            files.extend(page.files);
        }
        Ok((folders, files))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutes_round_part_seconds_up_and_refuse_more_than_30_days() {
        let r = mute_member_request(
            "a",
            Some(20000003),
            10003,
            Duration::from_millis(1500),
            Some(pb::OnBehalfOf::user(10001)),
        )
        .unwrap();
        assert_eq!(
            (
                r.account_id.as_str(),
                r.group_id,
                r.user_id,
                r.duration_secs
            ),
            ("a", Some(20000003), 10003, 2)
        );
        assert_eq!(r.on_behalf_of, Some(pb::OnBehalfOf::user(10001)));
        let lift = mute_member_request("", None, 10003, Duration::ZERO, None).unwrap();
        assert_eq!(lift.duration_secs, 0);
        let max = mute_member_request("", None, 1, MAX_MUTE, None).unwrap();
        assert_eq!(max.duration_secs, 2_592_000);
        assert!(matches!(
            mute_member_request("", None, 1, MAX_MUTE + Duration::from_secs(1), None),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn pages_follow_the_token_until_it_is_empty() {
        let (mut token, mut done) = (String::new(), false);
        advance(&mut token, &mut done, "p2");
        assert_eq!((token.as_str(), done), ("p2", false));
        advance(&mut token, &mut done, "");
        assert!(done);
    }

    #[tokio::test]
    async fn listings_start_from_the_first_page_of_the_clients_account() {
        let client = Client::builder("http://127.0.0.1:1")
            .account_id("b")
            .connect_lazy()
            .unwrap();
        let essence = client.list_essence(Some(20000003), 10);
        assert_eq!(essence.request.account_id, "b");
        assert_eq!(essence.request.group_id, Some(20000003));
        assert_eq!(essence.request.page_size, 10);
        assert!(essence.request.page_token.is_empty());
        let files = client.list_group_files(None, "/abc").page_size(100);
        assert_eq!(files.request.folder_id, "/abc");
        assert_eq!(files.request.page_size, 100);
        // A failed page is an error, and the listing is not over.
        let mut pages = client.list_group_files(Some(20000003), "");
        assert!(pages.next_page().await.is_err());
        assert!(!pages.done);
    }

    #[test]
    fn the_new_reasons_round_trip() {
        for (reason, name) in [
            (
                pb::ErrorReason::NotSupportedByImplementation,
                "NOT_SUPPORTED_BY_IMPLEMENTATION",
            ),
            (pb::ErrorReason::BotNotAdmin, "BOT_NOT_ADMIN"),
            (pb::ErrorReason::ProtectedMember, "PROTECTED_MEMBER"),
        ] {
            assert_eq!(reason.reason(), name);
            assert_eq!(pb::ErrorReason::from_reason(name), Some(reason));
        }
    }
}
