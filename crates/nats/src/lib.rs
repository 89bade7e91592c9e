//! The NATS JetStream event sink (`[[events.sinks]] kind = "nats"`).
//!
//! Rules:
//! - Every committed event of the journal is published once to
//!   `<prefix>.<account>.<kind>.<chat>` (`kind` the event kind's lower-case
//!   name, `chat` `group.<id>`, `private.<id>` or `none`), with the headers
//!   `Nats-Msg-Id: <account>:<sequence>` (JetStream drops a repeat within
//!   the stream's duplicate window) and `Onebot-Sequence: <sequence>`.
//! - In journal order, so in order per account. A publish counts only once
//!   JetStream acknowledged it; the position after the last acknowledged
//!   entry (and each account's last published sequence) is written to
//!   `<data_dir>/sinks/<name>.json` at most once a second while batches are
//!   acknowledged, and when the sink stops or goes idle, so a restart,
//!   kill -9 included, resumes after it and repeats at most the last
//!   second's events (dropped by JetStream as duplicates).
//! - While NATS is unreachable the sink retries with backoff; the gRPC
//!   event streams do not wait for it. Entries the journal no longer holds
//!   when the sink reaches them (it keeps `events.buffer_size` events per
//!   account) are a gap: logged, counted, and published as a notice on
//!   `<prefix>.<account>.gap.none` naming the missing sequences.
//! - The stream is created when missing, with the subjects
//!   `<prefix>.>` and the configured duplicate window.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream;
use async_nats::jetstream::context::PublishAckFuture;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use onebot_gateway_config::SinkConfig;
use onebot_gateway_domain::backoff::Backoff;
use onebot_gateway_domain::events::{EventKind, chat_of};
use onebot_gateway_domain::journal::{Journal, JournalEntry, StoredEvent};
use onebot_gateway_domain::model::ChatRef;

/// Entries read from the journal and published per batch.
const BATCH: usize = 256;

/// How long the sink waits for a commit before it looks again.
const IDLE: Duration = Duration::from_secs(1);

/// Longest time between two writes of the position while publishing.
const STORE_EVERY: Duration = Duration::from_secs(1);

/// Turns an event into the bytes published (the `Event` message, in the
/// configured encoding).
pub type Encoder = Arc<dyn Fn(&StoredEvent) -> Vec<u8> + Send + Sync>;

/// What a sink stands on.
pub struct SinkParts {
    /// Its configuration.
    pub config: SinkConfig,
    /// The journal it publishes.
    pub journal: Journal,
    /// The gateway's data directory (its position file lives below it).
    pub data_dir: PathBuf,
    /// The event's bytes.
    pub encode: Encoder,
    /// The last sequence numbered for each account (what the sink's lag
    /// per account is counted against).
    pub last_sequences: LastSequences,
    /// Stops it.
    pub shutdown: CancellationToken,
}

/// The last sequence numbered for each account.
pub type LastSequences = Arc<dyn Fn() -> Vec<(String, u64)> + Send + Sync>;

/// How many events of each account of `last` the sink has not yet had
/// acknowledged, from the last sequences it published (`published`).
pub fn account_lags(
    last: &[(String, u64)],
    published: &BTreeMap<String, u64>,
) -> Vec<(String, u64)> {
    last.iter()
        .map(|(account, seq)| {
            let done = published.get(account).copied().unwrap_or(0);
            (account.clone(), seq.saturating_sub(done))
        })
        .collect()
}

/// Sets the lag gauges of sink `name` at `position`: journal entries, and
/// events per account.
fn report_lag(name: &str, journal: &Journal, position: &Position, last: &LastSequences) {
    let entries = journal.last_committed().saturating_sub(position.journal_id);
    onebot_gateway_telemetry::metrics::sink_lag(name, entries);
    for (account, events) in account_lags(&last(), &position.sequences) {
        onebot_gateway_telemetry::metrics::sink_account_lag(name, &account, events);
    }
}

