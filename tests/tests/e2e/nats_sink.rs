//! The NATS JetStream event sink against a real `nats-server`: every event
//! of the account in the stream exactly once by `Nats-Msg-Id` and in order
//! (sequences 1, 2, 3, … with no gap and no repeat), through a NATS outage
//! and a restart of the gateway, read by a durable pull consumer of a
//! second client; the bodies are the `Event` of StreamEvents in the proto3
//! JSON mapping.

use std::collections::BTreeSet;
use std::time::Duration;

use async_nats::jetstream::{self, consumer::pull, stream};
use futures_util::StreamExt as _;
use onebot_gateway_client::pb;
use onebot_gateway_config::{Config, SinkConfig};
use onebot_gateway_tests::nats::NatsServer;
use onebot_gateway_tests::{Sandbox, SandboxConfig, SandboxFlavor, TestGateway, config_for};
use onebot_sandbox::SANDBOX_GROUP;
use serde_json::{Value, json};

const STREAM: &str = "QQ_EVENTS";

fn config(sb: &Sandbox, nats: &NatsServer, data_dir: &std::path::Path) -> Config {
    let mut config = config_for(sb, &[SANDBOX_GROUP]);
    config.server.data_dir = data_dir.to_path_buf();
    config.events.sinks = vec![SinkConfig {
        url: nats.url(),
        ..SinkConfig::default()
    }];
    config
}

async fn start(config: Config) -> TestGateway {
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;
    gw
}

/// The stream (as the sink creates it) and a durable pull consumer `name`
/// of every subject of the `default` account, from a second client.
async fn durable_consumer(
    nats: &NatsServer,
    name: &str,
) -> (
    jetstream::stream::Stream,
    jetstream::consumer::Consumer<pull::Config>,
) {
    let client = async_nats::connect(nats.url()).await.expect("connect");
    let js = jetstream::new(client);
    let stream = js
        .get_or_create_stream(stream::Config {
            name: STREAM.into(),
            subjects: vec!["qq.>".into()],
            duplicate_window: Duration::from_secs(600),
            ..Default::default()
        })
        .await
        .expect("the stream");
    let consumer = stream
        .get_or_create_consumer(
            name,
            pull::Config {
                durable_name: Some(name.into()),
                filter_subject: "qq.default.>".into(),
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ..Default::default()
            },
        )
        .await
        .expect("a durable consumer");
    (stream, consumer)
}

/// One message the consumer read: its subject, sequence header, Msg-Id and
/// body.
#[derive(Debug)]
struct Read {
    subject: String,
    sequence: u64,
    msg_id: String,
    body: Value,
}

