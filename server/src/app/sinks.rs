//! The event sinks of `[[events.sinks]]`: each publishes every committed
//! event of the journal, in the `Event` form StreamEvents sends (media ids
//! and the rendered line included), as the canonical proto3 JSON mapping
//! or protobuf.

use std::sync::Arc;

use anyhow::Context as _;
use onebot_gateway_client::pb;
use onebot_gateway_config::SinkEncoding;
use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::journal::{Journal, StoredEvent};
use onebot_gateway_grpc::event::{Lines, event_message};
use onebot_gateway_nats::{Encoder, SinkParts};
use prost::Message as _;
use prost_reflect::SerializeOptions;
use tokio_util::sync::CancellationToken;

/// `event` in the canonical proto3 JSON mapping (what
/// `google.protobuf.json_format` and `protojson` read back).
fn json(event: &pb::Event) -> anyhow::Result<Vec<u8>> {
    let dynamic = crate::proto_json::dynamic(event, "onebot.gateway.v1.Event")
        .map_err(|e| anyhow::anyhow!(e))?;
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::new(&mut out);
    dynamic.serialize_with_options(&mut ser, &SerializeOptions::new())?;
    Ok(out)
}

/// The encoder of `encoding` over `gateway` (the bot's QQ number of each
/// account, the media ids, the time zone and locale of the rendered line).
fn encoder(gateway: &Arc<Gateway>, encoding: SinkEncoding) -> Encoder {
    let gw = gateway.clone();
    let lines = Lines::of(gateway);
    Arc::new(move |stored: &StoredEvent| {
        let self_id = gw
            .accounts()
            .find(|a| *a.id == *stored.account_id)
            .map_or(0, |a| a.peer.self_id());
        let event = event_message(stored, self_id, gw.received().ids(), &lines);
        match encoding {
            SinkEncoding::Protobuf => event.encode_to_vec(),
            SinkEncoding::Json => json(&event).unwrap_or_else(|e| {
                tracing::error!(error = %e, "an event cannot be encoded as JSON");
                Vec::new()
            }),
        }
    })
}

/// The last sequence the event hub numbered for each account.
fn last_sequences(gateway: &Arc<Gateway>) -> onebot_gateway_nats::LastSequences {
    let gw = gateway.clone();
    Arc::new(move || {
        gw.accounts()
            .map(|a| (a.id.clone(), gw.events.last_sequence(&a.id)))
            .collect()
    })
}

/// Starts every configured sink over `journal`; each is waited for at
/// shutdown like the write side's tasks.
pub fn start(
    gateway: &Arc<Gateway>,
    journal: Option<Journal>,
    cancel: &CancellationToken,
) -> anyhow::Result<()> {
    let sinks = &gateway.config.events.sinks;
    if sinks.is_empty() {
        return Ok(());
    }
    let journal = journal.context("event sinks need the event journal")?;
    for config in sinks {
        let task = onebot_gateway_nats::spawn(SinkParts {
            config: config.clone(),
            journal: journal.clone(),
            data_dir: gateway.config.server.data_dir.clone(),
            encode: encoder(gateway, config.encoding),
            last_sequences: last_sequences(gateway),
            shutdown: cancel.clone(),
        });
        gateway.write().track(task);
    }
    Ok(())
}