/// Where a sink is: the journal id after which it goes on, and the last
/// sequence it published per account.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// The last journal id acknowledged (every entry up to it is done).
    pub journal_id: u64,
    /// The last sequence published per account.
    pub sequences: BTreeMap<String, u64>,
}

impl Position {
    /// The position file of sink `name` under `data_dir`.
    pub fn path(data_dir: &Path, name: &str) -> PathBuf {
        data_dir.join("sinks").join(format!("{name}.json"))
    }

    /// The stored position; the start of the journal when there is none.
    pub fn load(path: &Path) -> std::io::Result<Position> {
        match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("{}: {e}", path.display()),
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Position::default()),
            Err(e) => Err(e),
        }
    }

    /// Writes the position durably: a temporary file synced, then renamed
    /// over the old one.
    pub fn store(&self, path: &Path) -> std::io::Result<()> {
        use std::io::Write as _;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&serde_json::to_vec(self).unwrap_or_default())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        if let Some(dir) = path.parent()
            && let Ok(d) = std::fs::File::open(dir)
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// A subject token of `s`: characters other than letters, digits, `_` and
/// `-` replaced by `_`.
fn token(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The subject of `event` under `prefix`.
pub fn subject(prefix: &str, event: &StoredEvent) -> String {
    let kind = EventKind::of(&event.event).name();
    let chat = match chat_of(&event.event) {
        Some(ChatRef::Group(g)) => format!("group.{g}"),
        Some(ChatRef::Private(u)) => format!("private.{u}"),
        None => "none".to_owned(),
    };
    format!("{prefix}.{}.{kind}.{chat}", token(&event.account_id))
}

/// The `Nats-Msg-Id` of `event`.
pub fn message_id(event: &StoredEvent) -> String {
    format!("{}:{}", event.account_id, event.sequence)
}

/// Why a batch was not published.
#[derive(Debug)]
struct Failed(String);

impl<E: std::fmt::Display> From<E> for Failed {
    fn from(e: E) -> Self {
        Failed(e.to_string())
    }
}

/// Starts the sink; it runs until `shutdown`.
pub fn spawn(parts: SinkParts) -> tokio::task::JoinHandle<()> {
    tokio::spawn(run(parts))
}

async fn connect(config: &SinkConfig) -> Result<jetstream::Context, Failed> {
    let mut opts = async_nats::ConnectOptions::new()
        .name(format!("onebot-gateway sink {}", config.name))
        .connection_timeout(Duration::from_secs(5))
        .require_tls(config.tls_required);
    if let Some(t) = &config.token {
        opts = opts.token(t.expose().to_owned());
    }
    if let (Some(u), p) = (&config.user, &config.password) {
        opts = opts.user_and_password(
            u.clone(),
            p.as_ref()
                .map(|p| p.expose().to_owned())
                .unwrap_or_default(),
        );
    }
    if let Some(creds) = &config.creds_file {
        opts = opts.credentials_file(creds).await?;
    }
    if let Some(ca) = &config.tls_ca_file {
        opts = opts.add_root_certificates(ca.clone());
    }
    if let (Some(cert), Some(key)) = (&config.tls_cert_file, &config.tls_key_file) {
        opts = opts.add_client_certificate(cert.clone(), key.clone());
    }
    let urls: Vec<async_nats::ServerAddr> = config
        .url
        .split(',')
        .map(|u| u.trim().parse())
        .collect::<Result<_, _>>()?;
    let client = opts.connect(urls).await?;
    let js = jetstream::new(client);
    js.get_or_create_stream(jetstream::stream::Config {
        name: config.stream.clone(),
        subjects: vec![format!("{}.>", config.subject_prefix)],
        duplicate_window: Duration::from_secs(config.duplicate_window_secs),
        ..Default::default()
    })
    .await?;
    Ok(js)
}

async fn run(parts: SinkParts) {
    let SinkParts {
        config,
        journal,
        data_dir,
        encode,
        last_sequences,
        shutdown,
    } = parts;
    let name = config.name.clone();
    let path = Position::path(&data_dir, &name);
    let mut position = match Position::load(&path) {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(sink = %name, error = %e, "the sink's position cannot be read; it does not run");
            return;
        }
    };
    let mut backoff = Backoff::new(Duration::from_millis(200), Duration::from_secs(10), true);
    // The position written last, and when.
    let mut saved = Saved {
        path,
        name: name.clone(),
        journal: journal.clone(),
        stored: position.clone(),
        at: std::time::Instant::now(),
    };
    'connect: loop {
        let js = tokio::select! {
            () = shutdown.cancelled() => {
                saved.store(&position).await;
                return;
            }
            r = connect(&config) => r,
        };
        let js = match js {
            Ok(js) => {
                tracing::info!(sink = %name, stream = %config.stream, "event sink connected to NATS");
                js
            }
            Err(Failed(e)) => {
                onebot_gateway_telemetry::metrics::sink_failed(&name);
                tracing::warn!(sink = %name, error = %e, "event sink cannot reach NATS; retrying");
                let delay = backoff.next_delay();
                tokio::select! {
                    () = shutdown.cancelled() => {
                        saved.store(&position).await;
                        return;
                    }
                    () = tokio::time::sleep(delay) => continue 'connect,
                }
            }
        };
        loop {
            let committed = journal.committed().clone();
            let notified = committed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match publish_batch(&js, &config, &journal, &encode, &mut position).await {
                Ok(0) => {
                    saved.store(&position).await;
                    report_lag(&name, &journal, &position, &last_sequences);
                    tokio::select! {
                        () = shutdown.cancelled() => {
                            saved.store(&position).await;
                            return;
                        }
                        () = &mut notified => {}
                        () = tokio::time::sleep(IDLE) => {}
                    }
                }
                Ok(_) => {
                    backoff.reset();
                    if saved.at.elapsed() >= STORE_EVERY || shutdown.is_cancelled() {
                        saved.store(&position).await;
                    }
                    report_lag(&name, &journal, &position, &last_sequences);
                    if shutdown.is_cancelled() {
                        return;
                    }
                }
                Err(Failed(e)) => {
                    onebot_gateway_telemetry::metrics::sink_failed(&name);
                    tracing::warn!(sink = %name, error = %e, "event sink publish failed; retrying from its position");
                    let delay = backoff.next_delay();
                    tokio::select! {
                        () = shutdown.cancelled() => {
                            saved.store(&position).await;
                            return;
                        }
                        () = tokio::time::sleep(delay) => {}
                    }
                    if js.get_stream(&config.stream).await.is_err() {
                        continue 'connect;
                    }
                }
            }
        }
    }
}

