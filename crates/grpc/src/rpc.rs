//! The table of every RPC the listener serves, by request path, with what
//! the tower layers need to know about it: whether it writes, which limits
//! apply, and bounded metric labels (paths are client input: unknown paths
//! are labelled `unknown`, never echoed). Also the service shape those
//! layers share ([`HttpService`], [`ResponseFuture`]).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;

use http::{Request, Response};
use onebot_gateway_client::pb;
use tonic::body::Body;
use tower::Service;

/// What each of the gateway's tower layers wraps: tonic's router, or the
/// next layer in.
pub trait HttpService:
    Service<Request<Body>, Response = Response<Body>, Error = Infallible, Future: Send + 'static>
    + Clone
    + Send
    + 'static
{
}

impl<S> HttpService for S where
    S: Service<
            Request<Body>,
            Response = Response<Body>,
            Error = Infallible,
            Future: Send + 'static,
        > + Clone
        + Send
        + 'static
{
}

/// The response future of a layer's service.
pub type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

/// How the limits layer treats an RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Unary (or short) call: concurrency limit, request timeout, the
    /// default message size.
    Unary,
    /// The client-streamed upload: concurrency limit, upload timeout, the
    /// large message size.
    Upload,
    /// The long-lived event stream: stream limits, no timeout.
    EventStream,
    /// The server-streamed download: concurrency limit, upload timeout, the
    /// default message size.
    Download,
    /// Health checks and watches: never shed (probes must answer under load).
    Health,
    /// Server reflection: never shed.
    Reflection,
}

/// One RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rpc {
    /// Fully qualified service name.
    pub service: &'static str,
    /// Method name.
    pub method: &'static str,
    /// Limits that apply.
    pub class: Class,
    /// True for RPCs that change something (read-only tokens are refused).
    /// CallTool decides per tool, in the tool code.
    pub write: bool,
}

const fn rpc(service: &'static str, method: &'static str, class: Class, write: bool) -> Rpc {
    Rpc {
        service,
        method,
        class,
        write,
    }
}

const MESSAGE: &str = pb::message_service_server::SERVICE_NAME;
const GROUP: &str = pb::group_service_server::SERVICE_NAME;
const MEDIA: &str = pb::media_service_server::SERVICE_NAME;
const TOOLS: &str = pb::agent_tool_service_server::SERVICE_NAME;
const ACCOUNT: &str = pb::account_service_server::SERVICE_NAME;
const EVENT: &str = pb::event_service_server::SERVICE_NAME;
const APPROVAL: &str = pb::approval_service_server::SERVICE_NAME;
const AUDIT: &str = pb::audit_service_server::SERVICE_NAME;
/// The health service.
pub const HEALTH: &str = tonic_health::pb::health_server::SERVICE_NAME;
const REFLECTION_V1: &str = tonic_reflection::pb::v1::server_reflection_server::SERVICE_NAME;
const REFLECTION_V1ALPHA: &str =
    tonic_reflection::pb::v1alpha::server_reflection_server::SERVICE_NAME;

/// Every RPC served.
pub const RPCS: &[Rpc] = &[
    rpc(MESSAGE, "GetHistory", Class::Unary, false),
    rpc(MESSAGE, "SendMessage", Class::Unary, true),
    rpc(MESSAGE, "GetMessage", Class::Unary, false),
    rpc(MESSAGE, "RecallMessage", Class::Unary, true),
    rpc(MESSAGE, "GetForwardMessages", Class::Unary, false),
    rpc(MESSAGE, "SearchMessages", Class::Unary, false),
    rpc(MESSAGE, "ReactToMessage", Class::Unary, true),
    rpc(MESSAGE, "SetEssence", Class::Unary, true),
    rpc(MESSAGE, "ListEssence", Class::Unary, false),
    rpc(MESSAGE, "SetTyping", Class::Unary, true),
    rpc(GROUP, "ListGroupMembers", Class::Unary, false),
    rpc(GROUP, "ListGroups", Class::Unary, false),
    rpc(GROUP, "PokeMember", Class::Unary, true),
    rpc(GROUP, "ListGroupFiles", Class::Unary, false),
    rpc(GROUP, "MuteMember", Class::Unary, true),
    rpc(GROUP, "MuteAll", Class::Unary, true),
    rpc(GROUP, "KickMember", Class::Unary, true),
    rpc(GROUP, "SetMemberCard", Class::Unary, true),
    rpc(MEDIA, "UploadMedia", Class::Upload, true),
    rpc(MEDIA, "DownloadMedia", Class::Download, false),
    rpc(MEDIA, "DownloadGroupFile", Class::Download, false),
    rpc(TOOLS, "ListTools", Class::Unary, false),
    rpc(TOOLS, "CallTool", Class::Unary, false),
    rpc(ACCOUNT, "ListAccounts", Class::Unary, false),
    rpc(EVENT, "StreamEvents", Class::EventStream, false),
    rpc(APPROVAL, "ListApprovals", Class::Unary, false),
    rpc(APPROVAL, "GetApproval", Class::Unary, false),
    // Decided by the token's `approve`, not its write access.
    rpc(APPROVAL, "DecideApproval", Class::Unary, false),
    rpc(AUDIT, "ListAuditRecords", Class::Unary, false),
    rpc(HEALTH, "Check", Class::Health, false),
    rpc(HEALTH, "Watch", Class::Health, false),
    rpc(
        REFLECTION_V1,
        "ServerReflectionInfo",
        Class::Reflection,
        false,
    ),
    rpc(
        REFLECTION_V1ALPHA,
        "ServerReflectionInfo",
        Class::Reflection,
        false,
    ),
];

/// The RPC at a request path `/<service>/<method>`.
pub fn lookup(path: &str) -> Option<&'static Rpc> {
    let (service, method) = path.strip_prefix('/')?.split_once('/')?;
    RPCS.iter()
        .find(|r| r.service == service && r.method == method)
}

/// Metric labels of a path: the RPC's names, or `unknown`.
pub fn labels(path: &str) -> (&'static str, &'static str) {
    lookup(path).map_or(("unknown", "unknown"), |r| (r.service, r.method))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    /// The table lists exactly the methods of the gateway's descriptor set
    /// (plus health and reflection), so no RPC escapes the write check or
    /// the limits.
    #[test]
    fn table_matches_the_descriptor_set() {
        let fds =
            prost_types::FileDescriptorSet::decode(onebot_gateway_client::pb::FILE_DESCRIPTOR_SET)
                .unwrap();
        let mut from_protos: Vec<String> = fds
            .file
            .iter()
            .filter(|f| f.package() == "onebot.gateway.v1")
            .flat_map(|f| {
                f.service.iter().flat_map(move |s| {
                    s.method
                        .iter()
                        .map(move |m| format!("/{}.{}/{}", f.package(), s.name(), m.name()))
                })
            })
            .collect();
        from_protos.sort();
        let mut table: Vec<String> = RPCS
            .iter()
            .filter(|r| r.service.starts_with(&format!("{}.", crate::PACKAGE)))
            .map(|r| format!("/{}/{}", r.service, r.method))
            .collect();
        table.sort();
        assert_eq!(table, from_protos);
        for path in &from_protos {
            assert!(lookup(path).is_some());
        }
        assert_eq!(
            lookup(&format!("/{HEALTH}/Check")).unwrap().class,
            Class::Health
        );
        assert!(lookup("/nope/x").is_none() && lookup("garbage").is_none());
        assert_eq!(labels("/x.Y/../../etc"), ("unknown", "unknown"));
    }
}
