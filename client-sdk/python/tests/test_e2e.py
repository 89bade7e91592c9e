"""End-to-end: the Python SDK against a real gateway on its sandbox peer."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import urllib.request

import grpc
import pytest

import readme_examples
from onebot.gateway.v1 import error_reason_pb2, event_service_pb2, message_service_pb2
from onebot_gateway import ACCOUNT_HEALTH_SERVICE_PREFIX, Client, GatewayError, mentions_me


def test_health(client: Client) -> None:
    assert readme_examples.health(client) == "SERVING"
    with pytest.raises(GatewayError) as err:
        client.health("no.such.Service")
    assert err.value.code == grpc.StatusCode.NOT_FOUND


PLAYGROUND = 20000003


def test_accounts(client: Client) -> None:
    assert "default" in readme_examples.accounts(client)
    default = next(a for a in client.accounts() if a.account_id == "default")
    assert PLAYGROUND in default.groups
    # The embedded sandbox imitates NapCat: probed on connect, anchors in message_seq.
    assert (default.history_anchor, default.anchor_included, default.history_anchor_source) == (
        "message_id_as_seq",
        True,
        "probed",
    )
    assert client.health(ACCOUNT_HEALTH_SERVICE_PREFIX + "default") == "SERVING"


def test_history_pages_the_playground_group(client: Client) -> None:
    page = readme_examples.history(client)
    assert page.target == f"group:{PLAYGROUND}"
    assert len(page.messages) == 5
    assert len(page.rendered.splitlines()) == 5
    older = client.history(group_id=PLAYGROUND, count=5, anchor=page.next_anchor_message_id)
    newer = {m.message_id for m in page.messages}
    assert older.messages and not newer & {m.message_id for m in older.messages}


def test_members_and_groups(client: Client) -> None:
    members = readme_examples.members(client)
    assert (members.total, members.shown) == (36, 5)
    assert (members.members[0].user_id, members.members[0].role) == (10001, "owner")
    assert members.rendered.endswith("（仅显示前 5 / 共 36 名成员）")
    groups = readme_examples.groups(client)
    assert any(g.group_id == PLAYGROUND and g.whitelisted for g in groups.groups)


def test_upload_5_mib_image(client: Client) -> None:
    path = os.environ["ONEBOT_GATEWAY_TEST_IMAGE"]
    size = os.path.getsize(path)
    assert size >= 5 * 1024 * 1024
    uploaded = readme_examples.upload(client, path)
    assert uploaded.media_id
    assert uploaded.size == size
    assert uploaded.mime_type == "image/png"


def test_download_received_and_uploaded_media(client: Client, tmp_path: pathlib.Path) -> None:
    import hashlib

    sha, data = readme_examples.download(client, str(tmp_path))
    assert hashlib.sha256(data).hexdigest() == sha
    assert (tmp_path / "picture").read_bytes() == data
    assert not (tmp_path / "picture.part").exists()
    assert data.startswith(b"\x89PNG")
    # An upload downloads back byte for byte.
    uploaded = client.upload(b"%PDF-1.4 round trip", "file", file_name="r.pdf")
    again = client.download(uploaded.media_id)
    assert again.data == b"%PDF-1.4 round trip"
    assert again.header.sha256 == uploaded.sha256
    # Never-seen ids are NOT_FOUND; a text segment is INVALID_ARGUMENT.
    with pytest.raises(GatewayError) as err:
        client.download("r_0123456789abcdef_1_0")
    assert err.value.code == grpc.StatusCode.NOT_FOUND
    assert err.value.reason == "MEDIA_NOT_FOUND"
    page = client.history(group_id=PLAYGROUND, count=30)
    text = next(m for m in page.messages if m.segments[0].WhichOneof("kind") == "text")
    with pytest.raises(GatewayError) as err:
        client.download((text.message_id, 0))
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert not list(tmp_path.glob("*.part"))


def test_asyncio_download(address: str) -> None:
    from onebot_gateway import AsyncClient

    async def run() -> bytes:
        async with AsyncClient(address) as client:
            uploaded = await client.upload(b"GIF89a tiny", "file", file_name="g.bin")
            got = await client.download(uploaded.media_id)
            return got.data

    assert asyncio.run(run()) == b"GIF89a tiny"


def test_errors_carry_reason_metadata_and_field(client: Client, address: str) -> None:
    err = readme_examples.errors(client)
    assert err.code == grpc.StatusCode.INVALID_ARGUMENT
    assert err.reason == "INVALID_REQUEST"
    assert err.error_reason == error_reason_pb2.ERROR_REASON_INVALID_REQUEST
    assert err.domain == "onebot-gateway"
    assert err.field_violations[0].field == "group_id"
    with Client(address, account_id="nope") as other:
        with pytest.raises(GatewayError) as caught:
            other.history(group_id=PLAYGROUND)
    assert caught.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert caught.value.reason == "ACCOUNT_NOT_CONFIGURED"
    assert caught.value.metadata["account_id"] == "nope"
    with pytest.raises(GatewayError) as mismatch:
        client.upload(b"\0" * 1024, "image", file_name="x.png")
    assert mismatch.value.reason == "MEDIA_TYPE_MISMATCH"


def test_asyncio_client(address: str) -> None:
    assert asyncio.run(readme_examples.asyncio_client(address)) == "SERVING"


def test_unreachable_gateway_raises_gateway_error() -> None:
    with Client("http://127.0.0.1:1", timeout=5) as down:
        with pytest.raises(GatewayError) as err:
            down.accounts()
    assert err.value.code == grpc.StatusCode.UNAVAILABLE


def test_send_a_5_mib_image_and_read_it_back(client: Client) -> None:
    sent = readme_examples.send(client, os.environ["ONEBOT_GATEWAY_TEST_IMAGE"])
    assert sent.group_id == PLAYGROUND and not sent.queued
    assert sent.media.images == 1
    assert len(sent.message_ids) == 2
    page = client.history(group_id=PLAYGROUND, count=10)
    by_id = {m.message_id: m for m in page.messages}
    assert by_id[sent.message_ids[0]].text == "hello from Python"
    image = by_id[sent.message_ids[1]]
    assert any(seg.WhichOneof("kind") == "image" for seg in image.segments)


def test_limits_are_checked_before_uploading(client: Client) -> None:
    before = client.history(group_id=PLAYGROUND, count=1).messages[-1].message_id
    refused = readme_examples.limits(client, os.environ["ONEBOT_GATEWAY_TEST_IMAGE"])
    assert (refused.reason, refused.field) == ("TOO_MANY_IMAGES", "images")
    # The same request past the SDK's check is what the gateway refuses, for the same reason.
    request = message_service_pb2.SendMessageRequest(
        group_id=PLAYGROUND, images=[message_service_pb2.MediaSource(media_id="m")] * 5
    )
    with pytest.raises(grpc.RpcError) as err:
        client.message_service.SendMessage(request)
    assert GatewayError.from_rpc_error(err.value).reason == refused.reason
    assert client.history(group_id=PLAYGROUND, count=1).messages[-1].message_id == before


def _inject(message: object, *, group_id: int | None, user_id: int = 10001) -> int:
    """Makes a sandbox user say something (the sandbox's own HTTP action); the message id."""
    url = os.environ.get("ONEBOT_GATEWAY_SANDBOX_URL")
    if not url:
        pytest.fail("ONEBOT_GATEWAY_SANDBOX_URL is not set: run ./scripts/sdk-tests.sh python")
    params: dict[str, object] = {"user_id": user_id, "message": message}
    if group_id is not None:
        params["group_id"] = group_id
    request = urllib.request.Request(
        f"{url}/sandbox_inject_message",
        data=json.dumps(params).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    assert answer["status"] == "ok", answer
    return int(answer["data"]["message_id"])


def _at(user_id: int | str) -> dict[str, object]:
    return {"type": "at", "data": {"qq": str(user_id)}}


def test_agent_answers_a_mention_in_its_chat(client: Client) -> None:
    bot = next(a.self_id for a in client.accounts() if a.account_id == "default")
    _inject([_at("all"), {"type": "text", "data": {"text": " 全体注意"}}], group_id=PLAYGROUND)
    _inject([_at(10002), {"type": "text", "data": {"text": " 不是叫你"}}], group_id=PLAYGROUND)
    asked = _inject([_at(bot), {"type": "text", "data": {"text": " 在吗"}}], group_id=PLAYGROUND)
    answer = readme_examples.agent(client, 0)
    assert answer.group_id == PLAYGROUND
    reply = client.get_message(answer.message_ids[0])
    assert reply.message.segments[0].reply.id == str(asked)
    assert reply.message.text == "在的"
    # A private message is answered privately, quoting it.
    private = _inject([_at(bot), {"type": "text", "data": {"text": " 私聊"}}], group_id=None)
    event = next(
        e for e in client.events(kinds=[event_service_pb2.EVENT_KIND_MESSAGE], after_sequence=0)
        if e.message.message.message_id == private
    )
    assert mentions_me(event)
    sent = client.reply(event, "私聊收到")
    assert (sent.group_id, sent.user_id) == (0, 10001)
    assert client.get_message(sent.message_ids[0]).message.segments[0].reply.id == str(private)


def test_mentions_of_everyone_count_only_when_asked(client: Client) -> None:
    everyone = _inject([_at("all"), {"type": "text", "data": {"text": " 开会了"}}], group_id=PLAYGROUND)
    event = next(
        e for e in client.events(kinds=[event_service_pb2.EVENT_KIND_MESSAGE], after_sequence=0)
        if e.message.message.message_id == everyone
    )
    assert not mentions_me(event)
    assert mentions_me(event, include_all=True)


def test_conversation_reply_mention_private_recall_forward(client: Client) -> None:
    reply = readme_examples.conversation(client)
    segments = [s.WhichOneof("kind") for s in reply.message.segments]
    assert segments == ["reply", "at", "text"]
    quoted = reply.message.segments[0].reply.quoted
    assert quoted.message_id != 0 and quoted.text
    assert "[回复 " in reply.rendered and reply.rendered.endswith("收到")
    assert reply.message.text.endswith("收到") and "回复" not in reply.message.text
    # The recalled private message is gone.
    private = client.history(user_id=10001, count=5)
    assert all(m.text != "私聊一句" for m in private.messages)
    with pytest.raises(GatewayError) as err:
        client.recall(private.messages[0].message_id)  # a seeded message, long past 2 minutes
    assert err.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert err.value.reason == "ONEBOT_ACTION_FAILED"
    with pytest.raises(GatewayError) as missing:
        client.get_forward("no-such-bundle")
    assert missing.value.reason == "MESSAGE_NOT_FOUND"
    with pytest.raises(GatewayError) as denied:
        client.send(user_id=10002, text="x")
    assert denied.value.reason == "USER_NOT_ALLOWED"


def test_poke(client: Client) -> None:
    poked = readme_examples.poke(client)
    assert (poked.group_id, poked.user_id) == (PLAYGROUND, 10001)


def test_tool_call(client: Client) -> None:
    result = readme_examples.tools(client)
    assert not result.is_error
    details = json.loads(result.details_json)
    assert (details["status"], details["total"], details["shown"]) == ("ok", 36, 2)
    assert len(result.text.splitlines()) == 3
    assert client.call_tool("qq_get_group_members", {}).is_error


def test_events_replay_and_follow(client: Client) -> None:
    client.poke(10002, group_id=PLAYGROUND)
    event = readme_examples.events(client)
    assert event.sequence >= 1
    assert event.WhichOneof("kind") == "poke"
    assert event.poke.group_id == PLAYGROUND


def test_events_resume_across_a_proxy_restart(client: Client) -> None:
    """The stream through nginx survives the proxy being killed and restarted: it reconnects
    from the last event it yielded, and every event arrives once."""
    proxy = os.environ.get("ONEBOT_GATEWAY_PROXY_ADDR")
    restart = os.environ.get("ONEBOT_GATEWAY_PROXY_RESTART")
    if not proxy or not restart:
        pytest.skip("needs the nginx that scripts/sdk-tests.sh starts")
    with Client(proxy) as via_proxy:
        stream = via_proxy.events(kinds=[event_service_pb2.EVENT_KIND_POKE], after_sequence=0)
        client.poke(10007, group_id=PLAYGROUND)
        first = next(e for e in stream if e.poke.target_id == 10007)
        subprocess.run([restart], check=True)
        client.poke(10008, group_id=PLAYGROUND)
        last = first.sequence
        for event in stream:
            assert event.sequence > last, "in order, once"
            assert event.poke.target_id != 10007, "the event before the restart came again"
            last = event.sequence
            if event.poke.target_id == 10008:
                break
        stream.close()
    assert stream.reconnects >= 1


def test_search_finds_what_was_sent(client: Client) -> None:
    sent = client.send(PLAYGROUND, text="Python 明天下午开会")
    pages = readme_examples.search(client)
    found = [m for page in pages for m in page.messages]
    assert sent.message_ids[0] in [m.message_id for m in found]
    assert all("开会" in m.text for m in found)
    one = list(client.search("下午开会", group_id=PLAYGROUND, limit=1))
    assert len(one) >= 1 and all(len(p.messages) <= 1 for p in one)
    with pytest.raises(GatewayError) as err:
        list(client.search("x", group_id=0))
    assert err.value.reason == "INVALID_REQUEST"


def test_group_files_list_and_download(client: Client, tmp_path: pathlib.Path) -> None:
    files = readme_examples.group_files(client, str(tmp_path))
    assert files, f"group {PLAYGROUND} has files"
    for file, data in files:
        assert len(data) == file.size, file
    assert (tmp_path / "group-file").stat().st_size == files[-1][0].size


def test_react_and_list_essence(client: Client) -> None:
    essence = readme_examples.react(client)
    assert essence, f"group {PLAYGROUND} has essence messages"
    first = next(client.list_essence(PLAYGROUND, page_size=1))
    assert first.group_id == PLAYGROUND and len(first.messages) <= 1


def test_typing_needs_a_whitelisted_user(client: Client) -> None:
    with pytest.raises(GatewayError) as denied:
        client.set_typing(10002)
    assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert denied.value.reason == "USER_NOT_ALLOWED"
    readme_examples.typing(client)


def test_moderation_without_a_policy_rule_is_denied(client: Client) -> None:
    refused = readme_examples.moderation(client)
    assert refused is not None, "no policy rule names `mute`"
    assert refused.code == grpc.StatusCode.PERMISSION_DENIED
    assert refused.is_policy_denied and refused.metadata.get("rule") == "none"
    for call in (
        lambda: client.mute_all(True, group_id=PLAYGROUND),
        lambda: client.kick_member(10003, group_id=PLAYGROUND),
        lambda: client.set_member_card(10003, "新名片", group_id=PLAYGROUND),
    ):
        with pytest.raises(GatewayError) as err:
            call()
        assert err.value.reason == "POLICY_DENIED", err.value


def test_asyncio_group_actions(address: str) -> None:
    from onebot_gateway.aio import AsyncClient

    async def run() -> tuple[int, GatewayError | None]:
        async with AsyncClient(address) as client:
            files = [f async for f in client.group_files(PLAYGROUND)]
            try:
                await client.mute_member(10003, 60, group_id=PLAYGROUND)
            except GatewayError as err:
                return len(files), err
            return len(files), None

    count, refused = asyncio.run(run())
    assert count >= 1 and refused is not None and refused.is_policy_denied
