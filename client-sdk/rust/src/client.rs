//! [`Client`]: one connection to a gateway, with the bearer token and the
//! account (`x-onebot-account`) on every call, and a method per RPC; the
//! event stream resumes by itself after a broken connection.

use std::path::PathBuf;
use std::time::Duration;

use tonic::metadata::{Ascii, MetadataValue};
use tonic::service::Interceptor;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::health_client::HealthClient;

use crate::ACCOUNT_METADATA_KEY;
use crate::error::Error;
use crate::pb;
use crate::pb::account_service_client::AccountServiceClient;
use crate::pb::agent_tool_service_client::AgentToolServiceClient;
use crate::pb::event_service_client::EventServiceClient;
use crate::pb::group_service_client::GroupServiceClient;
use crate::pb::media_service_client::MediaServiceClient;
use crate::pb::message_service_client::MessageServiceClient;
use crate::retry::{DEFAULT_NOT_LEADER_BUDGET, NotLeaderRetry};

/// The gateway's default listen address.
pub const DEFAULT_ADDRESS: &str = "http://127.0.0.1:50051";

/// Largest response the clients decode (history pages with many segments).
const MAX_DECODING_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The channel type of the generated clients a [`Client`] hands out: the
/// connection, retrying `NOT_LEADER` refusals ([`NotLeaderRetry`]), with the
/// token and account on every call.
pub type Authed = InterceptedService<NotLeaderRetry, BearerAuth>;

/// Adds `authorization: Bearer <token>` to every request when a token is
/// set, and the account metadata ([`ACCOUNT_METADATA_KEY`]) when an account
/// is set and the request carries none of its own.
#[derive(Clone, Debug, Default)]
pub struct BearerAuth {
    header: Option<MetadataValue<Ascii>>,
    account: Option<MetadataValue<Ascii>>,
}

impl BearerAuth {
    /// An interceptor sending `token`, or nothing when `None`.
    pub fn new(token: Option<&str>) -> Result<Self, Error> {
        let header = token
            .map(|t| {
                MetadataValue::try_from(format!("Bearer {t}")).map_err(|_| {
                    Error::InvalidInput("the token must be visible ASCII characters".into())
                })
            })
            .transpose()?;
        Ok(Self {
            header,
            account: None,
        })
    }

    /// This interceptor also sending `account_id` (`default` when empty) as
    /// [`ACCOUNT_METADATA_KEY`].
    pub fn with_account(mut self, account_id: &str) -> Result<Self, Error> {
        self.account = Some(account_value(account_id)?);
        Ok(self)
    }
}

/// The metadata value of an account id: the id, `default` when empty.
fn account_value(account_id: &str) -> Result<MetadataValue<Ascii>, Error> {
    let id = if account_id.is_empty() {
        "default"
    } else {
        account_id
    };
    let invalid = || {
        Error::InvalidInput(format!(
            "account id {id:?}: account ids are ASCII letters, digits, `_` and `-`"
        ))
    };
    if !id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(invalid());
    }
    MetadataValue::try_from(id).map_err(|_| invalid())
}

impl Interceptor for BearerAuth {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(header) = &self.header {
            request
                .metadata_mut()
                .insert("authorization", header.clone());
        }
        if let Some(account) = &self.account
            && !request.metadata().contains_key(ACCOUNT_METADATA_KEY)
        {
            request
                .metadata_mut()
                .insert(ACCOUNT_METADATA_KEY, account.clone());
        }
        Ok(request)
    }
}

/// Settings of a [`Client`]; see [`Client::builder`].
#[derive(Clone, Debug)]
pub struct ClientBuilder {
    address: String,
    token: Option<String>,
    ca_file: Option<PathBuf>,
    domain_name: Option<String>,
    account_id: String,
    timeout: Option<Duration>,
    connect_timeout: Duration,
    not_leader_budget: Duration,
}