/// Where a sink's position is kept: its file, and (under `[ha]`) the
/// journal's shared record of what each account's events the sink
/// published, which a gateway that comes to lead an account goes on from.
struct Saved {
    path: PathBuf,
    name: String,
    journal: Journal,
    /// The position written last, and when.
    stored: Position,
    at: std::time::Instant,
}

impl Saved {
    /// Writes `position` when it moved since the last write.
    async fn store(&mut self, position: &Position) {
        if *position == self.stored {
            return;
        }
        if let Err(e) = position.store(&self.path) {
            tracing::error!(sink = %self.name, error = %e, "the sink's position cannot be written");
        }
        let moved: Vec<(String, u64)> = position
            .sequences
            .iter()
            .filter(|(account, seq)| self.stored.sequences.get(*account) != Some(*seq))
            .map(|(account, seq)| (account.clone(), *seq))
            .collect();
        let (store, name) = (self.journal.store().clone(), self.name.clone());
        let shared =
            tokio::task::spawn_blocking(move || store.store_reader_positions(&name, &moved)).await;
        match shared {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(sink = %self.name, error = %e, "the sink's shared position cannot be written");
            }
            Err(e) => {
                tracing::warn!(sink = %self.name, error = %e, "the sink's shared position cannot be written");
            }
        }
        self.stored = position.clone();
        self.at = std::time::Instant::now();
    }
}

