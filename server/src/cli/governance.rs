//! `approvals`, `approval`, `approve`, `reject` and `audit`: actions held
//! for a bot owner's approval, and the audit trail. Also the requester
//! flags of the write commands (`--for-message`, `--for-user`).

use std::process::ExitCode;
use std::time::{Duration, SystemTime};

use clap::{Args, ValueEnum};
use onebot_gateway_client::{Error, pb};

use super::connection::Connection;
use super::output::{self, outln};
use super::search::parse_time;

/// Who a write acts for (`[policy]` decides by their role).
#[derive(Args, Debug, Clone, Default)]
pub struct Requester {
    /// Act on behalf of the sender of this message (of the same chat).
    #[arg(
        long,
        value_name = "MESSAGE_ID",
        allow_hyphen_values = true,
        conflicts_with = "for_user"
    )]
    pub for_message: Option<i64>,
    /// Act on behalf of this QQ user.
    #[arg(long, value_name = "QQ")]
    pub for_user: Option<i64>,
}

impl Requester {
    /// The request's `on_behalf_of`.
    pub fn on_behalf_of(&self) -> Option<pb::OnBehalfOf> {
        match (self.for_message, self.for_user) {
            (Some(m), _) => Some(pb::OnBehalfOf::message(m)),
            (None, Some(u)) => Some(pb::OnBehalfOf::user(u)),
            (None, None) => None,
        }
    }
}

/// An approval state, as a filter.
#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum StateArg {
    /// Waiting for a bot owner.
    Pending,
    /// Approved, executing.
    Approved,
    /// Rejected.
    Rejected,
    /// Not decided in time.
    Expired,
    /// Approved and done.
    Executed,
    /// Approved, but the action failed.
    Failed,
}

impl StateArg {
    fn proto(self) -> pb::ApprovalState {
        match self {
            StateArg::Pending => pb::ApprovalState::Pending,
            StateArg::Approved => pb::ApprovalState::Approved,
            StateArg::Rejected => pb::ApprovalState::Rejected,
            StateArg::Expired => pb::ApprovalState::Expired,
            StateArg::Executed => pb::ApprovalState::Executed,
            StateArg::Failed => pb::ApprovalState::Failed,
        }
    }
}

/// An audit decision, as a filter.
#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum DecisionArg {
    /// Done without approval.
    Allowed,
    /// Refused.
    Denied,
    /// Held for approval.
    Pending,
    /// Approved by an owner.
    Approved,
    /// Rejected by an owner.
    Rejected,
    /// Not decided in time.
    Expired,
    /// The approved action ran.
    Executed,
    /// The action failed.
    Failed,
}

impl DecisionArg {
    fn proto(self) -> pb::AuditDecision {
        match self {
            DecisionArg::Allowed => pb::AuditDecision::Allowed,
            DecisionArg::Denied => pb::AuditDecision::Denied,
            DecisionArg::Pending => pb::AuditDecision::Pending,
            DecisionArg::Approved => pb::AuditDecision::Approved,
            DecisionArg::Rejected => pb::AuditDecision::Rejected,
            DecisionArg::Expired => pb::AuditDecision::Expired,
            DecisionArg::Executed => pb::AuditDecision::Executed,
            DecisionArg::Failed => pb::AuditDecision::Failed,
        }
    }
}

