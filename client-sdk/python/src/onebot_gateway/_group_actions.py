"""What the sync and asyncio clients share about group actions: the requests of reactions,
essence, typing, group files and moderation, checked before any call."""

from __future__ import annotations

from datetime import timedelta

from onebot.gateway.v1 import (
    common_pb2,
    group_service_pb2,
    media_service_pb2,
    message_service_pb2,
)

from ._errors import ClientError

#: Longest mute of ``mute_member``, in seconds (30 days, the platform's limit).
MAX_MUTE_SECONDS = 2_592_000
#: Longest ``emoji_id`` of ``react``, in UTF-8 bytes.
MAX_EMOJI_ID_BYTES = 32
#: Longest group card of ``set_member_card``, in UTF-8 bytes.
MAX_CARD_BYTES = 60


def _positive(name: str, value: int) -> None:
    if value <= 0:
        raise ClientError(f"{name} must be positive, got {value}", reason="INVALID_REQUEST", field=name)


def react_request(
    account_id: str,
    message_id: int,
    emoji_id: str | int,
    remove: bool,
    on_behalf_of: common_pb2.OnBehalfOf | None,
) -> message_service_pb2.ReactToMessageRequest:
    """A ``ReactToMessageRequest``: ``emoji_id`` a QQ face id (``76``) or a Unicode emoji's
    code point in decimal (``128077``), as text or a number."""
    _positive("message_id", message_id)
    emoji = str(emoji_id)
    if not emoji or len(emoji.encode()) > MAX_EMOJI_ID_BYTES:
        raise ClientError(
            f"emoji_id must be 1 to {MAX_EMOJI_ID_BYTES} bytes, got {emoji!r}",
            reason="INVALID_REQUEST",
            field="emoji_id",
        )
    return message_service_pb2.ReactToMessageRequest(
        account_id=account_id,
        message_id=message_id,
        emoji_id=emoji,
        remove=remove,
        on_behalf_of=on_behalf_of,
    )


def set_essence_request(
    account_id: str, message_id: int, remove: bool, on_behalf_of: common_pb2.OnBehalfOf | None
) -> message_service_pb2.SetEssenceRequest:
    """A ``SetEssenceRequest``."""
    _positive("message_id", message_id)
    return message_service_pb2.SetEssenceRequest(
        account_id=account_id, message_id=message_id, remove=remove, on_behalf_of=on_behalf_of
    )


def list_essence_request(
    account_id: str, group_id: int | None, page_size: int
) -> message_service_pb2.ListEssenceRequest:
    """The first page's ``ListEssenceRequest`` (``page_size`` 0 = 20, at most 50)."""
    if not 0 <= page_size <= 50:
        raise ClientError(
            f"page_size must be 0 to 50, got {page_size}", reason="INVALID_REQUEST", field="page_size"
        )
    request = message_service_pb2.ListEssenceRequest(account_id=account_id, page_size=page_size)
    if group_id is not None:
        request.group_id = group_id
    return request


def set_typing_request(
    account_id: str, user_id: int, on_behalf_of: common_pb2.OnBehalfOf | None
) -> message_service_pb2.SetTypingRequest:
    """A ``SetTypingRequest``."""
    _positive("user_id", user_id)
    return message_service_pb2.SetTypingRequest(
        account_id=account_id, user_id=user_id, on_behalf_of=on_behalf_of
    )


def list_group_files_request(
    account_id: str, group_id: int | None, folder_id: str, page_size: int
) -> group_service_pb2.ListGroupFilesRequest:
    """The first page's ``ListGroupFilesRequest`` (``folder_id`` "" = the root; ``page_size``
    0 = 50, at most 200)."""
    if not 0 <= page_size <= 200:
        raise ClientError(
            f"page_size must be 0 to 200, got {page_size}", reason="INVALID_REQUEST", field="page_size"
        )
    request = group_service_pb2.ListGroupFilesRequest(
        account_id=account_id, folder_id=folder_id, page_size=page_size
    )
    if group_id is not None:
        request.group_id = group_id
    return request


def download_group_file_request(
    account_id: str, group_id: int | None, file_id: str
) -> media_service_pb2.DownloadGroupFileRequest:
    """A ``DownloadGroupFileRequest`` of a ``GroupFile.file_id``."""
    if not file_id:
        raise ClientError("file_id must not be empty", reason="INVALID_REQUEST", field="file_id")
    request = media_service_pb2.DownloadGroupFileRequest(account_id=account_id, file_id=file_id)
    if group_id is not None:
        request.group_id = group_id
    return request


def mute_seconds(duration: float | timedelta) -> int:
    """Whole seconds of a mute (a part second rounds up: 0 would lift it), 0 to 30 days."""
    seconds = duration.total_seconds() if isinstance(duration, timedelta) else float(duration)
    whole = int(-(-seconds // 1))
    if seconds < 0 or whole > MAX_MUTE_SECONDS:
        raise ClientError(
            f"duration must be 0 to {MAX_MUTE_SECONDS} seconds (30 days), got {seconds:g}",
            reason="INVALID_REQUEST",
            field="duration",
        )
    return whole


def mute_member_request(
    account_id: str,
    group_id: int | None,
    user_id: int,
    duration: float | timedelta,
    on_behalf_of: common_pb2.OnBehalfOf | None,
) -> group_service_pb2.MuteMemberRequest:
    """A ``MuteMemberRequest`` (``duration`` seconds or a ``timedelta``; 0 lifts the mute)."""
    _positive("user_id", user_id)
    request = group_service_pb2.MuteMemberRequest(
        account_id=account_id,
        user_id=user_id,
        duration_secs=mute_seconds(duration),
        on_behalf_of=on_behalf_of,
    )
    if group_id is not None:
        request.group_id = group_id
    return request


def mute_all_request(
    account_id: str, group_id: int | None, enable: bool, on_behalf_of: common_pb2.OnBehalfOf | None
) -> group_service_pb2.MuteAllRequest:
    """A ``MuteAllRequest``."""
    request = group_service_pb2.MuteAllRequest(
        account_id=account_id, enable=enable, on_behalf_of=on_behalf_of
    )
    if group_id is not None:
        request.group_id = group_id
    return request


def kick_member_request(
    account_id: str,
    group_id: int | None,
    user_id: int,
    reject_rejoin: bool,
    on_behalf_of: common_pb2.OnBehalfOf | None,
) -> group_service_pb2.KickMemberRequest:
    """A ``KickMemberRequest``."""
    _positive("user_id", user_id)
    request = group_service_pb2.KickMemberRequest(
        account_id=account_id, user_id=user_id, reject_rejoin=reject_rejoin, on_behalf_of=on_behalf_of
    )
    if group_id is not None:
        request.group_id = group_id
    return request


def set_member_card_request(
    account_id: str,
    group_id: int | None,
    user_id: int,
    card: str,
    on_behalf_of: common_pb2.OnBehalfOf | None,
) -> group_service_pb2.SetMemberCardRequest:
    """A ``SetMemberCardRequest`` (an empty card clears it)."""
    _positive("user_id", user_id)
    card_bytes = len(card.encode())
    if card_bytes > MAX_CARD_BYTES:
        raise ClientError(
            f"card is {card_bytes} bytes; at most {MAX_CARD_BYTES}", reason="INVALID_REQUEST", field="card"
        )
    request = group_service_pb2.SetMemberCardRequest(
        account_id=account_id, user_id=user_id, card=card, on_behalf_of=on_behalf_of
    )
    if group_id is not None:
        request.group_id = group_id
    return request
