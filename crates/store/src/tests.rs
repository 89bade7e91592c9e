//! One test suite for both archive stores: the embedded SQLite store always,
//! PostgreSQL when `ONEBOT_GATEWAY_TEST_POSTGRES` names a server to create
//! test databases on (`scripts/test.sh` starts one, with TLS from the CA in
//! `ONEBOT_GATEWAY_TEST_POSTGRES_CA` when it could make one); without it the
//! PostgreSQL runs print that they were skipped.
//!
//! Plus the journal: numbering that survives a restart, the resume buffer,
//! trimming.

use std::collections::HashSet;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::journal::SqliteJournal;
use super::postgres::PgArchive;
use super::sqlite::SqliteArchive;
use onebot_gateway_domain::archive::store::{
    ArchiveOp, ArchiveStore, ChatScope, Position, PurgeScope, Query, Source,
};
use onebot_gateway_domain::events::{EventFilter, EventHub};
use onebot_gateway_domain::journal::{EventJournal, JournalEntry};
use onebot_gateway_domain::model::{ChatRef, InboundEvent, Message, RawJson, Segment, Sender};
use onebot_gateway_domain::ports::EventSink;

const ACCOUNT: &str = "default";
const GROUP: ChatRef = ChatRef::Group(20000003);
const OTHER: ChatRef = ChatRef::Group(20000002);
const T0: i64 = 1_790_000_000;

fn msg(chat: ChatRef, id: i64, time: i64, sender: i64, text: &str) -> Message {
    Message {
        message_id: id,
        message_seq: None,
        peer_seq: None,
        time,
        sender: Sender {
            user_id: sender,
            nickname: format!("user{sender}"),
            card: String::new(),
            role: String::new(),
        },
        segments: vec![Segment::Text(text.to_string())],
        chat,
        raw: RawJson::from_text(format!("{{\"message_id\":{id}}}")),
    }
}

fn put(m: &Message, source: Source) -> ArchiveOp {
    ArchiveOp::Put {
        account_id: ACCOUNT.into(),
        message: m.clone(),
        source,
        media_ids: Vec::new(),
    }
}

fn query(text: &str) -> Query {
    Query {
        account_id: ACCOUNT.into(),
        chats: ChatScope::All,
        text: text.into(),
        since: None,
        until: None,
        sender_id: None,
        include_recalled: false,
        cursor: None,
        ascending: false,
        limit: 100,
    }
}

fn ids(found: &[onebot_gateway_domain::archive::store::Archived]) -> Vec<i64> {
    found.iter().map(|a| a.message.message_id).collect()
}

/// A store under test: SQLite in a temporary directory, or a fresh
/// PostgreSQL database.
struct Subject {
    store: Arc<dyn ArchiveStore>,
    sqlite: Option<SqliteArchive>,
    pg: Option<Arc<PgArchive>>,
    _dir: Option<tempfile::TempDir>,
}

fn sqlite() -> Subject {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteArchive::open(dir.path()).unwrap();
    Subject {
        store: Arc::new(store.clone()),
        sqlite: Some(store),
        pg: None,
        _dir: Some(dir),
    }
}

/// The URL of a PostgreSQL database of its own for one test (`prefix` and
/// the test's name make its name), created afresh on the server of
/// `ONEBOT_GATEWAY_TEST_POSTGRES`; `None`, with a notice naming `what`, when
/// no server is configured (in CI that fails: CI always starts one).
pub(crate) async fn fresh_database(what: &str, prefix: &str, test: &str) -> Option<url::Url> {
    let Ok(admin) = std::env::var("ONEBOT_GATEWAY_TEST_POSTGRES") else {
        // CI starts a server (scripts/test.sh): there the PostgreSQL half of
        // the suite runs, never skips.
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "{what} on PostgreSQL: ONEBOT_GATEWAY_TEST_POSTGRES is not set in CI"
        );
        eprintln!(
            "SKIPPED: {what} on PostgreSQL: ONEBOT_GATEWAY_TEST_POSTGRES is not set (scripts/test.sh starts a server and sets it)"
        );
        return None;
    };
    let name = format!(
        "{prefix}_{}_{}",
        test.replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
        std::process::id()
    );
    let (client, conn) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
        .await
        .expect("connect to ONEBOT_GATEWAY_TEST_POSTGRES");
    tokio::spawn(conn);
    client
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    let mut url = url::Url::parse(&admin).unwrap();
    url.set_path(&name);
    Some(url)
}

