"""The asyncio client: the same API as ``onebot_gateway.Client`` with ``async`` methods."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2

from onebot.gateway.v1 import (
    account_service_pb2,
    account_service_pb2_grpc,
    agent_tool_service_pb2,
    agent_tool_service_pb2_grpc,
    common_pb2,
    event_service_pb2,
    event_service_pb2_grpc,
    governance_service_pb2,
    governance_service_pb2_grpc,
    group_service_pb2,
    group_service_pb2_grpc,
    media_service_pb2,
    media_service_pb2_grpc,
    message_service_pb2,
    message_service_pb2_grpc,
)

from ._common import (
    DEFAULT_ADDRESS,
    FILE,
    HEALTH_CHECK_METHOD,
    IMAGE,
    RECORD,
    VIDEO,
    ChunkReader,
    Downloaded,
    DownloadWriter,
    KindName,
    MediaKind,
    MediaLike,
    MediaRefLike,
    Uploaded,
    account_metadata,
    as_media,
    auth_metadata,
    local_media,
    download_request,
    history_request,
    media_kind,
    resolve_target,
    search_request,
    source_of,
    until_request,
)
from ._errors import GatewayError
from ._retry import DEFAULT_NOT_LEADER_RETRY_BUDGET, AsyncNotLeaderRetry
from ._group_actions import (
    download_group_file_request,
    kick_member_request,
    list_essence_request,
    list_group_files_request,
    mute_all_request,
    mute_member_request,
    react_request,
    set_essence_request,
    set_member_card_request,
    set_typing_request,
)
from ._governance import (
    audit_request,
    get_approval_request,
    list_approvals_request,
    on_behalf_of_message,
    wait_timeout,
)
from ._messages import MessageLike, chat_message, check_send, reply_target
from ._events import MAX_RECONNECTS, Cursor, reconnect_wait, resumable

_T = TypeVar("_T")


def _with_metadata(details: Any, metadata: Sequence[tuple[str, str]]) -> grpc.aio.ClientCallDetails:
    merged = grpc.aio.Metadata(*(tuple(details.metadata or ()) + tuple(metadata)))
    return grpc.aio.ClientCallDetails(
        details.method, details.timeout, merged, details.credentials, details.wait_for_ready
    )


class _AuthUnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._metadata = metadata

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_metadata(details, self._metadata), request)


class _AuthUnaryStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._metadata = metadata

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_metadata(details, self._metadata), request)


class _AuthStreamUnary(grpc.aio.StreamUnaryClientInterceptor):
    def __init__(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._metadata = metadata

    async def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return await continuation(_with_metadata(details, self._metadata), requests)


async def _call(awaitable: Any) -> Any:
    try:
        return await awaitable
    except grpc.RpcError as err:
        raise GatewayError.from_rpc_error(err) from None


class AsyncClient:
    """A connection to one gateway for asyncio code; see ``onebot_gateway.Client`` for the
    arguments. Every failure raises a ``OneBotGatewayError`` (``GatewayError``,
    ``ClientError``). Use ``async with`` or ``await close()``."""

    def __init__(
        self,
        address: str = DEFAULT_ADDRESS,
        *,
        token: str | None = None,
        ca_file: str | os.PathLike[str] | None = None,
        server_name: str | None = None,
        account_id: str = "",
        timeout: float | None = None,
        not_leader_retry_budget: float = DEFAULT_NOT_LEADER_RETRY_BUDGET,
    ) -> None:
        target = resolve_target(address, ca_file, server_name)
        metadata = auth_metadata(token) + account_metadata(account_id)
        interceptors: list[grpc.aio.ClientInterceptor] = [
            _AuthUnaryUnary(metadata),
            _AuthUnaryStream(metadata),
            _AuthStreamUnary(metadata),
        ]
        if not_leader_retry_budget > 0:
            interceptors.append(AsyncNotLeaderRetry(not_leader_retry_budget))
        if target.credentials is None:
            self.channel = grpc.aio.insecure_channel(
                target.target, options=target.options, interceptors=interceptors
            )
        else:
            self.channel = grpc.aio.secure_channel(
                target.target, target.credentials, options=target.options, interceptors=interceptors
            )
        self.account_id = account_id
        self.timeout = timeout
        self.message_service = message_service_pb2_grpc.MessageServiceStub(self.channel)
        self.group_service = group_service_pb2_grpc.GroupServiceStub(self.channel)
        self.media_service = media_service_pb2_grpc.MediaServiceStub(self.channel)
        self.tool_service = agent_tool_service_pb2_grpc.AgentToolServiceStub(self.channel)
        self.account_service = account_service_pb2_grpc.AccountServiceStub(self.channel)
        self.event_service = event_service_pb2_grpc.EventServiceStub(self.channel)
        self.approval_service = governance_service_pb2_grpc.ApprovalServiceStub(self.channel)
        self.audit_service = governance_service_pb2_grpc.AuditServiceStub(self.channel)
        #: ``grpc.health.v1.Health/Check``.
        self.health_check = self.channel.unary_unary(
            HEALTH_CHECK_METHOD,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )

    async def close(self) -> None:
        """Closes the connection."""
        await self.channel.close()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def history(
        self,
        *,
        group_id: int | None = None,
        user_id: int | None = None,
        count: int = 20,
        anchor: int | None = None,
        until: datetime | None = None,
    ) -> message_service_pb2.GetHistoryResponse:
        """One page of a chat's history, oldest first (see ``Client.history``)."""
        request = until_request(
            history_request(self.account_id, group_id, user_id, count, anchor), until
        )
        response: message_service_pb2.GetHistoryResponse = await _call(
            self.message_service.GetHistory(request, timeout=self.timeout)
        )
        return response

    async def search(
        self,
        query: str = "",
        *,
        group_id: int | None = None,
        user_id: int | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        sender_id: int | None = None,
        limit: int = 0,
        include_recalled: bool = False,
    ) -> AsyncIterator[message_service_pb2.SearchMessagesResponse]:
        """The archive's pages of matches (see ``Client.search``), as an async iterator."""
        request = search_request(
            self.account_id, query, group_id, user_id, since, until, sender_id, limit,
            include_recalled,
        )
        while True:
            page: message_service_pb2.SearchMessagesResponse = await _call(
                self.message_service.SearchMessages(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    async def members(
        self, group_id: int, *, limit: int = 0, no_cache: bool | None = None
    ) -> group_service_pb2.ListGroupMembersResponse:
        """Members of a group (see ``Client.members``)."""
        request = group_service_pb2.ListGroupMembersRequest(
            account_id=self.account_id, group_id=group_id, limit=limit
        )
        if no_cache is not None:
            request.no_cache = no_cache
        response: group_service_pb2.ListGroupMembersResponse = await _call(
            self.group_service.ListGroupMembers(request, timeout=self.timeout)
        )
        return response

    async def groups(self) -> group_service_pb2.ListGroupsResponse:
        """The groups the account may use."""
        request = group_service_pb2.ListGroupsRequest(account_id=self.account_id)
        response: group_service_pb2.ListGroupsResponse = await _call(
            self.group_service.ListGroups(request, timeout=self.timeout)
        )
        return response

    async def poke(
        self,
        user_id: int,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.PokeMemberResponse:
        """Pokes a member (see ``Client.poke``)."""
        request = group_service_pb2.PokeMemberRequest(
            account_id=self.account_id, user_id=user_id, on_behalf_of=on_behalf_of
        )
        if group_id is not None:
            request.group_id = group_id
        response: group_service_pb2.PokeMemberResponse = await _call(
            self.group_service.PokeMember(request, timeout=self.timeout)
        )
        return response

    async def react(
        self,
        message_id: int,
        emoji_id: str | int,
        *,
        remove: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.ReactToMessageResponse:
        """Adds (or with ``remove``, takes back) an emoji reaction (see ``Client.react``)."""
        request = react_request(self.account_id, message_id, emoji_id, remove, on_behalf_of)
        response: message_service_pb2.ReactToMessageResponse = await _call(
            self.message_service.ReactToMessage(request, timeout=self.timeout)
        )
        return response

    async def set_essence(
        self,
        message_id: int,
        *,
        remove: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.SetEssenceResponse:
        """Marks (or with ``remove``, unmarks) an essence message (see ``Client.set_essence``)."""
        request = set_essence_request(self.account_id, message_id, remove, on_behalf_of)
        response: message_service_pb2.SetEssenceResponse = await _call(
            self.message_service.SetEssence(request, timeout=self.timeout)
        )
        return response

    async def list_essence(
        self, group_id: int | None = None, *, page_size: int = 0
    ) -> AsyncIterator[message_service_pb2.ListEssenceResponse]:
        """A group's essence pages (see ``Client.list_essence``), as an async iterator."""
        request = list_essence_request(self.account_id, group_id, page_size)
        while True:
            page: message_service_pb2.ListEssenceResponse = await _call(
                self.message_service.ListEssence(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    async def essence_messages(
        self, group_id: int | None = None, *, page_size: int = 0
    ) -> AsyncIterator[message_service_pb2.EssenceMessage]:
        """Every essence message of a group, across all pages, as an async iterator."""
        async for page in self.list_essence(group_id, page_size=page_size):
            for message in page.messages:
                yield message

    async def set_typing(
        self, user_id: int, *, on_behalf_of: common_pb2.OnBehalfOf | None = None
    ) -> None:
        """Shows "正在输入" to a user of the private whitelist (see ``Client.set_typing``)."""
        request = set_typing_request(self.account_id, user_id, on_behalf_of)
        await _call(self.message_service.SetTyping(request, timeout=self.timeout))

    async def list_group_files(
        self, group_id: int | None = None, *, folder_id: str = "", page_size: int = 0
    ) -> AsyncIterator[group_service_pb2.ListGroupFilesResponse]:
        """The pages of one folder of a group's files (see ``Client.list_group_files``), as
        an async iterator."""
        request = list_group_files_request(self.account_id, group_id, folder_id, page_size)
        while True:
            page: group_service_pb2.ListGroupFilesResponse = await _call(
                self.group_service.ListGroupFiles(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    async def group_files(
        self, group_id: int | None = None, *, folder_id: str = "", page_size: int = 0
    ) -> AsyncIterator[group_service_pb2.GroupFile]:
        """Every file of a folder of a group's files, across all pages, as an async iterator."""
        async for page in self.list_group_files(group_id, folder_id=folder_id, page_size=page_size):
            for file in page.files:
                yield file

    async def download_group_file(self, file_id: str, *, group_id: int | None = None) -> Downloaded:
        """Downloads a group file into memory (see ``Client.download_group_file``)."""
        request = download_group_file_request(self.account_id, group_id, file_id)
        return await self._download_call(
            lambda: self.media_service.DownloadGroupFile(request, timeout=self.timeout), None, None
        )

    async def download_group_file_to(
        self,
        file_id: str,
        path: str | os.PathLike[str],
        *,
        group_id: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> media_service_pb2.DownloadMediaHeader:
        """Streams a group file into ``path`` (see ``Client.download_group_file_to``)."""
        request = download_group_file_request(self.account_id, group_id, file_id)
        downloaded = await self._download_call(
            lambda: self.media_service.DownloadGroupFile(request, timeout=self.timeout), path, progress
        )
        return downloaded.header

    async def mute_member(
        self,
        user_id: int,
        duration: float | timedelta,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.MuteMemberResponse:
        """Mutes a member (see ``Client.mute_member``)."""
        request = mute_member_request(self.account_id, group_id, user_id, duration, on_behalf_of)
        response: group_service_pb2.MuteMemberResponse = await _call(
            self.group_service.MuteMember(request, timeout=self.timeout)
        )
        return response

    async def mute_all(
        self,
        enable: bool = True,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.MuteAllResponse:
        """Turns the whole-group mute on or off (see ``Client.mute_all``)."""
        request = mute_all_request(self.account_id, group_id, enable, on_behalf_of)
        response: group_service_pb2.MuteAllResponse = await _call(
            self.group_service.MuteAll(request, timeout=self.timeout)
        )
        return response

    async def kick_member(
        self,
        user_id: int,
        *,
        group_id: int | None = None,
        reject_rejoin: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.KickMemberResponse:
        """Removes a member (see ``Client.kick_member``)."""
        request = kick_member_request(self.account_id, group_id, user_id, reject_rejoin, on_behalf_of)
        response: group_service_pb2.KickMemberResponse = await _call(
            self.group_service.KickMember(request, timeout=self.timeout)
        )
        return response

    async def set_member_card(
        self,
        user_id: int,
        card: str,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.SetMemberCardResponse:
        """Sets a member's group card (see ``Client.set_member_card``)."""
        request = set_member_card_request(self.account_id, group_id, user_id, card, on_behalf_of)
        response: group_service_pb2.SetMemberCardResponse = await _call(
            self.group_service.SetMemberCard(request, timeout=self.timeout)
        )
        return response

    async def approvals(
        self,
        state: governance_service_pb2.ApprovalState.ValueType = governance_service_pb2.APPROVAL_STATE_UNSPECIFIED,
        *,
        limit: int = 0,
    ) -> list[governance_service_pb2.Approval]:
        """The approvals of the client's account (see ``Client.approvals``)."""
        request = list_approvals_request(self.account_id, state, limit)
        response: governance_service_pb2.ListApprovalsResponse = await _call(
            self.approval_service.ListApprovals(request, timeout=self.timeout)
        )
        return list(response.approvals)

    async def approval(self, approval_id: str) -> governance_service_pb2.Approval:
        """One approval, at once."""
        return await self.wait_approval(approval_id, 0)

    async def wait_approval(self, approval_id: str, wait: float) -> governance_service_pb2.Approval:
        """One approval once it is no longer pending or executing, or after ``wait`` seconds
        (see ``Client.wait_approval``)."""
        request = get_approval_request(approval_id, wait)
        response: governance_service_pb2.GetApprovalResponse = await _call(
            self.approval_service.GetApproval(request, timeout=wait_timeout(self.timeout, wait))
        )
        return response.approval

    async def approve(self, approval_id: str) -> governance_service_pb2.Approval:
        """Approves (and executes) a pending approval (see ``Client.approve``)."""
        return await self._decide(approval_id, True)

    async def reject(self, approval_id: str) -> governance_service_pb2.Approval:
        """Rejects a pending approval (see ``Client.reject``)."""
        return await self._decide(approval_id, False)

    async def _decide(self, approval_id: str, approve: bool) -> governance_service_pb2.Approval:
        request = governance_service_pb2.DecideApprovalRequest(approval_id=approval_id, approve=approve)
        response: governance_service_pb2.DecideApprovalResponse = await _call(
            self.approval_service.DecideApproval(request, timeout=self.timeout)
        )
        return response.approval

    async def audit(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        action: str = "",
        target: str = "",
        decision: governance_service_pb2.AuditDecision.ValueType = governance_service_pb2.AUDIT_DECISION_UNSPECIFIED,
        limit: int = 0,
    ) -> AsyncIterator[governance_service_pb2.ListAuditRecordsResponse]:
        """The audit trail's pages (see ``Client.audit``), as an async iterator."""
        request = audit_request(self.account_id, since, until, action, target, decision, limit)
        while True:
            page: governance_service_pb2.ListAuditRecordsResponse = await _call(
                self.audit_service.ListAuditRecords(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    async def accounts(self) -> list[account_service_pb2.Account]:
        """Every configured account with its connection state."""
        response: account_service_pb2.ListAccountsResponse = await _call(
            self.account_service.ListAccounts(
                account_service_pb2.ListAccountsRequest(), timeout=self.timeout
            )
        )
        return list(response.accounts)

    async def list_tools(self) -> list[agent_tool_service_pb2.Tool]:
        """The agent tools with their JSON Schemas."""
        response: agent_tool_service_pb2.ListToolsResponse = await _call(
            self.tool_service.ListTools(agent_tool_service_pb2.ListToolsRequest(), timeout=self.timeout)
        )
        return list(response.tools)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | str | None = None
    ) -> agent_tool_service_pb2.CallToolResponse:
        """Calls an agent tool (see ``Client.call_tool``)."""
        if arguments is None:
            arguments_json = ""
        elif isinstance(arguments, str):
            arguments_json = arguments
        else:
            arguments_json = json.dumps(arguments, ensure_ascii=False)
        request = agent_tool_service_pb2.CallToolRequest(name=name, arguments_json=arguments_json)
        response: agent_tool_service_pb2.CallToolResponse = await _call(
            self.tool_service.CallTool(request, timeout=self.timeout)
        )
        return response

    def events(
        self,
        *,
        chats: Iterable[common_pb2.Chat] = (),
        kinds: Iterable[event_service_pb2.EventKind.ValueType] = (),
        after_sequence: int | None = None,
    ) -> AsyncEventStream:
        """Follows the account's events; closing the iterator (``aclose``) cancels the stream.
        Resumes by itself after a broken connection, like ``Client.events``."""
        request = event_service_pb2.StreamEventsRequest(
            account_id=self.account_id, chats=list(chats), kinds=list(kinds)
        )
        if after_sequence is not None:
            request.after_sequence = after_sequence
        return AsyncEventStream(self.event_service, request)

    async def health(self, service: str = "") -> str:
        """Health of ``service`` (``""``: the gateway): ``SERVING``, ``NOT_SERVING``, ..."""
        response: health_pb2.HealthCheckResponse = await _call(
            self.health_check(health_pb2.HealthCheckRequest(service=service), timeout=self.timeout)
        )
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))

    async def upload(
        self,
        source: str | os.PathLike[str] | bytes,
        kind: MediaKind | KindName,
        *,
        file_name: str = "",
        progress: Callable[[int, int], None] | None = None,
    ) -> Uploaded:
        """Streams a local file (or bytes) in 256 KiB chunks (file reads run in a thread) and
        returns the media id, size and SHA-256 (see ``Client.upload``)."""
        reader = ChunkReader(source, file_name)
        header = reader.header(self.account_id, media_kind(kind))

        async def requests() -> AsyncIterator[media_service_pb2.UploadMediaRequest]:
            yield header
            while chunk := await asyncio.to_thread(reader.read):
                yield media_service_pb2.UploadMediaRequest(chunk=chunk)
                if progress is not None:
                    progress(reader.sent, reader.size)

        try:
            response: media_service_pb2.UploadMediaResponse = await _call(
                self.media_service.UploadMedia(requests(), timeout=self.timeout)
            )
        finally:
            reader.close()
        return reader.finish(response)

    async def download(self, target: MediaRefLike) -> Downloaded:
        """Downloads a media item into memory (see ``Client.download``)."""
        return await self._download(target, None, None)

    async def download_to(
        self,
        target: MediaRefLike,
        path: str | os.PathLike[str],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> media_service_pb2.DownloadMediaHeader:
        """Streams a media item into the file ``path`` (see ``Client.download_to``; file writes
        run in a thread)."""
        return (await self._download(target, path, progress)).header

    async def _download(
        self,
        target: MediaRefLike,
        path: str | os.PathLike[str] | None,
        progress: Callable[[int, int], None] | None,
    ) -> Downloaded:
        request = download_request(self.account_id, target)
        return await self._download_call(
            lambda: self.media_service.DownloadMedia(request, timeout=self.timeout), path, progress
        )

    async def _download_call(
        self,
        start: Callable[[], Any],
        path: str | os.PathLike[str] | None,
        progress: Callable[[int, int], None] | None,
    ) -> Downloaded:
        writer = DownloadWriter(path)
        try:
            call = start()
        except BaseException:
            writer.abort()
            raise
        try:
            async for message in call:
                await asyncio.to_thread(writer.take, message)
                if progress is not None and message.WhichOneof("payload") == "chunk":
                    progress(writer.received, writer.total)
            return await asyncio.to_thread(writer.finish)
        except grpc.RpcError as err:
            await asyncio.to_thread(writer.abort)
            raise GatewayError.from_rpc_error(err) from None
        except BaseException:
            writer.abort()
            raise
        finally:
            call.cancel()

    async def _source(self, item: MediaLike, kind: MediaKind) -> message_service_pb2.MediaSource:
        media = as_media(item)
        if media.kind in ("path", "bytes"):
            uploaded = await self.upload(media.value, kind, file_name=media.file_name)
            return message_service_pb2.MediaSource(media_id=uploaded.media_id)
        return source_of(media)

    async def send(
        self,
        group_id: int | None = None,
        *,
        user_id: int | None = None,
        text: str = "",
        images: Sequence[MediaLike] = (),
        videos: Sequence[MediaLike] = (),
        voices: Sequence[MediaLike] = (),
        file: MediaLike | None = None,
        file_name: str = "",
        reply_to: int | None = None,
        mentions: Sequence[int] = (),
        mention_all: bool = False,
        idempotency_key: str = "",
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.SendMessageResponse:
        """Checks the limits, uploads local media first, then sends (see ``Client.send``)."""
        check_send(
            group_id=group_id,
            user_id=user_id,
            text=text,
            images=len(images),
            videos=len(videos),
            voices=len(voices),
            has_file=file is not None,
            reply_to=reply_to,
            mentions=mentions,
            mention_all=mention_all,
            idempotency_key=idempotency_key,
        )
        image_items = [local_media(i) for i in images]
        video_items = [local_media(v) for v in videos]
        voice_items = [local_media(v) for v in voices]
        file_item = local_media(file) if file is not None else None
        request = message_service_pb2.SendMessageRequest(
            account_id=self.account_id,
            text=text,
            images=[await self._source(i, IMAGE) for i in image_items],
            videos=[await self._source(v, VIDEO) for v in video_items],
            voices=[await self._source(v, RECORD) for v in voice_items],
            file_name=file_name,
            idempotency_key=idempotency_key,
            mention_user_ids=list(mentions),
            mention_all=mention_all,
        )
        if group_id is not None:
            request.group_id = group_id
        if user_id is not None:
            request.user_id = user_id
        if reply_to is not None:
            request.reply_to_message_id = reply_to
        if on_behalf_of is not None:
            request.on_behalf_of.CopyFrom(on_behalf_of)
        if file_item is not None:
            request.file.CopyFrom(await self._source(file_item, FILE))
        response: message_service_pb2.SendMessageResponse = await _call(
            self.message_service.SendMessage(request, timeout=self.timeout)
        )
        return response

    async def reply(
        self,
        message: MessageLike,
        text: str = "",
        *,
        quote: bool = True,
        images: Sequence[MediaLike] = (),
        videos: Sequence[MediaLike] = (),
        voices: Sequence[MediaLike] = (),
        file: MediaLike | None = None,
        file_name: str = "",
        mentions: Sequence[int] = (),
        mention_all: bool = False,
        idempotency_key: str = "",
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.SendMessageResponse:
        """Answers ``message`` (an event from ``events()``, its ``MessageEvent``, or a
        ``ChatMessage``) in its own chat: its group, else its private chat, quoting it
        (``reply_to``) unless ``quote=False``. Everything else is ``send``'s."""
        target = reply_target(message, quote)
        return await self.send(
            target.group_id,
            user_id=target.user_id,
            reply_to=target.reply_to,
            text=text,
            images=images,
            videos=videos,
            voices=voices,
            file=file,
            file_name=file_name,
            mentions=mentions,
            mention_all=mention_all,
            idempotency_key=idempotency_key,
            on_behalf_of=on_behalf_of,
        )

    async def reply_for(
        self,
        message: MessageLike,
        text: str = "",
        *,
        images: Sequence[MediaLike] = (),
        videos: Sequence[MediaLike] = (),
        voices: Sequence[MediaLike] = (),
        file: MediaLike | None = None,
        file_name: str = "",
        mentions: Sequence[int] = (),
        mention_all: bool = False,
        idempotency_key: str = "",
    ) -> message_service_pb2.SendMessageResponse:
        """A reply to a received message in one call: to its chat, quoting it, sent on behalf
        of its sender (``on_behalf_of_message(message_id)``: the gateway's ``[policy]`` rules
        decide by the sender's role). Everything else is ``send``'s."""
        return await self.reply(
            message,
            text,
            images=images,
            videos=videos,
            voices=voices,
            file=file,
            file_name=file_name,
            mentions=mentions,
            mention_all=mention_all,
            idempotency_key=idempotency_key,
            on_behalf_of=on_behalf_of_message(chat_message(message).message_id),
        )

    async def get_message(self, message_id: int) -> message_service_pb2.GetMessageResponse:
        """One message by id, its quote resolved (see ``Client.get_message``)."""
        request = message_service_pb2.GetMessageRequest(account_id=self.account_id, message_id=message_id)
        response: message_service_pb2.GetMessageResponse = await _call(
            self.message_service.GetMessage(request, timeout=self.timeout)
        )
        return response

    async def recall(
        self, message_id: int, *, on_behalf_of: common_pb2.OnBehalfOf | None = None
    ) -> None:
        """Recalls (撤回) a message (see ``Client.recall``)."""
        request = message_service_pb2.RecallMessageRequest(
            account_id=self.account_id, message_id=message_id, on_behalf_of=on_behalf_of
        )
        await _call(self.message_service.RecallMessage(request, timeout=self.timeout))

    async def get_forward(self, forward_id: str) -> message_service_pb2.GetForwardMessagesResponse:
        """The messages of a merged-forward bundle (see ``Client.get_forward``)."""
        request = message_service_pb2.GetForwardMessagesRequest(account_id=self.account_id, forward_id=forward_id)
        response: message_service_pb2.GetForwardMessagesResponse = await _call(
            self.message_service.GetForwardMessages(request, timeout=self.timeout)
        )
        return response



class AsyncEventStream(AsyncIterator[event_service_pb2.Event]):
    """The events of ``AsyncClient.events``: reconnects after a broken connection from the
    last event it yielded. ``reconnects`` counts the reconnects; ``position`` is the sequence
    number it would resume after."""

    def __init__(
        self,
        service: event_service_pb2_grpc.EventServiceStub,
        request: event_service_pb2.StreamEventsRequest,
    ) -> None:
        self._service = service
        self._request = request
        self._cursor = Cursor(request.after_sequence if request.HasField("after_sequence") else None)
        self._call: Any = None
        self._failures = 0
        self._opened = False
        self._closed = False
        self.reconnects = 0

    @property
    def position(self) -> int | None:
        return self._cursor.position

    def __aiter__(self) -> AsyncEventStream:
        return self

    async def __anext__(self) -> event_service_pb2.Event:
        while True:
            if self._closed:
                raise StopAsyncIteration
            if self._call is None:
                if self._opened:
                    self.reconnects += 1
                self._opened = True
                self._call = self._service.StreamEvents(self._cursor.request(self._request))
            try:
                response = await self._call.read()
            except grpc.RpcError as rpc:
                self._call = None
                err = GatewayError.from_rpc_error(rpc)
                if self._closed or not resumable(err) or self._failures >= MAX_RECONNECTS:
                    await self.aclose()
                    raise err from None
                self._failures += 1
                await asyncio.sleep(reconnect_wait(err, self._failures))
                continue
            if response is grpc.aio.EOF:
                await self.aclose()
                raise StopAsyncIteration
            self._failures = 0
            event = self._cursor.take(response)
            if event is not None:
                return event

    async def aclose(self) -> None:
        """Cancels the stream."""
        self._closed = True
        if self._call is not None:
            self._call.cancel()
            self._call = None

__all__ = ["AsyncClient", "AsyncEventStream"]
