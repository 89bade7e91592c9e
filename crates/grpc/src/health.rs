//! `grpc.health.v1.Health` as the gateway serves it: tonic-health's service
//! behind two rules for callers without a token (probes; every caller when
//! authentication is off):
//!
//! - their `Watch` streams are capped, over all such callers
//!   (`limits.max_anonymous_health_watches`) and per remote address
//!   (`limits.max_anonymous_health_watches_per_address`); one more is
//!   refused with RESOURCE_EXHAUSTED, reason OVERLOADED. A stream holds
//!   its place until it ends;
//! - with authentication on, the per-account names
//!   (`onebot.gateway.v1.account.<id>`) answer as an unknown service
//!   (NOT_FOUND "service not registered"), for configured and unknown ids
//!   alike, so the account ids cannot be enumerated. A token sees the names
//!   of the accounts it may use. The process (`""`) and the service names
//!   stay open to probes.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_stream::Stream;
use tonic::transport::server::{TcpConnectInfo, TlsConnectInfo};
use tonic::{Request, Response, Status};
use tonic_health::pb::health_server::Health;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse};
use tonic_health::server::HealthService;

use onebot_gateway_config::LimitsConfig;
use onebot_gateway_domain::caller::Caller;
use onebot_gateway_domain::error::{Error, Kind};

/// Set by the auth layer on a request served without a token while
/// authentication is on.
#[derive(Debug, Clone, Copy)]
pub struct WithoutToken;

/// See the module docs.
pub struct GuardedHealth {
    inner: HealthService,
    authenticated: bool,
    watches: Arc<WatchLimits>,
}

struct WatchLimits {
    global: Arc<Semaphore>,
    global_max: usize,
    per_address: usize,
    by_address: Mutex<HashMap<IpAddr, usize>>,
    retry_after: Duration,
}

impl GuardedHealth {
    /// Wraps `inner`; `authenticated` tells whether tokens are configured.
    pub fn new(inner: HealthService, authenticated: bool, limits: &LimitsConfig) -> Self {
        Self {
            inner,
            authenticated,
            watches: Arc::new(WatchLimits {
                global: Arc::new(Semaphore::new(limits.max_anonymous_health_watches)),
                global_max: limits.max_anonymous_health_watches,
                per_address: limits.max_anonymous_health_watches_per_address,
                by_address: Mutex::new(HashMap::new()),
                retry_after: Duration::from_millis(limits.overload_retry_after_ms),
            }),
        }
    }

    /// True when `request` may not see its service name: an account's name
    /// asked without a token (or by a token not allowed the account) while
    /// authentication is on.
    fn hidden(&self, request: &Request<HealthCheckRequest>) -> bool {
        if !self.authenticated {
            return false;
        }
        let Some(account) = request
            .get_ref()
            .service
            .strip_prefix(onebot_gateway_client::ACCOUNT_HEALTH_SERVICE_PREFIX)
        else {
            return false;
        };
        let ext = request.extensions();
        if ext.get::<WithoutToken>().is_some() {
            return true;
        }
        ext.get::<Caller>()
            .is_some_and(|caller| !caller.allows_account(account))
    }
}

fn unknown_service() -> Status {
    Status::not_found("service not registered")
}

/// The remote address of a plaintext or TLS connection.
fn remote_ip<T>(request: &Request<T>) -> IpAddr {
    let ext = request.extensions();
    ext.get::<TcpConnectInfo>()
        .and_then(|i| i.remote_addr())
        .or_else(|| {
            ext.get::<TlsConnectInfo<TcpConnectInfo>>()
                .and_then(|i| i.get_ref().remote_addr())
        })
        .map(|a: SocketAddr| a.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// A watch's place in the limits, given back when it is dropped.
struct WatchPlace {
    limits: Arc<WatchLimits>,
    ip: IpAddr,
    _global: OwnedSemaphorePermit,
}

impl Drop for WatchPlace {
    fn drop(&mut self) {
        let mut by = self.limits.by_address.lock();
        if let Some(n) = by.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                by.remove(&self.ip);
            }
        }
    }
}

impl WatchLimits {
    fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<WatchPlace, Status> {
        let overloaded = |message: String, limit: usize| {
            crate::status::status_of(
                Error::new(Kind::Overloaded, message)
                    .with("limit", limit)
                    .retry_after(self.retry_after),
            )
        };
        let global = self.global.clone().try_acquire_owned().map_err(|_| {
            overloaded(
                format!(
                    "too many health watches without a token ({} open; limits.max_anonymous_health_watches)",
                    self.global_max
                ),
                self.global_max,
            )
        })?;
        let mut by = self.by_address.lock();
        let n = by.entry(ip).or_insert(0);
        if *n >= self.per_address {
            if *n == 0 {
                by.remove(&ip);
            }
            return Err(overloaded(
                format!(
                    "too many health watches without a token from this address ({} open; limits.max_anonymous_health_watches_per_address)",
                    self.per_address
                ),
                self.per_address,
            ));
        }
        *n += 1;
        Ok(WatchPlace {
            limits: self.clone(),
            ip,
            _global: global,
        })
    }
}

/// tonic-health's watch stream, holding its place in the limits.
pub struct GuardedWatch {
    inner: tonic_health::server::WatchStream,
    _place: Option<WatchPlace>,
}

impl Stream for GuardedWatch {
    type Item = Result<HealthCheckResponse, Status>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

#[tonic::async_trait]
impl Health for GuardedHealth {
    async fn check(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        if self.hidden(&request) {
            return Err(unknown_service());
        }
        self.inner.check(request).await
    }

    type WatchStream = GuardedWatch;

    async fn watch(
        &self,
        request: Request<HealthCheckRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        if self.hidden(&request) {
            return Err(unknown_service());
        }
        let with_token = request
            .extensions()
            .get::<Caller>()
            .is_some_and(|c| c.token_name().is_some());
        let place = if with_token {
            None
        } else {
            Some(self.watches.admit(remote_ip(&request))?)
        };
        let inner = self.inner.watch(request).await?.into_inner();
        Ok(Response::new(GuardedWatch {
            inner,
            _place: place,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(global: usize, per_address: usize) -> Arc<WatchLimits> {
        Arc::new(WatchLimits {
            global: Arc::new(Semaphore::new(global)),
            global_max: global,
            per_address,
            by_address: Mutex::new(HashMap::new()),
            retry_after: Duration::from_secs(1),
        })
    }

    #[test]
    fn watches_are_capped_globally_and_per_address_and_give_back_their_place() {
        let ip = |n: u8| IpAddr::V4(Ipv4Addr::new(10, 0, 0, n));
        let l = limits(3, 2);
        let a1 = l.admit(ip(1)).unwrap();
        let _a2 = l.admit(ip(1)).unwrap();
        let e = l.admit(ip(1)).map(|_| ()).unwrap_err();
        assert_eq!(e.code(), tonic::Code::ResourceExhausted);
        assert!(e.message().contains("per_address"), "{e:?}");
        let _b1 = l.admit(ip(2)).unwrap();
        let e = l.admit(ip(3)).map(|_| ()).unwrap_err();
        assert!(
            e.message()
                .ends_with("limits.max_anonymous_health_watches)"),
            "{e:?}"
        );
        drop(a1);
        let _c1 = l.admit(ip(3)).unwrap();
        let _a3 = l.admit(ip(1)).map(|_| ()).unwrap_err();
        assert_eq!(l.by_address.lock().get(&ip(1)), Some(&1));
    }
}
