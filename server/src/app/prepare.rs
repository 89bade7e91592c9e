//! Phase 1: everything that can fail on configuration or on the data
//! directory, before any task starts.

use std::sync::Arc;

use anyhow::Context;
use tokio::net::TcpListener;

use onebot_gateway_config::Config;
use onebot_gateway_domain::archive::store::ArchiveStore;
use onebot_gateway_domain::auth::Authenticator;
use onebot_gateway_domain::journal::EventJournal;
use onebot_gateway_domain::media::received::ReceivedStore;
use onebot_gateway_domain::media::shared::SharedBlobs;
use onebot_gateway_domain::media::staging::MediaStore;
use onebot_gateway_domain::policy::store::GovernanceStore;
use onebot_gateway_domain::store::{IdempotencyStore, MediaIndex, QueueStore, ReceivedIndex};
use onebot_gateway_store::ids::IdStore;
use onebot_gateway_store::shared::blobs::PgBlobs;
use onebot_gateway_store::shared::ids::PgIds;
use onebot_gateway_store::shared::journal::PgJournal;
use onebot_gateway_store::shared::state::PgState;
use onebot_gateway_store::state::StateStore;
use onebot_gateway_tls::TlsAcceptor;

/// What the later phases are built from.
pub struct Prepared {
    /// The configuration, with the embedded sandbox's account added when
    /// none was configured.
    pub config: Arc<Config>,
    /// The bearer tokens (`None`: authentication off).
    pub auth: Option<Arc<Authenticator>>,
    /// The listener's TLS (`None`: plaintext).
    pub tls: Option<Arc<TlsAcceptor>>,
    /// The Prometheus listener, when `[metrics]` is configured.
    pub metrics: Option<TcpListener>,
    /// The MCP endpoint's own listener, when `mcp.listen` is configured.
    pub mcp: Option<TcpListener>,
    /// The offline queue: under the data directory, or shared under
    /// `[ha]`.
    pub queue: Arc<dyn QueueStore>,
    /// The idempotency records, beside the offline queue.
    pub idempotency: Arc<dyn IdempotencyStore>,
    /// The staging area under the data directory.
    pub media: MediaStore,
    /// The received-media store under the data directory.
    pub received: ReceivedStore,
    /// The journal events go through before they are delivered.
    pub journal: Arc<dyn EventJournal>,
    /// The message archive's store (`None`: `archive.enabled = false`).
    pub archive: Option<Arc<dyn ArchiveStore>>,
    /// Approvals and the audit trail, where the archive keeps its
    /// messages.
    pub governance: Arc<dyn GovernanceStore>,
    /// The embedded sandbox, when no account was configured.
    pub sandbox: Option<super::sandbox::Embedded>,
    /// The account leases of `[ha]`, when configured.
    pub ha: Option<super::ha::Ha>,
}

