//! Load: a few thousand mixed read RPCs at concurrency 100 against the real
//! gateway and a sandbox peer, with zero errors and memory that stops
//! growing (the second half of the calls adds next to nothing).
//!
//! The test reads the process's own RSS, which the tests running beside it
//! in the test binary would disturb: it runs in a process of its own.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use onebot_gateway_client::pb;
use onebot_gateway_tests::{SandboxFlavor, TestGateway, in_own_process, sandbox};
use onebot_sandbox::{EXAMPLE_GROUP, FRIEND_WITH_HISTORY, SANDBOX_GROUP};

const CONCURRENCY: usize = 100;
const CALLS_PER_HALF: usize = 1200;

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .expect("VmRSS")
}

fn chat_group(id: i64) -> Option<pb::Chat> {
    Some(pb::Chat {
        kind: Some(pb::chat::Kind::GroupId(id)),
    })
}

/// One call of the mix, chosen by `i`; returns what went wrong.
async fn one_call(gw: &TestGateway, i: usize) -> Result<(), String> {
    let r = match i % 6 {
        0 => gw
            .messages()
            .get_history(pb::GetHistoryRequest {
                chat: chat_group(SANDBOX_GROUP),
                count: (i % 40) as i32 + 1,
                ..Default::default()
            })
            .await
            .map(|r| r.into_inner().messages.len() == (i % 40) + 1),
        1 => gw
            .messages()
            .get_history(pb::GetHistoryRequest {
                chat: Some(pb::Chat {
                    kind: Some(pb::chat::Kind::UserId(FRIEND_WITH_HISTORY)),
                }),
                count: 10,
                ..Default::default()
            })
            .await
            .map(|r| r.into_inner().messages.len() == 10),
        2 => gw
            .groups()
            .list_group_members(pb::ListGroupMembersRequest {
                group_id: EXAMPLE_GROUP,
                limit: 50,
                ..Default::default()
            })
            .await
            .map(|r| {
                let r = r.into_inner();
                r.total == 120 && r.shown == 50
            }),
        3 => gw
            .groups()
            .list_group_members(pb::ListGroupMembersRequest {
                group_id: SANDBOX_GROUP,
                no_cache: Some(true),
                ..Default::default()
            })
            .await
            .map(|r| !r.into_inner().from_cache),
        4 => gw
            .groups()
            .list_groups(pb::ListGroupsRequest::default())
            .await
            .map(|r| {
                // The whitelist: the one group, joined.
                let groups = r.into_inner().groups;
                groups.len() == 1 && groups[0].group_id == SANDBOX_GROUP
            }),
        _ => gw
            .accounts()
            .list_accounts(pb::ListAccountsRequest {})
            .await
            .map(|r| r.into_inner().accounts.len() == 1),
    };
    match r {
        Ok(true) => Ok(()),
        Ok(false) => Err(format!("call {i}: wrong answer")),
        Err(s) => Err(format!("call {i}: {s:?}")),
    }
}

/// Runs `calls` calls of the mix from `CONCURRENCY` tasks; returns errors.
async fn run(gw: &Arc<TestGateway>, offset: usize, calls: usize) -> Vec<String> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..CONCURRENCY {
        let gw = gw.clone();
        let next = next.clone();
        tasks.push(tokio::spawn(async move {
            let mut errors = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= calls {
                    return errors;
                }
                if let Err(e) = one_call(&gw, offset + i).await {
                    errors.push(e);
                }
            }
        }));
    }
    let mut errors = Vec::new();
    for t in tasks {
        errors.extend(t.await.expect("join"));
    }
    errors
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_mixed_reads_at_concurrency_100_without_error_or_growth() {
    if !in_own_process("load::thousands_of_mixed_reads_at_concurrency_100_without_error_or_growth")
    {
        return;
    }
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = Arc::new(TestGateway::with_sandbox(&sandbox, &[SANDBOX_GROUP]).await);

    let errors = run(&gw, 0, CALLS_PER_HALF).await;
    assert!(
        errors.is_empty(),
        "{} errors: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    let after_first = rss_bytes();

    let errors = run(&gw, CALLS_PER_HALF, CALLS_PER_HALF).await;
    assert!(
        errors.is_empty(),
        "{} errors: {:?}",
        errors.len(),
        &errors[..errors.len().min(5)]
    );
    let after_second = rss_bytes();

    // Everything a call holds is released when it ends: the second half
    // (same mix, same concurrency) may not grow the process noticeably.
    let growth = after_second.saturating_sub(after_first);
    assert!(
        growth < 16 * 1024 * 1024,
        "RSS grew by {} KiB over the second {CALLS_PER_HALF} calls ({} → {} KiB)",
        growth / 1024,
        after_first / 1024,
        after_second / 1024
    );
    // The connection carried all of it: the account never reconnected.
    assert_eq!(sandbox.control().connections(), 1);
}
