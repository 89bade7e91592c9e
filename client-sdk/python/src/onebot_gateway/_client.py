"""The synchronous client."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, TypeVar

import grpc
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
    Media,
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
from ._retry import DEFAULT_NOT_LEADER_RETRY_BUDGET, NotLeaderRetry
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

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")
_T = TypeVar("_T")


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, base: grpc.ClientCallDetails, metadata: Sequence[tuple[str, str]]) -> None:
        self.method = base.method
        self.timeout = base.timeout
        self.metadata = tuple(base.metadata or ()) + tuple(metadata)
        self.credentials = base.credentials
        self.wait_for_ready = getattr(base, "wait_for_ready", None)
        self.compression = getattr(base, "compression", None)


class _AuthInterceptor(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    """Adds ``authorization: Bearer <token>`` and ``x-onebot-account`` to every call."""

    def __init__(self, metadata: Sequence[tuple[str, str]]) -> None:
        self._metadata = metadata

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(_CallDetails(details, self._metadata), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(_CallDetails(details, self._metadata), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(_CallDetails(details, self._metadata), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(_CallDetails(details, self._metadata), requests)


def _call(fn: Callable[[], _T]) -> _T:
    try:
        return fn()
    except grpc.RpcError as err:
        raise GatewayError.from_rpc_error(err) from None


class Client:
    """A connection to one gateway.

    ``address`` is ``http://host:port`` (plaintext) or ``https://host:port`` (TLS, checked
    against ``ca_file`` or the system's roots). ``token`` is sent as
    ``authorization: Bearer <token>``. ``account_id`` is the account the helpers act as
    (empty: the gateway's ``default``), sent as ``x-onebot-account`` on every call so a proxy
    can route it to the gateway holding it. ``timeout`` is the deadline of each unary call, in
    seconds. A unary call a standby gateway refuses with ``UNAVAILABLE`` ``NOT_LEADER`` (under
    ``[ha]``) is retried for up to ``not_leader_retry_budget`` seconds (default 30; 0 turns it
    off), waiting the refusal's ``RetryInfo`` delay or 0.25 s doubling to 5 s, never past
    ``timeout``; no other error is retried, and uploads and downloads are not. Every failure
    raises a ``OneBotGatewayError``: ``GatewayError`` when a call
    fails, ``ClientError`` when this side refuses or fails first. Use as a context manager or
    call ``close()``.
    """

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
        if target.credentials is None:
            channel = grpc.insecure_channel(target.target, options=target.options)
        else:
            channel = grpc.secure_channel(target.target, target.credentials, options=target.options)
        self._raw_channel = channel
        interceptors: list[Any] = [_AuthInterceptor(metadata)]
        if not_leader_retry_budget > 0:
            interceptors.append(NotLeaderRetry(not_leader_retry_budget))
        self.channel: grpc.Channel = grpc.intercept_channel(channel, *interceptors)
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

    def close(self) -> None:
        """Closes the connection."""
        self._raw_channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def history(
        self,
        *,
        group_id: int | None = None,
        user_id: int | None = None,
        count: int = 20,
        anchor: int | None = None,
        until: datetime | None = None,
    ) -> message_service_pb2.GetHistoryResponse:
        """One page of a group's (``group_id``) or private chat's (``user_id``) history,
        oldest first; pass ``next_anchor_message_id`` as ``anchor`` for the older page. With
        ``until`` (timezone-aware): the messages before that time, from the gateway's archive
        merged with the peer's history."""
        request = until_request(
            history_request(self.account_id, group_id, user_id, count, anchor), until
        )
        return _call(lambda: self.message_service.GetHistory(request, timeout=self.timeout))

    def search(
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
    ) -> Iterator[message_service_pb2.SearchMessagesResponse]:
        """Searches the gateway's message archive: the pages of matches, newest page first
        (each page oldest first), fetched one at a time as the iterator advances. Without a
        chat, every archived chat of the account; times timezone-aware; ``limit`` 0 = 20."""
        request = search_request(
            self.account_id, query, group_id, user_id, since, until, sender_id, limit,
            include_recalled,
        )
        while True:
            page: message_service_pb2.SearchMessagesResponse = _call(
                lambda: self.message_service.SearchMessages(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def members(
        self, group_id: int, *, limit: int = 0, no_cache: bool | None = None
    ) -> group_service_pb2.ListGroupMembersResponse:
        """Members of a group (``limit`` 0 = 100; ``no_cache`` None = cached when fresh)."""
        request = group_service_pb2.ListGroupMembersRequest(
            account_id=self.account_id, group_id=group_id, limit=limit
        )
        if no_cache is not None:
            request.no_cache = no_cache
        return _call(lambda: self.group_service.ListGroupMembers(request, timeout=self.timeout))

    def groups(self) -> group_service_pb2.ListGroupsResponse:
        """The groups the account may use."""
        request = group_service_pb2.ListGroupsRequest(account_id=self.account_id)
        return _call(lambda: self.group_service.ListGroups(request, timeout=self.timeout))

    def poke(
        self,
        user_id: int,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.PokeMemberResponse:
        """Pokes ``user_id`` in ``group_id`` (None: the account's only whitelisted group).
        ``on_behalf_of`` (``on_behalf_of_message`` / ``on_behalf_of_user``; None: nobody) is
        the QQ user it is done for: the gateway's ``[policy]`` rules decide by their role."""
        request = group_service_pb2.PokeMemberRequest(
            account_id=self.account_id, user_id=user_id, on_behalf_of=on_behalf_of
        )
        if group_id is not None:
            request.group_id = group_id
        return _call(lambda: self.group_service.PokeMember(request, timeout=self.timeout))

    def react(
        self,
        message_id: int,
        emoji_id: str | int,
        *,
        remove: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.ReactToMessageResponse:
        """Adds an emoji reaction (表情回应) to a group message, or with ``remove`` takes the
        bot's own back. ``emoji_id`` is a QQ face id (``76``: 赞) or a Unicode emoji's code
        point in decimal (``128077``: 👍). ``on_behalf_of`` as for ``poke``."""
        request = react_request(self.account_id, message_id, emoji_id, remove, on_behalf_of)
        return _call(lambda: self.message_service.ReactToMessage(request, timeout=self.timeout))

    def set_essence(
        self,
        message_id: int,
        *,
        remove: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> message_service_pb2.SetEssenceResponse:
        """Marks a group message as essence (精华), or unmarks it with ``remove``; the bot must
        be a group admin (``BOT_NOT_ADMIN``). ``on_behalf_of`` as for ``poke``."""
        request = set_essence_request(self.account_id, message_id, remove, on_behalf_of)
        return _call(lambda: self.message_service.SetEssence(request, timeout=self.timeout))

    def list_essence(
        self, group_id: int | None = None, *, page_size: int = 0
    ) -> Iterator[message_service_pb2.ListEssenceResponse]:
        """A group's essence messages (None: the account's only whitelisted group): the pages
        (``page_size`` 0 = 20, at most 50), newest marking first, fetched one at a time as the
        iterator advances."""
        request = list_essence_request(self.account_id, group_id, page_size)
        while True:
            page: message_service_pb2.ListEssenceResponse = _call(
                lambda: self.message_service.ListEssence(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def essence_messages(
        self, group_id: int | None = None, *, page_size: int = 0
    ) -> Iterator[message_service_pb2.EssenceMessage]:
        """Every essence message of a group, across all pages of ``list_essence``."""
        for page in self.list_essence(group_id, page_size=page_size):
            yield from page.messages

    def set_typing(
        self, user_id: int, *, on_behalf_of: common_pb2.OnBehalfOf | None = None
    ) -> None:
        """Shows "正在输入" (typing) to ``user_id`` in their private chat, for example while the
        model thinks; the user must be in the private whitelist (``USER_NOT_ALLOWED``), and
        implementations without the action answer ``NOT_SUPPORTED_BY_IMPLEMENTATION``."""
        request = set_typing_request(self.account_id, user_id, on_behalf_of)
        _call(lambda: self.message_service.SetTyping(request, timeout=self.timeout))

    def list_group_files(
        self, group_id: int | None = None, *, folder_id: str = "", page_size: int = 0
    ) -> Iterator[group_service_pb2.ListGroupFilesResponse]:
        """One folder of a group's files (群文件; ``folder_id`` "" = the root): the pages, its
        folders first, then its files (``page_size`` 0 = 50, at most 200), fetched one at a
        time as the iterator advances."""
        request = list_group_files_request(self.account_id, group_id, folder_id, page_size)
        while True:
            page: group_service_pb2.ListGroupFilesResponse = _call(
                lambda: self.group_service.ListGroupFiles(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def group_files(
        self, group_id: int | None = None, *, folder_id: str = "", page_size: int = 0
    ) -> Iterator[group_service_pb2.GroupFile]:
        """Every file of a folder of a group's files, across all pages of
        ``list_group_files`` (its sub-folders are left out)."""
        for page in self.list_group_files(group_id, folder_id=folder_id, page_size=page_size):
            yield from page.files

    def download_group_file(self, file_id: str, *, group_id: int | None = None) -> Downloaded:
        """Downloads a file of a group's files (a ``GroupFile.file_id``) into memory, checking
        the size and SHA-256 the header states."""
        request = download_group_file_request(self.account_id, group_id, file_id)
        return self._download_call(
            lambda: self.media_service.DownloadGroupFile(request, timeout=self.timeout), None, None
        )

    def download_group_file_to(
        self,
        file_id: str,
        path: str | os.PathLike[str],
        *,
        group_id: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> media_service_pb2.DownloadMediaHeader:
        """Streams a group file into ``path`` as ``download_to`` does, and returns the header
        (kind FILE, the file's name; an empty media id)."""
        request = download_group_file_request(self.account_id, group_id, file_id)
        return self._download_call(
            lambda: self.media_service.DownloadGroupFile(request, timeout=self.timeout), path, progress
        ).header

    def mute_member(
        self,
        user_id: int,
        duration: float | timedelta,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.MuteMemberResponse:
        """Mutes (禁言) a member for ``duration`` (seconds or a ``timedelta``, at most 30 days;
        0 lifts the mute). Moderation: refused unless a ``[[policy.rules]]`` entry names
        ``mute`` (``POLICY_DENIED``, metadata ``rule`` = ``none``); the bot must be an admin
        (``BOT_NOT_ADMIN``); the owner and the bot are never targets (``PROTECTED_MEMBER``)."""
        request = mute_member_request(self.account_id, group_id, user_id, duration, on_behalf_of)
        return _call(lambda: self.group_service.MuteMember(request, timeout=self.timeout))

    def mute_all(
        self,
        enable: bool = True,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.MuteAllResponse:
        """Turns the whole-group mute (全员禁言) on or off. Moderation, as ``mute_member``
        (policy action ``mute_all``)."""
        request = mute_all_request(self.account_id, group_id, enable, on_behalf_of)
        return _call(lambda: self.group_service.MuteAll(request, timeout=self.timeout))

    def kick_member(
        self,
        user_id: int,
        *,
        group_id: int | None = None,
        reject_rejoin: bool = False,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.KickMemberResponse:
        """Removes (踢出) a member; ``reject_rejoin`` refuses their later join requests.
        Moderation, as ``mute_member`` (policy action ``kick``)."""
        request = kick_member_request(self.account_id, group_id, user_id, reject_rejoin, on_behalf_of)
        return _call(lambda: self.group_service.KickMember(request, timeout=self.timeout))

    def set_member_card(
        self,
        user_id: int,
        card: str,
        *,
        group_id: int | None = None,
        on_behalf_of: common_pb2.OnBehalfOf | None = None,
    ) -> group_service_pb2.SetMemberCardResponse:
        """Sets a member's group card (群名片, at most 60 bytes; "" clears it). Moderation, as
        ``mute_member`` (policy action ``set_card``)."""
        request = set_member_card_request(self.account_id, group_id, user_id, card, on_behalf_of)
        return _call(lambda: self.group_service.SetMemberCard(request, timeout=self.timeout))

    def approvals(
        self,
        state: governance_service_pb2.ApprovalState.ValueType = governance_service_pb2.APPROVAL_STATE_UNSPECIFIED,
        *,
        limit: int = 0,
    ) -> list[governance_service_pb2.Approval]:
        """The approvals of the client's account in ``state`` (unspecified: every state),
        newest first (``limit`` 0 = 50)."""
        request = list_approvals_request(self.account_id, state, limit)
        response = _call(lambda: self.approval_service.ListApprovals(request, timeout=self.timeout))
        return list(response.approvals)

    def approval(self, approval_id: str) -> governance_service_pb2.Approval:
        """One approval, at once."""
        return self.wait_approval(approval_id, 0)

    def wait_approval(self, approval_id: str, wait: float) -> governance_service_pb2.Approval:
        """One approval once it is no longer pending or executing (``is_approval_open``), or
        after ``wait`` seconds (at most 600), whichever comes first. The call's deadline is
        stretched to cover the wait."""
        request = get_approval_request(approval_id, wait)
        timeout = wait_timeout(self.timeout, wait)
        response = _call(lambda: self.approval_service.GetApproval(request, timeout=timeout))
        return response.approval

    def approve(self, approval_id: str) -> governance_service_pb2.Approval:
        """Approves (and so executes, before it returns) a pending approval; needs a token
        with ``approve = true``. The approval comes back EXECUTED or FAILED."""
        return self._decide(approval_id, True)

    def reject(self, approval_id: str) -> governance_service_pb2.Approval:
        """Rejects a pending approval; needs a token with ``approve = true``."""
        return self._decide(approval_id, False)

    def _decide(self, approval_id: str, approve: bool) -> governance_service_pb2.Approval:
        request = governance_service_pb2.DecideApprovalRequest(approval_id=approval_id, approve=approve)
        response = _call(lambda: self.approval_service.DecideApproval(request, timeout=self.timeout))
        return response.approval

    def audit(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        action: str = "",
        target: str = "",
        decision: governance_service_pb2.AuditDecision.ValueType = governance_service_pb2.AUDIT_DECISION_UNSPECIFIED,
        limit: int = 0,
    ) -> Iterator[governance_service_pb2.ListAuditRecordsResponse]:
        """The audit trail of the client's account: the pages of records (newest first),
        fetched one at a time as the iterator advances. Filters: ``since`` / ``until``
        (timezone-aware), ``action`` (``send``, ``mention_all``, ...), ``target``
        (``group:<id>`` / ``private:<id>``), ``decision``; ``limit`` 0 = 50 per page."""
        request = audit_request(self.account_id, since, until, action, target, decision, limit)
        while True:
            page: governance_service_pb2.ListAuditRecordsResponse = _call(
                lambda: self.audit_service.ListAuditRecords(request, timeout=self.timeout)
            )
            yield page
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token

    def accounts(self) -> list[account_service_pb2.Account]:
        """Every configured account with its connection state."""
        request = account_service_pb2.ListAccountsRequest()
        response = _call(lambda: self.account_service.ListAccounts(request, timeout=self.timeout))
        return list(response.accounts)

    def list_tools(self) -> list[agent_tool_service_pb2.Tool]:
        """The agent tools with their JSON Schemas."""
        request = agent_tool_service_pb2.ListToolsRequest()
        return list(_call(lambda: self.tool_service.ListTools(request, timeout=self.timeout)).tools)

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | str | None = None
    ) -> agent_tool_service_pb2.CallToolResponse:
        """Calls an agent tool; a failed tool call is a response with ``is_error`` set."""
        if arguments is None:
            arguments_json = ""
        elif isinstance(arguments, str):
            arguments_json = arguments
        else:
            arguments_json = json.dumps(arguments, ensure_ascii=False)
        request = agent_tool_service_pb2.CallToolRequest(name=name, arguments_json=arguments_json)
        return _call(lambda: self.tool_service.CallTool(request, timeout=self.timeout))

    def events(
        self,
        *,
        chats: Iterable[common_pb2.Chat] = (),
        kinds: Iterable[event_service_pb2.EventKind.ValueType] = (),
        after_sequence: int | None = None,
    ) -> EventStream:
        """Follows the account's events (ends when the gateway shuts down). Closing the
        iterator (or breaking out of a ``for`` loop and dropping it) cancels the stream.

        The stream resumes by itself: when the connection breaks (a proxy or the network
        restarted) or the gateway drops it for lagging, it reconnects with ``after_sequence``
        set to the last event delivered, with backoff, and every event is yielded once.
        Heartbeats are never yielded."""
        request = event_service_pb2.StreamEventsRequest(
            account_id=self.account_id, chats=list(chats), kinds=list(kinds)
        )
        if after_sequence is not None:
            request.after_sequence = after_sequence
        return EventStream(self.event_service, request)

    def health(self, service: str = "") -> str:
        """Health of ``service`` (``""``: the gateway): ``SERVING``, ``NOT_SERVING``, ..."""
        request = health_pb2.HealthCheckRequest(service=service)
        response = _call(lambda: self.health_check(request, timeout=self.timeout))
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(response.status))

    def upload(
        self,
        source: str | os.PathLike[str] | bytes,
        kind: MediaKind | KindName,
        *,
        file_name: str = "",
        progress: Callable[[int, int], None] | None = None,
    ) -> Uploaded:
        """Streams a local file (or bytes) to the gateway in 256 KiB chunks and returns the
        media id, size and SHA-256 (checked against the bytes sent). ``progress(sent, total)``
        is called after each chunk."""
        reader = ChunkReader(source, file_name)
        header = reader.header(self.account_id, media_kind(kind))

        def requests() -> Iterator[media_service_pb2.UploadMediaRequest]:
            yield header
            while chunk := reader.read():
                yield media_service_pb2.UploadMediaRequest(chunk=chunk)
                if progress is not None:
                    progress(reader.sent, reader.size)

        try:
            response = _call(lambda: self.media_service.UploadMedia(requests(), timeout=self.timeout))
        finally:
            reader.close()
        return reader.finish(response)

    def download(self, target: MediaRefLike) -> Downloaded:
        """Downloads a received (or uploaded) media item into memory: ``target`` is a media id
        (a segment's ``media_id``) or ``(message_id, segment_index)``. The size and SHA-256
        the header states are checked."""
        return self._download(target, None, None)

    def download_to(
        self,
        target: MediaRefLike,
        path: str | os.PathLike[str],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> media_service_pb2.DownloadMediaHeader:
        """Streams a media item into the file ``path`` (written as ``<path>.part`` and renamed
        once complete and checked; nothing is left behind on failure) and returns the header.
        ``progress(received, total)`` is called after each chunk."""
        return self._download(target, path, progress).header

    def _download(
        self,
        target: MediaRefLike,
        path: str | os.PathLike[str] | None,
        progress: Callable[[int, int], None] | None,
    ) -> Downloaded:
        request = download_request(self.account_id, target)
        return self._download_call(
            lambda: self.media_service.DownloadMedia(request, timeout=self.timeout), path, progress
        )

    def _download_call(
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
            for message in call:
                writer.take(message)
                if progress is not None and message.WhichOneof("payload") == "chunk":
                    progress(writer.received, writer.total)
            return writer.finish()
        except grpc.RpcError as err:
            writer.abort()
            raise GatewayError.from_rpc_error(err) from None
        except BaseException:
            writer.abort()
            raise
        finally:
            call.cancel()

    def _source(self, item: MediaLike, kind: MediaKind) -> message_service_pb2.MediaSource:
        media = as_media(item)
        if media.kind in ("path", "bytes"):
            uploaded = self.upload(media.value, kind, file_name=media.file_name)
            return message_service_pb2.MediaSource(media_id=uploaded.media_id)
        return source_of(media)

    def send(
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
        """Checks the message against the gateway's limits (4 images, 1 video, 20000
        characters, 20 mentions, ...: a ``ClientError`` with the gateway's reason, before
        anything is uploaded), uploads local media (paths or bytes; a voice with kind RECORD), then
        sends text, images, videos, a voice (语音, at most 1: its own message after the rest)
        and a file to ``group_id`` (None: the account's only whitelisted group) or, with
        ``user_id``, to a private chat. ``reply_to`` quotes a message and ``mentions``
        (at most 20 QQ numbers) / ``mention_all`` mention members, in the first message. The
        response's ``rate_limit_wait`` (a ``Duration``: ``.ToTimedelta()``) is how long the
        send waited for the gateway's rate limits."""
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
            images=[self._source(i, IMAGE) for i in image_items],
            videos=[self._source(v, VIDEO) for v in video_items],
            voices=[self._source(v, RECORD) for v in voice_items],
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
            request.file.CopyFrom(self._source(file_item, FILE))
        return _call(lambda: self.message_service.SendMessage(request, timeout=self.timeout))

    def reply(
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
        return self.send(
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

    def reply_for(
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
        return self.reply(
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

    def get_message(self, message_id: int) -> message_service_pb2.GetMessageResponse:
        """One message by id, its quote resolved one level deep, with its history line."""
        request = message_service_pb2.GetMessageRequest(account_id=self.account_id, message_id=message_id)
        return _call(lambda: self.message_service.GetMessage(request, timeout=self.timeout))

    def recall(
        self, message_id: int, *, on_behalf_of: common_pb2.OnBehalfOf | None = None
    ) -> None:
        """Recalls (撤回) a message: the bot's own within 2 minutes, or a member's when the bot
        is a group admin. ``on_behalf_of`` (``on_behalf_of_message`` / ``on_behalf_of_user``;
        None: nobody) is the QQ user it is done for: the gateway's ``[policy]`` rules decide by
        their role."""
        request = message_service_pb2.RecallMessageRequest(
            account_id=self.account_id, message_id=message_id, on_behalf_of=on_behalf_of
        )
        _call(lambda: self.message_service.RecallMessage(request, timeout=self.timeout))

    def get_forward(self, forward_id: str) -> message_service_pb2.GetForwardMessagesResponse:
        """The messages of a merged-forward bundle (``ForwardSegment.id``); nested bundles stay
        forward segments."""
        request = message_service_pb2.GetForwardMessagesRequest(account_id=self.account_id, forward_id=forward_id)
        return _call(lambda: self.message_service.GetForwardMessages(request, timeout=self.timeout))


class EventStream(Iterator[event_service_pb2.Event]):
    """The events of ``Client.events``: an iterator that reconnects after a broken
    connection from the last event it yielded. ``reconnects`` counts the reconnects;
    ``position`` is the sequence number it would resume after."""

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

    def __iter__(self) -> EventStream:
        return self

    def __next__(self) -> event_service_pb2.Event:
        while True:
            if self._closed:
                raise StopIteration
            if self._call is None:
                if self._opened:
                    self.reconnects += 1
                self._opened = True
                self._call = self._service.StreamEvents(self._cursor.request(self._request))
            try:
                response = next(self._call)
            except StopIteration:
                self.close()
                raise
            except grpc.RpcError as rpc:
                self._call = None
                err = GatewayError.from_rpc_error(rpc)
                if self._closed or not resumable(err) or self._failures >= MAX_RECONNECTS:
                    self.close()
                    raise err from None
                self._failures += 1
                time.sleep(reconnect_wait(err, self._failures))
                continue
            self._failures = 0
            event = self._cursor.take(response)
            if event is not None:
                return event

    def close(self) -> None:
        """Cancels the stream."""
        self._closed = True
        if self._call is not None:
            self._call.cancel()
            self._call = None


__all__ = ["Client", "EventStream", "Media"]
