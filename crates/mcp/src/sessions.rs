//! Streamable HTTP sessions with a budget: `rmcp`'s in-memory session
//! manager, where each session holds one permit of a semaphore it shares
//! with the `subscriptions/listen` streams. A session gives its permit back
//! when it closes: on `DELETE`, when its worker ends, and after
//! `mcp.session_idle_timeout_ms` without traffic (the manager's
//! keep-alive), so a client that opens sessions and never closes them
//! holds at most its share of `mcp.max_sessions` of them
//! (`limits.max_share_per_client`), each for a bounded time.
//!
//! A session belongs to the token that opened it ([`Opener`], set by the
//! transport around the request that opens it); the transport answers 404
//! to any other token naming it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::Stream;
use onebot_gateway_domain::shares::{Shares, Slot};
use parking_lot::Mutex;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

/// Who opens a session: the client whose share it takes and the token that
/// owns it (`None`: no token, not owned).
#[derive(Debug, Clone, Default)]
pub struct Opener {
    /// The client's key.
    pub client: Option<Arc<str>>,
    /// The token's name.
    pub owner: Option<String>,
}

tokio::task_local! {
    /// The opener of a session created while a request is served.
    pub static OPENER: Opener;
}

/// An open session's slot of the budget and its owner.
#[derive(Debug)]
struct Held {
    _slot: Slot,
    owner: Option<String>,
}

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Every permit is taken.
    #[error("too many MCP sessions are open")]
    Full,
    /// The inner manager failed.
    #[error(transparent)]
    Local(#[from] LocalSessionManagerError),
}

/// [`LocalSessionManager`] with a session budget (see the module docs).
#[derive(Debug)]
pub struct BudgetedSessions {
    inner: LocalSessionManager,
    budget: Arc<Shares>,
    held: Mutex<HashMap<SessionId, Held>>,
}

impl BudgetedSessions {
    /// Sessions taking slots of `budget`, closed after `idle` without
    /// traffic.
    pub fn new(budget: Arc<Shares>, idle: Duration) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        Self {
            inner,
            budget,
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Sessions open now.
    pub fn open(&self) -> usize {
        self.held.lock().len()
    }

    /// The owner of session `id`: `None` when no such session is open,
    /// `Some(None)` when it is not owned.
    pub fn owner(&self, id: &str) -> Option<Option<String>> {
        self.held.lock().get(id).map(|held| held.owner.clone())
    }

    fn release(&self, id: &SessionId) {
        self.held.lock().remove(id);
    }
}

impl SessionManager for BudgetedSessions {
    type Error = SessionError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let opener = OPENER.try_with(Opener::clone).unwrap_or_default();
        let slot = self
            .budget
            .slot(opener.client)
            .map_err(|_| SessionError::Full)?;
        let (id, transport) = self.inner.create_session().await?;
        self.held.lock().insert(
            id.clone(),
            Held {
                _slot: slot,
                owner: opener.owner,
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        let closed = self.inner.close_session(id).await;
        self.release(id);
        Ok(closed?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_stream(id, message).await?)
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}