/// A PostgreSQL database of its own for one test, or `None` (with a notice)
/// when no server is configured.
async fn postgres(test: &str) -> Option<Subject> {
    let url = fresh_database(test, "onebot_test", test).await?;
    let store = Arc::new(PgArchive::open(url.as_str(), test_tls()).await.unwrap());
    Some(Subject {
        store: store.clone(),
        sqlite: None,
        pg: Some(store),
        _dir: None,
    })
}

/// The TLS the PostgreSQL tests verify the server with: the system roots
/// and the test server's CA, when there is one.
pub(crate) fn test_tls() -> Arc<rustls::ClientConfig> {
    let ca = std::env::var_os("ONEBOT_GATEWAY_TEST_POSTGRES_CA").map(std::path::PathBuf::from);
    onebot_gateway_tls::PeerTls::new(ca.as_deref(), "archive.ca_file")
        .unwrap()
        .client_config()
}

#[tokio::test]
async fn postgres_over_tls_when_required() {
    let (Ok(admin), Some(_)) = (
        std::env::var("ONEBOT_GATEWAY_TEST_POSTGRES"),
        std::env::var_os("ONEBOT_GATEWAY_TEST_POSTGRES_CA"),
    ) else {
        eprintln!(
            "SKIPPED: PostgreSQL over TLS: ONEBOT_GATEWAY_TEST_POSTGRES and ONEBOT_GATEWAY_TEST_POSTGRES_CA are not both set"
        );
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "PostgreSQL over TLS: the test server's CA is not set in CI"
        );
        return;
    };
    let required = format!("{admin}?sslmode=require");
    let store = PgArchive::open(&required, test_tls())
        .await
        .expect("TLS with the test CA");
    store.usage().await.unwrap();
    // Without the CA the server's certificate is refused.
    let untrusted = onebot_gateway_tls::PeerTls::new(None, "archive.ca_file")
        .unwrap()
        .client_config();
    let err = PgArchive::open(&required, untrusted).await.unwrap_err();
    assert!(err.message.contains("archive postgres://"), "{err:?}");
}

/// Runs `suite` on SQLite, then on PostgreSQL when one is configured.
macro_rules! both {
    ($name:ident, $suite:ident) => {
        mod $name {
            use super::*;

            #[tokio::test]
            async fn sqlite() {
                $suite(super::sqlite()).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(s) = super::postgres(stringify!($name)).await {
                    $suite(s).await;
                }
            }
        }
    };
}

async fn the_same_message_seen_three_ways_is_stored_once(s: Subject) {
    let m = msg(GROUP, 7, T0, 10001, "明天下午开会");
    let applied = s
        .store
        .apply(vec![put(&m, Source::Event), put(&m, Source::History)])
        .await
        .unwrap();
    assert_eq!(applied.stored_total(), 1);
    assert_eq!(applied.duplicates, 1);
    let again = s
        .store
        .apply(vec![put(&m, Source::Backfill)])
        .await
        .unwrap();
    assert_eq!((again.stored_total(), again.duplicates), (0, 1));
    let found = s.store.search(query("")).await.unwrap();
    assert_eq!(ids(&found), vec![7]);
    assert_eq!(found[0].message, m);
    let got = s.store.get(ACCOUNT, GROUP, 7).await.unwrap().unwrap();
    assert_eq!(got.message, m);
    assert!(s.store.get(ACCOUNT, OTHER, 7).await.unwrap().is_none());
    assert_eq!(s.store.usage().await.unwrap().messages, 1);
}
both!(dedup, the_same_message_seen_three_ways_is_stored_once);

