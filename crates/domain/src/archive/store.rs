//! The archive's port: what the domain needs from the store that keeps
//! messages, and the vocabulary of its queries.
//!
//! A message is keyed by account, chat and the peer's message id: the same
//! message seen twice (event, history page, backfill, the gateway's own
//! send) is stored once. A chat is stored as a kind and an id
//! ([`chat_key`]): the store never names a kind itself. Text queries are
//! substring matches on the message's rendered text (`ChatMessage.text`),
//! case-folded ([`super::text::fold`]), served by an index of the text's
//! character bigrams ([`super::text`]).

use crate::error::Result;
use crate::model::{ChatRef, Message};

/// Where a message was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// An inbound message event.
    Event,
    /// A message the gateway sent.
    Sent,
    /// A history page the gateway read for a caller.
    History,
    /// A gap-healing backfill.
    Backfill,
}

impl Source {
    /// Lower-case name, for the store and metrics.
    pub fn name(self) -> &'static str {
        match self {
            Source::Event => "event",
            Source::Sent => "sent",
            Source::History => "history",
            Source::Backfill => "backfill",
        }
    }
}

/// One change to the archive.
#[derive(Debug, Clone, PartialEq)]
pub enum ArchiveOp {
    /// Store a message unless the same key is already stored. A recall seen
    /// before the message keeps it recalled.
    Put {
        /// The account it was seen on.
        account_id: String,
        /// The message.
        message: Message,
        /// Where it was seen.
        source: Source,
        /// Captured media the message references (media ids), so purging it
        /// can release media nothing else references.
        media_ids: Vec<String>,
    },
    /// Mark a message recalled (kept, hidden from search by default). A
    /// message not stored yet is remembered as recalled.
    Recall {
        /// The account it was seen on.
        account_id: String,
        /// Its chat.
        chat: ChatRef,
        /// Its id.
        message_id: i64,
        /// When it was recalled (Unix seconds).
        time: i64,
    },
}

/// What applying a batch did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Messages newly stored, per account and source.
    pub stored: Vec<(String, Source, u64)>,
    /// Messages already stored (duplicates ignored).
    pub duplicates: u64,
    /// Messages marked recalled.
    pub recalled: u64,
}

impl Applied {
    /// Messages newly stored in total.
    pub fn stored_total(&self) -> u64 {
        self.stored.iter().map(|(_, _, n)| n).sum()
    }
}

/// A position in the archive's total order: by time, then by the order the
/// store took the messages in (arrival order within a second). Pages run
/// from newer to older positions; a position is meaningful only to the
/// store that gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    /// Unix seconds.
    pub time: i64,
    /// The store's own row number, increasing as messages are stored.
    pub row: i64,
}

/// Which chats a query covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatScope {
    /// Every chat of the account.
    All,
    /// Only these (empty: none).
    Only(Vec<ChatRef>),
}

/// A query over one account's archived messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The account.
    pub account_id: String,
    /// The chats.
    pub chats: ChatScope,
    /// Substring of the text, as given (the store folds it); empty: any.
    pub text: String,
    /// Only messages at or after this time (Unix seconds).
    pub since: Option<i64>,
    /// Only messages before this time (Unix seconds).
    pub until: Option<i64>,
    /// Only this sender.
    pub sender_id: Option<i64>,
    /// Recalled messages too.
    pub include_recalled: bool,
    /// Only messages strictly past this position in the query's order (the
    /// next page).
    pub cursor: Option<Position>,
    /// Oldest first; otherwise newest first.
    pub ascending: bool,
    /// Most messages returned.
    pub limit: usize,
}

impl Query {
    /// Every message of `chat` of `account_id`, newest first, at most
    /// `limit`.
    pub fn chat(account_id: &str, chat: ChatRef, limit: usize) -> Query {
        Query {
            account_id: account_id.to_string(),
            chats: ChatScope::Only(vec![chat]),
            text: String::new(),
            since: None,
            until: None,
            sender_id: None,
            include_recalled: false,
            cursor: None,
            ascending: false,
            limit,
        }
    }
}

