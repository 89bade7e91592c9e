//! The tonic layer: one file per proto service, conversions, the error
//! mapping, and the router with health and reflection. The only module that
//! knows tonic. Handlers take the caller's deadline with [`ctx`].

pub mod account;
pub mod auth;
pub mod body;
pub mod convert;
pub mod deadline;
pub mod decode;
pub mod event;
pub mod governance;
pub mod group;
pub mod health;
pub mod limits;
pub mod media;
pub mod message;
pub mod observe;
pub mod requester;
pub mod rpc;
pub mod status;
pub mod tools;

use std::sync::Arc;

use onebot_gateway_client::pb;
use tonic::service::Routes;
use tonic_health::ServingStatus;
use tonic_health::server::HealthReporter;

use onebot_gateway_domain::gateway::Gateway;
use onebot_gateway_domain::lease::Role;

pub use deadline::ctx;

/// Fully qualified names of the gateway's own services (health names), as
/// the generated servers name them.
pub const SERVICE_NAMES: [&str; 8] = [
    pb::message_service_server::SERVICE_NAME,
    pb::group_service_server::SERVICE_NAME,
    pb::media_service_server::SERVICE_NAME,
    pb::agent_tool_service_server::SERVICE_NAME,
    pb::account_service_server::SERVICE_NAME,
    pb::event_service_server::SERVICE_NAME,
    pb::approval_service_server::SERVICE_NAME,
    pb::audit_service_server::SERVICE_NAME,
];

/// The package of the gateway's services.
pub const PACKAGE: &str = <pb::Account as prost::Name>::PACKAGE;

/// Health service name of an account: `onebot.gateway.v1.account.<id>` (a
/// gateway convention, not a proto service; every SDK names the prefix).
/// The health name of leadership under `[ha]`: SERVING while this gateway
/// leads every account it shares by lease, NOT_SERVING otherwise (absent
/// without `[ha]`). It names no account, so probes see it with
/// authentication on; a Kubernetes readiness probe on it routes a Service
/// to the leader.
pub const LEADING_HEALTH_NAME: &str = "onebot.gateway.v1.ha.leading";

pub fn account_health_name(account_id: &str) -> String {
    format!(
        "{}{account_id}",
        onebot_gateway_client::ACCOUNT_HEALTH_SERVICE_PREFIX
    )
}

/// Builds every service of the gateway plus health and reflection. Message
/// size limits come from `[limits]` (the limits layer refuses oversized
/// messages first, with REQUEST_TOO_LARGE; these are the backstop).
pub fn routes(
    gw: Arc<Gateway>,
    health: tonic_health::pb::health_server::HealthServer<
        impl tonic_health::pb::health_server::Health,
    >,
) -> Routes {
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        // google.rpc error details, so grpcurl can print ErrorInfo/RetryInfo.
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("embedded descriptor sets are valid");
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        // google.rpc error details, so grpcurl can print ErrorInfo/RetryInfo.
        .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .expect("embedded descriptor sets are valid");

    let limits = gw.config.limits.clone();
    let (max_in, max_out, max_upload) = (
        limits.max_request_bytes,
        limits.max_response_bytes,
        limits.max_upload_message_bytes,
    );
    Routes::new(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(
            pb::message_service_server::MessageServiceServer::new(message::MessageApi::new(
                gw.clone(),
            ))
            .max_decoding_message_size(max_in)
            .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::group_service_server::GroupServiceServer::new(group::GroupApi::new(gw.clone()))
                .max_decoding_message_size(max_in)
                .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::media_service_server::MediaServiceServer::new(media::MediaApi::new(gw.clone()))
                .max_decoding_message_size(max_upload)
                .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::agent_tool_service_server::AgentToolServiceServer::new(tools::ToolApi::new(
                gw.clone(),
            ))
            .max_decoding_message_size(max_in)
            .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::account_service_server::AccountServiceServer::new(account::AccountApi::new(
                gw.clone(),
            ))
            .max_decoding_message_size(max_in)
            .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::approval_service_server::ApprovalServiceServer::new(governance::ApprovalApi::new(
                gw.clone(),
            ))
            .max_decoding_message_size(max_in)
            .max_encoding_message_size(max_out),
        )
        .add_service(
            pb::audit_service_server::AuditServiceServer::new(governance::AuditApi::new(
                gw.clone(),
            ))
            .max_decoding_message_size(max_in)
            .max_encoding_message_size(max_out),
        )
        .add_service(event::EventServer::new(
            event::EventApi::new(gw),
            max_in,
            max_out,
        ))
}

/// Marks the process and every service SERVING, and keeps each account's
/// health name in step with its connection (SERVING while it can take
/// actions). Returns when the watch tasks are spawned.
pub async fn report_health(reporter: &HealthReporter, gw: &Arc<Gateway>) {
    reporter
        .set_service_status("", ServingStatus::Serving)
        .await;
    for name in SERVICE_NAMES {
        reporter
            .set_service_status(name, ServingStatus::Serving)
            .await;
    }
    if let Some(leadership) = gw.leadership() {
        let mut watches: Vec<_> = leadership
            .accounts()
            .filter_map(|id| leadership.watch(id))
            .collect();
        let leads_all = |w: &[tokio::sync::watch::Receiver<Role>]| {
            w.iter()
                .all(|rx| matches!(*rx.borrow(), Role::Leading { .. }))
        };
        reporter
            .set_service_status(LEADING_HEALTH_NAME, serving(leads_all(&watches)))
            .await;
        let reporter = reporter.clone();
        tokio::spawn(async move {
            while !watches.is_empty() {
                let changes = watches.iter_mut().map(|rx| Box::pin(rx.changed()));
                if futures_util::future::select_all(changes).await.0.is_err() {
                    return;
                }
                reporter
                    .set_service_status(LEADING_HEALTH_NAME, serving(leads_all(&watches)))
                    .await;
            }
        });
    }
    for account in gw.accounts() {
        let name = account_health_name(&account.id);
        let mut rx = account.peer.watch_status();
        let reporter = reporter.clone();
        let configured = account.config.has_transport();
        let initial = configured && rx.borrow().online;
        reporter.set_service_status(&name, serving(initial)).await;
        tokio::spawn(async move {
            while rx.changed().await.is_ok() {
                let online = configured && rx.borrow_and_update().online;
                reporter.set_service_status(&name, serving(online)).await;
            }
        });
    }
}

/// Marks everything NOT_SERVING (start of shutdown).
pub async fn report_shutdown(reporter: &HealthReporter, gw: &Gateway) {
    reporter
        .set_service_status("", ServingStatus::NotServing)
        .await;
    let leading = gw.leadership().map(|_| LEADING_HEALTH_NAME);
    for name in SERVICE_NAMES.into_iter().chain(leading) {
        reporter
            .set_service_status(name, ServingStatus::NotServing)
            .await;
    }
    for account in gw.accounts() {
        reporter
            .set_service_status(account_health_name(&account.id), ServingStatus::NotServing)
            .await;
    }
}

fn serving(online: bool) -> ServingStatus {
    if online {
        ServingStatus::Serving
    } else {
        ServingStatus::NotServing
    }
}
