//! Details schema pieces and description sentences the tools share.

use serde_json::{Value, json};

/// The sentence every description ends its arguments with: strict keys and
/// the string-id rule.
macro_rules! strict_rules {
    () => {
        "Every argument not listed above is refused (the error names it and the arguments this tool takes) and nothing is done. Ids (QQ numbers, message ids) may be numbers or numeric strings (\"20000003\"), converted like JavaScript Number(): white space around them is fine, an empty or non-numeric string is refused."
    };
}
pub(crate) use strict_rules;

/// The closing paragraph of every write tool the policy may hold: the
/// pending approval shape, and what a refusal says.
macro_rules! held_rule {
    () => {
        "An action the operator's policy holds for the bot owner's approval is not an error: details = {\"status\":\"pending_approval\",\"approvalId\":\"<id>\",\"actions\":[...]}; nothing was done yet (an MCP client that asked its user answers with \"status\":\"approval_decided\" and the approval's state). Tell the user it awaits approval and follow it with qq_get_approval; never send it again. A refusal by the policy is an error naming the rule and the roles it allows."
    };
}
pub(crate) use held_rule;

/// The group rule of the group tools: `target` / `groupId`, or the only
/// whitelisted group.
macro_rules! group_rule {
    () => {
        "- target: the group, `group:<group number>`, in the account's whitelist (a private chat is refused). Alias: groupId. Only when neither is given does the call go to the account's only whitelisted group; target or groupId given as null or \"\" is refused, and the two naming different groups are refused.\n"
    };
}
pub(crate) use group_rule;

/// The chat address rule of the tools that name a chat.
macro_rules! address_rule {
    () => {
        "A chat is named by target: `group:<group number>`, `private:<QQ number>`, or bare digits (= a private chat). groupId (= group:<groupId>) and userId (= private:<userId>) are aliases of target; a target and an alias that name different chats are refused, and a chat argument given as null or \"\" is refused (never read as absent)."
    };
}
pub(crate) use address_rule;

/// The one sentence of every clamped number (`count`, `limit`,
/// `timeoutSecs`).
macro_rules! clamp_rule {
    ($max:literal, $default:literal) => {
        concat!(
            "A number is truncated to an integer and clamped to [1, ",
            $max,
            "]; anything that is not a number (a numeric string too) falls back to ",
            $default,
            "."
        )
    };
}
pub(crate) use clamp_rule;

/// What the details' messages are, for every description that shows them.
macro_rules! message_model {
    () => {
        "Messages in details use the gateway's own model, with the field names of the gRPC API's JSON (ChatMessage): {\"messageId\",\"time\" (RFC 3339, the gateway's time zone),\"sender\":{\"userId\"},\"text\" (a message of text alone) or \"segments\" (any other message: the typed segments, e.g. {\"text\":{\"text\"}}, {\"at\":{\"userId\"}}, {\"image\":{\"mediaId\",\"fileSize\"}}, {\"file\":{\"name\",\"mediaId\"}}, {\"reply\":{\"id\",\"quoted\":<message>}}, {\"forward\":{\"id\"}})}; fields with a default value are left out, and each sender's names come once in details.senders ([{\"userId\",\"nickname\",\"card\",\"role\"}]). A mediaId works with qq_get_media and as `media:<mediaId>` in qq_send."
    };
}
pub(crate) use message_model;

/// The `$defs` of every details schema: the gateway's message model as
/// [`super::view`] writes it.
pub fn defs() -> Value {
    let string = json!({"type": "string"});
    let int = json!({"type": "integer"});
    let media = |extra: Value| {
        let mut props = json!({"mediaId": {"type": "string", "minLength": 1}});
        if let (Some(p), Some(e)) = (props.as_object_mut(), extra.as_object()) {
            p.extend(e.clone());
        }
        json!({"type": "object", "properties": props, "additionalProperties": false})
    };
    let object = |props: Value| json!({"type": "object", "properties": props, "additionalProperties": false});
    let message = |with_chat: bool| {
        let mut props = json!({
            "messageId": int,
            "time": {"type": "string", "minLength": 1},
            "sender": {
                "type": "object",
                "properties": {"userId": int},
                "required": ["userId"],
                "additionalProperties": false
            },
            "text": string,
            "segments": {"type": "array", "items": {"$ref": "#/$defs/segment"}}
        });
        if with_chat {
            props["chat"] = json!({"$ref": "#/$defs/chat"});
        }
        json!({
            "type": "object",
            "properties": props,
            "not": {"required": ["text", "segments"]},
            "additionalProperties": false
        })
    };
    json!({
        "chat": {
            "type": "object",
            "properties": {"groupId": int, "userId": int},
            "minProperties": 1,
            "maxProperties": 1,
            "additionalProperties": false
        },
        "message": message(false),
        "chatMessage": message(true),
        "sender": {
            "type": "object",
            "properties": {"userId": int, "nickname": string, "card": string, "role": string},
            "required": ["userId"],
            "additionalProperties": false
        },
        "member": object(json!({
            "userId": int,
            "nickname": string,
            "card": string,
            "role": string,
            "title": string,
            "level": string,
            "joinTime": string,
            "lastSentTime": string
        })),
        "segment": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "properties": {
                "text": object(json!({"text": string})),
                "at": object(json!({"userId": int, "all": {"const": true}, "name": string})),
                "face": object(json!({"id": string})),
                "image": media(json!({"fileSize": int, "summary": string})),
                "record": media(json!({})),
                "video": media(json!({})),
                "file": media(json!({"name": string, "fileSize": int})),
                "reply": object(json!({"id": string, "quoted": {"$ref": "#/$defs/message"}})),
                "forward": object(json!({"id": string})),
                "json": object(json!({"data": string})),
                "xml": object(json!({"data": string})),
                "poke": object(json!({"type": string, "id": string})),
                "unknown": object(json!({"type": string, "dataJson": string}))
            },
            "additionalProperties": false
        }
    })
}

/// `senders` of a details object: each sender once.
pub fn senders() -> Value {
    json!({"type": "array", "items": {"$ref": "#/$defs/sender"}})
}