async fn chinese_substrings_of_two_and_four_characters_match(s: Subject) {
    let texts = [
        (1, "明天下午开会，记得带电脑"),
        (2, "今天不开会了"),
        (3, "会开得很好"),
        (4, "开心"),
        (5, "Meeting at 3PM"),
        (6, "大家下午好"),
    ];
    let ops = texts
        .iter()
        .map(|(id, t)| put(&msg(GROUP, *id, T0 + id, 10001, t), Source::Event))
        .collect();
    s.store.apply(ops).await.unwrap();
    let find = |q: &'static str| {
        let store = s.store.clone();
        async move {
            let mut found = ids(&store.search(query(q)).await.unwrap());
            found.sort();
            found
        }
    };
    assert_eq!(find("开会").await, vec![1, 2]);
    assert_eq!(find("下午开会").await, vec![1]);
    assert_eq!(find("会开").await, vec![3]);
    assert_eq!(find("下午").await, vec![1, 6]);
    assert_eq!(find("开").await, vec![1, 2, 3, 4]);
    assert_eq!(find("meeting").await, vec![5], "case-insensitive");
    assert_eq!(find("3pm").await, vec![5]);
    assert_eq!(
        find("  开会 ").await.len(),
        0,
        "the store takes the query as given"
    );
    assert!(find("开会吧").await.is_empty());
    assert_eq!(find("").await.len(), 6);
}
both!(chinese, chinese_substrings_of_two_and_four_characters_match);

async fn text_queries_use_the_index(s: Subject) {
    let ops = (0..50)
        .map(|i| {
            put(
                &msg(GROUP, i, T0 + i, 10001, &format!("第{i}条 开会通知")),
                Source::Event,
            )
        })
        .collect();
    s.store.apply(ops).await.unwrap();
    for q in ["开会", "下午开会", "开"] {
        let plan = match (&s.sqlite, &s.pg) {
            (Some(sqlite), _) => sqlite.plan(query(q)).await.unwrap(),
            (_, Some(pg)) => pg.plan(query(q)).await.unwrap(),
            _ => unreachable!(),
        };
        let text = plan.join("\n");
        if s.sqlite.is_some() {
            assert!(text.contains("VIRTUAL TABLE INDEX"), "{q}: {text}");
            assert!(
                !plan
                    .iter()
                    .any(|l| l == "SCAN m" || l.starts_with("SCAN m ")),
                "{q}: a scan of the messages: {text}"
            );
        } else {
            assert!(
                text.contains("onebot_archive_messages_grams"),
                "{q}: {text}"
            );
        }
    }
}
both!(index, text_queries_use_the_index);

async fn filters_by_sender_time_and_chat(s: Subject) {
    let ops = vec![
        put(&msg(GROUP, 1, T0, 10001, "a"), Source::Event),
        put(&msg(GROUP, 2, T0 + 10, 10002, "b"), Source::Event),
        put(&msg(OTHER, 3, T0 + 20, 10001, "c"), Source::Event),
        put(&msg(GROUP, 4, T0 + 30, 10001, "d"), Source::Sent),
        put(
            &msg(ChatRef::Private(10001), 5, T0 + 40, 10001, "e"),
            Source::Event,
        ),
    ];
    s.store.apply(ops).await.unwrap();
    let run = |q: Query| {
        let store = s.store.clone();
        async move { ids(&store.search(q).await.unwrap()) }
    };
    assert_eq!(run(query("")).await, vec![5, 4, 3, 2, 1]);
    assert_eq!(
        run(Query {
            sender_id: Some(10001),
            ..query("")
        })
        .await,
        vec![5, 4, 3, 1]
    );
    assert_eq!(
        run(Query {
            since: Some(T0 + 10),
            until: Some(T0 + 30),
            ..query("")
        })
        .await,
        vec![3, 2],
        "since inclusive, until exclusive"
    );
    assert_eq!(
        run(Query {
            chats: ChatScope::Only(vec![GROUP, ChatRef::Private(10001)]),
            ..query("")
        })
        .await,
        vec![5, 4, 2, 1]
    );
    assert!(
        run(Query {
            chats: ChatScope::Only(Vec::new()),
            ..query("")
        })
        .await
        .is_empty()
    );
    assert_eq!(
        run(Query {
            ascending: true,
            limit: 2,
            ..query("")
        })
        .await,
        vec![1, 2]
    );
    assert!(
        run(Query {
            account_id: "second".into(),
            ..query("")
        })
        .await
        .is_empty(),
        "accounts are apart"
    );
    assert_eq!(
        s.store
            .newest(ACCOUNT, GROUP)
            .await
            .unwrap()
            .unwrap()
            .message_id,
        4
    );
    let mut active = s.store.active_chats(ACCOUNT, T0 + 15).await.unwrap();
    active.sort();
    assert_eq!(active, vec![OTHER, GROUP, ChatRef::Private(10001)]);
}
both!(filters, filters_by_sender_time_and_chat);