/// Arguments of `approvals`.
#[derive(Args, Debug)]
pub struct ApprovalsArgs {
    /// Only approvals in this state.
    #[arg(long, value_enum)]
    pub state: Option<StateArg>,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `approval`.
#[derive(Args, Debug)]
pub struct ApprovalArgs {
    /// The approval id.
    pub id: String,
    /// Wait this long for a decision (`30s`, `5m`; at most 10 minutes).
    #[arg(long, value_parser = humantime::parse_duration)]
    pub wait: Option<Duration>,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `approve` and `reject`.
#[derive(Args, Debug)]
pub struct DecideArgs {
    /// The approval id.
    pub id: String,
    #[command(flatten)]
    pub conn: Connection,
}

/// Arguments of `audit`.
#[derive(Args, Debug)]
pub struct AuditArgs {
    /// Only records since then: a duration ago (`7d`, `12h`) or an RFC
    /// 3339 time.
    #[arg(long, value_parser = parse_time)]
    pub since: Option<SystemTime>,
    /// Only records before then (same forms as `--since`).
    #[arg(long, value_parser = parse_time)]
    pub until: Option<SystemTime>,
    /// Only records of this action (`send`, `mention_all`, `recall`, ...).
    #[arg(long)]
    pub action: Option<String>,
    /// Only this chat: `group:<id>` or `private:<id>`.
    #[arg(long)]
    pub chat: Option<String>,
    /// Only this decision.
    #[arg(long, value_enum)]
    pub decision: Option<DecisionArg>,
    /// Records per page (default 50, at most 500).
    #[arg(long, short = 'n', default_value_t = 50)]
    pub limit: i32,
    /// Pages to print, newest first (default 1; 0: every page).
    #[arg(long, default_value_t = 1)]
    pub pages: u32,
    #[command(flatten)]
    pub conn: Connection,
}

fn time_text(t: Option<&prost_types::Timestamp>) -> String {
    t.and_then(|t| jiff::Timestamp::new(t.seconds, t.nanos).ok())
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_else(|| "-".to_owned())
}

fn state_name(a: &pb::Approval) -> &'static str {
    let name = a.state().as_str_name();
    let short = name.strip_prefix("APPROVAL_STATE_").unwrap_or(name);
    match short {
        "PENDING" => "pending",
        "APPROVED" => "approved",
        "REJECTED" => "rejected",
        "EXPIRED" => "expired",
        "EXECUTED" => "executed",
        "FAILED" => "failed",
        _ => "unspecified",
    }
}

/// One approval as a line: id, state, actions, chat, requester, summary.
fn approval_line(a: &pb::Approval) -> String {
    let requester = match a.requester_user_id {
        0 => a.requester_role.clone(),
        u => format!("{u}({})", a.requester_role),
    };
    let mut line = format!(
        "{} {} {} {} for {} — {}",
        a.approval_id,
        state_name(a),
        a.actions.join("+"),
        a.target,
        requester,
        a.summary
    );
    if !a.decided_by.is_empty() {
        line.push_str(&format!(" (decided by {})", a.decided_by));
    }
    if !a.message_ids.is_empty() {
        let ids: Vec<String> = a.message_ids.iter().map(i64::to_string).collect();
        line.push_str(&format!(" → message_ids {}", ids.join(",")));
    }
    if !a.error_reason.is_empty() {
        line.push_str(&format!(" → {}: {}", a.error_reason, a.error_message));
    }
    line
}

fn print_approval(a: &pb::Approval, json: bool) -> Result<(), Error> {
    if json {
        output::print_message(a)?;
    } else {
        outln!("{}", approval_line(a));
    }
    Ok(())
}

/// Runs `approvals`: one line per approval, newest first.
pub async fn approvals(args: ApprovalsArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let state = args
        .state
        .map_or(pb::ApprovalState::Unspecified, StateArg::proto);
    let list = client.approvals(state).await?;
    if args.conn.json {
        output::print_message(&pb::ListApprovalsResponse { approvals: list })?;
    } else if list.is_empty() {
        outln!("(no approvals)");
    } else {
        for a in &list {
            outln!("{}", approval_line(a));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `approval`.
pub async fn approval(args: ApprovalArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let a = client
        .wait_approval(&args.id, args.wait.unwrap_or_default())
        .await?;
    print_approval(&a, args.conn.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `approve` (`approve = true`) or `reject`.
pub async fn decide(args: DecideArgs, approve: bool) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let a = if approve {
        client.approve(&args.id).await?
    } else {
        client.reject(&args.id).await?
    };
    print_approval(&a, args.conn.json)?;
    Ok(ExitCode::SUCCESS)
}

fn timestamp(t: SystemTime) -> prost_types::Timestamp {
    prost_types::Timestamp::from(t)
}

/// Runs `audit`: one line per record, newest first.
pub async fn audit(args: AuditArgs) -> Result<ExitCode, Error> {
    let client = args.conn.client()?;
    let request = pb::ListAuditRecordsRequest {
        account_id: String::new(),
        since: args.since.map(timestamp),
        until: args.until.map(timestamp),
        action: args.action.unwrap_or_default(),
        target: args.chat.unwrap_or_default(),
        decision: args
            .decision
            .map_or(pb::AuditDecision::Unspecified, DecisionArg::proto) as i32,
        limit: args.limit,
        page_token: String::new(),
    };
    let mut pages = client.audit(request);
    let mut printed = 0u32;
    let mut any = false;
    while args.pages == 0 || printed < args.pages {
        let Some(page) = pages.next_page().await? else {
            break;
        };
        printed += 1;
        if args.conn.json {
            output::print_message(&page)?;
            continue;
        }
        for r in &page.records {
            any = true;
            let decision = r.decision().as_str_name();
            let decision = decision
                .strip_prefix("AUDIT_DECISION_")
                .unwrap_or(decision)
                .to_ascii_lowercase();
            let requester = match r.requester_user_id {
                0 => r.requester_role.clone(),
                u => format!("{u}({})", r.requester_role),
            };
            let mut line = format!(
                "{} {} {} {} {} for {}",
                time_text(r.time.as_ref()),
                r.account_id,
                decision,
                r.actions.join("+"),
                if r.target.is_empty() { "-" } else { &r.target },
                requester,
            );
            if r.rule >= 0 {
                line.push_str(&format!(" rule {}", r.rule));
            }
            if !r.approval_id.is_empty() {
                line.push_str(&format!(" approval {}", r.approval_id));
            }
            if !r.token_name.is_empty() {
                line.push_str(&format!(" token {}", r.token_name));
            }
            if !r.decided_by.is_empty() {
                line.push_str(&format!(" by {}", r.decided_by));
            }
            if !r.error_reason.is_empty() {
                line.push_str(&format!(" [{}]", r.error_reason));
            }
            line.push_str(&format!(" — {}", r.summary));
            outln!("{line}");
        }
    }
    if !args.conn.json && !any {
        outln!("(no audit records)");
    }
    Ok(ExitCode::SUCCESS)
}
