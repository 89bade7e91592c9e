"""The gateway through a real MCP client (the official MCP Python SDK), over Streamable HTTP
(protocol eras with and without `initialize`) and stdio (`onebot-gateway mcp`): every tool
against CallTool over gRPC, schemas, resources and their updates, qq_wait_messages, and the
HTTP endpoint's Origin and token checks."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
import jsonschema
import pytest
from conftest import AGENT_TOKEN, READER_TOKEN, Gateway
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated
from mcp_types import CallToolResult, ImageContent, ResourceUpdatedNotification, TextContent

pytestmark = pytest.mark.anyio

# The seeds' sample calls, one or more per tool (the sandbox's `default` account whitelists group
# 20000003 and the private chat with 10001). `FIRST` stands for the id of the example group's
# first message, read from the gateway (ids differ per flavor).
FIRST = "first-message-id"
EXAMPLE_FORWARD = "7412580369852147963"
SAMPLES: list[tuple[str, dict[str, Any]]] = [
    ("qq_get_history", {"target": "group:20000002", "count": 30}),
    ("qq_get_group_members", {"groupId": 20000002, "noCache": True, "limit": 50}),
    ("qq_send", {"text": "来自 MCP 的问候"}),
    ("qq_send", {"text": "来自 MCP 的提及", "mentions": [10002]}),
    ("qq_send", {"userId": 10001, "text": "来自 MCP 的私聊"}),
    ("qq_send", {"target": "group:20000003", "text": "来自 MCP 的 target"}),
    ("qq_send", {"target": "private:10001", "text": "来自 MCP 的私聊 target"}),
    ("qq_poke", {"userId": 10003}),
    ("qq_poke", {"userId": "10003", "target": "group:20000003"}),
    ("qq_get_group_members", {"target": "group:20000002", "limit": "50"}),
    ("qq_get_message", {"messageId": FIRST}),
    ("qq_get_forward", {"forwardId": EXAMPLE_FORWARD}),
    # Seed history of 20000002: no sends land there, so the archive's answer stays the same.
    ("qq_search_messages", {"query": "消息", "target": "group:20000003"}),
    ("qq_wait_messages", {"afterSequence": 0, "timeoutSecs": 1}),
]
SEED_LINES = (
    "[09:58:12] 张三(10001): 大家好\n"
    "[09:58:40] 李四(10002): 早上好[图片]\n"
    "[10:00:05] 王五(10003): 昨天开会的记录发一下 [合并转发]"
)
# The tools that act: a read-only token does not see them.
WRITE_TOOLS = {
    "qq_send", "qq_poke", "qq_recall", "qq_react", "qq_set_essence", "qq_mute", "qq_kick", "qq_set_card",
}
# The write tools that may remove something (a message, a reaction, an essence mark, a member's
# voice, membership or card).
DESTRUCTIVE_TOOLS = {"qq_recall", "qq_react", "qq_set_essence", "qq_mute", "qq_kick", "qq_set_card"}
# The write tools whose repeat changes nothing more (a mute repeated restarts its timer).
IDEMPOTENT_WRITES = {"qq_recall", "qq_react", "qq_set_essence", "qq_kick", "qq_set_card"}
PLAYGROUND = 20000003
PLAYGROUND_URI = f"qq://default/group/{PLAYGROUND}"
FRIEND = 10001
FRIEND_URI = f"qq://default/private/{FRIEND}"

# http / stdio: sessions opened with `initialize` (protocol 2025-11-25); *-2026: the client's
# default, `server/discover` and per-request metadata (protocol 2026-07-28).
TRANSPORTS = ["http", "http-2026", "stdio", "stdio-2026"]


@asynccontextmanager
async def connect(gw: Gateway, transport: str, token: str | None = None, **kwargs: Any) -> AsyncIterator[Client]:
    mode = "auto" if transport.endswith("2026") else "legacy"
    if transport.startswith("http"):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120)) as http:
            async with Client(
                streamable_http_client(gw.mcp_url, http_client=http), mode=mode, **kwargs
            ) as client:
                yield client
    else:
        args = ["mcp", "--addr", gw.addr]
        if token:
            args += ["--token", token]
        async with Client(StdioServerParameters(command=gw.binary, args=args), mode=mode, **kwargs) as client:
            yield client


def text_of(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent), result
    return first.text


def without_ids(details: dict[str, Any]) -> dict[str, Any]:
    """qq_send's details without the message ids (every send gets new ones)
    and the rate-limit wait (it depends on the sends before)."""
    assert details["rateLimitWaitMs"] >= 0
    return {k: v for k, v in details.items() if k not in ("messageIds", "rateLimitWaitMs")}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_are_the_registry(gateway: Gateway, transport: str) -> None:
    with gateway.grpc() as grpc:
        registry = {t.name: t for t in grpc.list_tools()}
    async with connect(gateway, transport) as client:
        if transport in ("http", "stdio"):
            assert client.server_info is not None and client.server_info.name == "onebot-gateway"
        listed = (await client.list_tools()).tools
    assert [t.name for t in listed] == list(registry)
    for tool in listed:
        grpc_tool = registry[tool.name]
        assert tool.title == grpc_tool.title
        assert tool.description == grpc_tool.description
        assert tool.input_schema == json.loads(grpc_tool.input_schema_json)
        assert tool.output_schema == json.loads(grpc_tool.details_schema_json)
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        hints = tool.annotations
        assert hints is not None
        assert hints.read_only_hint is grpc_tool.read_only is (tool.name not in WRITE_TOOLS)
        assert hints.destructive_hint is grpc_tool.deletes is (tool.name in DESTRUCTIVE_TOOLS)
        assert hints.idempotent_hint is grpc_tool.idempotent is (
            tool.name not in WRITE_TOOLS or tool.name in IDEMPOTENT_WRITES
        )
        # Every tool reaches into QQ but the search and the approvals, which read the gateway's
        # own records.
        assert hints.open_world_hint is grpc_tool.open_world is (
            tool.name not in ("qq_search_messages", "qq_get_approval")
        )


def first_message_id(grpc: Any) -> int:
    history = json.loads(grpc.call_tool("qq_get_history", {"target": "group:20000002"}).details_json)
    return int(history["messages"][0]["messageId"])


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_each_tool_returns_what_call_tool_returns(gateway: Gateway, transport: str) -> None:
    async with connect(gateway, transport) as client:
        schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        with gateway.grpc() as grpc:
            first = first_message_id(grpc)
            for name, sample in SAMPLES:
                args = {k: first if v == FIRST else v for k, v in sample.items()}
                result = await client.call_tool(name, args)
                expected = grpc.call_tool(name, args)
                details = json.loads(expected.details_json)
                structured = result.structured_content
                assert isinstance(structured, dict), result
                jsonschema.validate(structured, schemas[name], cls=jsonschema.Draft202012Validator)
                assert bool(result.is_error) is expected.is_error, (name, result)
                assert not result.is_error, (name, result)
                if name == "qq_send":
                    assert without_ids(structured) == without_ids(details)
                    assert len(structured["messageIds"]) == len(details["messageIds"]) == 1
                else:
                    assert text_of(result) == expected.text, name
                    assert structured == details, name
                if name == "qq_get_history":
                    assert text_of(result) == SEED_LINES
                if name == "qq_get_message":
                    assert text_of(result) == SEED_LINES.splitlines()[0]
                if name == "qq_get_forward":
                    assert len(text_of(result).splitlines()) == 3
                    assert text_of(result).endswith("王五(10003): [合并转发]")
                if name == "qq_wait_messages":
                    assert isinstance(structured["lastSequence"], int)
            # qq_recall: one fresh message recalled over MCP, one over CallTool; the same result but
            # for the id.
            sent = [
                json.loads(grpc.call_tool("qq_send", {"text": f"待撤回 {i}"}).details_json)["messageIds"][0]
                for i in range(2)
            ]
            result = await client.call_tool("qq_recall", {"messageId": sent[0]})
            expected = grpc.call_tool("qq_recall", {"messageId": sent[1]})
            assert not result.is_error and not expected.is_error, (result, expected)
            assert text_of(result) == f"已撤回群 {PLAYGROUND} 中的消息 {sent[0]}。"
            assert text_of(result).replace(str(sent[0]), str(sent[1])) == expected.text
            assert result.structured_content == {**json.loads(expected.details_json), "messageId": sent[0]}
            jsonschema.validate(result.structured_content, schemas["qq_recall"], cls=jsonschema.Draft202012Validator)
            # Recalled once: gone, for MCP exactly as for CallTool.
            again = await client.call_tool("qq_recall", {"messageId": sent[0]})
            expected = grpc.call_tool("qq_recall", {"messageId": sent[0]})
            assert again.is_error is True and expected.is_error
            assert text_of(again) == expected.text
            assert again.structured_content == {"status": "failed", "error": expected.text}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_failures_are_results_and_unknown_tools_errors(gateway: Gateway, transport: str) -> None:
    async with connect(gateway, transport) as client:
        schema = next(t.output_schema for t in (await client.list_tools()).tools if t.name == "qq_poke")
        result = await client.call_tool("qq_poke", {"userId": 10003, "groupId": 20000002})
        with gateway.grpc() as grpc:
            expected = grpc.call_tool("qq_poke", {"userId": 10003, "groupId": 20000002})
        assert result.is_error is True and expected.is_error
        assert text_of(result) == expected.text == "群 20000002 不在账号「default」的白名单中。"
        assert result.structured_content == {"status": "failed", "error": expected.text}
        jsonschema.validate(result.structured_content, schema, cls=jsonschema.Draft202012Validator)
        with pytest.raises(MCPError) as unknown:
            await client.call_tool("qq_nope", {})
        assert unknown.value.code == -32602
        assert "qq_nope" in unknown.value.message


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_images_are_image_content(gateway: Gateway, transport: str) -> None:
    """qq_get_history with includeImages: the text block first, then the page's images as MCP
    image content, exactly CallTool's content."""
    args = {"target": f"group:{PLAYGROUND}", "count": 40, "includeImages": True}
    async with connect(gateway, transport) as client:
        result = await client.call_tool("qq_get_history", args)
    with gateway.grpc() as grpc:
        expected = grpc.call_tool("qq_get_history", args)
    assert not result.is_error and not expected.is_error, (result, expected)
    assert text_of(result) == expected.text
    want = [(c.image.mime_type, base64.b64encode(c.image.data).decode()) for c in expected.content if c.HasField("image")]
    assert want, "the sandbox group's page has images"
    got = [(c.mime_type, c.data) for c in result.content[1:] if isinstance(c, ImageContent)]
    assert got == want
    assert len(result.content) == 1 + len(want)
    # qq_get_media of one of those images: its bytes as image content.
    message_id, index = next(
        (m["messageId"], i)
        for m in reversed(json.loads(expected.details_json)["messages"])
        for i, seg in enumerate(m.get("segments", []))
        if "image" in seg
    )
    media = {"messageId": message_id, "segmentIndex": index}
    async with connect(gateway, transport) as client:
        result = await client.call_tool("qq_get_media", media)
    with gateway.grpc() as grpc:
        expected = grpc.call_tool("qq_get_media", media)
    assert not result.is_error, result
    assert text_of(result) == expected.text
    assert result.structured_content == json.loads(expected.details_json)
    [image] = [c for c in expected.content if c.HasField("image")]
    assert isinstance(result.content[1], ImageContent)
    assert result.content[1].data == base64.b64encode(image.image.data).decode()
    assert result.content[1].mime_type == image.image.mime_type


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_chat_resources(gateway: Gateway, transport: str) -> None:
    async with connect(gateway, transport) as client:
        resources = (await client.list_resources()).resources
        assert [r.uri for r in resources] == [PLAYGROUND_URI, FRIEND_URI]
        assert {r.mime_type for r in resources} == {"text/plain"}
        with gateway.grpc() as grpc:
            for uri, page in [
                (PLAYGROUND_URI, grpc.history(group_id=PLAYGROUND, count=20)),
                (FRIEND_URI, grpc.history(user_id=FRIEND, count=20)),
            ]:
                read = await client.read_resource(uri)
                assert read.contents[0].text == page.rendered  # type: ignore[union-attr]
                assert page.messages and len(page.messages) <= 20, uri
        with pytest.raises(MCPError):
            await client.read_resource("qq://default/group/20000002")  # not whitelisted