async fn paging_returns_every_match_once(s: Subject) {
    // 1000 messages over 100 seconds: ten per second, in three chats, so
    // pages cut through equal times.
    let chats = [GROUP, OTHER, ChatRef::Private(10001)];
    let ops: Vec<ArchiveOp> = (0..1000)
        .map(|i| {
            let text = if i % 3 == 0 {
                format!("{i} 开会")
            } else {
                format!("{i} 闲聊")
            };
            put(
                &msg(
                    chats[i as usize % 3],
                    10_000 + i,
                    T0 + i / 10,
                    10001 + i % 7,
                    &text,
                ),
                Source::Event,
            )
        })
        .collect();
    for chunk in ops.chunks(250) {
        s.store.apply(chunk.to_vec()).await.unwrap();
    }
    for (text, expected) in [("", 1000usize), ("开会", 334)] {
        let mut seen = Vec::new();
        let mut cursor: Option<Position> = None;
        loop {
            let page = s
                .store
                .search(Query {
                    cursor,
                    limit: 37,
                    ..query(text)
                })
                .await
                .unwrap();
            if page.is_empty() {
                break;
            }
            let positions: Vec<Position> = page.iter().map(|a| a.position).collect();
            assert!(positions.windows(2).all(|w| w[0] > w[1]), "newest first");
            if let Some(c) = &cursor {
                assert!(positions[0] < *c);
            }
            cursor = positions.last().copied();
            seen.extend(ids(&page));
        }
        let unique: HashSet<i64> = seen.iter().copied().collect();
        assert_eq!(seen.len(), expected, "{text:?}: every match");
        assert_eq!(unique.len(), expected, "{text:?}: no match twice");
    }
}
both!(paging, paging_returns_every_match_once);

async fn recalled_messages_are_hidden_unless_asked_for(s: Subject) {
    let m = msg(GROUP, 1, T0, 10001, "撤回我");
    s.store.apply(vec![put(&m, Source::Event)]).await.unwrap();
    let recall = |id| ArchiveOp::Recall {
        account_id: ACCOUNT.into(),
        chat: GROUP,
        message_id: id,
        time: T0 + 5,
    };
    s.store.apply(vec![recall(1)]).await.unwrap();
    assert!(s.store.search(query("撤回")).await.unwrap().is_empty());
    let all = s
        .store
        .search(Query {
            include_recalled: true,
            ..query("撤回")
        })
        .await
        .unwrap();
    assert_eq!(ids(&all), vec![1]);
    assert!(all[0].recalled);
    // A recall seen before its message: the message stays recalled.
    s.store.apply(vec![recall(2)]).await.unwrap();
    let late = msg(GROUP, 2, T0 + 1, 10001, "先撤回后到达");
    let applied = s
        .store
        .apply(vec![put(&late, Source::Backfill)])
        .await
        .unwrap();
    assert_eq!(applied.stored_total(), 1);
    assert!(s.store.search(query("到达")).await.unwrap().is_empty());
    let got = s.store.get(ACCOUNT, GROUP, 2).await.unwrap().unwrap();
    assert!(got.recalled);
    assert_eq!(got.message, late);
}
both!(recall, recalled_messages_are_hidden_unless_asked_for);

async fn retention_and_size_limits_delete_the_oldest(s: Subject) {
    let ops: Vec<ArchiveOp> = (0..100)
        .map(|i| {
            put(
                &msg(GROUP, i, T0 + i * 60, 10001, &"字".repeat(50)),
                Source::Event,
            )
        })
        .collect();
    s.store.apply(ops).await.unwrap();
    let pruned = s.store.prune(T0 + 10 * 60, u64::MAX).await.unwrap();
    assert_eq!(pruned.expired.messages, 10);
    assert_eq!(pruned.oversize.messages, 0);
    let usage = s.store.usage().await.unwrap();
    assert_eq!(usage.messages, 90);
    let per_message = usage.bytes / 90;
    let limit = per_message * 40 + per_message / 2;
    let pruned = s.store.prune(0, limit).await.unwrap();
    assert_eq!(pruned.oversize.messages, 50);
    let usage = s.store.usage().await.unwrap();
    assert!(usage.bytes <= limit, "{usage:?} within {limit}");
    let left = ids(&s
        .store
        .search(Query {
            ascending: true,
            ..query("")
        })
        .await
        .unwrap());
    assert_eq!(left, (60..100).collect::<Vec<_>>(), "the oldest went first");
    // Deleted rows leave the text index too.
    assert_eq!(s.store.search(query("字字")).await.unwrap().len(), 40);
}
both!(limits, retention_and_size_limits_delete_the_oldest);