impl ClientBuilder {
    /// Bearer token sent as `authorization: Bearer <token>` on every call.
    pub fn token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// Like [`ClientBuilder::token`], for an optional value.
    pub fn maybe_token(mut self, token: Option<String>) -> Self {
        self.token = token;
        self
    }

    /// PEM file of the CA that signed the gateway's certificate (TLS only;
    /// without it an `https://` address is checked against the system's
    /// roots).
    pub fn ca_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.ca_file = Some(path.into());
        self
    }

    /// Name to verify the gateway's certificate against, when it differs
    /// from the address's host.
    pub fn domain_name(mut self, name: impl Into<String>) -> Self {
        self.domain_name = Some(name.into());
        self
    }

    /// Account used by the helpers (default `default`).
    pub fn account_id(mut self, account_id: impl Into<String>) -> Self {
        self.account_id = account_id.into();
        self
    }

    /// Deadline of every call (none by default; streams are not limited).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// How long to wait for the TCP/TLS connection (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long a call refused with UNAVAILABLE `NOT_LEADER` (a standby
    /// gateway under `[ha]`) is retried in all (default 30 s;
    /// `Duration::ZERO` turns retrying off). Each retry waits the refusal's
    /// `RetryInfo` delay, or 250 ms doubling to 5 s with jitter; the call's
    /// deadline ([`ClientBuilder::timeout`], `grpc-timeout`) also ends it,
    /// and then the last `NOT_LEADER` error is returned. No other error is
    /// retried, and uploads (client streaming) are not.
    pub fn not_leader_retry(mut self, budget: Duration) -> Self {
        self.not_leader_budget = budget;
        self
    }

    fn endpoint(&self) -> Result<Endpoint, Error> {
        let mut endpoint = Endpoint::from_shared(self.address.clone())
            .map_err(|e| Error::InvalidInput(format!("invalid address {:?}: {e}", self.address)))?
            .connect_timeout(self.connect_timeout)
            .tcp_nodelay(true);
        if let Some(timeout) = self.timeout {
            endpoint = endpoint.timeout(timeout);
        }
        let https = self.address.starts_with("https://");
        if !https && (self.ca_file.is_some() || self.domain_name.is_some()) {
            return Err(Error::InvalidInput(
                "TLS settings need an https:// address".into(),
            ));
        }
        if https {
            endpoint = self.tls(endpoint)?;
        }
        Ok(endpoint)
    }

    #[cfg(feature = "tls")]
    fn tls(&self, endpoint: Endpoint) -> Result<Endpoint, Error> {
        use tonic::transport::{Certificate, ClientTlsConfig};
        let mut tls = ClientTlsConfig::new();
        match &self.ca_file {
            Some(path) => {
                let pem = std::fs::read(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                tls = tls.ca_certificate(Certificate::from_pem(pem));
            }
            None => tls = tls.with_native_roots(),
        }
        if let Some(name) = &self.domain_name {
            tls = tls.domain_name(name.clone());
        }
        Ok(endpoint.tls_config(tls)?)
    }

    #[cfg(not(feature = "tls"))]
    fn tls(&self, _endpoint: Endpoint) -> Result<Endpoint, Error> {
        Err(Error::InvalidInput(
            "https:// addresses need the `tls` feature of onebot-gateway-client".into(),
        ))
    }

    /// Connects now; fails when the gateway cannot be reached.
    pub async fn connect(self) -> Result<Client, Error> {
        let channel = self.endpoint()?.connect().await?;
        self.finish(channel)
    }

    /// Returns a client that connects on first use (and reconnects after a
    /// failure); fails only on invalid settings.
    pub fn connect_lazy(self) -> Result<Client, Error> {
        let channel = self.endpoint()?.connect_lazy();
        self.finish(channel)
    }

    fn finish(self, channel: Channel) -> Result<Client, Error> {
        Ok(Client {
            auth: BearerAuth::new(self.token.as_deref())?.with_account(&self.account_id)?,
            channel: NotLeaderRetry::new(channel, self.not_leader_budget, self.timeout),
            account_id: self.account_id,
        })
    }
}

