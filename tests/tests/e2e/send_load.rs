//! Sends under load: many concurrent SendMessage calls under raised rate
//! limits, every one answered, every message delivered exactly once.

use std::collections::BTreeSet;

use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, sandbox};
use onebot_sandbox::{ChatRef, SANDBOX_GROUP};

const SENDS: usize = 300;
const CONCURRENCY: usize = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundreds_of_concurrent_sends_under_a_raised_rate_limit_arrive_once_each() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let mut config = config_for(&sandbox, &[SANDBOX_GROUP]);
    if let Some(a) = config.accounts.get_mut("default") {
        a.rate_group_per_minute = 100_000;
        a.rate_group_burst = 10_000;
        a.rate_account_per_minute = 100_000;
        a.rate_account_burst = 10_000;
    }
    let gw = TestGateway::start(config).await;
    gw.wait_state("default", pb::ConnectionState::Connected)
        .await;

    let mut tasks = Vec::new();
    for w in 0..CONCURRENCY {
        let mut client = gw.messages();
        tasks.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for i in (w..SENDS).step_by(CONCURRENCY) {
                let r = client
                    .send_message(pb::SendMessageRequest {
                        group_id: Some(SANDBOX_GROUP),
                        text: format!("load {i:03}"),
                        ..pb::SendMessageRequest::default()
                    })
                    .await
                    .unwrap_or_else(|s| panic!("send {i}: {s:?}"))
                    .into_inner();
                assert!(!r.queued, "{r:?}");
                assert_eq!(r.message_ids.len(), 1, "{r:?}");
                ids.extend(r.message_ids);
            }
            ids
        }));
    }
    let mut ids = BTreeSet::new();
    for t in tasks {
        for id in t.await.expect("join") {
            assert!(ids.insert(id), "message id {id} twice");
        }
    }
    assert_eq!(ids.len(), SENDS);
    let texts: Vec<String> = sandbox
        .control()
        .messages(ChatRef::Group(SANDBOX_GROUP))
        .iter()
        .filter_map(|m| m["raw_message"].as_str().map(str::to_string))
        .filter(|t| t.starts_with("load "))
        .collect();
    let unique: BTreeSet<&String> = texts.iter().collect();
    assert_eq!(texts.len(), SENDS, "delivered {} messages", texts.len());
    assert_eq!(unique.len(), SENDS, "a message was delivered twice");
}