async fn purges_delete_a_chat_or_a_person_and_release_their_media(s: Subject) {
    let with_media = |m: &Message, media: &[&str]| ArchiveOp::Put {
        account_id: ACCOUNT.into(),
        message: m.clone(),
        source: Source::Event,
        media_ids: media.iter().map(|x| x.to_string()).collect(),
    };
    s.store
        .apply(vec![
            with_media(&msg(GROUP, 1, T0, 10001, "一"), &["m-shared", "m-one"]),
            with_media(&msg(OTHER, 2, T0 + 1, 10002, "二"), &["m-shared"]),
            put(&msg(OTHER, 3, T0 + 2, 10001, "三"), Source::Event),
            put(
                &msg(ChatRef::Private(10001), 4, T0 + 3, 10001, "四"),
                Source::Event,
            ),
        ])
        .await
        .unwrap();
    let deleted = s
        .store
        .purge(PurgeScope::Chat {
            account_id: None,
            chat: GROUP,
        })
        .await
        .unwrap();
    assert_eq!(deleted.messages, 1);
    assert_eq!(deleted.orphaned_media, vec!["m-one".to_string()]);
    let deleted = s
        .store
        .purge(PurgeScope::Sender {
            account_id: Some(ACCOUNT.into()),
            user_id: 10001,
        })
        .await
        .unwrap();
    assert_eq!(deleted.messages, 2, "their messages in every chat");
    assert!(deleted.orphaned_media.is_empty());
    assert_eq!(ids(&s.store.search(query("")).await.unwrap()), vec![2]);
    let deleted = s
        .store
        .purge(PurgeScope::Sender {
            account_id: None,
            user_id: 10002,
        })
        .await
        .unwrap();
    assert_eq!(deleted.orphaned_media, vec!["m-shared".to_string()]);
    assert!(s.store.search(query("二")).await.unwrap().is_empty());
}
both!(
    purge,
    purges_delete_a_chat_or_a_person_and_release_their_media
);

#[tokio::test]
async fn the_sqlite_archive_survives_reopening() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = SqliteArchive::open(dir.path()).unwrap();
        store
            .apply(vec![put(
                &msg(GROUP, 1, T0, 10001, "留下来"),
                Source::Event,
            )])
            .await
            .unwrap();
    }
    let store = SqliteArchive::open(dir.path()).unwrap();
    assert_eq!(ids(&store.search(query("留下")).await.unwrap()), vec![1]);
}

fn poke(n: i64) -> InboundEvent {
    InboundEvent::Poke {
        group_id: 1,
        user_id: n,
        target_id: 2,
        time: n,
    }
}

async fn next_seq(sub: &mut onebot_gateway_domain::events::Subscription) -> u64 {
    sub.next().await.unwrap().unwrap().sequence
}

#[tokio::test]
async fn event_numbers_and_the_resume_buffer_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let open = || -> Arc<dyn EventJournal> { Arc::new(SqliteJournal::open(dir.path()).unwrap()) };
    let last = {
        let hub = EventHub::durable(
            4,
            usize::MAX,
            CancellationToken::new(),
            CancellationToken::new(),
            open(),
            false,
        )
        .unwrap();
        let mut sub = hub.subscribe("a", None, EventFilter::default()).unwrap();
        // Committed in order: once the last of "a" is delivered, "b" is in.
        hub.publish("b", poke(100));
        let mut last = 0;
        for n in 1..=6 {
            hub.publish("a", poke(n));
            last = next_seq(&mut sub).await;
        }
        assert_eq!(last, 6);
        last
    };
    // A new process over the same journal.
    let hub = EventHub::durable(
        4,
        usize::MAX,
        CancellationToken::new(),
        CancellationToken::new(),
        open(),
        false,
    )
    .unwrap();
    assert_eq!(hub.last_sequence("a"), last);
    assert_eq!(hub.last_sequence("b"), 1);
    // A subscriber from before the restart resumes from the buffer…
    let mut resumed = hub.subscribe("a", Some(3), EventFilter::default()).unwrap();
    let replayed: Vec<u64> = vec![
        next_seq(&mut resumed).await,
        next_seq(&mut resumed).await,
        next_seq(&mut resumed).await,
    ];
    assert_eq!(replayed, vec![4, 5, 6]);
    let first = resumed.next();
    hub.publish("a", poke(7));
    // …then continues live, numbered on from the last delivered.
    let live = first.await.unwrap().unwrap();
    assert_eq!(live.sequence, 7);
    assert_eq!(&*live.event, &poke(7));
    // Older than the buffer: the clear gap error.
    let err = hub
        .subscribe("a", Some(1), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.kind, onebot_gateway_domain::error::Kind::EventGapTooOld);
}

