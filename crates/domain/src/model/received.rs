//! Received media: a media segment of a message the bot received, as the
//! peer described it, for downloading its bytes.

use super::chat::ChatRef;
use super::message::{Message, Segment};
use super::raw::RawJson;

/// Kind of a received media segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReceivedKind {
    /// An image (stickers included).
    Image,
    /// A voice record.
    Record,
    /// A video.
    Video,
    /// A file.
    File,
}

impl ReceivedKind {
    /// Every kind.
    pub const ALL: [ReceivedKind; 4] = [
        ReceivedKind::Image,
        ReceivedKind::Record,
        ReceivedKind::Video,
        ReceivedKind::File,
    ];

    /// Lower-case name (`image`, `record`, `video`, `file`), the segment's
    /// type.
    pub fn name(self) -> &'static str {
        match self {
            ReceivedKind::Image => "image",
            ReceivedKind::Record => "record",
            ReceivedKind::Video => "video",
            ReceivedKind::File => "file",
        }
    }

    /// The kind of a lower-case name.
    pub fn from_name(name: &str) -> Option<ReceivedKind> {
        ReceivedKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// One media segment of a received message.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedMedia {
    /// The chat of the message.
    pub chat: ChatRef,
    /// The message id.
    pub message_id: i64,
    /// 0-based index of the segment in the message.
    pub index: usize,
    /// Kind.
    pub kind: ReceivedKind,
    /// The peer's `file` value (a name, a key or a URL).
    pub file: String,
    /// The peer's URL; may be empty.
    pub url: String,
    /// Display name (a file's name, else the `file` value's last part).
    pub name: String,
    /// Size in bytes as the peer reported it, 0 when unknown.
    pub size: u64,
    /// The message's own object as the peer sent it: the adapter reads
    /// the segment's other fields (`file_id`, ...) from it.
    pub raw: RawJson,
}

impl ReceivedMedia {
    /// Segment `index` of `message` when it is media.
    pub fn of(message: &Message, index: usize) -> Option<ReceivedMedia> {
        let seg = message.segments.get(index)?;
        let (kind, file, url, name, size) = match seg {
            Segment::Image {
                file,
                url,
                file_size,
                ..
            } => (ReceivedKind::Image, file, url, file.as_str(), *file_size),
            Segment::Record { file, url } => (ReceivedKind::Record, file, url, file.as_str(), 0),
            Segment::Video { file, url } => (ReceivedKind::Video, file, url, file.as_str(), 0),
            Segment::File {
                file,
                name,
                file_size,
                url,
            } => {
                let shown = if name.is_empty() { file } else { name };
                (ReceivedKind::File, file, url, shown.as_str(), *file_size)
            }
            _ => return None,
        };
        let name = name.rsplit(['/', '\\']).next().unwrap_or_default();
        // A name that is a URL's query (`download?appid=...`) is no name.
        let name = if name.contains(['?', '&', '=']) {
            ""
        } else {
            name
        };
        Some(ReceivedMedia {
            chat: message.chat,
            message_id: message.message_id,
            index,
            kind,
            file: file.clone(),
            url: url.clone(),
            name: name.to_string(),
            size: u64::try_from(size).unwrap_or(0),
            raw: message.raw.clone(),
        })
    }

    /// Every media segment of `message`, in order.
    pub fn all(message: &Message) -> Vec<ReceivedMedia> {
        (0..message.segments.len())
            .filter_map(|i| ReceivedMedia::of(message, i))
            .collect()
    }
}
