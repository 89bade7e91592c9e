"""Offline tests of the agent helpers and the checks before a send, against an in-process fake
gateway (a real gRPC server on a loopback port) that records what reaches it."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from onebot.gateway.v1 import (
    common_pb2,
    event_service_pb2,
    media_service_pb2,
    media_service_pb2_grpc,
    message_service_pb2,
    message_service_pb2_grpc,
)
from onebot_gateway import (
    MAX_TEXT_CHARS,
    Client,
    ClientError,
    FileError,
    GatewayError,
    OneBotGatewayError,
    mentions_me,
)
from onebot_gateway.aio import AsyncClient

BOT = 3889000000
GROUP = 20000003


class _Media(media_service_pb2_grpc.MediaServiceServicer):
    def __init__(self) -> None:
        self.uploads = 0

    def UploadMedia(self, request_iterator: Iterator[Any], context: Any) -> Any:
        self.uploads += 1
        digest = hashlib.sha256()
        size = 0
        for request in request_iterator:
            if request.WhichOneof("payload") == "chunk":
                digest.update(request.chunk)
                size += len(request.chunk)
        return media_service_pb2.UploadMediaResponse(
            media_id=f"m{self.uploads}", size=size, sha256=digest.hexdigest(), mime_type="image/png"
        )


class _Messages(message_service_pb2_grpc.MessageServiceServicer):
    def __init__(self) -> None:
        self.sent: list[message_service_pb2.SendMessageRequest] = []

    def SendMessage(self, request: Any, context: Any) -> Any:
        self.sent.append(request)
        if request.text == "refuse":
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "group 1 is not whitelisted")
        return message_service_pb2.SendMessageResponse(message_ids=[len(self.sent)])


@pytest.fixture
def fake() -> Iterator[tuple[str, _Media, _Messages]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    # Only the RPCs the tests reach are implemented; the others answer UNIMPLEMENTED.
    media, messages = _Media(), _Messages()  # type: ignore[abstract]
    media_service_pb2_grpc.add_MediaServiceServicer_to_server(media, server)
    message_service_pb2_grpc.add_MessageServiceServicer_to_server(messages, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"http://127.0.0.1:{port}", media, messages
    finally:
        server.stop(None)


@pytest.fixture
def image(tmp_path: Path) -> str:
    path = tmp_path / "a.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    return str(path)


@pytest.mark.parametrize(
    ("kwargs", "reason", "field"),
    [
        ({"images": 5}, "TOO_MANY_IMAGES", "images"),
        ({"videos": 2}, "TOO_MANY_VIDEOS", "videos"),
        ({"images": 1, "text": "x" * (MAX_TEXT_CHARS + 1)}, "TEXT_TOO_LONG", "text"),
        ({"images": 1, "mentions": list(range(10001, 10022))}, "INVALID_REQUEST", "mentions"),
        ({"images": 1, "mentions": [10001, 0]}, "INVALID_REQUEST", "mentions[1]"),
        ({"images": 1, "reply_to": 0}, "INVALID_REQUEST", "reply_to"),
        ({"images": 1, "user_id": 10001}, "INVALID_REQUEST", "user_id"),
        ({"images": 1, "idempotency_key": "k" * 129}, "INVALID_REQUEST", "idempotency_key"),
        ({"text": "   "}, "EMPTY_MESSAGE", None),
    ],
)
def test_a_send_over_the_limits_uploads_nothing(
    fake: tuple[str, _Media, _Messages], image: str, kwargs: dict[str, Any], reason: str, field: str | None
) -> None:
    address, media, messages = fake
    images = [image] * kwargs.pop("images", 0)
    videos = [image] * kwargs.pop("videos", 0)
    with Client(address) as client:
        with pytest.raises(ClientError) as err:
            client.send(GROUP, images=images, videos=videos, **kwargs)
    assert (err.value.reason, err.value.field) == (reason, field)
    assert isinstance(err.value, OneBotGatewayError)
    assert (media.uploads, messages.sent) == (0, [])


def test_limits_count_characters_and_a_send_at_the_limits_goes_through(
    fake: tuple[str, _Media, _Messages], image: str
) -> None:
    address, media, messages = fake
    with Client(address) as client:
        client.send(GROUP, text="字" * MAX_TEXT_CHARS, images=[image] * 4, mentions=list(range(10001, 10021)))
    assert media.uploads == 4
    assert [list(i.media_id for i in m.images) for m in messages.sent] == [["m1", "m2", "m3", "m4"]]


def test_a_missing_second_file_uploads_nothing(fake: tuple[str, _Media, _Messages], image: str, tmp_path: Path) -> None:
    address, media, messages = fake
    with Client(address) as client:
        with pytest.raises(ClientError, match="missing.png is not a regular file"):
            client.send(GROUP, images=[image, str(tmp_path / "missing.png")])
        with pytest.raises(ClientError, match="got int"):
            client.send(GROUP, images=[image, 7])  # type: ignore[list-item]
    assert (media.uploads, messages.sent) == (0, [])


def test_async_send_checks_before_uploading(fake: tuple[str, _Media, _Messages], image: str) -> None:
    address, media, messages = fake

    async def run() -> ClientError:
        async with AsyncClient(address) as client:
            with pytest.raises(ClientError) as err:
                await client.send(GROUP, images=[image] * 5)
            return err.value

    assert asyncio.run(run()).reason == "TOO_MANY_IMAGES"
    assert (media.uploads, messages.sent) == (0, [])


def test_every_failure_shares_one_base_class(fake: tuple[str, _Media, _Messages], tmp_path: Path) -> None:
    address, _, _ = fake
    with Client(address) as client:
        with pytest.raises(OneBotGatewayError) as refused:
            client.send(GROUP, text="refuse")
        assert isinstance(refused.value, GatewayError)
        assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
    with pytest.raises(OneBotGatewayError) as missing:
        Client("https://127.0.0.1:1", ca_file=tmp_path / "missing-ca.pem")
    # A file that cannot be read is a ClientError and the OSError it stands for.
    assert isinstance(missing.value, FileError) and isinstance(missing.value, ClientError)
    assert isinstance(missing.value, OSError)
    assert missing.value.errno == 2 and missing.value.filename == str(tmp_path / "missing-ca.pem")
    with Client(address) as client:
        with pytest.raises(FileError):
            client.download_to("m1", tmp_path / "no-such-dir" / "out")


def _at(user_id: int = 0, all_: bool = False) -> common_pb2.Segment:
    return common_pb2.Segment(at=common_pb2.AtSegment(user_id=user_id, all=all_))


def _text(text: str) -> common_pb2.Segment:
    return common_pb2.Segment(text=common_pb2.TextSegment(text=text))


def _event(*segments: common_pb2.Segment, chat: common_pb2.Chat | None = None, message_id: int = 77) -> event_service_pb2.Event:
    message = common_pb2.ChatMessage(
        message_id=message_id,
        segments=list(segments),
        chat=chat if chat is not None else common_pb2.Chat(group_id=GROUP),
        sender=common_pb2.Sender(user_id=10001),
    )
    return event_service_pb2.Event(
        sequence=5, self_id=BOT, message=event_service_pb2.MessageEvent(message=message)
    )


def test_mentions_me() -> None:
    assert mentions_me(_event(_at(BOT), _text(" 在吗")))
    assert not mentions_me(_event(_at(10002), _text(" 在吗")))
    assert not mentions_me(_event(_text(f"@{BOT} is only text")))
    # @全体成员 addresses everyone: a mention of the bot only when asked for.
    assert not mentions_me(_event(_at(all_=True)))
    assert mentions_me(_event(_at(all_=True)), include_all=True)
    poke = event_service_pb2.Event(self_id=BOT, poke=event_service_pb2.PokeEvent(target_id=BOT))
    assert not mentions_me(poke)
    # Without its event, a message needs the bot's number.
    message = _event(_at(BOT)).message.message
    assert mentions_me(message, self_id=BOT)
    with pytest.raises(ClientError, match="self_id"):
        mentions_me(message)


def test_reply_answers_in_the_chat_of_the_message(fake: tuple[str, _Media, _Messages]) -> None:
    address, media, messages = fake
    private = _event(_text("hi"), chat=common_pb2.Chat(user_id=10001), message_id=88)
    with Client(address) as client:
        client.reply(_event(_at(BOT)), "收到")
        client.reply(private, "私聊", mentions=[10001])
        client.reply(private.message, "no quote", quote=False)
        with pytest.raises(ClientError, match="not a message"):
            client.reply(event_service_pb2.Event(poke=event_service_pb2.PokeEvent()), "x")
        with pytest.raises(ClientError, match="quote=False"):
            client.reply(_event(_text("node"), message_id=0), "x")
    first, second, third = messages.sent
    assert (first.group_id, first.HasField("user_id"), first.reply_to_message_id, first.text) == (GROUP, False, 77, "收到")
    assert (second.HasField("group_id"), second.user_id, second.reply_to_message_id) == (False, 10001, 88)
    assert list(second.mention_user_ids) == [10001]
    assert (third.user_id, third.HasField("reply_to_message_id")) == (10001, False)
    assert media.uploads == 0


def test_async_reply(fake: tuple[str, _Media, _Messages]) -> None:
    address, _, messages = fake

    async def run() -> None:
        async with AsyncClient(address) as client:
            await client.reply(_event(_text("?")), "好")

    asyncio.run(run())
    assert [(m.group_id, m.reply_to_message_id, m.text) for m in messages.sent] == [(GROUP, 77, "好")]
