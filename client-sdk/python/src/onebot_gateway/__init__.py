"""Python client for onebot-gateway: a QQ bot (OneBot v11) behind gRPC.

``Client`` (sync) and ``onebot_gateway.aio.AsyncClient`` (asyncio) wrap the generated stubs
in ``onebot.gateway.v1`` with a bearer token, TLS settings, typed errors (every failure is a
``OneBotGatewayError``: ``GatewayError`` for a failed call, with the ``ErrorInfo`` reason,
metadata and ``RetryInfo`` delay; ``ClientError`` for one found on this side), ``upload``
(streams a file in 256 KiB chunks), ``send`` (checks the gateway's limits, then uploads local
media first), ``reply`` and ``mentions_me`` (answering a message event), ``reply_for`` and
``on_behalf_of_message`` / ``on_behalf_of_user`` (acting for a QQ user, decided by the gateway's
``[policy]``), ``approvals`` / ``wait_approval`` / ``approve`` / ``reject`` and ``audit`` (held
actions and the audit trail), ``download`` / ``download_to`` (received or uploaded media,
checked against the SHA-256 the gateway states) and the group actions: ``react``,
``set_essence``, ``list_essence``, ``set_typing``, ``list_group_files``,
``download_group_file`` / ``download_group_file_to``, ``mute_member``, ``mute_all``,
``kick_member`` and ``set_member_card``; ``send(voices=[...])`` sends a voice.
"""

from ._client import Client, EventStream
from ._common import (
    ACCOUNT_HEALTH_SERVICE_PREFIX,
    ACCOUNT_METADATA_KEY,
    CHUNK_SIZE,
    DEFAULT_ADDRESS,
    FILE,
    Downloaded,
    IMAGE,
    RECORD,
    VIDEO,
    Media,
    MediaLike,
    MediaRefLike,
    Uploaded,
)
from ._governance import (
    MAX_APPROVAL_WAIT,
    is_approval_open,
    on_behalf_of_message,
    on_behalf_of_user,
)
from ._group_actions import MAX_CARD_BYTES, MAX_EMOJI_ID_BYTES, MAX_MUTE_SECONDS
from ._errors import ERROR_DOMAIN, ClientError, FieldViolation, FileError, GatewayError, OneBotGatewayError
from ._messages import (
    MAX_IDEMPOTENCY_KEY_BYTES,
    MAX_IMAGES,
    MAX_MENTIONS,
    MAX_TEXT_CHARS,
    MAX_VIDEOS,
    MAX_VOICES,
    MessageLike,
    mentions_me,
)
from ._retry import DEFAULT_NOT_LEADER_RETRY_BUDGET, AsyncNotLeaderRetry, NotLeaderRetry
from .aio import AsyncClient, AsyncEventStream

__all__ = [
    "ACCOUNT_HEALTH_SERVICE_PREFIX",
    "ACCOUNT_METADATA_KEY",
    "AsyncClient",
    "AsyncEventStream",
    "AsyncNotLeaderRetry",
    "CHUNK_SIZE",
    "Client",
    "ClientError",
    "DEFAULT_ADDRESS",
    "DEFAULT_NOT_LEADER_RETRY_BUDGET",
    "Downloaded",
    "ERROR_DOMAIN",
    "EventStream",
    "FILE",
    "FieldViolation",
    "FileError",
    "GatewayError",
    "IMAGE",
    "MAX_APPROVAL_WAIT",
    "MAX_CARD_BYTES",
    "MAX_EMOJI_ID_BYTES",
    "MAX_IDEMPOTENCY_KEY_BYTES",
    "MAX_IMAGES",
    "MAX_MENTIONS",
    "MAX_MUTE_SECONDS",
    "MAX_TEXT_CHARS",
    "MAX_VIDEOS",
    "MAX_VOICES",
    "Media",
    "MediaLike",
    "MediaRefLike",
    "MessageLike",
    "NotLeaderRetry",
    "OneBotGatewayError",
    "RECORD",
    "Uploaded",
    "VIDEO",
    "is_approval_open",
    "mentions_me",
    "on_behalf_of_message",
    "on_behalf_of_user",
]
