//! Why a tool call's arguments were refused: every [`ArgError`] is found
//! before any peer call; [`super::texts::arg_text`] words it.

/// Why a tool call's arguments were refused (before any peer call).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgError {
    /// `arguments_json` is not valid JSON.
    BadJson(String),
    /// The arguments are valid JSON but not an object.
    NotObject,
    /// A required argument is absent (or `null`).
    Missing(&'static str),
    /// An argument has the wrong JSON type.
    WrongType {
        /// The argument.
        field: &'static str,
        /// What it must be.
        expected: Expected,
    },
    /// `target` is neither `group:<id>`, `private:<id>` nor bare digits.
    BadTarget(String),
    /// `groupId` does not convert to a finite number (`Number(x)` is NaN or
    /// infinite).
    NotFinite {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// An id is not a positive integer (in range).
    NotPositiveInteger {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// An event sequence (`afterSequence`) is not a non-negative integer.
    BadSequence {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// An entry of a chat list (`chats`) is not `group:<id>` or
    /// `private:<id>`.
    BadChat {
        /// The argument with its index (`chats[1]`).
        field: String,
        /// The entry as the caller sent it (JSON text).
        value: String,
    },
    /// A time is not ISO 8601 (`2026-11-30T18:00:00+08:00`,
    /// `2026-11-30 18:00`, `2026-11-30`).
    BadTime {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it.
        value: String,
    },
    /// A message id argument (`messageId`, `replyTo`) is not a non-zero
    /// integer.
    BadMessageId {
        /// The argument.
        field: &'static str,
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// Two arguments that exclude each other are both given.
    Exclusive(&'static str, &'static str),
    /// An array of ids (`mentions`) is not an array of positive integers.
    BadIdList {
        /// The argument.
        field: &'static str,
        /// The offending value as the caller sent it (JSON text).
        value: String,
    },
    /// `onBehalfOf` is not `{"messageId": <id>}` or `{"userId": <QQ>}`.
    BadOnBehalfOf {
        /// The value as the caller sent it (JSON text).
        value: String,
    },
    /// A media string is neither `media:<id>`, an http(s) URL nor an
    /// absolute path.
    BadMedia {
        /// The argument with its index (`images[1]`, `file`).
        field: String,
        /// The string.
        value: String,
    },
    /// Arguments the tool does not take (names outside its input schema's
    /// `properties`).
    Unknown {
        /// The tool.
        tool: &'static str,
        /// The unknown names, sorted.
        keys: Vec<String>,
        /// Every name the tool takes, in schema order.
        accepted: Vec<String>,
    },
    /// A chat argument (`target`, `groupId`, `userId`) given as `null` or
    /// an empty string: refused, never read as absent.
    EmptyChat(&'static str),
    /// Two chat arguments that name different chats.
    Conflict {
        /// The first argument.
        first: &'static str,
        /// Its value as the caller sent it (JSON text).
        first_value: String,
        /// The second argument.
        second: &'static str,
        /// Its value as the caller sent it (JSON text).
        second_value: String,
    },
    /// A private chat given to a tool that works on groups only.
    GroupOnly {
        /// The tool.
        tool: &'static str,
        /// The chat given (`private:<id>`).
        target: String,
    },
    /// No chat argument at all where one is required.
    MissingChat {
        /// The aliases the tool takes besides `target` (`groupId`,
        /// `groupId / userId`).
        aliases: &'static str,
    },
}

/// The JSON type an argument must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// A string.
    String,
    /// An array of strings.
    StringArray,
    /// A number or a numeric string.
    NumberOrNumericString,
    /// `true` or `false`.
    Boolean,
}
