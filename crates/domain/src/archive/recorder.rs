//! The messages the gateway sends, recorded for the archive as the peer
//! acknowledges them: each goes into the journal (with the id the peer gave
//! it) before the send reports it, so a send the caller saw succeed is in
//! the archive after any crash.

use std::sync::Arc;
use std::time::Duration;

use super::service::ArchivedChats;
use crate::account::Account;
use crate::journal::Journal;
use crate::model::{ChatRef, Message, RawJson, Segment, Sender};

/// Longest a send waits for its record to be committed.
const RECORD_WAIT: Duration = Duration::from_secs(5);

/// Records sent messages of archived chats in the journal.
#[derive(Debug, Clone)]
pub struct SentRecorder {
    journal: Journal,
    chats: Arc<ArchivedChats>,
}

impl SentRecorder {
    /// Records into `journal` the sends to `chats`.
    pub fn new(journal: Journal, chats: Arc<ArchivedChats>) -> Self {
        Self { journal, chats }
    }

    /// Records that `account` sent `segments` to `chat` as message
    /// `message_id` (0: the peer gave no id, nothing to key it by), and
    /// waits until the record is committed.
    pub async fn record(
        &self,
        account: &Account,
        chat: ChatRef,
        message_id: i64,
        segments: Vec<Segment>,
    ) {
        if message_id == 0 || !self.chats.contains(&account.id, chat) {
            return;
        }
        let status = account.peer.status();
        let message = Message {
            message_id,
            message_seq: None,
            peer_seq: None,
            time: jiff::Timestamp::now().as_second(),
            sender: Sender {
                user_id: status.self_id,
                nickname: status.nickname,
                card: String::new(),
                role: String::new(),
            },
            segments,
            chat,
            raw: RawJson::null(),
        };
        let done = self
            .journal
            .submit_sent(Arc::from(account.id.as_str()), message);
        if tokio::time::timeout(RECORD_WAIT, done).await.is_err() {
            tracing::warn!(account_id = %account.id, message_id, "recording a sent message took too long; it is archived later");
        }
    }
}
