//! The input schemas: each tool's arguments object is a struct deriving
//! [`JsonSchema`] (beside its parser, in the tool's file), its fields typed
//! with the argument types here, and [`schema`] makes the tool's input
//! schema from it.
//!
//! The structs describe what a model should send; they are never
//! deserialized. The tools read the arguments through [`super::args::Args`]
//! (JavaScript number rules, lenient defaults), which accepts more than the
//! schema says (a `null` optional argument counts as absent, a string
//! `count` falls back to its default). Every struct carries
//! `deny_unknown_fields` (`additionalProperties: false`): the tools refuse
//! any other key, and [`super::schema::accepted_keys`] reads the names
//! from the schema's `properties`.
//!
//! A field's doc comment is its description in the schema, word for word.

use std::borrow::Cow;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

use super::js::MAX_SAFE_INTEGER;

/// The input schema of a tool whose arguments object is `T`: draft 2020-12
/// ([`super::schema::DIALECT`]), every subschema inlined (no `$ref`, so
/// simple clients read it), optional arguments without `null` (a model
/// leaves them out), `required` always present, no title or description
/// (the tool has its own).
pub fn schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    if let Some(root) = schema.as_object_mut() {
        root.remove("title");
        root.remove("description");
        root.entry("required").or_insert_with(|| json!([]));
        if let Some(Value::Object(properties)) = root.get_mut("properties") {
            properties.values_mut().for_each(drop_null);
        }
    }
    schema
}