/// A connection to one gateway. Cheap to clone (clones share the
/// connection).
#[derive(Clone, Debug)]
pub struct Client {
    channel: NotLeaderRetry,
    auth: BearerAuth,
    account_id: String,
}

/// Health of a service as the gateway's `grpc.health.v1.Health` reports it.
pub type ServingStatus = tonic_health::pb::health_check_response::ServingStatus;

impl Client {
    /// Settings for a client of the gateway at `address` (`http://host:port`
    /// for plaintext, `https://host:port` for TLS).
    pub fn builder(address: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            address: address.into(),
            token: None,
            ca_file: None,
            domain_name: None,
            account_id: String::new(),
            timeout: None,
            connect_timeout: Duration::from_secs(10),
            not_leader_budget: DEFAULT_NOT_LEADER_BUDGET,
        }
    }

    /// Connects to `address` without a token.
    pub async fn connect(address: impl Into<String>) -> Result<Self, Error> {
        Self::builder(address).connect().await
    }

    /// The account the helpers use (empty means the gateway's `default`).
    pub fn account_id(&self) -> &str {
        &self.account_id
    }

    /// A client of another account over the same connection (with the same
    /// token): behind a proxy that routes accounts to the gateways holding
    /// them, one address reaches every account.
    pub fn with_account(&self, account_id: impl Into<String>) -> Result<Client, Error> {
        let account_id = account_id.into();
        Ok(Client {
            channel: self.channel.clone(),
            auth: self.auth.clone().with_account(&account_id)?,
            account_id,
        })
    }

    pub(crate) fn authed(&self) -> Authed {
        InterceptedService::new(self.channel.clone(), self.auth.clone())
    }

    /// The generated MessageService client (history, send).
    pub fn message_service(&self) -> MessageServiceClient<Authed> {
        MessageServiceClient::new(self.authed())
            .max_decoding_message_size(MAX_DECODING_MESSAGE_BYTES)
    }

    /// The generated GroupService client (members, groups, poke).
    pub fn group_service(&self) -> GroupServiceClient<Authed> {
        GroupServiceClient::new(self.authed()).max_decoding_message_size(MAX_DECODING_MESSAGE_BYTES)
    }

    /// The generated MediaService client (raw uploads).
    pub fn media_service(&self) -> MediaServiceClient<Authed> {
        MediaServiceClient::new(self.authed())
    }

    /// The generated AgentToolService client.
    pub fn tool_service(&self) -> AgentToolServiceClient<Authed> {
        AgentToolServiceClient::new(self.authed())
    }

    /// The generated AccountService client.
    pub fn account_service(&self) -> AccountServiceClient<Authed> {
        AccountServiceClient::new(self.authed())
    }

    /// The generated EventService client.
    pub fn event_service(&self) -> EventServiceClient<Authed> {
        EventServiceClient::new(self.authed()).max_decoding_message_size(MAX_DECODING_MESSAGE_BYTES)
    }

    /// The standard `grpc.health.v1.Health` client.
    pub fn health_service(&self) -> HealthClient<Authed> {
        HealthClient::new(self.authed())
    }

    /// One page of a chat's history, oldest first (`count` 0 = 20; pass the
    /// response's `next_anchor_message_id` as `anchor` for the older page).
    pub async fn history(
        &self,
        chat: pb::Chat,
        count: i32,
        anchor: Option<i64>,
    ) -> Result<pb::GetHistoryResponse, Error> {
        let request = pb::GetHistoryRequest {
            account_id: self.account_id.clone(),
            chat: Some(chat),
            count,
            anchor_message_id: anchor,
            until: None,
        };
        Ok(self
            .message_service()
            .get_history(request)
            .await?
            .into_inner())
    }

    /// The page of up to `count` messages of a chat sent before `until`,
    /// from the gateway's archive merged with the peer's history, oldest
    /// first (pass `next_anchor_message_id` as `anchor` for the older page).
    pub async fn history_until(
        &self,
        chat: pb::Chat,
        count: i32,
        until: std::time::SystemTime,
        anchor: Option<i64>,
    ) -> Result<pb::GetHistoryResponse, Error> {
        let request = pb::GetHistoryRequest {
            account_id: self.account_id.clone(),
            chat: Some(chat),
            count,
            anchor_message_id: anchor,
            until: Some(until.into()),
        };
        Ok(self
            .message_service()
            .get_history(request)
            .await?
            .into_inner())
    }

    /// One message by id, its quote resolved, with its history line.
    pub async fn get_message(&self, message_id: i64) -> Result<pb::GetMessageResponse, Error> {
        let request = pb::GetMessageRequest {
            account_id: self.account_id.clone(),
            message_id,
        };
        Ok(self
            .message_service()
            .get_message(request)
            .await?
            .into_inner())
    }

    /// Searches the gateway's message archive: the pages of `request`
    /// (newest matches first, each page oldest first), fetched one at a time
    /// by [`SearchPages::next_page`]. An empty `account_id` means the
    /// client's account.
    ///
    /// ```no_run
    /// # async fn demo(client: onebot_gateway_client::Client) -> Result<(), onebot_gateway_client::Error> {
    /// use onebot_gateway_client::pb;
    /// let mut pages = client.search(pb::SearchMessagesRequest {
    ///     query: "开会".into(),
    ///     chat: Some(pb::Chat::group(20000003)),
    ///     ..Default::default()
    /// });
    /// while let Some(page) = pages.next_page().await? {
    ///     println!("{}", page.rendered);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn search(&self, mut request: pb::SearchMessagesRequest) -> SearchPages {
        if request.account_id.is_empty() {
            request.account_id = self.account_id.clone();
        }
        SearchPages {
            client: self.clone(),
            request,
            done: false,
        }
    }

    /// Recalls (撤回) a message: the bot's own within 2 minutes, or a
    /// member's when the bot is a group admin.
    pub async fn recall(&self, message_id: i64) -> Result<(), Error> {
        self.recall_for(message_id, None).await
    }

    /// Recalls a message on behalf of a QQ user (`[policy]` decides by
    /// their role).
    pub async fn recall_for(
        &self,
        message_id: i64,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<(), Error> {
        let request = pb::RecallMessageRequest {
            account_id: self.account_id.clone(),
            message_id,
            on_behalf_of,
        };
        self.message_service().recall_message(request).await?;
        Ok(())
    }

    /// The messages of a merged-forward bundle (`ForwardSegment.id`).
    pub async fn get_forward(
        &self,
        forward_id: impl Into<String>,
    ) -> Result<pb::GetForwardMessagesResponse, Error> {
        let request = pb::GetForwardMessagesRequest {
            account_id: self.account_id.clone(),
            forward_id: forward_id.into(),
        };
        Ok(self
            .message_service()
            .get_forward_messages(request)
            .await?
            .into_inner())
    }

    /// Members of a group (`limit` 0 = 100; `no_cache` unset = cached when
    /// fresh).
    pub async fn members(
        &self,
        group_id: i64,
        limit: i32,
        no_cache: Option<bool>,
    ) -> Result<pb::ListGroupMembersResponse, Error> {
        let request = pb::ListGroupMembersRequest {
            account_id: self.account_id.clone(),
            group_id,
            no_cache,
            limit,
        };
        Ok(self
            .group_service()
            .list_group_members(request)
            .await?
            .into_inner())
    }

    /// The groups the account may use.
    pub async fn groups(&self) -> Result<pb::ListGroupsResponse, Error> {
        let request = pb::ListGroupsRequest {
            account_id: self.account_id.clone(),
        };
        Ok(self
            .group_service()
            .list_groups(request)
            .await?
            .into_inner())
    }

    /// Pokes `user_id` in `group_id` (`None` = the account's only
    /// whitelisted group).
    pub async fn poke(
        &self,
        group_id: Option<i64>,
        user_id: i64,
    ) -> Result<pb::PokeMemberResponse, Error> {
        self.poke_for(group_id, user_id, None).await
    }

    /// Pokes on behalf of a QQ user (`[policy]` decides by their role).
    pub async fn poke_for(
        &self,
        group_id: Option<i64>,
        user_id: i64,
        on_behalf_of: Option<pb::OnBehalfOf>,
    ) -> Result<pb::PokeMemberResponse, Error> {
        let request = pb::PokeMemberRequest {
            account_id: self.account_id.clone(),
            group_id,
            user_id,
            on_behalf_of,
        };
        Ok(self
            .group_service()
            .poke_member(request)
            .await?
            .into_inner())
    }

    /// Every configured account with its connection state.
    pub async fn accounts(&self) -> Result<Vec<pb::Account>, Error> {
        Ok(self
            .account_service()
            .list_accounts(pb::ListAccountsRequest {})
            .await?
            .into_inner()
            .accounts)
    }

    /// The agent tools with their JSON Schemas.
    pub async fn list_tools(&self) -> Result<Vec<pb::Tool>, Error> {
        Ok(self
            .tool_service()
            .list_tools(pb::ListToolsRequest {})
            .await?
            .into_inner()
            .tools)
    }

    /// Calls an agent tool with a JSON object of arguments. A failed tool
    /// call is a normal response with `is_error` set.
    pub async fn call_tool(
        &self,
        name: impl Into<String>,
        arguments_json: impl Into<String>,
    ) -> Result<pb::CallToolResponse, Error> {
        let request = pb::CallToolRequest {
            name: name.into(),
            arguments_json: arguments_json.into(),
        };
        Ok(self.tool_service().call_tool(request).await?.into_inner())
    }

    /// Follows the account's events. An empty `request.account_id` is filled
    /// with the client's account.
    ///
    /// The stream resumes by itself: when the connection breaks (a proxy or
    /// the network restarted: UNAVAILABLE, INTERNAL, UNKNOWN, CANCELLED) or
    /// the gateway reports this subscriber lagged, or a standby gateway
    /// refuses it with UNAVAILABLE `NOT_LEADER`, it reconnects with
    /// `after_sequence` set to the last event it delivered (or the position
    /// of the last heartbeat), with exponential backoff (100 ms doubling to
    /// 5 s, [`EventStream::MAX_RECONNECTS`] attempts in a row), and the
    /// caller sees every event once. Heartbeats are never returned.
    pub async fn events(&self, mut request: pb::StreamEventsRequest) -> Result<EventStream, Error> {
        if request.account_id.is_empty() {
            request.account_id = self.account_id.clone();
        }
        let mut stream = EventStream {
            service: self.event_service(),
            account: account_value(&request.account_id)?,
            position: request.after_sequence,
            request,
            inner: None,
            failures: 0,
            reconnects: 0,
        };
        stream.inner = Some(stream.open().await?);
        Ok(stream)
    }

    /// Health of `service` (`""` = the whole gateway; a service name such as
    /// `onebot.gateway.v1.MessageService`; or an account's,
    /// [`ACCOUNT_HEALTH_SERVICE_PREFIX`](crate::ACCOUNT_HEALTH_SERVICE_PREFIX)
    /// followed by its id).
    pub async fn health(&self, service: &str) -> Result<ServingStatus, Error> {
        let response = self
            .health_service()
            .check(tonic_health::pb::HealthCheckRequest {
                service: service.to_owned(),
            })
            .await?
            .into_inner();
        Ok(ServingStatus::try_from(response.status).unwrap_or(ServingStatus::Unknown))
    }
}

