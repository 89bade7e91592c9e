//! Message ids: Milky addresses a message by (scene, peer, seq); the
//! gateway's message id is one `i64`, minted from the text
//! `milky:<account>:<scene>:<peer>:<seq>` by the domain's minted ids
//! (`onebot_gateway_domain::ids`) and read back from it. An id not minted
//! for this account names no message of it.

use onebot_gateway_domain::model::ChatRef;

use onebot_gateway_domain::ids::{mint, text_of};

/// A Milky message scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scene {
    /// A group chat.
    Group,
    /// A friend (private) chat.
    Friend,
    /// A temporary session (private, through a group).
    Temp,
}

impl Scene {
    /// The wire name (`group`, `friend`, `temp`).
    pub fn name(self) -> &'static str {
        match self {
            Scene::Group => "group",
            Scene::Friend => "friend",
            Scene::Temp => "temp",
        }
    }

    /// The scene of a wire name.
    pub fn from_name(name: &str) -> Option<Scene> {
        match name {
            "group" => Some(Scene::Group),
            "friend" => Some(Scene::Friend),
            "temp" => Some(Scene::Temp),
            _ => None,
        }
    }

    /// The domain chat of `peer` in this scene.
    pub fn chat(self, peer: i64) -> ChatRef {
        match self {
            Scene::Group => ChatRef::Group(peer),
            Scene::Friend | Scene::Temp => ChatRef::Private(peer),
        }
    }

    /// The scene and peer of a domain chat.
    pub fn of_chat(chat: ChatRef) -> (Scene, i64) {
        match chat {
            ChatRef::Group(g) => (Scene::Group, g),
            ChatRef::Private(u) => (Scene::Friend, u),
        }
    }
}

/// Where one Milky message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MessageKey {
    /// Its scene.
    pub scene: Scene,
    /// The group or the friend.
    pub peer: i64,
    /// Its sequence number in that chat.
    pub seq: i64,
}

impl MessageKey {
    /// The domain chat of the message.
    pub fn chat(self) -> ChatRef {
        self.scene.chat(self.peer)
    }
}

/// The gateway's message id of `key` on `account`.
pub fn mint_id(account: &str, key: MessageKey) -> i64 {
    mint(&format!(
        "milky:{account}:{}:{}:{}",
        key.scene.name(),
        key.peer,
        key.seq
    ))
}

/// The message `id` names on `account`; `None` when it was not minted for
/// this account.
pub fn key_of(account: &str, id: i64) -> Option<MessageKey> {
    let text = text_of(id)?;
    let rest = text.strip_prefix("milky:")?;
    let mut parts = rest.rsplitn(4, ':');
    let seq = parts.next()?.parse().ok()?;
    let peer = parts.next()?.parse().ok()?;
    let scene = Scene::from_name(parts.next()?)?;
    (parts.next()? == account).then_some(MessageKey { scene, peer, seq })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_per_account() {
        let key = MessageKey {
            scene: Scene::Group,
            peer: 20000003,
            seq: 42,
        };
        let id = mint_id("a:b", key);
        assert_eq!(id, mint_id("a:b", key));
        assert_eq!(key_of("a:b", id), Some(key));
        assert_eq!(key_of("other", id), None);
        assert_eq!(key_of("a:b", 12345), None);
        let private = MessageKey {
            scene: Scene::Friend,
            peer: 10001,
            seq: 42,
        };
        assert_ne!(mint_id("a:b", private), id);
        assert_eq!(private.chat(), ChatRef::Private(10001));
        assert_eq!(key.chat(), ChatRef::Group(20000003));
    }
}
