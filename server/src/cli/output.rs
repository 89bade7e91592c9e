//! Shared output of the client subcommands: protobuf messages as JSON (the
//! proto3 JSON mapping, through the API's descriptors) and errors.

use std::io::Write as _;

use onebot_gateway_client::Error;
use prost_reflect::SerializeOptions;
use serde_json::{Value, json};

/// `message` in the proto3 JSON mapping: camelCase names, enums by name,
/// 64-bit integers as numbers, default values included. The descriptor is
/// looked up by the type's generated `prost::Name`.
pub fn to_json<M: prost::Message + prost::Name>(message: &M) -> Result<Value, Error> {
    to_json_as(message, &M::full_name())
}

/// [`to_json`] with the descriptor of the proto type `full_name`.
fn to_json_as<M: prost::Message>(message: &M, full_name: &str) -> Result<Value, Error> {
    let dynamic =
        onebot_gateway::proto_json::dynamic(message, full_name).map_err(Error::InvalidInput)?;
    let options = SerializeOptions::new()
        .stringify_64_bit_integers(false)
        .skip_default_fields(false);
    dynamic
        .serialize_with_options(serde_json::value::Serializer, &options)
        .map_err(|e| Error::InvalidInput(format!("encoding {full_name} as JSON: {e}")))
}

/// `println!` for a command's output, through [`write_out`].
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for a command's output, through [`write_out`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::output::write_out(format_args!($($arg)*))
    };
}

pub(crate) use {out, outln};

/// Writes a command's output to stdout. When the reader has gone away (a
/// closed pipe, as `| head -1` leaves it) the command has nothing left to
/// do: it ends quietly with exit status 0. Any other write error ends it
/// with status 1 and says why.
pub fn write_out(args: std::fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(1);
    }
}

/// Prints `value` as one line of JSON.
pub fn print_json(value: &Value) {
    outln!("{value}");
}

/// Prints a message as JSON (one line).
pub fn print_message<M: prost::Message + prost::Name>(message: &M) -> Result<(), Error> {
    print_json(&to_json(message)?);
    Ok(())
}

/// The JSON form of an error: code, reason, message, metadata, retry delay
/// and field violations.
pub fn error_json(err: &Error) -> Value {
    match err.rpc() {
        Some(rpc) => json!({
            "error": {
                "code": format!("{:?}", rpc.code),
                "reason": rpc.reason,
                "message": rpc.message,
                "metadata": rpc.metadata,
                "retryDelayMs": rpc.retry_delay.map(|d| d.as_millis() as u64),
                "fieldViolations": rpc.field_violations.iter()
                    .map(|v| json!({"field": v.field, "description": v.description}))
                    .collect::<Vec<_>>(),
            }
        }),
        None => json!({ "error": { "message": err.to_string() } }),
    }
}

/// Prints an error on stderr: JSON with `--json`, else a readable line plus
/// the metadata.
pub fn print_error(err: &Error, json: bool) {
    if json {
        eprintln!("{}", error_json(err));
        return;
    }
    eprintln!("error: {err}");
    if let Some(rpc) = err.rpc() {
        for (key, value) in &rpc.metadata {
            eprintln!("  {key}: {value}");
        }
        for v in &rpc.field_violations {
            eprintln!("  field {}: {}", v.field, v.description);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_client::pb;

    #[test]
    fn messages_use_the_proto3_json_mapping() {
        let response = pb::SendMessageResponse {
            group_id: 20000003,
            chunks: 1,
            queued: false,
            message_ids: vec![-5, 7],
            media: None,
            replayed: false,
            user_id: 0,
            rate_limit_wait: Some(prost_types::Duration {
                seconds: 1,
                nanos: 200_000_000,
            }),
        };
        let value = to_json(&response).unwrap();
        assert_eq!(value["groupId"], 20000003);
        assert_eq!(value["messageIds"], json!([-5, 7]));
        assert_eq!(value["queued"], false);
        assert_eq!(value["rateLimitWait"], "1.200s");

        let account = pb::Account {
            account_id: "default".into(),
            state: pb::ConnectionState::Connected as i32,
            ..Default::default()
        };
        let value = to_json(&account).unwrap();
        assert_eq!(value["state"], "CONNECTION_STATE_CONNECTED");
        assert_eq!(value["accountId"], "default");
    }

    #[test]
    fn unknown_types_are_errors() {
        assert!(to_json_as(&pb::ListToolsRequest {}, "nope.Nope").is_err());
    }

    #[test]
    fn plain_errors_have_a_message() {
        let err = Error::InvalidInput("bad".into());
        assert_eq!(error_json(&err), json!({"error": {"message": "bad"}}));
    }
}
