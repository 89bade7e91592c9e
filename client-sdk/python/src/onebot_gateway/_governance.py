"""What the sync and asyncio clients share about governance: who an action is done for
(``on_behalf_of``), approvals of held actions and the audit trail's requests."""

from __future__ import annotations

from datetime import datetime

from google.protobuf import duration_pb2

from onebot.gateway.v1 import common_pb2, governance_service_pb2

from ._common import _timestamp
from ._errors import ClientError

ApprovalState = governance_service_pb2.ApprovalState
AuditDecision = governance_service_pb2.AuditDecision

#: Longest ``wait`` of ``wait_approval``, in seconds (the gateway's limit).
MAX_APPROVAL_WAIT = 600.0


def on_behalf_of_message(message_id: int) -> common_pb2.OnBehalfOf:
    """On behalf of the sender of ``message_id`` (a message of the action's chat): the
    preferred form, the gateway looks the message up."""
    return common_pb2.OnBehalfOf(message_id=message_id)


def on_behalf_of_user(user_id: int) -> common_pb2.OnBehalfOf:
    """On behalf of the QQ user ``user_id``."""
    return common_pb2.OnBehalfOf(user_id=user_id)


def is_approval_open(approval: governance_service_pb2.Approval) -> bool:
    """True while the approval may still run: pending (waiting for a bot owner) or approved
    (executing)."""
    return approval.state in (
        governance_service_pb2.APPROVAL_STATE_PENDING,
        governance_service_pb2.APPROVAL_STATE_APPROVED,
    )


def list_approvals_request(
    account_id: str, state: governance_service_pb2.ApprovalState.ValueType, limit: int
) -> governance_service_pb2.ListApprovalsRequest:
    """A ``ListApprovalsRequest`` of the client's account."""
    return governance_service_pb2.ListApprovalsRequest(account_id=account_id, state=state, limit=limit)


def get_approval_request(approval_id: str, wait: float) -> governance_service_pb2.GetApprovalRequest:
    """A ``GetApprovalRequest`` waiting up to ``wait`` seconds (0: answer at once)."""
    if wait < 0 or wait > MAX_APPROVAL_WAIT:
        raise ClientError(
            f"wait must be 0 to {MAX_APPROVAL_WAIT:g} seconds, got {wait:g}",
            reason="INVALID_REQUEST",
            field="wait",
        )
    request = governance_service_pb2.GetApprovalRequest(approval_id=approval_id)
    if wait > 0:
        request.wait.CopyFrom(duration_pb2.Duration(seconds=int(wait), nanos=round((wait % 1) * 1e9)))
    return request


def wait_timeout(timeout: float | None, wait: float) -> float | None:
    """The deadline of a ``GetApproval`` that waits ``wait`` seconds: the client's timeout, but
    never shorter than the wait (plus a margin)."""
    if timeout is None or wait <= 0:
        return timeout
    return max(timeout, wait + 10.0)


def audit_request(
    account_id: str,
    since: datetime | None,
    until: datetime | None,
    action: str,
    target: str,
    decision: governance_service_pb2.AuditDecision.ValueType,
    limit: int,
) -> governance_service_pb2.ListAuditRecordsRequest:
    """A ``ListAuditRecordsRequest``; times timezone-aware."""
    request = governance_service_pb2.ListAuditRecordsRequest(
        account_id=account_id, action=action, target=target, decision=decision, limit=limit
    )
    if since is not None:
        request.since.CopyFrom(_timestamp(since))
    if until is not None:
        request.until.CopyFrom(_timestamp(until))
    return request