/// The pages of a search ([`Client::search`]).
#[derive(Debug)]
pub struct SearchPages {
    client: Client,
    request: pb::SearchMessagesRequest,
    done: bool,
}

impl SearchPages {
    /// The next (older) page; `None` after the last one.
    pub async fn next_page(&mut self) -> Result<Option<pb::SearchMessagesResponse>, Error> {
        if self.done {
            return Ok(None);
        }
        let page = self
            .client
            .message_service()
            .search_messages(self.request.clone())
            .await?
            .into_inner();
        if page.next_page_token.is_empty() {
            self.done = true;
        } else {
            self.request.page_token = page.next_page_token.clone();
        }
        Ok(Some(page))
    }

    /// Every remaining match, oldest first (fetches every page).
    pub async fn collect_all(mut self) -> Result<Vec<pb::ChatMessage>, Error> {
        let mut pages = Vec::new();
        while let Some(page) = self.next_page().await? {
            pages.push(page.messages);
        }
        Ok(pages.into_iter().rev().flatten().collect())
    }
}

/// The event stream of [`Client::events`], resuming after broken
/// connections.
#[derive(Debug)]
pub struct EventStream {
    service: EventServiceClient<Authed>,
    request: pb::StreamEventsRequest,
    account: MetadataValue<Ascii>,
    inner: Option<tonic::Streaming<pb::StreamEventsResponse>>,
    /// The sequence the stream has passed: the last event delivered, or the
    /// last heartbeat's position.
    position: Option<u64>,
    failures: u32,
    reconnects: u64,
}

