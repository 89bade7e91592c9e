"""Approvals over MCP, with the official MCP Python SDK: a `[policy]` rule holds every @all for the
bot owner's yes. A client that declared elicitation is asked first and its user's answer decides
(recorded as decided by the MCP client); a client without it gets `pending_approval` and follows
the owner's answer in QQ with qq_get_approval."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from conftest import Gateway, serve, start_gateway
from mcp_types import ElicitResult
from onebot.gateway.v1 import governance_service_pb2
from test_mcp import PLAYGROUND, connect

pytestmark = pytest.mark.anyio

OWNER = 10001
POLICY = """
[policy]
owners = [10001]

[[policy.rules]]
actions = ["mention_all"]
approval = "bot_owner"
"""


@pytest.fixture(scope="module")
def governed(binary: str) -> Iterator[Gateway]:
    """One gateway on the embedded sandbox whose @all waits for approval."""
    yield from serve(binary, tokens=False, extra=POLICY)


def at_all(text: str) -> dict[str, Any]:
    return {"target": f"group:{PLAYGROUND}", "text": text, "mentionAll": True}


def answering(action: str, approve: bool | None = None) -> Any:
    """An elicitation callback that answers every question with `action` (and `approve`)."""
    asked: list[str] = []

    async def callback(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        content = None if approve is None else {"approve": approve}
        return ElicitResult(action=action, content=content)

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


async def test_an_eliciting_client_approves_and_the_action_runs(governed: Gateway) -> None:
    callback = answering("accept", approve=True)
    async with connect(governed, "http", elicitation_callback=callback) as client:
        result = await client.call_tool("qq_send", at_all("MCP 用户同意的通知"))
    assert not result.is_error, result
    details = result.structured_content
    assert details is not None and details["status"] == "approval_decided", details
    assert details["state"] == "executed", details
    assert details["decidedBy"].startswith("mcp:"), details
    assert len(details["messageIds"]) == 1
    assert len(callback.asked) == 1 and details["approvalId"] in callback.asked[0]
    with governed.grpc() as grpc:
        [approval] = [
            a
            for a in grpc.approvals()
            if a.approval_id == details["approvalId"]
        ]
    assert approval.state == governance_service_pb2.APPROVAL_STATE_EXECUTED
    assert approval.decided_by == details["decidedBy"]


async def test_a_declining_client_rejects(governed: Gateway) -> None:
    async with connect(governed, "http", elicitation_callback=answering("decline")) as client:
        result = await client.call_tool("qq_send", at_all("MCP 用户拒绝的通知"))
    details = result.structured_content
    assert details is not None and details["status"] == "approval_decided", details
    assert details["state"] == "rejected", details
    assert details["messageIds"] == []


async def test_without_elicitation_the_owner_decides_in_qq(governed: Gateway) -> None:
    async with connect(governed, "http") as client:
        held = await client.call_tool("qq_send", at_all("等主人同意的通知"))
        assert not held.is_error, held
        details = held.structured_content
        assert details is not None and details["status"] == "pending_approval", details
        approval_id = details["approvalId"]
        assert details["actions"] == ["send", "mention_all"]
        now = await client.call_tool("qq_get_approval", {"approvalId": approval_id})
        assert now.structured_content is not None and now.structured_content["state"] == "pending"
        governed.inject(f"同意 {approval_id}", group_id=None, user_id=OWNER)
        done = await client.call_tool("qq_get_approval", {"approvalId": approval_id, "waitSecs": 30})
    assert done.structured_content is not None, done
    assert done.structured_content["state"] == "executed", done
    assert done.structured_content["decidedBy"] == f"qq:{OWNER}"


async def test_a_pending_approval_survives_kill_9(binary: str, tmp_path: Any) -> None:
    """The gateway is killed (SIGKILL) with an approval pending; the next process over the same
    data directory runs it once on the owner's answer."""
    first = start_gateway(binary, tmp_path, tokens=False, extra=POLICY)
    try:
        async with connect(first, "http") as client:
            held = await client.call_tool("qq_send", at_all("kill -9 之前的通知"))
        assert held.structured_content is not None, held
        approval_id = held.structured_content["approvalId"]
    finally:
        first.proc.kill()
        first.proc.wait(timeout=30)
    second = start_gateway(binary, tmp_path, tokens=False, extra=POLICY)
    try:
        async with connect(second, "http") as client:
            now = await client.call_tool("qq_get_approval", {"approvalId": approval_id})
            assert now.structured_content is not None and now.structured_content["state"] == "pending"
            # The second process has a sandbox of its own: its owner answers there.
            second.inject(f"同意 {approval_id}", group_id=None, user_id=OWNER)
            done = await client.call_tool("qq_get_approval", {"approvalId": approval_id, "waitSecs": 30})
        assert done.structured_content is not None and done.structured_content["state"] == "executed", done
        with second.grpc() as grpc:
            history = grpc.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 5})
        assert "kill -9 之前的通知" in history.text
    finally:
        second.proc.terminate()
        second.proc.wait(timeout=30)
