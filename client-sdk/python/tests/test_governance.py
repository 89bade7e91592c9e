"""Offline tests of acting on behalf of a QQ user, the approval helpers, the audit pages and the
approval id of an error, against an in-process fake gateway that records what reaches it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent import futures
from datetime import datetime, timezone
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
import google.rpc.error_details_pb2 as error_details_pb2
import google.rpc.status_pb2 as status_pb2

from onebot.gateway.v1 import (
    common_pb2,
    event_service_pb2,
    governance_service_pb2 as gov,
    governance_service_pb2_grpc,
    group_service_pb2,
    group_service_pb2_grpc,
    message_service_pb2,
    message_service_pb2_grpc,
)
from onebot_gateway import (
    MAX_APPROVAL_WAIT,
    Client,
    ClientError,
    GatewayError,
    is_approval_open,
    on_behalf_of_message,
    on_behalf_of_user,
)
from onebot_gateway.aio import AsyncClient

GROUP = 20000003


def _details(reason: str, **metadata: str) -> tuple[tuple[str, bytes], ...]:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="onebot-gateway", metadata=metadata))
    status = status_pb2.Status(code=9, message="held", details=[info])
    return (("grpc-status-details-bin", status.SerializeToString()),)


class _Fake(
    message_service_pb2_grpc.MessageServiceServicer,
    group_service_pb2_grpc.GroupServiceServicer,
    governance_service_pb2_grpc.ApprovalServiceServicer,
    governance_service_pb2_grpc.AuditServiceServicer,
):
    def __init__(self) -> None:
        self.requests: list[Any] = []

    def SendMessage(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        if request.text == "hold":
            context.abort_with_status(_HeldStatus())
        return message_service_pb2.SendMessageResponse(message_ids=[1])

    def RecallMessage(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        return message_service_pb2.RecallMessageResponse()

    def PokeMember(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        return group_service_pb2.PokeMemberResponse()

    def ListApprovals(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        return gov.ListApprovalsResponse(approvals=[gov.Approval(approval_id="a1", state=gov.APPROVAL_STATE_PENDING)])

    def GetApproval(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        state = gov.APPROVAL_STATE_EXECUTED if request.HasField("wait") else gov.APPROVAL_STATE_PENDING
        return gov.GetApprovalResponse(approval=gov.Approval(approval_id=request.approval_id, state=state))

    def DecideApproval(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        state = gov.APPROVAL_STATE_EXECUTED if request.approve else gov.APPROVAL_STATE_REJECTED
        return gov.DecideApprovalResponse(approval=gov.Approval(approval_id=request.approval_id, state=state))

    def ListAuditRecords(self, request: Any, context: Any) -> Any:
        copy = gov.ListAuditRecordsRequest()
        copy.CopyFrom(request)
        self.requests.append(copy)
        if request.page_token == "":
            return gov.ListAuditRecordsResponse(records=[gov.AuditRecord(id=3), gov.AuditRecord(id=2)], next_page_token="p2")
        return gov.ListAuditRecordsResponse(records=[gov.AuditRecord(id=1)])


class _HeldStatus(grpc.Status):
    code = grpc.StatusCode.FAILED_PRECONDITION
    details = "held for approval a1"
    trailing_metadata = _details("APPROVAL_PENDING", approval_id="a1", rule="0", action="send")


@pytest.fixture
def fake() -> Iterator[tuple[str, _Fake]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    # Only the RPCs the tests reach are implemented; the others answer UNIMPLEMENTED.
    fake = _Fake()  # type: ignore[abstract]
    message_service_pb2_grpc.add_MessageServiceServicer_to_server(fake, server)
    group_service_pb2_grpc.add_GroupServiceServicer_to_server(fake, server)
    governance_service_pb2_grpc.add_ApprovalServiceServicer_to_server(fake, server)
    governance_service_pb2_grpc.add_AuditServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"http://127.0.0.1:{port}", fake
    finally:
        server.stop(None)


def _received(chat: common_pb2.Chat, message_id: int) -> event_service_pb2.Event:
    message = common_pb2.ChatMessage(
        message_id=message_id, chat=chat, sender=common_pb2.Sender(user_id=10001),
        segments=[common_pb2.Segment(text=common_pb2.TextSegment(text="hi"))],
    )
    return event_service_pb2.Event(sequence=5, message=event_service_pb2.MessageEvent(message=message))


def test_on_behalf_of_constructors() -> None:
    assert on_behalf_of_message(77).WhichOneof("requester") == "message_id"
    assert on_behalf_of_message(77).message_id == 77
    assert on_behalf_of_user(10001).WhichOneof("requester") == "user_id"
    assert on_behalf_of_user(10001).user_id == 10001


def test_on_behalf_of_reaches_the_gateway(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address, account_id="bot1") as client:
        client.reply_for(_received(common_pb2.Chat(group_id=GROUP), 77), "收到")
        client.reply_for(_received(common_pb2.Chat(user_id=10001), 88).message.message, "私聊")
        client.send(GROUP, text="for a user", on_behalf_of=on_behalf_of_user(10002))
        client.send(GROUP, text="for nobody")
        client.recall(99, on_behalf_of=on_behalf_of_message(77))
        client.recall(100)
        client.poke(10002, group_id=GROUP, on_behalf_of=on_behalf_of_user(10001))
        client.poke(10002)
    group_reply, private_reply, for_user, for_nobody, recall_for, recall, poke_for, poke = gateway.requests
    assert (group_reply.group_id, group_reply.HasField("user_id"), group_reply.reply_to_message_id) == (GROUP, False, 77)
    assert (group_reply.on_behalf_of.message_id, group_reply.text, group_reply.account_id) == (77, "收到", "bot1")
    assert (private_reply.HasField("group_id"), private_reply.user_id, private_reply.reply_to_message_id) == (False, 10001, 88)
    assert private_reply.on_behalf_of.WhichOneof("requester") == "message_id"
    assert private_reply.on_behalf_of.message_id == 88
    assert for_user.on_behalf_of.WhichOneof("requester") == "user_id" and for_user.on_behalf_of.user_id == 10002
    assert not for_nobody.HasField("on_behalf_of")
    assert (recall_for.message_id, recall_for.on_behalf_of.message_id) == (99, 77)
    assert not recall.HasField("on_behalf_of")
    assert (poke_for.group_id, poke_for.user_id, poke_for.on_behalf_of.user_id) == (GROUP, 10002, 10001)
    assert not poke.HasField("on_behalf_of") and not poke.HasField("group_id")


def test_reply_for_refuses_what_is_not_a_message() -> None:
    with Client("http://127.0.0.1:1") as client:
        with pytest.raises(ClientError, match="not a message"):
            client.reply_for(event_service_pb2.Event(poke=event_service_pb2.PokeEvent()), "x")


def test_approval_pending_names_the_approval(fake: tuple[str, _Fake]) -> None:
    address, _ = fake
    with Client(address) as client:
        with pytest.raises(GatewayError) as held:
            client.send(GROUP, text="hold")
    err = held.value
    assert err.code == grpc.StatusCode.FAILED_PRECONDITION
    assert (err.reason, err.approval_id, err.is_approval_pending, err.is_policy_denied) == ("APPROVAL_PENDING", "a1", True, False)
    denied = GatewayError(
        code=grpc.StatusCode.PERMISSION_DENIED, message="no", reason="POLICY_DENIED",
        metadata={"role": "member", "approval_id": "x"},
    )
    assert (denied.is_policy_denied, denied.is_approval_pending, denied.approval_id) == (True, False, None)
    decided = GatewayError(code=grpc.StatusCode.FAILED_PRECONDITION, message="", reason="APPROVAL_DECIDED", metadata={"approval_id": "a2"})
    assert decided.approval_id == "a2"
    assert GatewayError(code=grpc.StatusCode.UNKNOWN, message="").approval_id is None


def test_approval_helpers(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address, account_id="bot1", timeout=5) as client:
        listed = client.approvals(gov.APPROVAL_STATE_PENDING)
        now = client.approval("a1")
        done = client.wait_approval("a1", 90.5)
        approved = client.approve("a1")
        rejected = client.reject("a2")
        with pytest.raises(ClientError):
            client.wait_approval("a1", MAX_APPROVAL_WAIT + 1)
    assert [a.approval_id for a in listed] == ["a1"] and is_approval_open(listed[0])
    assert now.state == gov.APPROVAL_STATE_PENDING and is_approval_open(now)
    assert done.state == gov.APPROVAL_STATE_EXECUTED and not is_approval_open(done)
    assert approved.state == gov.APPROVAL_STATE_EXECUTED
    assert rejected.state == gov.APPROVAL_STATE_REJECTED
    assert is_approval_open(gov.Approval(state=gov.APPROVAL_STATE_APPROVED))
    assert not is_approval_open(gov.Approval(state=gov.APPROVAL_STATE_EXPIRED))
    list_req, get_now, get_wait, approve, reject = gateway.requests
    assert (list_req.account_id, list_req.state) == ("bot1", gov.APPROVAL_STATE_PENDING)
    assert not get_now.HasField("wait")
    assert get_wait.wait.ToTimedelta().total_seconds() == 90.5
    assert (approve.approval_id, approve.approve) == ("a1", True)
    assert (reject.approval_id, reject.approve) == ("a2", False)


def test_audit_follows_the_pages(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    since = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with Client(address, account_id="bot1") as client:
        pages = list(client.audit(since=since, action="send", target=f"group:{GROUP}", decision=gov.AUDIT_DECISION_PENDING))
        with pytest.raises(ClientError, match="timezone-aware"):
            next(client.audit(since=datetime(2026, 1, 1)))
    assert [r.id for page in pages for r in page.records] == [3, 2, 1]
    first, second = gateway.requests
    assert (first.account_id, first.page_token, first.action, first.target) == ("bot1", "", "send", f"group:{GROUP}")
    assert first.decision == gov.AUDIT_DECISION_PENDING and first.since.ToDatetime(tzinfo=timezone.utc) == since
    assert (second.page_token, second.action) == ("p2", "send")


def test_async_governance(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake

    async def run() -> tuple[list[int], gov.Approval]:
        async with AsyncClient(address, account_id="bot1") as client:
            await client.reply_for(_received(common_pb2.Chat(group_id=GROUP), 77), "好")
            await client.poke(10002, on_behalf_of=on_behalf_of_user(10001))
            await client.recall(5, on_behalf_of=on_behalf_of_message(77))
            approval = await client.wait_approval("a1", 1)
            ids = [r.id async for page in client.audit() for r in page.records]
            return ids, approval

    ids, approval = asyncio.run(run())
    assert ids == [3, 2, 1] and approval.state == gov.APPROVAL_STATE_EXECUTED
    send, poke, recall = gateway.requests[:3]
    assert (send.group_id, send.reply_to_message_id, send.on_behalf_of.message_id) == (GROUP, 77, 77)
    assert poke.on_behalf_of.user_id == 10001 and recall.on_behalf_of.message_id == 77
