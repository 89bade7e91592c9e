//! Phase 2: the event hub (over the journal) and the path into it, the
//! accounts, the archive with its background tasks, the write side and the
//! [`Gateway`] over them, built in one step; the event sinks over its journal.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::prepare::Prepared;
use onebot_gateway_domain::archive::purge::NoCapturedMedia;
use onebot_gateway_domain::archive::recorder::SentRecorder;
use onebot_gateway_domain::archive::service::{Archive, ArchiveParts};
use onebot_gateway_domain::archive::{backfill, ingest, retention};
use onebot_gateway_domain::auth::Authenticator;
use onebot_gateway_domain::delivery::side::{WriteParts, WriteSide};
use onebot_gateway_domain::events::EventHub;
use onebot_gateway_domain::gateway::{Gateway, GatewayParts};
use onebot_gateway_domain::inbound::Inbound;
use onebot_gateway_domain::media::capture::Capture;
use onebot_gateway_domain::media::download::Received;
use onebot_gateway_domain::ports::EventSink;
use onebot_gateway_domain::quotes::Quotes;
use onebot_gateway_fetch::{Fetcher, SystemLookup};
use onebot_gateway_tls::TlsAcceptor;

/// What stops a running gateway, in two stages.
#[derive(Debug, Clone)]
pub struct Stop {
    /// Ends open event streams (first, as soon as shutdown starts).
    pub streams: CancellationToken,
    /// Stops connections and background work (after in-flight RPCs).
    pub cancel: CancellationToken,
}

/// A started gateway, before it serves.
pub struct Running {
    /// The domain root every edge serves.
    pub gateway: Arc<Gateway>,
    /// The bearer tokens (`None`: authentication off).
    pub auth: Option<Arc<Authenticator>>,
    /// The listener's TLS (`None`: plaintext).
    pub tls: Option<Arc<TlsAcceptor>>,
    /// The Prometheus listener, when configured.
    pub metrics: Option<tokio::net::TcpListener>,
    /// The MCP endpoint's own listener, when `mcp.listen` is configured.
    pub mcp: Option<tokio::net::TcpListener>,
    /// The embedded sandbox, when no account was configured.
    pub sandbox: Option<super::sandbox::Embedded>,
    /// What stops it.
    pub stop: Stop,
}

/// Starts the accounts (connections open in the background) and opens the
/// write side over them.
pub async fn start(prepared: Prepared, stop: Stop) -> anyhow::Result<Running> {
    let Prepared {
        config,
        auth,
        tls,
        metrics,
        mcp,
        queue,
        idempotency,
        media,
        received,
        journal,
        archive,
        governance,
        sandbox,
        ha,
    } = prepared;
    let events = EventHub::durable(
        config.events.buffer_size,
        config.events.buffer_bytes,
        stop.streams.clone(),
        stop.cancel.clone(),
        journal,
        archive.is_some(),
    )
    .map_err(|e| anyhow::anyhow!("opening the event journal: {e}"))?;
    // The adapters publish into the event path (quotes resolved, recalls
    // once), which ends in the hub.
    let journal_handle = events.journal().cloned();
    let inbound = Inbound::new(
        events.clone(),
        Arc::new(Quotes::default()),
        stop.cancel.clone(),
    );
    let sink: Arc<dyn EventSink> = inbound.clone();
    // Under [ha] an account's adapter connects only while this gateway
    // leads it; every account starts as standby.
    let leadership = ha.as_ref().map(|h| h.leadership.clone());
    let accounts =
        super::accounts::start(&config, sink, leadership.as_deref(), &stop.cancel).await?;
    inbound.attach(&accounts);
    let archive = match (archive, events.journal()) {
        (Some(store), Some(journal)) => {
            let (archive, inputs) = Archive::new(ArchiveParts {
                config: config.archive.clone(),
                store,
                journal: journal.clone(),
                accounts: accounts.clone(),
                checkpoint: journal.opened_checkpoint(),
            });
            tokio::spawn(ingest::run(archive.clone(), inputs, stop.cancel.clone()));
            tokio::spawn(retention::run(
                archive.clone(),
                Arc::new(NoCapturedMedia),
                stop.cancel.clone(),
            ));
            for account in accounts.iter().filter(|a| a.config.has_transport()) {
                tokio::spawn(backfill::run(
                    archive.clone(),
                    account.clone(),
                    inbound.clone(),
                    stop.cancel.clone(),
                ));
            }
            Some(archive)
        }
        _ => None,
    };
    let recorder = match (&archive, events.journal()) {
        (Some(a), Some(journal)) => Some(SentRecorder::new(
            journal.clone(),
            Arc::new(a.chats().clone()),
        )),
        _ => None,
    };
    let mut fetcher = Fetcher::new(&config.media, media.clone(), Arc::new(SystemLookup));
    if let Some(sandbox) = &sandbox {
        fetcher = super::sandbox::trust_media(sandbox, fetcher);
    }
    let urls = Arc::new(fetcher);
    let write = WriteSide::open(WriteParts {
        config: &config,
        queue,
        idempotency,
        media,
        urls: urls.clone(),
        accounts: &accounts,
        recorder,
        shutdown: stop.cancel.clone(),
        received: Some(received.clone()),
    })
    .map_err(|e| anyhow::anyhow!("opening the write side: {e}"))?;
    // The received store's background work is waited for like the write
    // side's, so a stopped gateway has let go of the store.
    write.track(received.spawn_sweeper(stop.cancel.clone()));
    let received = Received::new(received, urls, config.media.clone());
    // Capture on receipt: an observer of the hub queues, workers fetch.
    if let Some((capture, task)) = Capture::start(received.clone(), &accounts, stop.cancel.clone())
    {
        events.observe(capture.observer());
        write.track(task);
    }
    let gateway = Arc::new(Gateway::new(GatewayParts {
        config,
        accounts,
        events,
        inbound,
        write,
        received,
        archive,
        governance: Some(governance),
        leadership,
    })?);
    super::ha::follow(&gateway, &stop.cancel);
    super::sinks::start(&gateway, journal_handle, &stop.cancel)?;
    if let Some(ha) = ha {
        // Waited for at shutdown: the leases held are released, so a
        // standby takes the accounts over at once.
        gateway.write().track(ha.spawn(stop.cancel.clone()));
    }
    // Waited for at shutdown like the write side's own tasks: it holds the
    // gateway (and so its stores) until it ends.
    gateway.write().track(tokio::spawn(
        gateway.clone().run_approvals(stop.cancel.clone()),
    ));
    Ok(Running {
        gateway,
        auth,
        tls,
        metrics,
        mcp,
        sandbox,
        stop,
    })
}
