//! The auth matrix: every RPC of the listener (the gateway's services,
//! health, reflection) against no token, a malformed header, a wrong
//! token, a read-only token, and tokens whose account or group scope does
//! not cover the request. Real gRPC over TCP to a gateway with a sandbox
//! peer.
//!
//! Authentication runs before any handler, so RPCs whose handlers are not
//! built yet are covered for the token cases; the account and group scope
//! cases are asserted for every RPC whose handler answers something else
//! than UNIMPLEMENTED.

use std::time::Duration;

use onebot_gateway_client::pb;
use onebot_gateway_config::{Access, Config, TokenConfig};
use onebot_gateway_tests::{SandboxFlavor, TestGateway, config_for, reason, sandbox};
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};
use tonic_types::StatusExt;

const GROUP: i64 = 20_000_003;
const OTHER_GROUP: i64 = 20_000_002;

/// The id of a seeded message in each group (GetMessage and RecallMessage
/// name a group through the message they name), set before the matrix runs.
static MESSAGE_IN: std::sync::OnceLock<std::collections::HashMap<i64, i64>> =
    std::sync::OnceLock::new();

fn message_in(group: i64) -> i64 {
    MESSAGE_IN
        .get()
        .and_then(|m| m.get(&group).copied())
        .expect("seeded message ids")
}

const RW: &str = "rw-token-0123456789abcdef";
const RW2: &str = "rw2-token-0123456789abcdef";
const RO: &str = "ro-token-0123456789abcdef";
const SCOPED: &str = "scoped-token-0123456789abcdef";

fn token(name: &str, value: &str, accounts: &[&str], access: Access) -> TokenConfig {
    TokenConfig::inline(name, value, accounts, access)
}

fn auth_config(base: Config) -> Config {
    let mut config = base;
    let mut scoped = token("scoped", SCOPED, &["default"], Access::ReadWrite);
    scoped.groups = Some(vec![GROUP]);
    config.auth.tokens = vec![
        token("rw", RW, &["*"], Access::ReadWrite),
        token("rw2", RW2, &["*"], Access::ReadWrite),
        token("ro", RO, &["default"], Access::ReadOnly),
        scoped,
    ];
    config
}