@pytest.mark.parametrize("transport", ["http", "stdio"])
async def test_subscribed_sessions_hear_of_new_messages(gateway: Gateway, transport: str) -> None:
    updates: list[str] = []
    arrived = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, ResourceUpdatedNotification):
            updates.append(message.params.uri)
            arrived.set()

    async with connect(gateway, transport, message_handler=on_message) as client:
        await client.session.subscribe_resource(PLAYGROUND_URI)
        gateway.inject(f"订阅测试 {transport}")
        with anyio.fail_after(10):
            await arrived.wait()
        assert updates[0] == PLAYGROUND_URI
        read = await client.read_resource(PLAYGROUND_URI)
        assert read.contents[0].text.endswith(f": 订阅测试 {transport}")  # type: ignore[union-attr]


@pytest.mark.parametrize("transport", ["http-2026", "stdio-2026"])
async def test_listening_clients_hear_of_new_messages(gateway: Gateway, transport: str) -> None:
    text = f"监听测试 {transport}"
    async with connect(gateway, transport) as client:
        async with client.listen(resource_subscriptions=[PLAYGROUND_URI]) as subscription:
            gateway.inject(text)
            # The stream starts with one update (a re-read point), then one per message.
            with anyio.fail_after(10):
                async for event in subscription:
                    assert event == ResourceUpdated(uri=PLAYGROUND_URI)
                    read = await client.read_resource(PLAYGROUND_URI)
                    if read.contents[0].text.endswith(f": {text}"):  # type: ignore[union-attr]
                        break


