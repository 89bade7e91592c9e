use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;
use crate::model::ConnState;

fn poke(group_id: i64) -> InboundEvent {
    InboundEvent::Poke {
        group_id,
        user_id: 1,
        target_id: 2,
        time: 0,
    }
}

fn conn() -> InboundEvent {
    InboundEvent::Connection {
        state: ConnState::Connected,
        detail: String::new(),
    }
}

#[tokio::test]
async fn numbers_per_account_and_fans_out() {
    let hub = EventHub::new(8, CancellationToken::new());
    let mut a1 = hub.subscribe("a", None, EventFilter::default()).unwrap();
    let mut a2 = hub.subscribe("a", None, EventFilter::default()).unwrap();
    hub.publish("a", poke(1));
    hub.publish("b", poke(1));
    hub.publish("a", poke(2));
    for sub in [&mut a1, &mut a2] {
        let first = sub.next().await.unwrap().unwrap();
        let second = sub.next().await.unwrap().unwrap();
        assert_eq!((first.sequence, second.sequence), (1, 2));
        assert_eq!(&*second.event, &poke(2));
    }
    assert_eq!(hub.last_sequence("b"), 1);
    assert_eq!(hub.last_sequence("c"), 0);
}

fn big(n: usize) -> InboundEvent {
    InboundEvent::Unknown {
        post_type: "request".into(),
        group_id: None,
        time: 0,
        raw: crate::model::RawJson::from_text("x".repeat(n)),
    }
}

#[tokio::test]
async fn the_resume_buffer_is_bounded_by_bytes_and_keeps_the_newest() {
    let one = StoredEvent::new(Arc::from("a"), 1, 0, Arc::new(big(100_000))).footprint();
    let hub = EventHub::bounded(1024, 3 * one, CancellationToken::new());
    for _ in 0..10 {
        hub.publish("a", big(100_000));
    }
    // Ten fit the count, three the bytes: 8, 9, 10 stay.
    let err = hub
        .subscribe("a", Some(6), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.kind, Kind::EventGapTooOld);
    assert_eq!(err.meta("oldest_sequence"), Some("8"));
    let mut sub = hub.subscribe("a", Some(7), EventFilter::default()).unwrap();
    assert_eq!(sub.next().await.unwrap().unwrap().sequence, 8);
    // One event above the bound on its own still stays, alone.
    hub.publish("a", big(1_000_000));
    let err = hub
        .subscribe("a", Some(9), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.meta("oldest_sequence"), Some("11"));
}

#[tokio::test]
async fn a_stalled_subscriber_holds_no_event_the_buffer_let_go() {
    let one = StoredEvent::new(Arc::from("a"), 1, 0, Arc::new(big(100_000))).footprint();
    let hub = EventHub::bounded(1024, 3 * one, CancellationToken::new());
    let mut stalled = hub.subscribe("a", None, EventFilter::default()).unwrap();
    let mut reader = hub.subscribe("a", None, EventFilter::default()).unwrap();
    hub.publish("a", big(100_000));
    let first = Arc::downgrade(&reader.next().await.unwrap().unwrap().event);
    drop(reader);
    for _ in 0..10 {
        hub.publish("a", big(100_000));
    }
    assert!(
        first.upgrade().is_none(),
        "the first event is freed although a subscriber never read it"
    );
    // 9, 10 and 11 stay: the stalled subscriber lost 1 to 8, and says so.
    let err = stalled.next().await.unwrap().unwrap_err();
    assert_eq!(err.kind, Kind::EventStreamLagged);
    assert_eq!(err.meta("last_sequence"), Some("0"));
    assert_eq!(err.meta("missed"), Some("8"));
}

#[tokio::test]
async fn resumes_from_the_buffer_or_reports_the_gap() {
    let hub = EventHub::new(3, CancellationToken::new());
    for g in 1..=5 {
        hub.publish("a", poke(g));
    }
    // Buffer holds 3, 4, 5.
    let mut sub = hub.subscribe("a", Some(2), EventFilter::default()).unwrap();
    let seqs = [
        sub.next().await.unwrap().unwrap().sequence,
        sub.next().await.unwrap().unwrap().sequence,
        sub.next().await.unwrap().unwrap().sequence,
    ];
    assert_eq!(seqs, [3, 4, 5]);
    hub.publish("a", poke(6));
    assert_eq!(sub.next().await.unwrap().unwrap().sequence, 6);

    let err = hub
        .subscribe("a", Some(1), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.kind, Kind::EventGapTooOld);
    assert_eq!(err.meta("oldest_sequence"), Some("4"));
    let err = hub
        .subscribe("a", Some(99), EventFilter::default())
        .unwrap_err();
    assert_eq!(err.kind, Kind::InvalidRequest);
    assert_eq!(err.field.as_deref(), Some("after_sequence"));
    // Up to date: nothing to replay.
    let mut sub = hub.subscribe("a", Some(6), EventFilter::default()).unwrap();
    hub.publish("a", poke(7));
    assert_eq!(sub.next().await.unwrap().unwrap().sequence, 7);
}