/// Reads (and acknowledges) messages of `consumer` until `done` holds of
/// what was read, within 60 s. A consumer delivers at least once (an ack
/// lost with a killed server is delivered again): a sequence read before
/// is not kept twice.
async fn read_until(
    consumer: &jetstream::consumer::Consumer<pull::Config>,
    got: &mut Vec<Read>,
    done: impl Fn(&[Read]) -> bool,
) {
    let mut messages = consumer.messages().await.expect("consume");
    let read = async {
        while !done(got) {
            let m = messages
                .next()
                .await
                .expect("the consumer's stream is open")
                .expect("a message");
            let headers = m.headers.clone().expect("headers");
            let header = |name: &str| {
                headers
                    .get(name)
                    .map(|v| v.as_str().to_owned())
                    .unwrap_or_default()
            };
            let read = Read {
                subject: m.subject.to_string(),
                sequence: header("Onebot-Sequence").parse().expect("a sequence"),
                msg_id: header("Nats-Msg-Id"),
                body: serde_json::from_slice(&m.payload).expect("a JSON body"),
            };
            if !got.iter().any(|r| r.sequence == read.sequence) {
                got.push(read);
            }
            m.double_ack().await.expect("ack");
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the messages within 60 s");
}

fn messages_in(got: &[Read]) -> usize {
    got.iter()
        .filter(|r| r.subject.contains(".message."))
        .count()
}

#[tokio::test]
async fn every_event_lands_once_in_order_through_an_outage_and_a_restart() {
    let mut nats = NatsServer::start();
    let sb = Sandbox::start(SandboxConfig {
        flavor: SandboxFlavor::NapCat,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox");
    let data = tempfile::tempdir().expect("tempdir");
    let gw = start(config(&sb, &nats, data.path())).await;

    // A second client: a durable pull consumer over every subject of the
    // account.
    let (stream, consumer) = durable_consumer(&nats, "it").await;
    let say = |n: usize| {
        for i in 0..n {
            sb.control().inject_group_message(
                SANDBOX_GROUP,
                10_003,
                json!([{"type": "text", "data": {"text": format!("第{i}条")}}]),
            );
        }
    };
    let mut got = Vec::new();
    say(20);
    read_until(&consumer, &mut got, |g| messages_in(g) >= 20).await;

    // NATS goes away; the gateway keeps receiving; NATS comes back.
    nats.stop();
    say(10);
    nats.start_again();
    read_until(&consumer, &mut got, |g| messages_in(g) >= 30).await;

    // The gateway restarts and goes on where it stopped.
    gw.stop().await.expect("stop");
    let gw = start(config(&sb, &nats, data.path())).await;
    say(5);
    read_until(&consumer, &mut got, |g| messages_in(g) >= 35).await;

    // The stream holds every event of the account once, in order: 1, 2,
    // 3, … by sequence, each with its Msg-Id.
    let mut stream = stream;
    let stored = stream.info().await.expect("stream info").state.messages;
    let mut in_stream = Vec::new();
    for n in 1..=stored {
        let m = stream.get_raw_message(n).await.expect("a stored message");
        let header = |name: &str| {
            m.headers
                .get(name)
                .map(|v| v.as_str().to_owned())
                .unwrap_or_default()
        };
        let sequence: u64 = header("Onebot-Sequence").parse().expect("a sequence");
        assert_eq!(header("Nats-Msg-Id"), format!("default:{sequence}"));
        in_stream.push(sequence);
    }
    let want: Vec<u64> = (1..=stored).collect();
    assert_eq!(in_stream, want, "what the stream stores");
    // The consumer read them in the same order.
    let sequences: Vec<u64> = got.iter().map(|r| r.sequence).collect();
    assert_eq!(sequences, want, "{got:#?}");
    let ids: BTreeSet<&str> = got.iter().map(|r| r.msg_id.as_str()).collect();
    assert_eq!(ids.len(), got.len());
    for r in &got {
        assert_eq!(r.msg_id, format!("default:{}", r.sequence));
        assert_eq!(r.body["accountId"], "default");
        assert_eq!(r.body["sequence"], r.sequence.to_string());
    }
    assert_eq!(messages_in(&got), 35);
    let first = got
        .iter()
        .find(|r| r.subject.contains(".message."))
        .expect("a message");
    assert_eq!(
        first.subject,
        format!("qq.default.message.group.{SANDBOX_GROUP}")
    );
    assert_eq!(first.body["message"]["message"]["text"], "第0条");
    assert!(
        first.body["message"]["rendered"]
            .as_str()
            .is_some_and(|l| l.ends_with("第0条")),
        "{}",
        first.body
    );
    // Nothing more is waiting: no repeat was stored.
    let info = consumer
        .clone()
        .info()
        .await
        .expect("consumer info")
        .clone();
    assert_eq!(info.num_pending, 0, "{info:?}");
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn events_the_journal_let_go_of_during_an_outage_are_a_published_gap() {
    let mut nats = NatsServer::start();
    let sb = Sandbox::start(SandboxConfig {
        flavor: SandboxFlavor::NapCat,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox");
    let data = tempfile::tempdir().expect("tempdir");
    let mut config = config(&sb, &nats, data.path());
    // The journal keeps 10 events per account once the archive took them.
    config.events.buffer_size = 10;
    let gw = start(config).await;
    let (_, consumer) = durable_consumer(&nats, "gap").await;
    let mut got = Vec::new();
    sb.control().inject_group_message(
        SANDBOX_GROUP,
        10_003,
        json!([{"type": "text", "data": {"text": "停电之前"}}]),
    );
    read_until(&consumer, &mut got, |g| messages_in(g) >= 1).await;
    let before = got.last().expect("read").sequence;
    // NATS is down while more than a trim's worth of events arrive: the
    // journal keeps only the newest.
    nats.stop();
    for i in 0..1100 {
        sb.control().inject_group_message(
            SANDBOX_GROUP,
            10_003,
            json!([{"type": "text", "data": {"text": format!("停电中{i}")}}]),
        );
    }
    nats.start_again();
    // The gap notice, then the events the journal still held, in order, to
    // the last one said.
    let mut gap = None;
    let done = |g: &[Read]| {
        g.last()
            .is_some_and(|r| r.body["message"]["message"]["text"] == "停电中1099")
    };
    let mut messages = consumer.messages().await.expect("consume");
    let read = async {
        loop {
            let m = messages.next().await.expect("open").expect("a message");
            m.double_ack().await.expect("ack");
            if m.subject.as_str() == "qq.default.gap.none" {
                gap = Some(serde_json::from_slice::<Value>(&m.payload).expect("JSON"));
                continue;
            }
            let sequence: u64 = m
                .headers
                .as_ref()
                .and_then(|h| h.get("Onebot-Sequence"))
                .map(|v| v.as_str().parse().expect("a sequence"))
                .expect("a sequence header");
            if !got.iter().any(|r| r.sequence == sequence) {
                got.push(Read {
                    subject: m.subject.to_string(),
                    sequence,
                    msg_id: String::new(),
                    body: serde_json::from_slice(&m.payload).expect("JSON"),
                });
            }
            if done(&got) {
                break;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .expect("the rest within 60 s");
    let gap = gap.expect("a gap notice was published");
    assert_eq!(gap["account_id"], "default");
    let first_missing = gap["first_missing_sequence"].as_u64().expect("a number");
    let last_missing = gap["last_missing_sequence"].as_u64().expect("a number");
    assert!(
        first_missing > before && last_missing >= first_missing,
        "{gap}"
    );
    // Every sequence once, in order, but the ones the notice names: those
    // read before the trim, then the ones the journal still held.
    let after: Vec<u64> = got
        .iter()
        .map(|r| r.sequence)
        .filter(|s| *s > before)
        .collect();
    let last = got.last().expect("read").sequence;
    let want: Vec<u64> = (before + 1..first_missing)
        .chain(last_missing + 1..=last)
        .collect();
    assert_eq!(after, want);
    assert!(last - last_missing <= 1100, "the journal kept the newest");
    gw.stop().await.expect("stop");
}

#[tokio::test]
async fn protobuf_bodies_are_the_event_of_stream_events() {
    use prost::Message as _;

    let nats = NatsServer::start();
    let sb = Sandbox::start(SandboxConfig {
        flavor: SandboxFlavor::NapCat,
        ..SandboxConfig::default()
    })
    .await
    .expect("sandbox");
    let data = tempfile::tempdir().expect("tempdir");
    let mut config = config(&sb, &nats, data.path());
    config.events.sinks[0].encoding = onebot_gateway_config::SinkEncoding::Protobuf;
    config.events.sinks[0].subject_prefix = "bots.qq".into();
    config.events.sinks[0].stream = "QQ_PB".into();
    let gw = start(config).await;
    let client = async_nats::connect(nats.url()).await.expect("connect");
    let js = jetstream::new(client);
    let id = sb.control().inject_group_message(
        SANDBOX_GROUP,
        10_002,
        json!([{"type": "text", "data": {"text": "二进制"}}]),
    );
    // The same event over gRPC, for comparison.
    let mut events = gw
        .events()
        .stream_events(pb::StreamEventsRequest {
            after_sequence: Some(0),
            kinds: vec![pb::EventKind::Message as i32],
            ..Default::default()
        })
        .await
        .expect("StreamEvents")
        .into_inner();
    let over_grpc = crate::events::next_event(&mut events).await;
    let found = async {
        loop {
            if let Ok(stream) = js.get_stream("QQ_PB").await
                && let Ok(m) = stream
                    .get_last_raw_message_by_subject(&format!(
                        "bots.qq.default.message.group.{SANDBOX_GROUP}"
                    ))
                    .await
            {
                return m;
            }
            tokio::task::yield_now().await;
        }
    };
    let m = tokio::time::timeout(Duration::from_secs(30), found)
        .await
        .expect("the message in the stream");
    let event = pb::Event::decode(m.payload.as_ref()).expect("an Event");
    assert_eq!(event, over_grpc);
    let message = match event.kind {
        Some(pb::event::Kind::Message(m)) => m.message.expect("message"),
        other => panic!("{other:?}"),
    };
    assert_eq!(message.message_id, id);
    gw.stop().await.expect("stop");
}