/// Removes the `null` an `Option` adds to a property: from its `type`,
/// or (for a type whose schema has no `type`) the `{"type": "null"}`
/// branch of the `anyOf` it is wrapped in, the other branch taking its
/// place.
fn drop_null(property: &mut Value) {
    if let Some(Value::Array(branches)) = property.get_mut("anyOf") {
        branches.retain(|b| b.get("type").is_none_or(|t| t != "null"));
        if let [only] = branches.as_slice() {
            let only = only.clone();
            if let (Some(map), Value::Object(inner)) = (property.as_object_mut(), only) {
                map.remove("anyOf");
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
        }
        return;
    }
    let Some(Value::Array(types)) = property.get_mut("type") else {
        return;
    };
    types.retain(|t| t != "null");
    if let [only] = types.as_slice() {
        let only = only.clone();
        property["type"] = only;
    }
}

/// The sentence closing the description of a QQ number argument.
macro_rules! qq_rule {
    () => {
        "A positive integer or a numeric string."
    };
}
pub(crate) use qq_rule;

/// The sentence closing the description of a message id argument.
macro_rules! message_id_rule {
    () => {
        "A message id (non-zero, may be negative): a number or a string of digits (ids beyond 2^53 as strings)."
    };
}
pub(crate) use message_id_rule;

/// The sentence closing the description of a `target` argument.
macro_rules! target_rule {
    () => {
        "`group:<group number>`, `private:<QQ number>`, or bare digits (a private chat)."
    };
}
pub(crate) use target_rule;

/// The description of a media string.
macro_rules! media_rule {
    () => {
        "`media:<media_id>` (an UploadMedia id or a received segment's mediaId), an http(s) URL, or an absolute path under the configured media roots."
    };
}
pub(crate) use media_rule;

/// The description of `onBehalfOf`, which the write tools take.
macro_rules! on_behalf_of_rule {
    () => {
        "The QQ user you act for, so the gateway's policy can check what they may ask: {\"messageId\": <id>} of the message that asked you (preferred; the gateway reads its sender and their role), or {\"userId\": <QQ number>}. Leave it out when nobody asked."
    };
}
pub(crate) use on_behalf_of_rule;

/// The description of `accountId`, which every tool takes.
macro_rules! account_rule {
    () => {
        "Gateway account id; default \"default\"."
    };
}
pub(crate) use account_rule;

/// The pattern of a chat: `group:<id>`, `private:<id>` or bare digits,
/// white space around it allowed.
const CHAT_PATTERN: &str = "^\\s*(group:|private:)?[0-9]+\\s*$";

/// Implements [`JsonSchema`] for an argument type: always inlined, its
/// schema the given JSON.
macro_rules! argument_type {
    ($ty:ident, $schema:tt) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> Cow<'static, str> {
                stringify!($ty).into()
            }

            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

/// A chat (`target`): `group:<id>`, `private:<id>`, or bare digits (a
/// private chat).
pub struct Target;
argument_type!(Target, {
    "type": "string",
    "pattern": CHAT_PATTERN,
    "examples": ["group:20000002", "private:10001", "10001"]
});

/// One entry of a chat list: a chat as [`Target`] takes it.
pub struct Chat;
argument_type!(Chat, {"type": "string", "pattern": CHAT_PATTERN});

/// A QQ number (a group or a user): a positive safe integer, or a string
/// of digits.
pub struct QqNumber;
argument_type!(QqNumber, {
    "type": ["integer", "string"],
    "minimum": 1,
    "maximum": MAX_SAFE_INTEGER,
    "pattern": "^\\s*[0-9]+\\s*$"
});

/// A QQ number to @ mention, an item of `mentions`.
pub struct Mention;
argument_type!(Mention, {
    "type": ["integer", "string"],
    "minimum": 1,
    "maximum": MAX_SAFE_INTEGER,
    "pattern": "^\\s*[0-9]+\\s*$",
    "description": concat!("A QQ number to @ mention. ", qq_rule!())
});

/// A group number converted like JavaScript `Number()` (no pattern: any
/// string `Number()` makes a positive safe integer).
pub struct NumberLikeId;
argument_type!(NumberLikeId, {
    "type": ["integer", "string"],
    "minimum": 1,
    "maximum": MAX_SAFE_INTEGER,
    "examples": [20000002, "20000002"]
});

/// A message id: a non-zero integer (negative too), or a string of digits.
pub struct MessageId;
argument_type!(MessageId, {
    "type": ["integer", "string"],
    "not": {"const": 0},
    "pattern": "^\\s*-?[0-9]+\\s*$"
});

/// An event sequence number: a non-negative integer, or a string of
/// digits.
pub struct Sequence;
argument_type!(Sequence, {
    "type": ["integer", "string"],
    "minimum": 0,
    "pattern": "^\\s*[0-9]+\\s*$"
});

/// A media string: `media:<id>`, an http(s) URL or an absolute path.
pub struct MediaString;
argument_type!(MediaString, {
    "type": "string",
    "minLength": 1,
    "description": media_rule!()
});

/// Who the call acts for: `{messageId}` (the requester's message, looked
/// up) or `{userId}`.
pub struct OnBehalfOfArg;
argument_type!(OnBehalfOfArg, {
    "oneOf": [
        {
            "type": "object",
            "properties": {"messageId": {"type": ["integer", "string"], "not": {"const": 0}, "pattern": "^\\s*-?[0-9]+\\s*$"}},
            "required": ["messageId"],
            "additionalProperties": false
        },
        {
            "type": "object",
            "properties": {"userId": {"type": ["integer", "string"], "minimum": 1, "maximum": MAX_SAFE_INTEGER, "pattern": "^\\s*[0-9]+\\s*$"}},
            "required": ["userId"],
            "additionalProperties": false
        }
    ],
    "description": on_behalf_of_rule!()
});

/// A gateway account id.
pub struct AccountId;
argument_type!(AccountId, {"type": "string", "default": "default"});

/// A JSON number, truncated and clamped by the tool (`count`, `limit`,
/// `timeoutSecs`).
pub struct Number;
argument_type!(Number, {"type": "number"});

/// A JSON integer.
pub struct Integer;
argument_type!(Integer, {"type": "integer"});

/// The description of the `groupId` alias of `target`.
macro_rules! group_alias {
    () => {
        concat!(
            "Alias of target: the group `group:<groupId>`. ",
            $crate::tools::input::qq_rule!()
        )
    };
}
pub(crate) use group_alias;

/// The description of the `userId` alias of `target`.
macro_rules! user_alias {
    () => {
        concat!(
            "Alias of target: the private chat `private:<userId>`. ",
            $crate::tools::input::qq_rule!()
        )
    };
}
pub(crate) use user_alias;

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::super::schema::{ToolName, ToolSpec};

    /// Every input schema is one inlined object schema: no `$ref` or
    /// `$defs`, no `null` type, no title, unknown keys refused.
    #[test]
    fn input_schemas_are_inlined_and_strict() {
        fn walk(v: &Value, tool: ToolName) {
            match v {
                Value::Object(map) => {
                    for (key, value) in map {
                        assert!(key != "$ref" && key != "$defs", "{tool:?}: {key}");
                        assert!(key != "title", "{tool:?}: {v}");
                        if key == "type" {
                            assert!(!value.to_string().contains("null"), "{tool:?}: {v}");
                        }
                        walk(value, tool);
                    }
                }
                Value::Array(items) => items.iter().for_each(|i| walk(i, tool)),
                _ => {}
            }
        }
        for tool in ToolName::ALL {
            let schema = ToolSpec::of(tool).input_schema;
            walk(&schema, tool);
            assert_eq!(schema["type"], "object", "{tool:?}");
            assert_eq!(schema["additionalProperties"], false, "{tool:?}");
            assert!(schema["required"].is_array(), "{tool:?}");
        }
    }
}
