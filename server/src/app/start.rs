//! Phase 2: the event hub and the path into it, the accounts, the write
//! side and the [`Gateway`] over them, built in one step.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::prepare::Prepared;
use crate::auth::Authenticator;
use crate::domain::delivery::side::{WriteParts, WriteSide};
use crate::domain::events::EventHub;
use crate::domain::gateway::{Gateway, GatewayParts};
use crate::domain::inbound::Inbound;
use crate::domain::media::capture::Capture;
use crate::domain::media::download::Received;
use crate::domain::ports::EventSink;
use crate::domain::quotes::Quotes;
use crate::fetch::{Fetcher, SystemLookup};
use crate::tls::TlsAcceptor;

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
    /// The embedded sandbox, when no account was configured.
    pub sandbox: Option<onebot_sandbox::Sandbox>,
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
        store,
        media,
        received,
        sandbox,
    } = prepared;
    let events = Arc::new(EventHub::new(
        config.events.buffer_size,
        stop.streams.clone(),
    ));
    // The adapters publish into the event path (quotes resolved, recalls
    // once), which ends in the hub.
    let inbound = Inbound::new(
        events.clone(),
        Arc::new(Quotes::default()),
        stop.cancel.clone(),
    );
    let sink: Arc<dyn EventSink> = inbound.clone();
    let accounts = super::accounts::start(&config, sink, &stop.cancel).await?;
    inbound.attach(&accounts);
    let mut fetcher = Fetcher::new(&config.media, media.clone(), Arc::new(SystemLookup));
    if let Some(sandbox) = &sandbox {
        // The embedded sandbox serves its media on loopback.
        fetcher = fetcher.trust_peer_origin(onebot_sandbox::MEDIA_HOST, sandbox.addr().port());
    }
    let urls = Arc::new(fetcher);
    let write = WriteSide::open(WriteParts {
        config: &config,
        store,
        media,
        urls: urls.clone(),
        accounts: &accounts,
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
    })?);
    Ok(Running {
        gateway,
        auth,
        tls,
        metrics,
        sandbox,
        stop,
    })
}
