"""Python client for onebot-gateway: a QQ bot (OneBot v11) behind gRPC.

``Client`` (sync) and ``onebot_gateway.aio.AsyncClient`` (asyncio) wrap the generated stubs
in ``onebot.gateway.v1`` with a bearer token, TLS settings, typed errors (``GatewayError``
with the ``ErrorInfo`` reason, metadata and ``RetryInfo`` delay), ``upload`` (streams a file in
256 KiB chunks), ``send`` (uploads local media first) and ``download`` / ``download_to``
(received or uploaded media, checked against the SHA-256 the gateway states).
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
    VIDEO,
    Media,
    MediaLike,
    Uploaded,
)
from ._errors import ERROR_DOMAIN, ClientError, FieldViolation, GatewayError
from .aio import AsyncClient, AsyncEventStream

__all__ = [
    "ACCOUNT_HEALTH_SERVICE_PREFIX",
    "ACCOUNT_METADATA_KEY",
    "AsyncClient",
    "AsyncEventStream",
    "CHUNK_SIZE",
    "Client",
    "ClientError",
    "DEFAULT_ADDRESS",
    "Downloaded",
    "ERROR_DOMAIN",
    "EventStream",
    "FILE",
    "FieldViolation",
    "GatewayError",
    "IMAGE",
    "Media",
    "MediaLike",
    "MediaRefLike",
    "Uploaded",
    "VIDEO",
]
