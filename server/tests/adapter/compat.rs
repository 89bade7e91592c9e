//! Flavor by behaviour: the sandbox reports one implementation's name and
//! behaves like another's; the adapter must page by what the peer does.

use std::collections::BTreeSet;

use onebot_gateway_config::AccountConfig;
use onebot_gateway_domain::model::{ChatRef, HistoryPaging};
use onebot_gateway_domain::ports::PeerApi;
use onebot_sandbox::{Behaviour, Flavor as PeerFlavor, IdForm, SANDBOX_GROUP, SandboxConfig};
use serde_json::json;

use super::{connected, ctx, in_memory_account, peer};

/// Pages `chat` back from the newest, `count` at a time, as the domain
/// does (the next anchor is the oldest message of a page that has more);
/// returns every message's real seq in the order seen.
async fn page_through(client: &dyn PeerApi, chat: ChatRef, count: u32) -> Vec<i64> {
    let mut seqs = Vec::new();
    let mut anchor = None;
    for _ in 0..200 {
        let page = client
            .get_history(chat, count, anchor, ctx())
            .await
            .unwrap_or_else(|e| panic!("page after {anchor:?}: {e}"));
        let mut messages = page.messages;
        messages.sort_by_key(|m| (m.time, m.message_seq));
        assert!(messages.len() <= count as usize);
        seqs.extend(
            messages
                .iter()
                .rev()
                .map(|m| m.message_seq.expect("a real seq")),
        );
        match (page.has_more, messages.first()) {
            (true, Some(oldest)) => anchor = Some(oldest.message_id),
            _ => return seqs,
        }
    }
    panic!("paging never ended: {} messages so far", seqs.len())
}

fn check_each_once(seqs: &[i64], total: i64, what: &str) {
    let unique: BTreeSet<i64> = seqs.iter().copied().collect();
    assert_eq!(
        unique.len(),
        seqs.len(),
        "{what}: a message came twice: {seqs:?}"
    );
    assert_eq!(
        unique,
        (1..=total).collect::<BTreeSet<_>>(),
        "{what}: messages missing"
    );
    assert!(seqs.windows(2).all(|w| w[0] > w[1]), "{what}: out of order");
}

async fn run_combination(name: PeerFlavor, like: PeerFlavor, id_form: IdForm) -> HistoryPaging {
    let what = format!("{name}'s name, {like}'s paging, {id_form:?} ids");
    let cfg = SandboxConfig {
        behaviour: Behaviour {
            id_form,
            ..Behaviour::named_like(name, like)
        },
        ..SandboxConfig::for_flavor(like)
    };
    let p = peer(cfg, in_memory_account());
    let status = connected(&p.client).await;
    assert_eq!(status.implementation, name.app_name(), "{what}");
    // SnowLuma-like peers answer nothing until they have seen traffic.
    p.control
        .inject_group_message(SANDBOX_GROUP, 10001, json!("traffic"));
    let seqs = page_through(p.client.as_ref(), ChatRef::Group(SANDBOX_GROUP), 7).await;
    check_each_once(&seqs, 301, &what);
    p.client.status().history.expect("a paging profile")
}

#[tokio::test(start_paused = true)]
async fn paging_300_messages_by_7_sees_each_once_whatever_the_peer_calls_itself() {
    for name in PeerFlavor::ALL {
        for like in PeerFlavor::ALL {
            let history = run_combination(name, like, IdForm::Number).await;
            let expected = match like {
                PeerFlavor::NapCat => ["message_seq", "message_id_as_seq"].as_slice(),
                PeerFlavor::LlOneBot | PeerFlavor::GoCqhttp => &["message_seq"],
                PeerFlavor::Lagrange | PeerFlavor::SnowLuma => &["message_id"],
            };
            assert!(
                expected.contains(&history.anchor),
                "{name} named, {like} paging: {history:?}"
            );
            assert!(history.anchor_included, "{name}/{like}: {history:?}");
            assert_ne!(history.basis, "assumed", "{name}/{like}: {history:?}");
        }
    }
}