/// What one batch publishes with, and the messages it published, each
/// with its account, waiting for their acknowledgements.
struct Publisher<'a> {
    js: &'a jetstream::Context,
    config: &'a SinkConfig,
    journal: &'a Journal,
    encode: &'a Encoder,
    acks: Vec<(Arc<str>, PublishAckFuture)>,
}

impl Publisher<'_> {
    /// Publishes the notice that `account`'s events `from..=to` left the
    /// journal before the sink published them.
    async fn gap(&mut self, account: &Arc<str>, from: u64, to: u64) -> Result<(), Failed> {
        let config = self.config;
        tracing::error!(
            sink = %config.name,
            account = %account,
            from,
            to,
            "events left the journal before the sink published them"
        );
        onebot_gateway_telemetry::metrics::sink_lost(&config.name, account, to + 1 - from);
        let gap = serde_json::json!({
            "account_id": &**account,
            "first_missing_sequence": from,
            "last_missing_sequence": to,
        });
        let subject = format!("{}.{}.gap.none", config.subject_prefix, token(account));
        let msg = async_nats::jetstream::message::PublishMessage::build()
            .payload(Bytes::from(gap.to_string()))
            .message_id(format!("{account}:gap:{from}"));
        let ack = self.js.send_publish(subject, msg).await?;
        self.acks.push((account.clone(), ack));
        Ok(())
    }

    /// Publishes `event`.
    async fn event(&mut self, event: &StoredEvent) -> Result<(), Failed> {
        let msg = async_nats::jetstream::message::PublishMessage::build()
            .payload(Bytes::from((self.encode)(event)))
            .message_id(message_id(event))
            .header("Onebot-Sequence", event.sequence.to_string().as_str());
        let ack = self
            .js
            .send_publish(subject(&self.config.subject_prefix, event), msg)
            .await?;
        self.acks.push((event.account_id.clone(), ack));
        Ok(())
    }

    /// Before `account`'s event `until`, when the sink's own position of
    /// the account (`last`) is behind it: with a journal shared under
    /// `[ha]`, goes on from what any gateway's sink published, publishing
    /// the events another gateway journaled and no sink published yet (a
    /// gap notice for those the journal no longer holds). Returns the
    /// account's position after it; `last` as it was when the journal is
    /// not shared.
    async fn catch_up(&mut self, account: &Arc<str>, last: u64, until: u64) -> Result<u64, Failed> {
        let store = self.journal.store().clone();
        let (name, owned) = (self.config.name.clone(), account.to_string());
        let shared =
            tokio::task::spawn_blocking(move || store.reader_position(&name, &owned)).await??;
        let Some(published) = shared else {
            return Ok(last);
        };
        let mut last = last.max(published);
        while last + 1 < until {
            let store = self.journal.store().clone();
            let owned = account.to_string();
            let want = usize::try_from(until - last - 1)
                .unwrap_or(BATCH)
                .min(BATCH);
            let after = last;
            let events =
                tokio::task::spawn_blocking(move || store.events_after(&owned, after, want))
                    .await??
                    .unwrap_or_default();
            let events: Vec<StoredEvent> =
                events.into_iter().filter(|e| e.sequence < until).collect();
            if events.is_empty() {
                break;
            }
            for event in &events {
                if event.sequence > last + 1 {
                    self.gap(account, last + 1, event.sequence - 1).await?;
                }
                self.event(event).await?;
                last = event.sequence;
            }
        }
        Ok(last)
    }
}