/// Checks and opens what the gateway stands on. `metrics` is a pre-bound
/// Prometheus listener (tests bind port 0); without one, `metrics.listen`
/// is bound here when `[metrics]` is configured.
pub async fn prepare(config: Config, metrics: Option<TcpListener>) -> anyhow::Result<Prepared> {
    let auth =
        Authenticator::from_config(&config.auth, &|var| std::env::var(var).ok())?.map(Arc::new);
    let tls = config
        .server
        .tls
        .as_ref()
        .map(TlsAcceptor::load)
        .transpose()?
        .map(Arc::new);
    let metrics = match (&config.metrics, metrics) {
        (None, _) => None,
        (Some(_), Some(l)) => Some(l),
        (Some(m), None) => Some(
            TcpListener::bind(m.listen)
                .await
                .with_context(|| format!("binding metrics.listen {}", m.listen))?,
        ),
    };
    let mcp = match (config.mcp.enabled, config.mcp.listen) {
        (true, Some(addr)) => Some(
            TcpListener::bind(addr)
                .await
                .with_context(|| format!("binding mcp.listen {addr}"))?,
        ),
        _ => None,
    };
    let data_dir = &config.server.data_dir;
    onebot_gateway_domain::store::create_private_dir(data_dir)
        .with_context(|| format!("creating data directory {}", data_dir.display()))?;
    // Under [ha] the leases are claimed before the shared stores are read,
    // so what this gateway reads of an account it leads is final.
    let ha = super::ha::Ha::open(&config).await?;
    let shared = match (&config.ha, &ha) {
        (Some(c), Some(h)) => {
            let shared =
                onebot_gateway_store::open::shared(c, &config.archive, h.leadership.clone())
                    .await
                    .map_err(|e| anyhow::anyhow!("opening the shared stores of [ha]: {e}"))?;
            tracing::info!(store = %shared.describe(), "[ha]: the journal, offline queue, idempotency records, message ids and media are shared");
            Some(shared)
        }
        _ => None,
    };
    let state = match &shared {
        Some(shared) => State::shared(Arc::new(PgState::new(shared.clone()))),
        // The error names the file and the remedy; the file is never replaced.
        None => State::shared(Arc::new(
            StateStore::open(data_dir).map_err(|e| anyhow::anyhow!("{e}"))?,
        )),
    };
    // The way back for the message ids the adapters mint into an int64.
    match &shared {
        Some(shared) => {
            let ids = PgIds::new(shared.clone());
            onebot_gateway_domain::ids::persist_with(|| Ok(ids))
        }
        None => {
            // Checked on every start, also when this process already holds
            // the store of an earlier one.
            IdStore::check(data_dir).map_err(|e| anyhow::anyhow!("{e}"))?;
            onebot_gateway_domain::ids::persist_with(|| IdStore::open(data_dir).map(IdFile))
        }
    }
    .map_err(|e| anyhow::anyhow!("opening the message id store: {e}"))?;
    // Under [ha] the bytes of staged and captured media are kept in the
    // shared database as well, so a new leader serves them.
    let blobs: Option<Arc<dyn SharedBlobs>> = shared
        .as_ref()
        .map(|s| Arc::new(PgBlobs::new(s.clone())) as Arc<dyn SharedBlobs>);
    let share = config.limits.share_of(config.media.staging_quota_bytes);
    let media = match &blobs {
        Some(blobs) => MediaStore::open_with_blobs(
            data_dir,
            state.media.clone(),
            config.media.clone(),
            share,
            blobs.clone(),
        ),
        None => MediaStore::open_shared(data_dir, state.media.clone(), config.media.clone(), share),
    }
    .map_err(|e| anyhow::anyhow!("opening the write side: {e}"))?;
    let capture = config.media.capture.clone();
    let received = match &blobs {
        Some(blobs) => {
            ReceivedStore::open_with_blobs(data_dir, state.received.clone(), capture, blobs.clone())
        }
        None => ReceivedStore::open(data_dir, state.received.clone(), capture),
    }
    .map_err(|e| anyhow::anyhow!("opening the received-media store: {e}"))?;
    let journal: Arc<dyn EventJournal> = match (&shared, &ha) {
        (Some(shared), Some(h)) => Arc::new(PgJournal::new(shared.clone(), h.instance())),
        _ => onebot_gateway_store::open::journal(data_dir)
            .map_err(|e| anyhow::anyhow!("opening the event journal: {e}"))?,
    };
    let archive = onebot_gateway_store::open::archive(&config.archive, data_dir)
        .await
        .map_err(|e| anyhow::anyhow!("opening the message archive: {e}"))?;
    if let Some(a) = &archive {
        tracing::info!(archive = %a.describe(), "message archive open");
    }
    let governance = onebot_gateway_store::open::governance(&config.archive, data_dir)
        .await
        .map_err(|e| anyhow::anyhow!("opening the approvals and audit store: {e}"))?;
    tracing::info!(store = %governance.describe(), "approvals and audit trail open");
    let mut config = config;
    let sandbox = if config.accounts.is_empty() {
        Some(super::sandbox::start(&mut config).await?)
    } else {
        None
    };
    Ok(Prepared {
        config: Arc::new(config),
        auth,
        tls,
        metrics,
        mcp,
        queue: state.queue,
        idempotency: state.idempotency,
        media,
        received,
        journal,
        archive,
        governance,
        sandbox,
        ha,
    })
}

/// The message-id store, as the domain's port.
struct IdFile(IdStore);

impl onebot_gateway_domain::ids::IdMap for IdFile {
    fn get(&self, id: i64) -> Result<Option<String>, String> {
        self.0.get(id)
    }

    fn put(&self, entries: &[(i64, String)]) -> Result<(), String> {
        self.0.put(entries)
    }
}

/// The durable state's four ports, over one store.
struct State {
    queue: Arc<dyn QueueStore>,
    idempotency: Arc<dyn IdempotencyStore>,
    media: Arc<dyn MediaIndex>,
    received: Arc<dyn ReceivedIndex>,
}

impl State {
    fn shared<S>(store: Arc<S>) -> State
    where
        S: QueueStore + IdempotencyStore + MediaIndex + ReceivedIndex + 'static,
    {
        State {
            queue: store.clone(),
            idempotency: store.clone(),
            media: store.clone(),
            received: store,
        }
    }
}