#[tokio::test]
async fn the_resume_buffer_reloaded_at_start_obeys_its_byte_bound() {
    let dir = tempfile::tempdir().unwrap();
    let open = || -> Arc<dyn EventJournal> { Arc::new(SqliteJournal::open(dir.path()).unwrap()) };
    let big = |n: usize| InboundEvent::Unknown {
        post_type: "request".into(),
        group_id: None,
        time: 0,
        raw: onebot_gateway_domain::model::RawJson::from_text("x".repeat(n)),
    };
    let one = onebot_gateway_domain::journal::StoredEvent::new(
        Arc::from("a"),
        1,
        0,
        Arc::new(big(100_000)),
    )
    .footprint();
    {
        let hub = EventHub::durable(
            1024,
            usize::MAX,
            CancellationToken::new(),
            CancellationToken::new(),
            open(),
            false,
        )
        .unwrap();
        let mut sub = hub.subscribe("a", None, EventFilter::default()).unwrap();
        for _ in 0..10 {
            hub.publish("a", big(100_000));
            next_seq(&mut sub).await;
        }
    }
    // The journal holds all ten; the reload reads only what fits.
    let state = open().open(1024, 3 * one).unwrap();
    assert_eq!(
        state.recent.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        vec![8, 9, 10]
    );
    let hub = EventHub::durable(
        1024,
        3 * one,
        CancellationToken::new(),
        CancellationToken::new(),
        open(),
        false,
    )
    .unwrap();
    assert_eq!(hub.last_sequence("a"), 10);
    let err = hub
        .subscribe("a", Some(6), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.meta("oldest_sequence"), Some("8"));
}

#[tokio::test]
async fn the_journal_keeps_what_the_archive_has_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    let journal = SqliteJournal::open(dir.path()).unwrap();
    let event = |seq: u64| onebot_gateway_domain::journal::Journaled {
        id: seq,
        entry: JournalEntry::Event(onebot_gateway_domain::journal::StoredEvent::new(
            Arc::from("a"),
            seq,
            0,
            Arc::new(poke(seq as i64)),
        )),
    };
    let batch: Vec<_> = (1..=10).map(event).collect();
    journal.append(&batch, Some(3)).unwrap();
    // Keep 2 events; the archive took up to 3: entries 1..=3 may go.
    assert_eq!(journal.trim(2, 3).unwrap(), 3);
    let page = journal.read_after(0, 100).unwrap();
    assert_eq!(page.entries.first().map(|j| j.id), Some(4));
    assert_eq!(page.last_id, Some(10));
    let state = journal.open(2, usize::MAX).unwrap();
    assert_eq!(state.checkpoint, 3);
    assert_eq!(state.last_id, 10);
    assert_eq!(
        state.recent.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        vec![9, 10]
    );
    // Once the archive took everything, only the buffer stays.
    journal.append(&[], Some(10)).unwrap();
    journal.trim(2, 10).unwrap();
    assert_eq!(journal.read_after(0, 100).unwrap().entries.len(), 2);
    // A sent message the archive took, then trimmed: the next ids still go
    // past the checkpoint, so later entries are not mistaken for taken ones.
    let sent = onebot_gateway_domain::journal::Journaled {
        id: 11,
        entry: JournalEntry::Sent {
            account_id: Arc::from("a"),
            message: Box::new(msg(GROUP, 1, T0, 1, "发出")),
        },
    };
    journal.append(&[sent], Some(11)).unwrap();
    journal.trim(2, 11).unwrap();
    assert_eq!(journal.open(2, usize::MAX).unwrap().last_id, 11);
}
