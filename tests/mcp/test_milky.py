"""MCP on a Milky account: a gateway whose embedded sandbox speaks Milky 1.2 (`[sandbox] protocol =
"milky"`), driven by the official MCP Python SDK over Streamable HTTP. The tools are the same
registry as on a OneBot account; each call's result equals CallTool's over gRPC, and the rendered
texts are the OneBot tests' wherever the data is the same (a Milky peer reports a group
message's sender as the member, so its names are the members' cards)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from conftest import Gateway, serve
from mcp_types import CallToolResult
from onebot.gateway.v1 import account_service_pb2
from test_mcp import (
    EXAMPLE_FORWARD,
    FRIEND,
    PLAYGROUND,
    WRITE_TOOLS,
    connect,
    text_of,
    wake_on_injected,
    without_ids,
)

pytestmark = pytest.mark.anyio

# The example group's seed as a Milky account renders it (see tests/tests/e2e/milky.rs).
SEED_LINES = (
    "[09:58:12] 群主张三(10001): 大家好\n"
    "[09:58:40] 管理员李四(10002): 早上好[图片]\n"
    "[10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]"
)
# Both protocol eras over Streamable HTTP: with `initialize` (2025-11-25) and without (2026-07-28).
ERAS = ["http", "http-2026"]


@pytest.fixture(scope="module")
def milky(binary: str) -> Iterator[Gateway]:
    """One gateway on the embedded Milky sandbox, without tokens."""
    yield from serve(binary, tokens=False, protocol="milky")


def structured(result: CallToolResult) -> dict[str, Any]:
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def test_the_account_speaks_milky_and_lists_the_registry(milky: Gateway) -> None:
    with milky.grpc() as grpc:
        [account] = grpc.accounts()
        registry = {t.name: t for t in grpc.list_tools()}
    assert account.protocol == account_service_pb2.UPSTREAM_PROTOCOL_MILKY, account
    async with connect(milky, "http") as client:
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == list(registry)
    for tool in listed:
        assert tool.description == registry[tool.name].description
        assert tool.input_schema == json.loads(registry[tool.name].input_schema_json)
        assert tool.output_schema == json.loads(registry[tool.name].details_schema_json)
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name not in WRITE_TOOLS)


@pytest.mark.parametrize("transport", ERAS)
async def test_reads_render_as_on_onebot(milky: Gateway, transport: str) -> None:
    """History, one message, members, a forward bundle and a search: CallTool's result, and the
    OneBot tests' texts."""
    async with connect(milky, transport) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        with milky.grpc() as grpc:
            history = await client.call_tool("qq_get_history", {"target": "group:20000002", "count": 30})
            first = structured(history)["messages"][0]["messageId"]
            for name, args in [
                ("qq_get_history", {"target": "group:20000002", "count": 30}),
                ("qq_get_message", {"messageId": first}),
                ("qq_get_message", {"messageId": f" {first} "}),
                ("qq_get_group_members", {"groupId": 20000002, "noCache": True, "limit": 50}),
                ("qq_get_group_members", {"target": "group:20000002", "limit": "3"}),
                ("qq_get_forward", {"forwardId": EXAMPLE_FORWARD}),
                ("qq_search_messages", {"query": "消息", "target": "group:20000003"}),
            ]:
                result = await client.call_tool(name, args)
                expected = grpc.call_tool(name, args)
                assert not result.is_error and not expected.is_error, (name, result)
                assert text_of(result) == expected.text, name
                assert structured(result) == json.loads(expected.details_json), name
                jsonschema.validate(structured(result), schemas[name], cls=jsonschema.Draft202012Validator)
        assert text_of(history) == SEED_LINES
        message = await client.call_tool("qq_get_message", {"messageId": str(first)})
        assert text_of(message) == SEED_LINES.splitlines()[0]
        assert structured(message)["target"] == "group:20000002"
        members = structured(await client.call_tool("qq_get_group_members", {"groupId": "20000002", "limit": 3}))
        assert members["members"][0] == {
            "userId": 10001,
            "nickname": "张三",
            "card": "群主张三",
            "role": "owner",
            "level": "1",
            "joinTime": members["members"][0]["joinTime"],
            "lastSentTime": members["members"][0]["lastSentTime"],
        }
        assert [m["role"] for m in members["members"]] == ["owner", "admin", "member"]
        forward = await client.call_tool("qq_get_forward", {"forwardId": EXAMPLE_FORWARD})
        lines = text_of(forward).splitlines()
        assert len(lines) == 3
        # A Milky forward node names its sender by display name only (no QQ number).
        assert lines[-1].endswith("王五: [合并转发]"), lines
        refused = await client.call_tool("qq_get_history", {"target": "group:20000009"})
        assert refused.is_error is True