impl EventStream {
    /// Reconnect attempts in a row before the error reaches the caller.
    pub const MAX_RECONNECTS: u32 = 10;

    /// The next event; `None` when the gateway ended the stream (shutdown).
    pub async fn next(&mut self) -> Result<Option<pb::Event>, Error> {
        loop {
            if self.inner.is_none() {
                match self.open().await {
                    Ok(inner) => {
                        self.reconnects += 1;
                        self.inner = Some(inner);
                    }
                    Err(e) => {
                        self.retry_after(e).await?;
                        continue;
                    }
                }
            }
            let Some(inner) = self.inner.as_mut() else {
                continue;
            };
            match inner.message().await {
                Ok(Some(response)) => {
                    self.failures = 0;
                    if let Some(beat) = response.heartbeat {
                        self.position = Some(
                            self.position
                                .map_or(beat.last_sequence, |p| p.max(beat.last_sequence)),
                        );
                    }
                    let Some(event) = response.event else {
                        continue;
                    };
                    if self.position.is_some_and(|p| event.sequence <= p) {
                        continue;
                    }
                    self.position = Some(event.sequence);
                    return Ok(Some(event));
                }
                Ok(None) => return Ok(None),
                Err(status) => {
                    self.inner = None;
                    self.retry_after(status.into()).await?;
                }
            }
        }
    }

