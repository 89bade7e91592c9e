"""Offline tests of the group actions (reactions, essence, typing, voice, group files,
moderation) and their error predicates, against an in-process fake gateway that records what
reaches it."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterator
from concurrent import futures
from datetime import timedelta
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
import google.rpc.error_details_pb2 as error_details_pb2
import google.rpc.status_pb2 as status_pb2

from onebot.gateway.v1 import (
    common_pb2,
    group_service_pb2,
    group_service_pb2_grpc,
    media_service_pb2,
    media_service_pb2_grpc,
    message_service_pb2,
    message_service_pb2_grpc,
)
from onebot_gateway import (
    MAX_MUTE_SECONDS,
    RECORD,
    Client,
    ClientError,
    GatewayError,
    on_behalf_of_message,
    on_behalf_of_user,
)
from onebot_gateway.aio import AsyncClient

GROUP = 20000003
FILE_BYTES = bytes(range(256)) * 1200  # 300 KiB: two chunks


def _status(status_code: grpc.StatusCode, reason: str, **metadata: str) -> grpc.Status:
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="onebot-gateway", metadata=metadata))
    status = status_pb2.Status(code=status_code.value[0], message=reason.lower(), details=[info])

    class _Status(grpc.Status):
        code = status_code
        details = reason.lower()
        trailing_metadata = (("grpc-status-details-bin", status.SerializeToString()),)

    return _Status()


def _copy(request: Any) -> Any:
    out = type(request)()
    out.CopyFrom(request)
    return out


class _Fake(
    message_service_pb2_grpc.MessageServiceServicer,
    group_service_pb2_grpc.GroupServiceServicer,
    media_service_pb2_grpc.MediaServiceServicer,
):
    def __init__(self) -> None:
        self.requests: list[Any] = []
        self.upload_kinds: list[int] = []

    def ReactToMessage(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        return message_service_pb2.ReactToMessageResponse(group_id=GROUP)

    def SetEssence(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        return message_service_pb2.SetEssenceResponse(group_id=GROUP)

    def ListEssence(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        if request.page_token == "":
            return message_service_pb2.ListEssenceResponse(
                group_id=GROUP,
                messages=[message_service_pb2.EssenceMessage(operator_id=10001)] * 2,
                next_page_token="e2",
            )
        return message_service_pb2.ListEssenceResponse(
            group_id=GROUP, messages=[message_service_pb2.EssenceMessage(operator_id=10002)]
        )

    def SetTyping(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        if request.user_id == 10002:
            context.abort_with_status(_status(grpc.StatusCode.PERMISSION_DENIED, "USER_NOT_ALLOWED"))
        if request.user_id == 10003:
            context.abort_with_status(
                _status(
                    grpc.StatusCode.UNIMPLEMENTED,
                    "NOT_SUPPORTED_BY_IMPLEMENTATION",
                    implementation="llonebot",
                    action="typing",
                )
            )
        return message_service_pb2.SetTypingResponse()

    def SendMessage(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        return message_service_pb2.SendMessageResponse(
            message_ids=[1, 2], media=message_service_pb2.MediaSummary(voices=len(request.voices))
        )

    def UploadMedia(self, request_iterator: Iterator[Any], context: Any) -> Any:
        digest = hashlib.sha256()
        size = 0
        for request in request_iterator:
            if request.WhichOneof("payload") == "header":
                self.upload_kinds.append(request.header.kind)
            else:
                digest.update(request.chunk)
                size += len(request.chunk)
        return media_service_pb2.UploadMediaResponse(
            media_id=f"v{len(self.upload_kinds)}", size=size, sha256=digest.hexdigest(), mime_type="audio/amr"
        )

    def ListGroupFiles(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        if request.page_token == "":
            return group_service_pb2.ListGroupFilesResponse(
                group_id=GROUP,
                folders=[group_service_pb2.GroupFolder(folder_id="/d1", name="资料")],
                files=[group_service_pb2.GroupFile(file_id="f1", name="a.txt", size=len(FILE_BYTES))],
                next_page_token="g2",
            )
        return group_service_pb2.ListGroupFilesResponse(
            group_id=GROUP, files=[group_service_pb2.GroupFile(file_id="f2", name="b.txt", size=1)]
        )

    def DownloadGroupFile(self, request: Any, context: Any) -> Iterator[Any]:
        self.requests.append(_copy(request))
        data = FILE_BYTES if request.file_id != "bad" else b"x"
        header = media_service_pb2.DownloadMediaHeader(
            kind=common_pb2.MEDIA_KIND_FILE,
            mime_type="text/plain",
            size=len(FILE_BYTES),
            sha256=hashlib.sha256(FILE_BYTES).hexdigest(),
            file_name="a.txt",
        )
        yield media_service_pb2.DownloadGroupFileResponse(header=header)
        for i in range(0, len(data), 256 * 1024):
            yield media_service_pb2.DownloadGroupFileResponse(chunk=data[i : i + 256 * 1024])

    def MuteMember(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        if request.user_id == 10001:
            context.abort_with_status(
                _status(grpc.StatusCode.PERMISSION_DENIED, "PROTECTED_MEMBER", user_id="10001", why="owner")
            )
        context.abort_with_status(
            _status(grpc.StatusCode.PERMISSION_DENIED, "POLICY_DENIED", rule="none", action="mute")
        )

    def MuteAll(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        context.abort_with_status(
            _status(
                grpc.StatusCode.FAILED_PRECONDITION,
                "BOT_NOT_ADMIN",
                group_id="20000002",
                bot_role="member",
                needed_role="admin",
            )
        )

    def KickMember(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        return group_service_pb2.KickMemberResponse(group_id=GROUP, user_id=request.user_id)

    def SetMemberCard(self, request: Any, context: Any) -> Any:
        self.requests.append(_copy(request))
        return group_service_pb2.SetMemberCardResponse(group_id=GROUP, user_id=request.user_id)


@pytest.fixture
def fake() -> Iterator[tuple[str, _Fake]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    # Only the RPCs the tests reach are implemented; the others answer UNIMPLEMENTED.
    fake = _Fake()  # type: ignore[abstract]
    message_service_pb2_grpc.add_MessageServiceServicer_to_server(fake, server)
    group_service_pb2_grpc.add_GroupServiceServicer_to_server(fake, server)
    media_service_pb2_grpc.add_MediaServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"http://127.0.0.1:{port}", fake
    finally:
        server.stop(None)


def test_react_essence_and_typing_reach_the_gateway(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address, account_id="bot1") as client:
        assert client.react(77, 76).group_id == GROUP
        client.react(77, "128077", remove=True, on_behalf_of=on_behalf_of_message(77))
        client.set_essence(77, on_behalf_of=on_behalf_of_user(10001))
        client.set_essence(77, remove=True)
        client.set_typing(10001)
    react, unreact, essence, unessence, typing = gateway.requests
    assert (react.account_id, react.message_id, react.emoji_id, react.remove) == ("bot1", 77, "76", False)
    assert not react.HasField("on_behalf_of")
    assert (unreact.emoji_id, unreact.remove, unreact.on_behalf_of.message_id) == ("128077", True, 77)
    assert (essence.remove, essence.on_behalf_of.user_id, unessence.remove) == (False, 10001, True)
    assert (typing.account_id, typing.user_id) == ("bot1", 10001)


def test_bad_arguments_are_refused_before_any_call(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address) as client:
        calls: list[tuple[Callable[[], object], str]] = [
            (lambda: client.react(0, "76"), "message_id"),
            (lambda: client.react(1, ""), "emoji_id"),
            (lambda: client.react(1, "x" * 33), "emoji_id"),
            (lambda: client.set_essence(0), "message_id"),
            (lambda: client.set_typing(0), "user_id"),
            (lambda: client.mute_member(10003, MAX_MUTE_SECONDS + 1), "duration"),
            (lambda: client.mute_member(10003, -1), "duration"),
            (lambda: client.kick_member(0), "user_id"),
            (lambda: client.set_member_card(10003, "名" * 21), "card"),
            (lambda: client.download_group_file(""), "file_id"),
            (lambda: next(client.list_essence(page_size=51)), "page_size"),
            (lambda: next(client.list_group_files(page_size=201)), "page_size"),
        ]
        for call, field in calls:
            with pytest.raises(ClientError) as err:
                call()
            assert (err.value.reason, err.value.field) == ("INVALID_REQUEST", field)
    assert gateway.requests == []


def test_list_essence_follows_the_pages(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address, account_id="bot1") as client:
        pages = list(client.list_essence(GROUP, page_size=2))
        everything = list(client.essence_messages())
    assert [len(p.messages) for p in pages] == [2, 1]
    assert [m.operator_id for m in everything] == [10001, 10001, 10002]
    first, second, unset, _ = gateway.requests
    assert (first.account_id, first.group_id, first.page_size, first.page_token) == ("bot1", GROUP, 2, "")
    assert (second.page_token, second.page_size) == ("e2", 2)
    assert not unset.HasField("group_id")


def test_group_files_list_every_page_and_download(fake: tuple[str, _Fake], tmp_path: Path) -> None:
    address, gateway = fake
    target = tmp_path / "a.txt"
    seen: list[tuple[int, int]] = []
    with Client(address) as client:
        pages = list(client.list_group_files(GROUP, folder_id="/d1", page_size=100))
        files = list(client.group_files(GROUP))
        data = client.download_group_file("f1", group_id=GROUP)
        header = client.download_group_file_to("f1", target, progress=lambda r, t: seen.append((r, t)))
        with pytest.raises(ClientError, match="integrity"):
            client.download_group_file_to("bad", tmp_path / "bad.txt")
    assert [f.name for p in pages for f in p.folders] == ["资料"]
    assert [f.file_id for f in files] == ["f1", "f2"]
    first, second = gateway.requests[:2]
    assert (first.folder_id, first.page_size, first.page_token, second.page_token) == ("/d1", 100, "", "g2")
    assert data.data == FILE_BYTES and data.header.file_name == "a.txt"
    assert header.size == len(FILE_BYTES) and target.read_bytes() == FILE_BYTES
    assert seen[-1] == (len(FILE_BYTES), len(FILE_BYTES)) and len(seen) == 2
    assert not (tmp_path / "bad.txt").exists() and not (tmp_path / "bad.txt.part").exists()
    download = gateway.requests[-1]
    assert (download.file_id, download.HasField("group_id")) == ("bad", False)


def test_moderation_requests_and_error_predicates(fake: tuple[str, _Fake]) -> None:
    address, gateway = fake
    with Client(address) as client:
        with pytest.raises(GatewayError) as denied:
            client.mute_member(10003, timedelta(minutes=10), group_id=GROUP, on_behalf_of=on_behalf_of_user(10002))
        with pytest.raises(GatewayError) as protected:
            client.mute_member(10001, 0.5)
        with pytest.raises(GatewayError) as not_admin:
            client.mute_all(group_id=20000002)
        with pytest.raises(GatewayError) as unsupported:
            client.set_typing(10003)
        kicked = client.kick_member(10003, group_id=GROUP, reject_rejoin=True)
        carded = client.set_member_card(10003, "新名片", group_id=GROUP)
    assert denied.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert denied.value.is_policy_denied and denied.value.metadata["rule"] == "none"
    assert protected.value.is_protected_member and protected.value.metadata["why"] == "owner"
    assert not_admin.value.is_bot_not_admin and not_admin.value.metadata["needed_role"] == "admin"
    assert unsupported.value.code == grpc.StatusCode.UNIMPLEMENTED
    assert unsupported.value.is_not_supported_by_implementation
    assert not denied.value.is_bot_not_admin and not unsupported.value.is_protected_member
    assert (kicked.user_id, carded.user_id) == (10003, 10003)
    mute, lift, mute_all, _, kick, card = gateway.requests
    assert (mute.group_id, mute.user_id, mute.duration_secs, mute.on_behalf_of.user_id) == (GROUP, 10003, 600, 10002)
    assert lift.duration_secs == 1 and not lift.HasField("group_id")  # a part second rounds up
    assert (mute_all.group_id, mute_all.enable) == (20000002, True)
    assert (kick.reject_rejoin, card.card) == (True, "新名片")


def test_a_voice_is_uploaded_as_a_record(fake: tuple[str, _Fake], tmp_path: Path) -> None:
    address, gateway = fake
    voice = tmp_path / "hello.amr"
    voice.write_bytes(b"#!AMR\n" + bytes(32))
    with Client(address) as client:
        sent = client.send(GROUP, text="听", voices=[str(voice)])
        with pytest.raises(ClientError) as err:
            client.send(GROUP, voices=[str(voice), str(voice)])
    assert err.value.field == "voices"
    assert gateway.upload_kinds == [RECORD]
    request = gateway.requests[0]
    assert [v.media_id for v in request.voices] == ["v1"] and sent.media.voices == 1


def test_async_group_actions(fake: tuple[str, _Fake], tmp_path: Path) -> None:
    address, gateway = fake

    async def run() -> tuple[list[int], list[str], bytes, bool]:
        async with AsyncClient(address, account_id="bot1") as client:
            await client.react(77, 76)
            await client.set_essence(77)
            await client.set_typing(10001)
            essence = [m.operator_id async for m in client.essence_messages(GROUP)]
            files = [f.file_id async for f in client.group_files(GROUP)]
            data = (await client.download_group_file("f1")).data
            await client.download_group_file_to("f1", tmp_path / "a.txt")
            await client.kick_member(10003)
            await client.set_member_card(10003, "")
            await client.send(GROUP, voices=[b"#!AMR\n"])
            try:
                await client.mute_member(10003, 60)
            except GatewayError as err:
                return essence, files, data, err.is_policy_denied
            return essence, files, data, False

    essence, files, data, denied = asyncio.run(run())
    assert essence == [10001, 10001, 10002] and files == ["f1", "f2"]
    assert data == FILE_BYTES and (tmp_path / "a.txt").read_bytes() == FILE_BYTES
    assert denied and gateway.upload_kinds == [RECORD]
