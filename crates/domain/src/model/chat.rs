//! A chat: where messages are read and sent.

/// A chat: a group or a private peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChatRef {
    /// A QQ group.
    Group(i64),
    /// A private chat with a QQ user.
    Private(i64),
}

impl ChatRef {
    /// `group:<id>` / `private:<id>`.
    pub fn target(self) -> String {
        match self {
            ChatRef::Group(id) => format!("group:{id}"),
            ChatRef::Private(id) => format!("private:{id}"),
        }
    }
}