#[tokio::test]
async fn a_slow_subscriber_gets_an_error_not_silent_loss() {
    let hub = EventHub::new(2, CancellationToken::new());
    let mut sub = hub.subscribe("a", None, EventFilter::default()).unwrap();
    hub.publish("a", poke(1));
    assert_eq!(sub.next().await.unwrap().unwrap().sequence, 1);
    for g in 0..5 {
        hub.publish("a", poke(g));
    }
    let err = sub.next().await.unwrap().unwrap_err();
    assert_eq!(err.kind, Kind::EventStreamLagged);
    assert_eq!(err.meta("last_sequence"), Some("1"));
    assert!(sub.next().await.is_none(), "the stream is over");
}

#[tokio::test]
async fn try_next_takes_what_is_queued_and_never_waits() {
    let cancel = CancellationToken::new();
    let hub = EventHub::new(2, cancel.clone());
    let filter = EventFilter {
        chats: [ChatRef::Group(7)].into_iter().collect(),
        kinds: HashSet::new(),
    };
    let mut sub = hub.subscribe("a", None, filter).unwrap();
    assert!(sub.try_next().is_pending(), "nothing published yet");
    hub.publish("a", poke(8));
    assert!(sub.try_next().is_pending(), "only a filtered-out event");
    assert_eq!(sub.last_sequence(), 1, "its sequence is passed");
    hub.publish("a", poke(7));
    let Poll::Ready(Some(Ok(e))) = sub.try_next() else {
        panic!("the queued event is returned at once");
    };
    assert_eq!((e.sequence, &*e.event), (2, &poke(7)));
    // Overwritten before it was read: the lag error, then the end.
    for _ in 0..3 {
        hub.publish("a", poke(7));
    }
    let Poll::Ready(Some(Err(err))) = sub.try_next() else {
        panic!("the lag is reported without waiting");
    };
    assert_eq!(err.kind, Kind::EventStreamLagged);
    assert!(matches!(sub.try_next(), Poll::Ready(None)));
    // Shutdown ends a stream even with events queued.
    let mut other = hub.subscribe("a", None, EventFilter::default()).unwrap();
    hub.publish("a", poke(7));
    cancel.cancel();
    assert!(matches!(other.try_next(), Poll::Ready(None)));
    assert!(other.next().await.is_none());
}

#[tokio::test]
async fn filters_by_chat_and_kind_and_ends_on_shutdown() {
    let cancel = CancellationToken::new();
    let hub = EventHub::new(16, cancel.clone());
    let filter = EventFilter {
        chats: [ChatRef::Group(7)].into_iter().collect(),
        kinds: HashSet::new(),
    };
    let mut sub = hub.subscribe("a", None, filter).unwrap();
    let kinds = EventFilter {
        chats: HashSet::new(),
        kinds: [EventKind::Connection].into_iter().collect(),
    };
    let mut only_conn = hub.subscribe("a", None, kinds).unwrap();
    hub.publish("a", poke(8));
    hub.publish("a", poke(7));
    hub.publish("a", conn());
    assert_eq!(&*sub.next().await.unwrap().unwrap().event, &poke(7));
    assert_eq!(&*sub.next().await.unwrap().unwrap().event, &conn());
    let c = only_conn.next().await.unwrap().unwrap();
    assert_eq!((c.sequence, only_conn.last_sequence()), (3, 3));
    cancel.cancel();
    assert!(sub.next().await.is_none());
}

#[tokio::test]
async fn observers_see_every_event_synchronously() {
    let hub = EventHub::new(1, CancellationToken::new());
    let seen = Arc::new(AtomicUsize::new(0));
    let s = seen.clone();
    hub.observe(Arc::new(move |account, event| {
        if account == "a" && matches!(event, InboundEvent::Poke { .. }) {
            s.fetch_add(1, Ordering::SeqCst);
        }
    }));
    for g in 0..10 {
        hub.publish("a", poke(g));
    }
    assert_eq!(seen.load(Ordering::SeqCst), 10);
}