/// What goes into the `authorization` metadata.
#[derive(Debug, Clone, Copy)]
enum Cred {
    None,
    Raw(&'static str),
    Bearer(&'static str),
}

type AddHeader = Box<dyn FnMut(Request<()>) -> Result<Request<()>, Status> + Send>;
type Authed = InterceptedService<Channel, AddHeader>;

fn authed(channel: &Channel, cred: Cred) -> Authed {
    let header = match cred {
        Cred::None => None,
        Cred::Raw(v) => Some(v.to_string()),
        Cred::Bearer(t) => Some(format!("Bearer {t}")),
    };
    let f: AddHeader = Box::new(move |mut req: Request<()>| {
        if let Some(h) = &header {
            req.metadata_mut().insert(
                "authorization",
                MetadataValue::try_from(h.as_str()).unwrap(),
            );
        }
        Ok(req)
    });
    InterceptedService::new(channel.clone(), f)
}

/// Every RPC served, with a request naming `account` and `group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rpc {
    GetHistory,
    SendMessage,
    SearchMessages,
    ListGroupMembers,
    ListGroups,
    PokeMember,
    UploadMedia,
    ListTools,
    CallToolRead,
    CallToolWrite,
    ListAccounts,
    StreamEvents,
    HealthCheck,
    HealthWatch,
    ReflectionV1,
    ReflectionV1Alpha,
    GetMessage,
    RecallMessage,
    GetForwardMessages,
    DownloadMedia,
    ListApprovals,
    GetApproval,
    DecideApproval,
    ListAuditRecords,
    ReactToMessage,
    SetEssence,
    ListEssence,
    SetTyping,
    ListGroupFiles,
    MuteMember,
    MuteAll,
    KickMember,
    SetMemberCard,
    DownloadGroupFile,
}

const ALL: [Rpc; 34] = [
    Rpc::GetHistory,
    Rpc::SendMessage,
    Rpc::SearchMessages,
    Rpc::ListGroupMembers,
    Rpc::ListGroups,
    Rpc::PokeMember,
    Rpc::UploadMedia,
    Rpc::ListTools,
    Rpc::CallToolRead,
    Rpc::CallToolWrite,
    Rpc::ListAccounts,
    Rpc::StreamEvents,
    Rpc::HealthCheck,
    Rpc::HealthWatch,
    Rpc::ReflectionV1,
    Rpc::ReflectionV1Alpha,
    Rpc::GetMessage,
    Rpc::RecallMessage,
    Rpc::GetForwardMessages,
    Rpc::DownloadMedia,
    Rpc::ListApprovals,
    Rpc::GetApproval,
    Rpc::DecideApproval,
    Rpc::ListAuditRecords,
    Rpc::ReactToMessage,
    Rpc::SetEssence,
    Rpc::ListEssence,
    Rpc::SetTyping,
    Rpc::ListGroupFiles,
    Rpc::MuteMember,
    Rpc::MuteAll,
    Rpc::KickMember,
    Rpc::SetMemberCard,
    Rpc::DownloadGroupFile,
];

impl Rpc {
    fn path(self) -> &'static str {
        match self {
            Rpc::GetHistory => "/onebot.gateway.v1.MessageService/GetHistory",
            Rpc::SendMessage => "/onebot.gateway.v1.MessageService/SendMessage",
            Rpc::SearchMessages => "/onebot.gateway.v1.MessageService/SearchMessages",
            Rpc::ListGroupMembers => "/onebot.gateway.v1.GroupService/ListGroupMembers",
            Rpc::ListGroups => "/onebot.gateway.v1.GroupService/ListGroups",
            Rpc::PokeMember => "/onebot.gateway.v1.GroupService/PokeMember",
            Rpc::UploadMedia => "/onebot.gateway.v1.MediaService/UploadMedia",
            Rpc::ListTools => "/onebot.gateway.v1.AgentToolService/ListTools",
            Rpc::CallToolRead | Rpc::CallToolWrite => {
                "/onebot.gateway.v1.AgentToolService/CallTool"
            }
            Rpc::ListAccounts => "/onebot.gateway.v1.AccountService/ListAccounts",
            Rpc::StreamEvents => "/onebot.gateway.v1.EventService/StreamEvents",
            Rpc::HealthCheck => "/grpc.health.v1.Health/Check",
            Rpc::HealthWatch => "/grpc.health.v1.Health/Watch",
            Rpc::ReflectionV1 => "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            Rpc::ReflectionV1Alpha => {
                "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
            }
            Rpc::GetMessage => "/onebot.gateway.v1.MessageService/GetMessage",
            Rpc::RecallMessage => "/onebot.gateway.v1.MessageService/RecallMessage",
            Rpc::GetForwardMessages => "/onebot.gateway.v1.MessageService/GetForwardMessages",
            Rpc::DownloadMedia => "/onebot.gateway.v1.MediaService/DownloadMedia",
            Rpc::ListApprovals => "/onebot.gateway.v1.ApprovalService/ListApprovals",
            Rpc::GetApproval => "/onebot.gateway.v1.ApprovalService/GetApproval",
            Rpc::DecideApproval => "/onebot.gateway.v1.ApprovalService/DecideApproval",
            Rpc::ListAuditRecords => "/onebot.gateway.v1.AuditService/ListAuditRecords",
            Rpc::ReactToMessage => "/onebot.gateway.v1.MessageService/ReactToMessage",
            Rpc::SetEssence => "/onebot.gateway.v1.MessageService/SetEssence",
            Rpc::ListEssence => "/onebot.gateway.v1.MessageService/ListEssence",
            Rpc::SetTyping => "/onebot.gateway.v1.MessageService/SetTyping",
            Rpc::ListGroupFiles => "/onebot.gateway.v1.GroupService/ListGroupFiles",
            Rpc::MuteMember => "/onebot.gateway.v1.GroupService/MuteMember",
            Rpc::MuteAll => "/onebot.gateway.v1.GroupService/MuteAll",
            Rpc::KickMember => "/onebot.gateway.v1.GroupService/KickMember",
            Rpc::SetMemberCard => "/onebot.gateway.v1.GroupService/SetMemberCard",
            Rpc::DownloadGroupFile => "/onebot.gateway.v1.MediaService/DownloadGroupFile",
        }
    }

    fn writes(self) -> bool {
        matches!(
            self,
            Rpc::SendMessage
                | Rpc::PokeMember
                | Rpc::UploadMedia
                | Rpc::CallToolWrite
                | Rpc::RecallMessage
                | Rpc::ReactToMessage
                | Rpc::SetEssence
                | Rpc::SetTyping
                | Rpc::MuteMember
                | Rpc::MuteAll
                | Rpc::KickMember
                | Rpc::SetMemberCard
        )
    }

    fn open(self) -> bool {
        matches!(
            self,
            Rpc::HealthCheck | Rpc::HealthWatch | Rpc::ReflectionV1 | Rpc::ReflectionV1Alpha
        )
    }

    /// True when the request names an account (and so has an account scope).
    fn names_account(self) -> bool {
        !matches!(
            self,
            Rpc::ListTools | Rpc::ListAccounts | Rpc::GetApproval | Rpc::DecideApproval
        ) && !self.open()
    }

    /// True when the request names a group (and so has a group scope).
    fn names_group(self) -> bool {
        matches!(
            self,
            Rpc::GetHistory
                | Rpc::SendMessage
                | Rpc::SearchMessages
                | Rpc::ListGroupMembers
                | Rpc::PokeMember
                | Rpc::CallToolRead
                | Rpc::CallToolWrite
                | Rpc::GetMessage
                | Rpc::RecallMessage
                | Rpc::ReactToMessage
                | Rpc::SetEssence
                | Rpc::ListEssence
                | Rpc::ListGroupFiles
                | Rpc::MuteMember
                | Rpc::MuteAll
                | Rpc::KickMember
                | Rpc::SetMemberCard
                | Rpc::DownloadGroupFile
        )
    }
}