@pytest.mark.parametrize("transport", ERAS)
async def test_sends_replies_mentions_recalls_and_pokes(milky: Gateway, transport: str) -> None:
    """Writes land in the Milky sandbox's group and read back through history; results equal
    CallTool's but for the new ids."""
    text = f"来自 MCP 的问候 {transport}"
    async with connect(milky, transport) as client:
        with milky.grpc() as grpc:
            for name, args in [
                ("qq_send", {"text": text}),
                ("qq_send", {"target": f"private:{FRIEND}", "text": f"私聊 {transport}"}),
                ("qq_poke", {"userId": 10003}),
                ("qq_poke", {"userId": "10003", "target": f"group:{PLAYGROUND}"}),
            ]:
                result = await client.call_tool(name, args)
                expected = grpc.call_tool(name, args)
                assert not result.is_error and not expected.is_error, (name, result)
                if name == "qq_send":
                    assert without_ids(structured(result)) == without_ids(json.loads(expected.details_json))
                else:
                    assert text_of(result) == expected.text == f"已在群 {PLAYGROUND} 戳了 10003。"
                    assert structured(result) == json.loads(expected.details_json)

        sent = structured(await client.call_tool("qq_send", {"target": f"group:{PLAYGROUND}", "text": f"原消息 {transport}"}))
        [original] = sent["messageIds"]
        reply = await client.call_tool(
            "qq_send",
            {"target": f"group:{PLAYGROUND}", "text": f"回复它 {transport}", "replyTo": original, "mentions": [10002]},
        )
        assert not reply.is_error, reply
        [replied] = structured(reply)["messageIds"]
        page = await client.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 5})
        messages = structured(page)["messages"]
        assert [m["messageId"] for m in messages[-2:]] == [original, replied]
        lines = text_of(page).splitlines()
        assert lines[-2].endswith(f"(3889000000): 原消息 {transport}"), lines
        assert lines[-1].endswith(f"(3889000000): [回复 沙盒: 原消息 {transport}]@管理员李四回复它 {transport}"), lines
        segments = messages[-1]["segments"]
        assert segments[0]["reply"]["quoted"]["messageId"] == original
        assert segments[1] == {"at": {"userId": 10002, "name": "管理员李四"}}

        recalled = await client.call_tool("qq_recall", {"messageId": original})
        assert not recalled.is_error, recalled
        assert text_of(recalled) == f"已撤回群 {PLAYGROUND} 中的消息 {original}。"
        assert structured(recalled) == {"status": "ok", "messageId": original, "target": f"group:{PLAYGROUND}"}
        again = await client.call_tool("qq_recall", {"messageId": original})
        with milky.grpc() as grpc:
            expected = grpc.call_tool("qq_recall", {"messageId": original})
        assert again.is_error is True and expected.is_error
        assert text_of(again) == expected.text
        assert structured(again) == {"status": "failed", "error": expected.text}
        page = structured(await client.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 5}))
        assert original not in [m["messageId"] for m in page["messages"]]

        refused = await client.call_tool("qq_send", {"target": "group:20000002", "text": text})
        assert refused.is_error is True
        assert text_of(refused) == "群 20000002 不在账号「default」的白名单中。"


@pytest.mark.parametrize("transport", ERAS)
async def test_wait_messages_wakes_on_an_injected_message(milky: Gateway, transport: str) -> None:
    async with connect(milky, transport) as client:
        last, woke = await wake_on_injected(client, milky, transport)
        assert not woke.is_error, woke
        assert text_of(woke) == f"group:{PLAYGROUND}:\n" + text_of(woke).splitlines()[-1]
        assert text_of(woke).endswith(f" 管理员李四(10002): 醒醒 {transport}")
        details = structured(woke)
        assert details["lastSequence"] > last
        [entry] = details["messages"]
        assert entry["target"] == f"group:{PLAYGROUND}"
        assert entry["message"]["text"] == f"醒醒 {transport}"
        assert "backfilled" not in entry
        # The same message by its id, over MCP.
        one = await client.call_tool("qq_get_message", {"messageId": entry["message"]["messageId"]})
        assert text_of(one) == text_of(woke).splitlines()[-1]