    /// How many times the stream reconnected after a broken connection.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// The sequence number to resume from: the last event delivered (or
    /// passed, per the last heartbeat).
    pub fn position(&self) -> Option<u64> {
        self.position
    }

    async fn open(&mut self) -> Result<tonic::Streaming<pb::StreamEventsResponse>, Error> {
        let mut request = tonic::Request::new(pb::StreamEventsRequest {
            after_sequence: self.position,
            ..self.request.clone()
        });
        request
            .metadata_mut()
            .insert(ACCOUNT_METADATA_KEY, self.account.clone());
        Ok(self.service.stream_events(request).await?.into_inner())
    }

    /// Waits before the next attempt after `error`, or returns it when it
    /// is not worth a retry or the attempts are used up.
    async fn retry_after(&mut self, error: Error) -> Result<(), Error> {
        if !resumable(&error) || self.failures >= Self::MAX_RECONNECTS {
            return Err(error);
        }
        self.failures += 1;
        // A standby's refusal says when the leader may be there.
        let wait = match error.rpc() {
            Some(rpc) if rpc.is_not_leader() => rpc.retry_delay,
            _ => None,
        };
        tokio::time::sleep(wait.unwrap_or_else(|| backoff(self.failures))).await;
        Ok(())
    }
}

/// Errors after which a stream is reopened from its position: the
/// connection broke (a proxy or the gateway's network went away), the
/// gateway dropped a subscriber that lagged, or a standby refused it
/// (UNAVAILABLE `NOT_LEADER`, reopened until the new leader serves it).
fn resumable(error: &Error) -> bool {
    use tonic::Code;
    let Error::Rpc(rpc) = error else {
        return false;
    };
    match rpc.code {
        Code::Unavailable | Code::Internal | Code::Unknown | Code::Cancelled => true,
        Code::ResourceExhausted => rpc.reason.as_deref() == Some("EVENT_STREAM_LAGGED"),
        _ => false,
    }
}