/// Calls `rpc` with `cred`; the gRPC outcome (streams: the first message).
async fn call(
    channel: &Channel,
    cred: Cred,
    rpc: Rpc,
    account: &str,
    group: i64,
) -> Result<(), Status> {
    let ch = authed(channel, cred);
    let account = account.to_string();
    let first = |r: Result<Option<()>, Status>| r.map(|_| ());
    match rpc {
        Rpc::GetHistory => pb::message_service_client::MessageServiceClient::new(ch)
            .get_history(pb::GetHistoryRequest {
                account_id: account,
                chat: Some(pb::Chat {
                    kind: Some(pb::chat::Kind::GroupId(group)),
                }),
                count: 1,
                anchor_message_id: None,
                until: None,
            })
            .await
            .map(|_| ()),
        Rpc::SearchMessages => pb::message_service_client::MessageServiceClient::new(ch)
            .search_messages(pb::SearchMessagesRequest {
                account_id: account,
                chat: Some(pb::Chat {
                    kind: Some(pb::chat::Kind::GroupId(group)),
                }),
                query: "auth".into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::SendMessage => pb::message_service_client::MessageServiceClient::new(ch)
            .send_message(pb::SendMessageRequest {
                account_id: account,
                group_id: Some(group),
                text: "auth matrix".into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::GetMessage => pb::message_service_client::MessageServiceClient::new(ch)
            .get_message(pb::GetMessageRequest {
                account_id: account,
                message_id: message_in(group),
            })
            .await
            .map(|_| ()),
        Rpc::RecallMessage => pb::message_service_client::MessageServiceClient::new(ch)
            .recall_message(pb::RecallMessageRequest {
                account_id: account,
                message_id: message_in(group),
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::GetForwardMessages => pb::message_service_client::MessageServiceClient::new(ch)
            .get_forward_messages(pb::GetForwardMessagesRequest {
                account_id: account,
                forward_id: onebot_sandbox::EXAMPLE_FORWARD.into(),
            })
            .await
            .map(|_| ()),
        Rpc::ListGroupMembers => pb::group_service_client::GroupServiceClient::new(ch)
            .list_group_members(pb::ListGroupMembersRequest {
                account_id: account,
                group_id: group,
                no_cache: None,
                limit: 1,
            })
            .await
            .map(|_| ()),
        Rpc::ListGroups => pb::group_service_client::GroupServiceClient::new(ch)
            .list_groups(pb::ListGroupsRequest {
                account_id: account,
            })
            .await
            .map(|_| ()),
        Rpc::PokeMember => pb::group_service_client::GroupServiceClient::new(ch)
            .poke_member(pb::PokeMemberRequest {
                account_id: account,
                group_id: Some(group),
                user_id: 10_001,
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::UploadMedia => {
            let png = b"\x89PNG\r\n\x1a\n0000".to_vec();
            let messages = vec![
                pb::UploadMediaRequest {
                    payload: Some(pb::upload_media_request::Payload::Header(
                        pb::UploadMediaHeader {
                            account_id: account,
                            kind: pb::MediaKind::Image as i32,
                            file_name: "a.png".into(),
                            size: Some(png.len() as i64),
                            sha256: None,
                        },
                    )),
                },
                pb::UploadMediaRequest {
                    payload: Some(pb::upload_media_request::Payload::Chunk(png)),
                },
            ];
            pb::media_service_client::MediaServiceClient::new(ch)
                .upload_media(tokio_stream::iter(messages))
                .await
                .map(|_| ())
        }
        Rpc::ListTools => pb::agent_tool_service_client::AgentToolServiceClient::new(ch)
            .list_tools(pb::ListToolsRequest {})
            .await
            .map(|_| ()),
        Rpc::CallToolRead | Rpc::CallToolWrite => {
            let (name, args) = if rpc == Rpc::CallToolRead {
                (
                    "qq_get_group_members",
                    serde_json::json!({"accountId": account, "groupId": group}),
                )
            } else {
                (
                    "qq_send",
                    serde_json::json!({"accountId": account, "groupId": group, "text": "hi"}),
                )
            };
            let response = pb::agent_tool_service_client::AgentToolServiceClient::new(ch)
                .call_tool(pb::CallToolRequest {
                    name: name.into(),
                    arguments_json: args.to_string(),
                })
                .await?;
            let _ = response;
            Ok(())
        }
        Rpc::ListAccounts => pb::account_service_client::AccountServiceClient::new(ch)
            .list_accounts(pb::ListAccountsRequest {})
            .await
            .map(|_| ()),
        Rpc::StreamEvents => {
            let mut stream = pb::event_service_client::EventServiceClient::new(ch)
                .stream_events(pb::StreamEventsRequest {
                    account_id: account,
                    ..Default::default()
                })
                .await?
                .into_inner();
            // A refused stream fails at once; an accepted one may wait for
            // events, which is success for this matrix.
            match tokio::time::timeout(Duration::from_millis(300), stream.message()).await {
                Ok(r) => first(r.map(|m| m.map(|_| ()))),
                Err(_) => Ok(()),
            }
        }
        Rpc::HealthCheck => tonic_health::pb::health_client::HealthClient::new(ch)
            .check(tonic_health::pb::HealthCheckRequest {
                service: String::new(),
            })
            .await
            .map(|_| ()),
        Rpc::HealthWatch => {
            let mut s = tonic_health::pb::health_client::HealthClient::new(ch)
                .watch(tonic_health::pb::HealthCheckRequest {
                    service: String::new(),
                })
                .await?
                .into_inner();
            first(s.message().await.map(|m| m.map(|_| ())))
        }
        Rpc::ReflectionV1 => {
            use tonic_reflection::pb::v1 as r;
            let req = r::ServerReflectionRequest {
                host: String::new(),
                message_request: Some(r::server_reflection_request::MessageRequest::ListServices(
                    String::new(),
                )),
            };
            let mut s = r::server_reflection_client::ServerReflectionClient::new(ch)
                .server_reflection_info(tokio_stream::iter(vec![req]))
                .await?
                .into_inner();
            first(s.message().await.map(|m| m.map(|_| ())))
        }
        Rpc::ListApprovals => pb::approval_service_client::ApprovalServiceClient::new(ch)
            .list_approvals(pb::ListApprovalsRequest {
                account_id: account,
                ..pb::ListApprovalsRequest::default()
            })
            .await
            .map(|_| ()),
        // An id no approval has: NOT_FOUND once auth passed.
        Rpc::GetApproval => pb::approval_service_client::ApprovalServiceClient::new(ch)
            .get_approval(pb::GetApprovalRequest {
                approval_id: "NOSUCH".into(),
                wait: None,
            })
            .await
            .map(|_| ()),
        Rpc::DecideApproval => pb::approval_service_client::ApprovalServiceClient::new(ch)
            .decide_approval(pb::DecideApprovalRequest {
                approval_id: "NOSUCH".into(),
                approve: false,
            })
            .await
            .map(|_| ()),
        Rpc::ListAuditRecords => pb::audit_service_client::AuditServiceClient::new(ch)
            .list_audit_records(pb::ListAuditRecordsRequest {
                account_id: account,
                ..pb::ListAuditRecordsRequest::default()
            })
            .await
            .map(|_| ()),
        Rpc::DownloadMedia => {
            // An id no message has: NOT_FOUND once auth passed.
            let mut s = pb::media_service_client::MediaServiceClient::new(ch)
                .download_media(pb::DownloadMediaRequest {
                    account_id: account,
                    target: Some(pb::download_media_request::Target::MediaId(
                        "r_0123456789abcdef_1_0".into(),
                    )),
                })
                .await?
                .into_inner();
            first(s.message().await.map(|m| m.map(|_| ())))
        }
        Rpc::ReactToMessage => pb::message_service_client::MessageServiceClient::new(ch)
            .react_to_message(pb::ReactToMessageRequest {
                account_id: account,
                message_id: message_in(group),
                emoji_id: "76".into(),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::SetEssence => pb::message_service_client::MessageServiceClient::new(ch)
            .set_essence(pb::SetEssenceRequest {
                account_id: account,
                message_id: message_in(group),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::ListEssence => pb::message_service_client::MessageServiceClient::new(ch)
            .list_essence(pb::ListEssenceRequest {
                account_id: account,
                group_id: Some(group),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::SetTyping => pb::message_service_client::MessageServiceClient::new(ch)
            .set_typing(pb::SetTypingRequest {
                account_id: account,
                user_id: 10_001,
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::ListGroupFiles => pb::group_service_client::GroupServiceClient::new(ch)
            .list_group_files(pb::ListGroupFilesRequest {
                account_id: account,
                group_id: Some(group),
                ..Default::default()
            })
            .await
            .map(|_| ()),
        Rpc::MuteMember => pb::group_service_client::GroupServiceClient::new(ch)
            .mute_member(pb::MuteMemberRequest {
                account_id: account,
                group_id: Some(group),
                user_id: 10_003,
                duration_secs: 60,
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::MuteAll => pb::group_service_client::GroupServiceClient::new(ch)
            .mute_all(pb::MuteAllRequest {
                account_id: account,
                group_id: Some(group),
                enable: true,
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::KickMember => pb::group_service_client::GroupServiceClient::new(ch)
            .kick_member(pb::KickMemberRequest {
                account_id: account,
                group_id: Some(group),
                user_id: 10_003,
                reject_rejoin: false,
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::SetMemberCard => pb::group_service_client::GroupServiceClient::new(ch)
            .set_member_card(pb::SetMemberCardRequest {
                account_id: account,
                group_id: Some(group),
                user_id: 10_003,
                card: "auth".into(),
                on_behalf_of: None,
            })
            .await
            .map(|_| ()),
        Rpc::DownloadGroupFile => {
            // A file no group has: NOT_FOUND (or a transfer failure) once
            // auth passed.
            let mut s = pb::media_service_client::MediaServiceClient::new(ch)
                .download_group_file(pb::DownloadGroupFileRequest {
                    account_id: account,
                    group_id: Some(group),
                    file_id: "/no-such-file".into(),
                })
                .await?
                .into_inner();
            first(s.message().await.map(|m| m.map(|_| ())))
        }
        Rpc::ReflectionV1Alpha => {
            use tonic_reflection::pb::v1alpha as r;
            let req = r::ServerReflectionRequest {
                host: String::new(),
                message_request: Some(r::server_reflection_request::MessageRequest::ListServices(
                    String::new(),
                )),
            };
            let mut s = r::server_reflection_client::ServerReflectionClient::new(ch)
                .server_reflection_info(tokio_stream::iter(vec![req]))
                .await?
                .into_inner();
            first(s.message().await.map(|m| m.map(|_| ())))
        }
    }
}

fn is_unauthenticated(r: &Result<(), Status>) -> bool {
    matches!(r, Err(s) if s.code() == Code::Unauthenticated && reason(s) == "UNAUTHENTICATED")
}

/// The `scope` metadata of a TOKEN_SCOPE refusal, if that is what `r` is.
fn token_scope(r: &Result<(), Status>) -> Option<String> {
    match r {
        Err(s) if s.code() == Code::PermissionDenied && reason(s) == "TOKEN_SCOPE" => Some(
            s.get_error_details()
                .error_info()
                .and_then(|i| i.metadata.get("scope").cloned())
                .unwrap_or_default(),
        ),
        _ => None,
    }
}

fn is_auth_error(r: &Result<(), Status>) -> bool {
    is_unauthenticated(r) || token_scope(r).is_some()
}

/// True when the handler behind `rpc` is not built yet.
fn unimplemented(r: &Result<(), Status>) -> bool {
    matches!(r, Err(s) if s.code() == Code::Unimplemented && reason(s).is_empty())
}

#[tokio::test]
async fn auth_matrix_over_every_rpc() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::start(auth_config(config_for(&sandbox, &[GROUP, OTHER_GROUP]))).await;
    let ch = gw.channel.clone();
    let first = |g: i64| {
        sandbox
            .control()
            .messages(onebot_sandbox::ChatRef::Group(g))
            .first()
            .and_then(|m| m["message_id"].as_i64())
            .expect("a seeded message")
    };
    let _ = MESSAGE_IN.set([GROUP, OTHER_GROUP].map(|g| (g, first(g))).into());
    // The matrix covers every path the server serves (its table is checked
    // against the descriptor set in the server's unit tests).
    let covered: std::collections::BTreeSet<&str> = ALL.iter().map(|r| r.path()).collect();
    let served: std::collections::BTreeSet<String> = onebot_gateway_grpc::rpc::RPCS
        .iter()
        .map(|r| format!("/{}/{}", r.service, r.method))
        .collect();
    assert_eq!(
        covered
            .iter()
            .map(|p| p.to_string())
            .collect::<std::collections::BTreeSet<_>>(),
        served
    );

    // The write tools may not be built yet: then CallTool(qq_send) is an
    // unknown-tool result, and its scope cases are skipped like UNIMPLEMENTED.
    let tools =
        pb::agent_tool_service_client::AgentToolServiceClient::new(authed(&ch, Cred::Bearer(RW)))
            .list_tools(pb::ListToolsRequest {})
            .await
            .map(|r| r.into_inner().tools)
            .unwrap_or_default();
    let write_tool = tools.iter().any(|t| t.name == "qq_send");

    let mut skipped = Vec::new();
    for rpc in ALL {
        // Missing, malformed and wrong tokens.
        for cred in [
            Cred::None,
            Cred::Raw("Basic cnc6cnc="),
            Cred::Raw(RW),
            Cred::Bearer("not-a-configured-token-0123456789"),
            Cred::Bearer("rw-token-0123456789abcde"),
        ] {
            let r = call(&ch, cred, rpc, "default", GROUP).await;
            if rpc.open() {
                assert!(r.is_ok(), "{rpc:?} is open, {cred:?}: {r:?}");
            } else {
                assert!(is_unauthenticated(&r), "{rpc:?} with {cred:?}: {r:?}");
            }
        }

        // The read-write token passes authentication everywhere.
        let rw = call(&ch, Cred::Bearer(RW), rpc, "default", GROUP).await;
        assert!(!is_auth_error(&rw), "{rpc:?} with the rw token: {rw:?}");

        // A read-only token: refused on write RPCs, accepted on reads.
        let ro = call(&ch, Cred::Bearer(RO), rpc, "default", GROUP).await;
        let built = !unimplemented(&rw) && (rpc != Rpc::CallToolWrite || write_tool);
        if rpc.writes() && (built || rpc != Rpc::CallToolWrite) {
            assert_eq!(
                token_scope(&ro).as_deref(),
                Some("write"),
                "{rpc:?}: {ro:?}"
            );
        } else {
            assert!(!is_auth_error(&ro), "{rpc:?} read-only: {ro:?}");
        }

        if !built {
            skipped.push(rpc);
            continue;
        }
        // Account out of the token's scope.
        if rpc.names_account() {
            let r = call(&ch, Cred::Bearer(SCOPED), rpc, "other", GROUP).await;
            assert_eq!(
                token_scope(&r).as_deref(),
                Some("account"),
                "{rpc:?}: {r:?}"
            );
            // The same account with a token for every account is merely
            // not configured.
            let r = call(&ch, Cred::Bearer(RW), rpc, "other", GROUP).await;
            assert!(!is_auth_error(&r), "{rpc:?}: {r:?}");
        }
        // Group out of the token's scope.
        if rpc.names_group() {
            let r = call(&ch, Cred::Bearer(SCOPED), rpc, "default", OTHER_GROUP).await;
            assert_eq!(token_scope(&r).as_deref(), Some("group"), "{rpc:?}: {r:?}");
            let r = call(&ch, Cred::Bearer(SCOPED), rpc, "default", GROUP).await;
            assert!(!is_auth_error(&r), "{rpc:?} in scope: {r:?}");
        }
    }
    eprintln!("scope cases skipped for RPCs still UNIMPLEMENTED: {skipped:?}");

    // ListAccounts shows only the accounts in the token's scope.
    let list = |cred| {
        let ch = ch.clone();
        async move {
            pb::account_service_client::AccountServiceClient::new(authed(&ch, cred))
                .list_accounts(pb::ListAccountsRequest {})
                .await
                .unwrap()
                .into_inner()
                .accounts
                .into_iter()
                .map(|a| a.account_id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        list(Cred::Bearer(SCOPED)).await,
        vec!["default".to_string()]
    );
    gw.stop().await.unwrap();
}

/// Health and reflection can require a token too.
#[tokio::test]
async fn health_and_reflection_can_be_closed() {
    let mut config = auth_config(Config::default());
    config.auth.open_health = false;
    config.auth.open_reflection = false;
    let gw = TestGateway::start(config).await;
    for rpc in [
        Rpc::HealthCheck,
        Rpc::HealthWatch,
        Rpc::ReflectionV1,
        Rpc::ReflectionV1Alpha,
    ] {
        let r = call(&gw.channel, Cred::None, rpc, "", 0).await;
        assert!(is_unauthenticated(&r), "{rpc:?}: {r:?}");
        let r = call(&gw.channel, Cred::Bearer(RO), rpc, "", 0).await;
        assert!(r.is_ok(), "{rpc:?}: {r:?}");
    }
    gw.stop().await.unwrap();
}

/// Without tokens the gateway stays open, as before.
#[tokio::test]
async fn no_tokens_means_open() {
    let gw = TestGateway::start(Config::default()).await;
    for cred in [Cred::None, Cred::Bearer("anything-at-all")] {
        let r = call(&gw.channel, cred, Rpc::ListAccounts, "", 0).await;
        assert!(r.is_ok(), "{r:?}");
    }
    gw.stop().await.unwrap();
}

/// Waits (health watch with a token: without one the account names are
/// hidden) until `account` is SERVING.
async fn wait_serving(gw: &TestGateway, account: &str) {
    let mut watch =
        tonic_health::pb::health_client::HealthClient::new(authed(&gw.channel, Cred::Bearer(RW)))
            .watch(tonic_health::pb::HealthCheckRequest {
                service: format!("onebot.gateway.v1.account.{account}"),
            })
            .await
            .unwrap()
            .into_inner();
    let serving = async {
        while let Some(r) = watch.message().await.unwrap() {
            if r.status == tonic_health::pb::health_check_response::ServingStatus::Serving as i32 {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(20), serving)
        .await
        .expect("account serving");
}

/// A staged media id is usable only by the token that uploaded it.
#[tokio::test]
async fn media_ids_belong_to_the_uploading_token() {
    let sandbox = sandbox(SandboxFlavor::NapCat).await;
    let gw = TestGateway::start(auth_config(config_for(&sandbox, &[GROUP]))).await;
    wait_serving(&gw, "default").await;
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.resize(256, 0);
    let upload = vec![
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Header(
                pb::UploadMediaHeader {
                    account_id: String::new(),
                    kind: pb::MediaKind::Image as i32,
                    file_name: "a.png".into(),
                    size: Some(png.len() as i64),
                    sha256: None,
                },
            )),
        },
        pb::UploadMediaRequest {
            payload: Some(pb::upload_media_request::Payload::Chunk(png)),
        },
    ];
    let media_id =
        pb::media_service_client::MediaServiceClient::new(authed(&gw.channel, Cred::Bearer(RW)))
            .upload_media(tokio_stream::iter(upload))
            .await
            .expect("upload")
            .into_inner()
            .media_id;
    let send = |cred| {
        let ch = gw.channel.clone();
        let media_id = media_id.clone();
        async move {
            pb::message_service_client::MessageServiceClient::new(authed(&ch, cred))
                .send_message(pb::SendMessageRequest {
                    group_id: Some(GROUP),
                    images: vec![pb::MediaSource {
                        source: Some(pb::media_source::Source::MediaId(media_id)),
                    }],
                    ..Default::default()
                })
                .await
        }
    };
    let other = send(Cred::Bearer(RW2)).await.unwrap_err();
    assert_eq!(other.code(), Code::NotFound, "{other:?}");
    assert_eq!(reason(&other), "MEDIA_NOT_FOUND");
    let own = send(Cred::Bearer(RW))
        .await
        .expect("the uploader may send it");
    assert_eq!(own.into_inner().media.map(|m| m.images), Some(1));
    gw.stop().await.unwrap();
}