#[tokio::test(start_paused = true)]
async fn ids_as_strings_text_and_beyond_i64_page_the_same() {
    for like in PeerFlavor::ALL {
        for form in [IdForm::NumericString, IdForm::Text, IdForm::Wide] {
            run_combination(PeerFlavor::NapCat, like, form).await;
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_text_id_comes_back_to_the_peer_as_it_wrote_it() {
    let cfg = SandboxConfig {
        behaviour: Behaviour {
            id_form: IdForm::Text,
            ..Behaviour::default()
        },
        ..SandboxConfig::for_flavor(PeerFlavor::Lagrange)
    };
    let p = peer(cfg, in_memory_account());
    connected(&p.client).await;
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let page = p.client.get_history(chat, 3, None, ctx()).await.unwrap();
    let oldest = page.messages.iter().min_by_key(|m| m.message_seq).unwrap();
    assert!(onebot_gateway_domain::ids::is_minted(oldest.message_id));
    let wire =
        serde_json::from_str::<serde_json::Value>(oldest.raw.text()).unwrap()["message_id"].clone();
    assert!(
        wire.as_str().is_some_and(|s| s.starts_with("msg-")),
        "{wire}"
    );
    p.control.clear_actions();
    p.client
        .get_history(chat, 3, Some(oldest.message_id), ctx())
        .await
        .unwrap();
    let sent = p.control.actions();
    let asked = sent
        .iter()
        .find(|a| a.action == "get_group_msg_history")
        .expect("history asked");
    assert_eq!(asked.params["message_id"], wire);
    // A send answered with a text id gives the minted id back.
    let sent_id = p
        .client
        .send_message(
            chat,
            &[onebot_gateway_domain::ports::OutSegment::Text("hi")],
            ctx(),
        )
        .await
        .unwrap();
    assert!(onebot_gateway_domain::ids::is_minted(sent_id));
    let reply = p.client.get_history(chat, 1, None, ctx()).await.unwrap();
    assert_eq!(reply.messages[0].message_id, sent_id);
}

#[tokio::test(start_paused = true)]
async fn a_napcat_mock_paging_by_its_own_seq_loses_and_repeats_nothing() {
    // The report: NapCat's name, rows whose `message_seq` is not the id,
    // paged by that seq, anchor included; 25 fresh messages 7 at a time.
    let p = peer(
        SandboxConfig::named_like(PeerFlavor::NapCat, PeerFlavor::LlOneBot),
        in_memory_account(),
    );
    let status = connected(&p.client).await;
    let history = status.history.expect("profile");
    assert_eq!(
        (history.anchor, history.anchor_included, history.basis),
        ("message_seq", true, "probed")
    );
    for i in 0..25 {
        p.control
            .inject_group_message(SANDBOX_GROUP, 10001, json!(format!("fresh {i}")));
    }
    let seqs = page_through(p.client.as_ref(), ChatRef::Group(SANDBOX_GROUP), 7).await;
    check_each_once(&seqs, 325, "NapCat mock");
    // Every anchored request carried the row's own seq.
    let anchored: Vec<_> = p
        .control
        .actions()
        .into_iter()
        .filter(|a| a.action == "get_group_msg_history" && a.params.get("message_seq").is_some())
        .collect();
    assert!(anchored.len() >= 46, "{}", anchored.len());
}

#[tokio::test(start_paused = true)]
async fn a_configured_anchor_is_used_and_shown() {
    let account = AccountConfig {
        history_anchor: "message_id".into(),
        history_anchor_included: Some(true),
        ..in_memory_account()
    };
    let p = peer(SandboxConfig::for_flavor(PeerFlavor::Lagrange), account);
    let status = connected(&p.client).await;
    let history = status.history.expect("profile");
    assert_eq!(
        (history.anchor, history.anchor_included, history.basis),
        ("message_id", true, "configured")
    );
    // No probe ran.
    assert!(
        p.control
            .actions()
            .iter()
            .all(|a| a.action != "get_group_msg_history")
    );
    let seqs = page_through(p.client.as_ref(), ChatRef::Group(SANDBOX_GROUP), 9).await;
    check_each_once(&seqs, 300, "configured");
}

#[tokio::test(start_paused = true)]
async fn a_wrong_guess_is_corrected_on_the_first_page_that_shows_it() {
    // SnowLuma-like paging answers nothing before traffic, so the probe on
    // connect cannot tell; the first anchored page in NapCat's style comes
    // back as the newest rows, and is corrected before it is returned.
    let p = peer(
        SandboxConfig::named_like(PeerFlavor::NapCat, PeerFlavor::SnowLuma),
        in_memory_account(),
    );
    let status = connected(&p.client).await;
    assert_eq!(status.history.map(|h| h.basis), Some("assumed"));
    p.control
        .inject_group_message(SANDBOX_GROUP, 10001, json!("traffic"));
    let chat = ChatRef::Group(SANDBOX_GROUP);
    let first = p.client.get_history(chat, 5, None, ctx()).await.unwrap();
    let oldest = first.messages.iter().min_by_key(|m| m.message_seq).unwrap();
    let (anchor, anchor_seq) = (oldest.message_id, oldest.message_seq.unwrap());
    let second = p
        .client
        .get_history(chat, 5, Some(anchor), ctx())
        .await
        .unwrap();
    let mut got: Vec<i64> = second
        .messages
        .iter()
        .map(|m| m.message_seq.unwrap())
        .collect();
    got.sort();
    assert_eq!(got, ((anchor_seq - 5)..anchor_seq).collect::<Vec<_>>());
    let history = p.client.status().history.unwrap();
    assert_eq!((history.anchor, history.basis), ("message_id", "observed"));
}

#[tokio::test(start_paused = true)]
async fn ok_with_empty_data_is_the_peers_failure_not_an_empty_success() {
    use onebot_gateway_domain::error::Kind;
    let lenient = |flavor| SandboxConfig {
        behaviour: Behaviour {
            lenient: true,
            ..Behaviour::default()
        },
        ..SandboxConfig::for_flavor(flavor)
    };
    // go-cqhttp has no private history; this one says "ok, {}".
    let p = peer(lenient(PeerFlavor::GoCqhttp), in_memory_account());
    connected(&p.client).await;
    let err = p
        .client
        .get_history(
            ChatRef::Private(onebot_sandbox::FRIEND_WITH_HISTORY),
            5,
            None,
            ctx(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::HistoryUnsupported, "{err}");
    // `get_msg` of a message it does not have: `{}`.
    let p = peer(lenient(PeerFlavor::LlOneBot), in_memory_account());
    connected(&p.client).await;
    let err = p
        .client
        .get_history(ChatRef::Group(SANDBOX_GROUP), 5, Some(424_242), ctx())
        .await
        .unwrap_err();
    assert_eq!(err.kind, Kind::MessageNotFound, "{err}");
    assert_eq!(err.meta("missing"), Some("message 424242"));
}
