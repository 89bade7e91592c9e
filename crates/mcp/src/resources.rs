//! Chats as MCP resources: `qq://<account>/group/<id>` and
//! `qq://<account>/private/<id>`, whose contents are the latest
//! [`LATEST`] messages in the history format.

use super::backend::ChatResource;
use onebot_gateway_domain::model::ChatRef;

/// Messages a resource shows.
pub const LATEST: i32 = 20;

/// The URI scheme.
pub const SCHEME: &str = "qq://";

/// MIME type of a resource's contents.
pub const MIME_TYPE: &str = "text/plain";

impl ChatResource {
    /// `qq://<account>/group/<id>` or `qq://<account>/private/<id>`.
    pub fn uri(&self) -> String {
        let (kind, id) = match self.chat {
            ChatRef::Group(id) => ("group", id),
            ChatRef::Private(id) => ("private", id),
        };
        format!("{SCHEME}{}/{kind}/{id}", self.account_id)
    }

    /// Parses a URI made by [`ChatResource::uri`]: an account id of
    /// letters, digits, `_` and `-`, and a positive id. `None` otherwise.
    pub fn parse(uri: &str) -> Option<ChatResource> {
        let rest = uri.strip_prefix(SCHEME)?;
        let mut parts = rest.split('/');
        let (account, kind, id) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || account.is_empty()
            || !account
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || id.is_empty()
            || !id.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let id: i64 = id.parse().ok().filter(|n| *n > 0)?;
        let chat = match kind {
            "group" => ChatRef::Group(id),
            "private" => ChatRef::Private(id),
            _ => return None,
        };
        Some(ChatResource {
            account_id: account.to_owned(),
            chat,
        })
    }

    /// A display title: `QQ group 20000003 (account default)`.
    pub fn title(&self) -> String {
        match self.chat {
            ChatRef::Group(id) => format!("QQ group {id} (account {})", self.account_id),
            ChatRef::Private(id) => {
                format!("QQ private chat {id} (account {})", self.account_id)
            }
        }
    }

    /// What the resource holds, for the model.
    pub fn description(&self) -> String {
        format!(
            "The latest {LATEST} messages of {}, oldest first, one line each: `[HH:mm:ss] name(QQ number): text`. Subscribe to be told when a message arrives.",
            self.chat.target()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_junk_is_refused() {
        for chat in [ChatRef::Group(20000003), ChatRef::Private(10001)] {
            let r = ChatResource {
                account_id: "default".into(),
                chat,
            };
            assert_eq!(ChatResource::parse(&r.uri()), Some(r.clone()));
        }
        assert_eq!(
            ChatResource::parse("qq://a-1/group/5").map(|r| r.chat),
            Some(ChatRef::Group(5))
        );
        for bad in [
            "",
            "qq://",
            "qq://default/group",
            "qq://default/group/0",
            "qq://default/group/-1",
            "qq://default/group/1/x",
            "qq://default/channel/1",
            "qq://de fault/group/1",
            "qq:///group/1",
            "http://default/group/1",
            "qq://default/group/99999999999999999999",
            "qq://default/group/+1",
        ] {
            assert_eq!(ChatResource::parse(bad), None, "{bad:?}");
        }
    }
}