async def wake_on_injected(client: Any, gateway: Gateway, transport: str) -> tuple[int, CallToolResult]:
    """Waits with qq_wait_messages on the playground while a sandbox user speaks there; returns the
    sequence waited after and the result."""
    first = await client.call_tool("qq_wait_messages", {"timeoutSecs": 1})
    assert first.structured_content is not None
    last = first.structured_content["lastSequence"]
    assert isinstance(last, int)
    results: list[CallToolResult] = []

    async def wait() -> None:
        results.append(
            await client.call_tool(
                "qq_wait_messages",
                {"afterSequence": last, "chats": [f"group:{PLAYGROUND}"], "timeoutSecs": 60},
            )
        )

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await anyio.sleep(0.2)  # not for correctness: afterSequence covers an early inject
            gateway.inject(f"醒醒 {transport}", user_id=10002)
    return last, results[0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_wait_messages_wakes_on_an_injected_message(gateway: Gateway, transport: str) -> None:
    async with connect(gateway, transport) as client:
        last, woke = await wake_on_injected(client, gateway, transport)
        assert not woke.is_error, woke
        assert text_of(woke).startswith(f"group:{PLAYGROUND}:\n")
        assert text_of(woke).endswith(f": 醒醒 {transport}")
        assert woke.structured_content is not None
        assert woke.structured_content["lastSequence"] > last
        messages = woke.structured_content["messages"]
        assert messages[-1]["target"] == f"group:{PLAYGROUND}"


async def test_a_foreign_origin_gets_403(gateway: Gateway) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient() as http:
        refused = await http.post(gateway.mcp_url, json=init, headers={**headers, "origin": "https://evil.example"})
        assert refused.status_code == 403
        served = await http.post(gateway.mcp_url, json=init, headers=headers)
        assert served.status_code == 200
        assert served.headers["mcp-session-id"]


async def test_tokens_are_required_and_scope_the_tools(secured: Gateway) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    async with httpx2.AsyncClient() as http:
        for auth in ({}, {"authorization": "Bearer not-a-configured-token-0123"}):
            refused = await http.post(secured.mcp_url, json=init, headers={**headers, **auth})
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"].startswith("Bearer")
    for transport in ("http", "stdio"):
        with secured.grpc() as grpc:
            registry = [t.name for t in grpc.list_tools()]
        async with connect(secured, transport, token=READER_TOKEN) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == [n for n in registry if n not in WRITE_TOOLS]
            for write, args in [
                ("qq_send", {"text": "只读令牌"}),
                ("qq_poke", {"userId": 10003}),
                ("qq_recall", {"messageId": 1}),
            ]:
                with pytest.raises(MCPError):
                    await client.call_tool(write, args)
            history = await client.call_tool("qq_get_history", {"target": "group:20000002"})
            assert text_of(history) == SEED_LINES
        async with connect(secured, transport, token=AGENT_TOKEN) as client:
            assert [t.name for t in (await client.list_tools()).tools] == registry


# Keys of the peer's own (OneBot) objects that tool details never show.
ONEBOT_FIELDS = {"raw_message", "font", "real_seq", "real_id", "message_format", "message_id", "user_id", "url"}


def onebot_fields(value: Any) -> set[str]:
    """The OneBot keys anywhere inside `value`."""
    if isinstance(value, dict):
        found = {k for k in value if k in ONEBOT_FIELDS}
        for child in value.values():
            found |= onebot_fields(child)
        return found
    if isinstance(value, list):
        return set().union(*(onebot_fields(v) for v in value)) if value else set()
    return set()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_arguments_are_refused(gateway: Gateway, transport: str) -> None:
    """An argument a tool does not take is a failed result naming it and the accepted ones; nothing
    is sent (qq_send with `chat` instead of `target` posts nowhere)."""
    async with connect(gateway, transport) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        before = (await client.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 1})).structured_content
        assert before is not None
        for name in tools:
            result = await client.call_tool(name, {"bogus": 1})
            assert result.is_error is True, (name, result)
            accepted = list(tools[name].input_schema["properties"])
            assert tools[name].input_schema["additionalProperties"] is False
            expected = f"参数不合法：{name} 不接受参数 bogus。它接受的参数：{'、'.join(accepted)}。"
            assert text_of(result) == expected
            assert result.structured_content == {"status": "failed", "error": expected}
            jsonschema.validate(result.structured_content, tools[name].output_schema, cls=jsonschema.Draft202012Validator)
        result = await client.call_tool("qq_send", {"chat": "group:20000002", "text": "不该发出"})
        assert result.is_error is True
        assert "chat" in text_of(result)
        after = (await client.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 1})).structured_content
        assert after is not None
        assert after["messages"] == before["messages"], "nothing was sent"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_target_names_the_chat_of_a_send(gateway: Gateway, transport: str) -> None:
    """`target` on qq_send lands in the named group; a group that is not whitelisted is refused
    and nothing goes to the whitelisted one instead (the sandbox account whitelists 20000003)."""
    text = f"target 测试 {transport}"
    async with connect(gateway, transport) as client:
        refused = await client.call_tool("qq_send", {"target": "group:20000002", "text": text})
        assert refused.is_error is True
        assert text_of(refused) == "群 20000002 不在账号「default」的白名单中。"
        assert refused.structured_content == {"status": "failed", "error": text_of(refused)}
        for empty in ({"target": None, "text": text}, {"target": "", "text": text}):
            result = await client.call_tool("qq_send", empty)
            assert result.is_error is True, empty
        sent = await client.call_tool("qq_send", {"target": f"group:{PLAYGROUND}", "text": text})
        assert not sent.is_error, sent
        assert sent.structured_content is not None
        assert sent.structured_content["groupId"] == PLAYGROUND
        [message_id] = sent.structured_content["messageIds"]
        page = await client.call_tool("qq_get_history", {"target": f"group:{PLAYGROUND}", "count": 5})
        assert page.structured_content is not None
        last = page.structured_content["messages"][-1]
        assert (last["messageId"], last["text"]) == (message_id, text)
        assert text_of(page).endswith(f": {text}")
        # Only this one send reached the chat: the refused ones posted nothing.
        assert [m.get("text") for m in page.structured_content["messages"]].count(text) == 1


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_string_ids_and_model_details(gateway: Gateway, transport: str) -> None:
    """Ids given as strings work (as JavaScript Number() converts them); details use the gateway's
    model with the gRPC JSON names, never the peer's own objects."""
    async with connect(gateway, transport) as client:
        with gateway.grpc() as grpc:
            first = first_message_id(grpc)
        message = await client.call_tool("qq_get_message", {"messageId": f" {first} "})
        assert not message.is_error, message
        assert message.structured_content is not None
        assert message.structured_content["message"]["messageId"] == first
        assert text_of(message) == SEED_LINES.splitlines()[0]
        members = await client.call_tool("qq_get_group_members", {"groupId": "20000002", "limit": 3})
        assert not members.is_error, members
        assert members.structured_content is not None
        assert members.structured_content["members"][0] == {
            "userId": 10001,
            "nickname": "张三",
            "card": "群主张三",
            "role": "owner",
            "level": "1",
            "joinTime": members.structured_content["members"][0]["joinTime"],
            "lastSentTime": members.structured_content["members"][0]["lastSentTime"],
        }
        history = await client.call_tool("qq_get_history", {"groupId": "20000003", "count": 100})
        assert not history.is_error, history
        details = history.structured_content
        assert details is not None
        assert onebot_fields(details) == set()
        assert details["target"] == f"group:{PLAYGROUND}"
        kinds = {next(iter(seg)) for m in details["messages"] for seg in m.get("segments", [])}
        assert {"image", "reply", "forward"} <= kinds, kinds
        assert all(set(m) <= {"messageId", "time", "sender", "text", "segments"} for m in details["messages"])
        older = await client.call_tool(
            "qq_get_history",
            {"target": f"group:{PLAYGROUND}", "anchorMessageId": str(details["messages"][0]["messageId"]), "count": 5},
        )
        assert not older.is_error, older
        assert older.structured_content is not None
        assert older.structured_content["messages"][-1]["messageId"] != details["messages"][0]["messageId"]
