//! Reading what the gateway's NATS sink published, for the tests that
//! kill gateways around it.

use std::time::Duration;

use async_nats::jetstream::{self, stream};

/// The stream the gateway's sink publishes into by default (`QQ_EVENTS`,
/// subjects `qq.>`), made on the server at `url` with a duplicate window
/// longer than any test.
pub async fn events_stream(url: &str) -> stream::Stream {
    let js = jetstream::new(async_nats::connect(url).await.unwrap());
    js.get_or_create_stream(stream::Config {
        name: "QQ_EVENTS".into(),
        subjects: vec!["qq.>".into()],
        duplicate_window: Duration::from_secs(600),
        ..Default::default()
    })
    .await
    .unwrap()
}

/// Reads `stream` whole, once its last message's text (the gateway's
/// `Event` in proto3 JSON) is `last` (at most 60 s): every message's
/// `Onebot-Sequence`, checked against its `Nats-Msg-Id`
/// (`<account>:<sequence>`), and the texts of the message events, in
/// stream order.
pub async fn read_until(
    stream: &mut stream::Stream,
    account: &str,
    last: &str,
) -> (Vec<u64>, Vec<String>) {
    let read = async {
        loop {
            let stored = stream.info().await.unwrap().state.messages;
            let (mut sequences, mut texts) = (Vec::new(), Vec::new());
            for n in 1..=stored {
                let m = stream.get_raw_message(n).await.unwrap();
                let header = |name: &str| {
                    m.headers
                        .get(name)
                        .map(|v| v.as_str().to_owned())
                        .unwrap_or_default()
                };
                let sequence: u64 = header("Onebot-Sequence").parse().unwrap();
                assert_eq!(header("Nats-Msg-Id"), format!("{account}:{sequence}"));
                sequences.push(sequence);
                let body: serde_json::Value = serde_json::from_slice(&m.payload).unwrap();
                if let Some(t) = body["message"]["message"]["text"].as_str() {
                    texts.push(t.to_owned());
                }
            }
            if texts.last().is_some_and(|t| t == last) {
                return (sequences, texts);
            }
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .unwrap_or_else(|_| panic!("{last:?} in the stream within 60 s"))
}
