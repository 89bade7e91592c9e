//! Streamable HTTP sessions with a budget: `rmcp`'s in-memory session
//! manager, where each session holds one permit of a semaphore it shares
//! with the `subscriptions/listen` streams. A session gives its permit back
//! when it closes: on `DELETE`, when its worker ends, and after
//! `mcp.session_idle_timeout_ms` without traffic (the manager's
//! keep-alive), so a client that opens sessions and never closes them
//! holds at most `mcp.max_sessions` of them, each for a bounded time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::WorkerTransport;
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, LocalSessionWorker,
};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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
    budget: Arc<Semaphore>,
    held: Mutex<HashMap<SessionId, OwnedSemaphorePermit>>,
}

impl BudgetedSessions {
    /// Sessions taking permits of `budget`, closed after `idle` without
    /// traffic.
    pub fn new(budget: Arc<Semaphore>, idle: Duration) -> Self {
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
        self.held.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn release(&self, id: &SessionId) {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(id);
    }
}

impl SessionManager for BudgetedSessions {
    type Error = SessionError;
    type Transport = WorkerTransport<LocalSessionWorker>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let permit = self
            .budget
            .clone()
            .try_acquire_owned()
            .map_err(|_| SessionError::Full)?;
        let (id, transport) = self.inner.create_session().await?;
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), permit);
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
