//! What both archive engines store and read back the same way: a message's
//! searchable text and counted size, a stored row read as the archive's
//! [`Archived`], and the count of a batch's puts. Each engine only binds and
//! extracts its own columns.

use onebot_gateway_domain::archive::store::{Applied, Archived, Position, Source};
use onebot_gateway_domain::model::Message;
use onebot_gateway_domain::render;

use super::codec::decode_message;

/// The counted size of a stored message: its body, its text and an
/// estimate of its index entries.
pub(crate) fn counted_bytes(body_len: usize, text: &str) -> i64 {
    (body_len + 2 * text.len() + 160) as i64
}

/// The searchable text of a message (what `ChatMessage.text` shows).
pub(crate) fn message_text(m: &Message) -> String {
    render::segments(&m.segments)
}

/// The columns a search selects, in this order: the stored body, whether
/// the message was recalled, its time and its row id.
pub(crate) struct StoredRow {
    pub body: Vec<u8>,
    pub recalled: bool,
    pub time: i64,
    pub id: i64,
}

/// The rows as archived messages; a row whose body cannot be decoded is
/// logged and left out.
pub(crate) fn archived(rows: impl IntoIterator<Item = StoredRow>) -> Vec<Archived> {
    rows.into_iter()
        .filter_map(|r| match decode_message(&r.body) {
            Ok(message) => Some(Archived {
                message,
                recalled: r.recalled,
                position: Position {
                    time: r.time,
                    row: r.id,
                },
            }),
            Err(e) => {
                tracing::warn!(error = %e, "an archived message cannot be read; it is left out");
                None
            }
        })
        .collect()
}

/// Counts one put of a batch: a message newly stored for `account_id` from
/// `source`, or a duplicate.
pub(crate) fn count_put(applied: &mut Applied, account_id: &str, source: Source, stored: bool) {
    if !stored {
        applied.duplicates += 1;
        return;
    }
    match applied
        .stored
        .iter_mut()
        .find(|(a, s, _)| a == account_id && *s == source)
    {
        Some(entry) => entry.2 += 1,
        None => applied.stored.push((account_id.to_owned(), source, 1)),
    }
}
