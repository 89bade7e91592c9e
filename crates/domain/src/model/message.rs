//! A message as the domain sees it: who sent it, when, in which chat, and
//! its segments in order. Ids are `i64` everywhere (some peers use negative
//! message ids).

use super::chat::ChatRef;
use super::raw::RawJson;

/// The sender of a message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sender {
    /// QQ number.
    pub user_id: i64,
    /// Nickname (may be empty).
    pub nickname: String,
    /// Group card (may be empty).
    pub card: String,
    /// Role as reported (may be empty).
    pub role: String,
}

/// One decoded message.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// The implementation's message id.
    pub message_id: i64,
    /// Real QQ seq when reported.
    pub message_seq: Option<i64>,
    /// The seq the peer itself anchors history on, when it reports one
    /// (the adapter's to use; the domain does not read it).
    pub peer_seq: Option<i64>,
    /// Unix seconds.
    pub time: i64,
    /// Sender.
    pub sender: Sender,
    /// Segments in order.
    pub segments: Vec<Segment>,
    /// The chat.
    pub chat: ChatRef,
    /// The peer's own message object, verbatim (tool details show it).
    pub raw: RawJson,
}

/// One message segment.
#[derive(Debug, Clone, PartialEq)]
pub enum Segment {
    /// Plain text.
    Text(String),
    /// A mention: `user_id` when numeric, `all` for everyone.
    At {
        /// Mentioned QQ number.
        user_id: Option<i64>,
        /// `@全体成员`.
        all: bool,
        /// Name the peer attached; for a target that is neither a number nor
        /// `all`, the target text itself.
        name: Option<String>,
    },
    /// A QQ face.
    Face {
        /// Face id.
        id: String,
    },
    /// An image.
    Image {
        /// `file`.
        file: String,
        /// `url`.
        url: String,
        /// Size in bytes, 0 when unknown.
        file_size: i64,
        /// `summary`.
        summary: String,
    },
    /// A voice record.
    Record {
        /// `file`.
        file: String,
        /// `url`.
        url: String,
    },
    /// A video.
    Video {
        /// `file`.
        file: String,
        /// `url`.
        url: String,
    },
    /// A file.
    File {
        /// `file` or `file_id`.
        file: String,
        /// `name`.
        name: String,
        /// Size in bytes, 0 when unknown.
        file_size: i64,
        /// `url`.
        url: String,
    },
    /// A reply to another message.
    Reply {
        /// Quoted message id as sent.
        id: String,
        /// The quoted message, one level deep (its own quotes unresolved):
        /// decoded with the reply when the peer sends the quote inline
        /// (Milky), else filled in when the gateway could resolve it; the
        /// gateway looks up only quotes still `None`.
        quoted: Option<Box<Message>>,
    },
    /// A merged forward.
    Forward {
        /// `id`, `res_id` or `forward_id`.
        id: String,
    },
    /// A JSON card.
    Json {
        /// The JSON text.
        data: String,
    },
    /// An XML card.
    Xml {
        /// The XML text.
        data: String,
    },
    /// A poke segment.
    Poke {
        /// Poke type.
        kind: String,
        /// Poke id.
        id: String,
    },
    /// Anything else.
    Unknown {
        /// Segment type name.
        kind: String,
        /// The `data` object as compact JSON (`{}` when absent).
        data_json: String,
    },
}

impl Segment {
    /// A reply segment quoting `id`, not resolved.
    pub fn reply(id: impl Into<String>) -> Segment {
        Segment::Reply {
            id: id.into(),
            quoted: None,
        }
    }

    /// The segment's type name (`text`, `at`, `image`, ...; an unknown
    /// segment its own).
    pub fn kind(&self) -> &str {
        match self {
            Segment::Text(_) => "text",
            Segment::At { .. } => "at",
            Segment::Face { .. } => "face",
            Segment::Image { .. } => "image",
            Segment::Record { .. } => "record",
            Segment::Video { .. } => "video",
            Segment::File { .. } => "file",
            Segment::Reply { .. } => "reply",
            Segment::Forward { .. } => "forward",
            Segment::Json { .. } => "json",
            Segment::Xml { .. } => "xml",
            Segment::Poke { .. } => "poke",
            Segment::Unknown { kind, .. } => kind,
        }
    }
}

/// Fixed bytes counted per message and per segment besides their strings
/// (the structs themselves, allocation headers).
const MESSAGE_OVERHEAD: usize = 160;
const SEGMENT_OVERHEAD: usize = 64;

impl Message {
    /// About how many bytes of memory the message holds: its strings (the
    /// quoted message's too), its share of the peer's raw text and a fixed
    /// overhead per message and segment. Caches holding messages bound their bytes by it.
    pub fn approx_bytes(&self) -> usize {
        MESSAGE_OVERHEAD
            + self.sender.nickname.len()
            + self.sender.card.len()
            + self.sender.role.len()
            + self.raw.approx_bytes()
            + self
                .segments
                .iter()
                .map(Segment::approx_bytes)
                .sum::<usize>()
    }
}

impl Segment {
    /// About how many bytes of memory the segment holds (see
    /// [`Message::approx_bytes`]).
    pub fn approx_bytes(&self) -> usize {
        SEGMENT_OVERHEAD
            + match self {
                Segment::Text(t) => t.len(),
                Segment::At { name, .. } => name.as_ref().map_or(0, String::len),
                Segment::Face { id } | Segment::Forward { id } => id.len(),
                Segment::Image {
                    file, url, summary, ..
                } => file.len() + url.len() + summary.len(),
                Segment::Record { file, url } | Segment::Video { file, url } => {
                    file.len() + url.len()
                }
                Segment::File {
                    file, name, url, ..
                } => file.len() + name.len() + url.len(),
                Segment::Reply { id, quoted } => {
                    id.len() + quoted.as_ref().map_or(0, |m| m.approx_bytes())
                }
                Segment::Json { data } | Segment::Xml { data } => data.len(),
                Segment::Poke { kind, id } => kind.len() + id.len(),
                Segment::Unknown { kind, data_json } => kind.len() + data_json.len(),
            }
    }
}