/// One archived message.
#[derive(Debug, Clone, PartialEq)]
pub struct Archived {
    /// The message as first stored.
    pub message: Message,
    /// True once recalled.
    pub recalled: bool,
    /// Where it is in the archive's order.
    pub position: Position,
}

/// Which messages to delete for good.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurgeScope {
    /// Every message of one chat (of every account, or one).
    Chat {
        /// The account; `None`: every account.
        account_id: Option<String>,
        /// The chat.
        chat: ChatRef,
    },
    /// Every message one person sent, in every chat of every account (or
    /// one).
    Sender {
        /// The account; `None`: every account.
        account_id: Option<String>,
        /// The person's QQ number.
        user_id: i64,
    },
}

/// What a deletion removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deleted {
    /// Messages deleted.
    pub messages: u64,
    /// Captured media that only the deleted messages referenced: the
    /// caller releases them ([`super::purge::MediaRelease`]).
    pub orphaned_media: Vec<String>,
}

/// What the size and retention limits removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Messages older than the retention.
    pub expired: Deleted,
    /// The oldest messages beyond the size limit.
    pub oversize: Deleted,
}

/// How much the archive holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Messages stored.
    pub messages: u64,
    /// Their counted size in bytes (text, body and index estimate).
    pub bytes: u64,
}

/// The store of archived messages (an adapter implements it: the embedded
/// SQLite store, PostgreSQL).
#[async_trait::async_trait]
pub trait ArchiveStore: Send + Sync + 'static {
    /// Applies a batch of changes in one transaction.
    async fn apply(&self, ops: Vec<ArchiveOp>) -> Result<Applied>;

    /// The messages matching `query` in its order, at most `query.limit`.
    async fn search(&self, query: Query) -> Result<Vec<Archived>>;

    /// One stored message (recalled or not).
    async fn get(
        &self,
        account_id: &str,
        chat: ChatRef,
        message_id: i64,
    ) -> Result<Option<Archived>>;

    /// The newest stored message of a chat (recalled or not).
    async fn newest(&self, account_id: &str, chat: ChatRef) -> Result<Option<Message>>;

    /// The chats of `account_id` holding a message at or after `since`
    /// (Unix seconds).
    async fn active_chats(&self, account_id: &str, since: i64) -> Result<Vec<ChatRef>>;

    /// Deletes messages older than `older_than` (Unix seconds), then the
    /// oldest until at most `max_bytes` are counted.
    async fn prune(&self, older_than: i64, max_bytes: u64) -> Result<Pruned>;

    /// Deletes every message in `scope`.
    async fn purge(&self, scope: PurgeScope) -> Result<Deleted>;

    /// How much is stored.
    async fn usage(&self) -> Result<Usage>;

    /// Where the archive lives, for logs (credentials redacted).
    fn describe(&self) -> String;
}

/// The stored form of a chat: its kind and id. The one place that names the
/// kinds (`group`, `private`).
pub fn chat_key(chat: ChatRef) -> (&'static str, i64) {
    match chat {
        ChatRef::Group(id) => ("group", id),
        ChatRef::Private(id) => ("private", id),
    }
}

/// The chat of a stored kind and id; `None` for a kind this build does not
/// know.
pub fn chat_of_key(kind: &str, id: i64) -> Option<ChatRef> {
    match kind {
        "group" => Some(ChatRef::Group(id)),
        "private" => Some(ChatRef::Private(id)),
        _ => None,
    }
}

/// The chat written `group:<id>` or `private:<id>` (the config's form).
pub fn parse_target(text: &str) -> Option<ChatRef> {
    let (kind, id) = onebot_gateway_config::parse_chat(text)?;
    chat_of_key(kind, id)
}