/// The wait before reconnect attempt `attempt` (from 1): 100 ms doubling to
/// 5 s, with up to half of it taken off at random so many clients of one
/// proxy do not come back at once.
fn backoff(attempt: u32) -> Duration {
    let base = Duration::from_millis(100)
        .saturating_mul(1 << attempt.saturating_sub(1).min(6))
        .min(Duration::from_secs(5));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    base - base.mul_f64(f64::from(nanos % 1000) / 2000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_auth_sets_the_header() {
        let mut auth = BearerAuth::new(Some("s3cret")).unwrap();
        let request = auth.call(tonic::Request::new(())).unwrap();
        assert_eq!(
            request.metadata().get("authorization").unwrap(),
            "Bearer s3cret"
        );
        let mut none = BearerAuth::new(None).unwrap();
        let request = none.call(tonic::Request::new(())).unwrap();
        assert!(request.metadata().get("authorization").is_none());
    }

    #[test]
    fn the_account_is_sent_unless_the_request_names_one() {
        let mut auth = BearerAuth::new(None).unwrap().with_account("").unwrap();
        let request = auth.call(tonic::Request::new(())).unwrap();
        assert_eq!(
            request.metadata().get(ACCOUNT_METADATA_KEY).unwrap(),
            "default"
        );
        let mut auth = BearerAuth::new(None).unwrap().with_account("b").unwrap();
        let mut own = tonic::Request::new(());
        own.metadata_mut()
            .insert(ACCOUNT_METADATA_KEY, "c".parse().unwrap());
        let request = auth.call(own).unwrap();
        assert_eq!(request.metadata().get(ACCOUNT_METADATA_KEY).unwrap(), "c");
        assert!(matches!(
            BearerAuth::new(None).unwrap().with_account("账号"),
            Err(Error::InvalidInput(_))
        ));
    }

    #[test]
    fn reconnects_back_off_up_to_five_seconds() {
        assert!(backoff(1) <= Duration::from_millis(100));
        assert!(backoff(1) >= Duration::from_millis(50));
        assert!(backoff(4) >= Duration::from_millis(400));
        assert!(backoff(30) <= Duration::from_secs(5));
        assert!(backoff(30) >= Duration::from_millis(2500));
    }

    #[test]
    fn bad_settings_are_refused_before_connecting() {
        assert!(matches!(
            BearerAuth::new(Some("line\nbreak")),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            Client::builder("not a uri").connect_lazy(),
            Err(Error::InvalidInput(_))
        ));
        assert!(matches!(
            Client::builder("http://127.0.0.1:1")
                .ca_file("ca.pem")
                .connect_lazy(),
            Err(Error::InvalidInput(_))
        ));
    }

    #[cfg(feature = "tls")]
    #[tokio::test]
    async fn missing_ca_file_is_an_io_error() {
        let err = Client::builder("https://127.0.0.1:1")
            .ca_file("/nonexistent/ca.pem")
            .connect_lazy()
            .unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err:?}");
    }
}