/// Publishes the entries after `position` (one batch) and waits for their
/// acknowledgements; returns how many journal entries it moved past.
async fn publish_batch(
    js: &jetstream::Context,
    config: &SinkConfig,
    journal: &Journal,
    encode: &Encoder,
    position: &mut Position,
) -> Result<usize, Failed> {
    let store = journal.store().clone();
    let after = position.journal_id;
    let page = tokio::task::spawn_blocking(move || store.read_after(after, BATCH)).await??;
    let Some(last_id) = page.last_id else {
        return Ok(0);
    };
    let mut publisher = Publisher {
        js,
        config,
        journal,
        encode,
        acks: Vec::new(),
    };
    let mut sequences = position.sequences.clone();
    for entry in &page.entries {
        let JournalEntry::Event(event) = &entry.entry else {
            continue;
        };
        let account = &event.account_id;
        let mut last = sequences.get(&**account).copied().unwrap_or(0);
        if event.sequence > last + 1 {
            last = publisher.catch_up(account, last, event.sequence).await?;
        }
        if event.sequence <= last {
            sequences.insert(account.to_string(), last);
            continue;
        }
        if last > 0 && event.sequence > last + 1 {
            publisher.gap(account, last + 1, event.sequence - 1).await?;
        }
        publisher.event(event).await?;
        sequences.insert(account.to_string(), event.sequence);
    }
    let acks = publisher.acks;
    let mut published: BTreeMap<Arc<str>, u64> = BTreeMap::new();
    for (account, ack) in acks {
        ack.await?;
        *published.entry(account).or_default() += 1;
    }
    for (account, n) in published {
        onebot_gateway_telemetry::metrics::sink_published(&config.name, &account, n);
    }
    position.sequences = sequences;
    position.journal_id = last_id;
    Ok(page.entries.len().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use onebot_gateway_domain::model::InboundEvent;

    #[test]
    fn the_lag_of_an_account_is_what_was_numbered_and_not_yet_acknowledged() {
        let published: BTreeMap<String, u64> = [("a".to_owned(), 7)].into_iter().collect();
        let last = [
            ("a".to_owned(), 10),
            ("b".to_owned(), 3),
            ("c".to_owned(), 0),
        ];
        assert_eq!(
            account_lags(&last, &published),
            [
                ("a".to_owned(), 3),
                ("b".to_owned(), 3),
                ("c".to_owned(), 0)
            ]
        );
    }

    fn event(account: &str, sequence: u64, e: InboundEvent) -> StoredEvent {
        StoredEvent::new(account.into(), sequence, 0, Arc::new(e))
    }

    #[test]
    fn subjects_name_the_account_kind_and_chat() {
        let poke = event(
            "default",
            7,
            InboundEvent::Poke {
                group_id: 20000003,
                user_id: 1,
                target_id: 2,
                time: 0,
            },
        );
        assert_eq!(subject("qq", &poke), "qq.default.poke.group.20000003");
        assert_eq!(message_id(&poke), "default:7");
        let private = event(
            "bot.two",
            1,
            InboundEvent::Poke {
                group_id: 0,
                user_id: 10001,
                target_id: 2,
                time: 0,
            },
        );
        assert_eq!(subject("a.b", &private), "a.b.bot_two.poke.private.10001");
        let lifecycle = event(
            "default",
            2,
            InboundEvent::Lifecycle {
                sub_type: "connect".into(),
                time: 0,
            },
        );
        assert_eq!(subject("qq", &lifecycle), "qq.default.lifecycle.none");
    }

    #[test]
    fn positions_survive_a_round_trip_and_start_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = Position::path(dir.path(), "nats");
        assert_eq!(Position::load(&path).unwrap(), Position::default());
        let p = Position {
            journal_id: 42,
            sequences: [("default".to_owned(), 40)].into(),
        };
        p.store(&path).unwrap();
        assert_eq!(Position::load(&path).unwrap(), p);
        std::fs::write(&path, b"not json").unwrap();
        assert!(Position::load(&path).is_err());
    }
}
