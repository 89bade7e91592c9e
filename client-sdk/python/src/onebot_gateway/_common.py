"""Pieces shared by the sync and asyncio clients: addresses, credentials, media."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, TypeAlias, Union

import grpc
from google.protobuf import timestamp_pb2
from grpc_health.v1 import health_pb2

from onebot.gateway.v1 import common_pb2, media_service_pb2, message_service_pb2

from ._errors import ClientError, FileError

#: The gateway's default listen address.
DEFAULT_ADDRESS = "http://127.0.0.1:50051"
#: Size of the chunks ``upload`` streams.
CHUNK_SIZE = 256 * 1024
#: Largest response the clients accept.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

#: Prefix of the per-account health service names: ``health(ACCOUNT_HEALTH_SERVICE_PREFIX + id)``
#: is the health of account ``id`` (SERVING while its OneBot connection is up). The gateway
#: registers these names with its health service; they are not proto services. Built from the
#: API's proto package.
ACCOUNT_HEALTH_SERVICE_PREFIX = f"{common_pb2.DESCRIPTOR.package}.account."

_HEALTH_CHECK = health_pb2.DESCRIPTOR.services_by_name["Health"].methods_by_name["Check"]
#: Method path of the standard health check (``grpc.health.v1.Health/Check``), from the
#: descriptor grpcio-health-checking ships.
HEALTH_CHECK_METHOD = f"/{_HEALTH_CHECK.containing_service.full_name}/{_HEALTH_CHECK.name}"

IMAGE = common_pb2.MEDIA_KIND_IMAGE
VIDEO = common_pb2.MEDIA_KIND_VIDEO
FILE = common_pb2.MEDIA_KIND_FILE
#: A voice record (语音): the kind ``send(voices=...)`` uploads a voice with.
RECORD = common_pb2.MEDIA_KIND_RECORD

MediaKind: TypeAlias = common_pb2.MediaKind.ValueType
KindName: TypeAlias = Literal["image", "video", "file", "record"]
_KINDS: dict[str, MediaKind] = {"image": IMAGE, "video": VIDEO, "file": FILE, "record": RECORD}


def media_kind(kind: MediaKind | KindName) -> MediaKind:
    """``"image"``/``"video"``/``"file"``/``"record"`` or a ``MediaKind`` value."""
    if isinstance(kind, str):
        try:
            return _KINDS[kind]
        except KeyError:
            raise ClientError(f"unknown media kind {kind!r}: image, video, file or record") from None
    return kind


@dataclass(frozen=True)
class Target:
    """Where and how to connect: a grpc target and optional TLS credentials."""

    target: str
    credentials: grpc.ChannelCredentials | None
    options: list[tuple[str, int | str]] = field(default_factory=list)


def resolve_target(
    address: str, ca_file: str | os.PathLike[str] | None, server_name: str | None
) -> Target:
    """``http://host:port`` (plaintext), ``https://host:port`` (TLS) or ``host:port``."""
    options: list[tuple[str, int | str]] = [
        ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ]
    if address.startswith("https://"):
        root = None
        if ca_file is not None:
            try:
                with open(ca_file, "rb") as f:
                    root = f.read()
            except OSError as err:
                raise FileError(err) from err
        if server_name:
            options.append(("grpc.ssl_target_name_override", server_name))
        creds = grpc.ssl_channel_credentials(root_certificates=root)
        return Target(address.removeprefix("https://").rstrip("/"), creds, options)
    if ca_file is not None or server_name is not None:
        raise ClientError("TLS settings need an https:// address")
    return Target(address.removeprefix("http://").rstrip("/"), None, options)


#: Request metadata naming the account of a call. Every call sends it (the client's account,
#: ``default`` when empty) so a proxy in front of many gateways can route each account to the
#: gateway holding it; the gateway refuses a request whose ``account_id`` names another one.
ACCOUNT_METADATA_KEY = "x-onebot-account"


def account_metadata(account_id: str) -> tuple[tuple[str, str], ...]:
    """The ``x-onebot-account`` pair of ``account_id`` (``default`` when empty)."""
    account = account_id or "default"
    if not account.isascii() or not account.isprintable():
        raise ClientError(f"account id {account!r}: account ids are ASCII letters, digits, _ and -")
    return ((ACCOUNT_METADATA_KEY, account),)


def auth_metadata(token: str | None) -> tuple[tuple[str, str], ...]:
    """The ``authorization: Bearer <token>`` pair, or nothing."""
    if token is None:
        return ()
    if not token.isascii() or not token.isprintable():
        raise ClientError("the token must be printable ASCII")
    return (("authorization", f"Bearer {token}"),)


@dataclass(frozen=True)
class Media:
    """A media source for ``send``: a local file or bytes (uploaded first), an http(s) URL
    fetched by the gateway, a media id from an earlier upload, or a path on the gateway host."""

    kind: Literal["path", "bytes", "url", "media_id", "server_path"]
    value: str | bytes
    file_name: str = ""

    @staticmethod
    def path(path: str | os.PathLike[str]) -> Media:
        """A local file, uploaded before sending."""
        return Media("path", os.fspath(path))

    @staticmethod
    def data(data: bytes, file_name: str = "") -> Media:
        """Bytes in memory, uploaded before sending."""
        return Media("bytes", data, file_name)

    @staticmethod
    def url(url: str) -> Media:
        """An http(s) URL the gateway fetches."""
        return Media("url", url)

    @staticmethod
    def media_id(media_id: str) -> Media:
        """A media id from an earlier upload."""
        return Media("media_id", media_id)

    @staticmethod
    def server_path(path: str) -> Media:
        """An absolute path on the gateway host (under its ``media_roots``)."""
        return Media("server_path", path)


#: What ``send`` accepts per media item: a ``Media``, a local path (``str`` or ``PathLike``;
#: ``http://``/``https://`` strings are URLs) or ``bytes``.
MediaLike: TypeAlias = Union[Media, str, "os.PathLike[str]", bytes]


def as_media(item: MediaLike) -> Media:
    """Normalises a ``MediaLike``."""
    if isinstance(item, Media):
        return item
    if isinstance(item, bytes):
        return Media.data(item)
    if isinstance(item, str) and item.startswith(("http://", "https://")):
        return Media.url(item)
    if isinstance(item, (str, os.PathLike)):
        return Media.path(item)
    raise ClientError(
        f"a media item is a Media, a local path, an http(s) URL or bytes, got {type(item).__name__}"
    )


def local_media(item: MediaLike) -> Media:
    """Normalises a ``MediaLike`` and checks that a local path names a regular file, so a send
    that would fail on its second file uploads nothing."""
    media = as_media(item)
    if media.kind == "path" and not os.path.isfile(media.value):
        raise ClientError(f"{media.value!s} is not a regular file")
    return media


def source_of(media: Media) -> message_service_pb2.MediaSource:
    """The ``MediaSource`` of a non-local media item."""
    if media.kind == "url":
        return message_service_pb2.MediaSource(url=str(media.value))
    if media.kind == "media_id":
        return message_service_pb2.MediaSource(media_id=str(media.value))
    if media.kind == "server_path":
        return message_service_pb2.MediaSource(path=str(media.value))
    raise ClientError(f"{media.kind} media must be uploaded first")


@dataclass(frozen=True)
class Uploaded:
    """What an upload staged on the gateway."""

    media_id: str
    size: int
    sha256: str
    mime_type: str
    response: media_service_pb2.UploadMediaResponse


class ChunkReader:
    """Reads an upload's content in ``CHUNK_SIZE`` chunks, hashing as it goes."""

    def __init__(self, source: str | os.PathLike[str] | bytes, file_name: str = "") -> None:
        self._hash = hashlib.sha256()
        self.sent = 0
        if isinstance(source, bytes):
            self._data: bytes | None = source
            self._file = None
            self.size = len(source)
            self.file_name = file_name
        else:
            path = os.fspath(source)
            if not os.path.isfile(path):
                raise ClientError(f"{path} is not a regular file")
            self._data = None
            try:
                self._file = open(path, "rb")
            except OSError as err:
                raise FileError(err) from err
            self.size = os.fstat(self._file.fileno()).st_size
            self.file_name = file_name or os.path.basename(path)

    def header(self, account_id: str, kind: MediaKind) -> media_service_pb2.UploadMediaRequest:
        """The upload's first message."""
        return media_service_pb2.UploadMediaRequest(
            header=media_service_pb2.UploadMediaHeader(
                account_id=account_id, kind=kind, file_name=self.file_name, size=self.size
            )
        )

    def read(self) -> bytes:
        """The next chunk; ``b""`` at the end."""
        if self._data is not None:
            chunk = self._data[self.sent : self.sent + CHUNK_SIZE]
        elif self._file is not None:
            try:
                chunk = self._file.read(CHUNK_SIZE)
            except OSError as err:
                raise FileError(err) from err
        else:
            chunk = b""
        self._hash.update(chunk)
        self.sent += len(chunk)
        return chunk

    def close(self) -> None:
        """Closes the file, if any."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def finish(self, response: media_service_pb2.UploadMediaResponse) -> Uploaded:
        """Checks the gateway's size and digest against the bytes sent."""
        digest = self._hash.hexdigest()
        if response.sha256 != digest or response.size != self.sent:
            raise ClientError(
                f"upload integrity check failed: sent {self.sent} bytes sha256 {digest}, "
                f"gateway stored {response.size} bytes sha256 {response.sha256}"
            )
        return Uploaded(response.media_id, self.sent, digest, response.mime_type, response)


#: What ``download`` takes: a media id, or ``(message_id, segment_index)``.
MediaRefLike: TypeAlias = Union[str, "tuple[int, int]"]


def download_request(account_id: str, target: MediaRefLike) -> media_service_pb2.DownloadMediaRequest:
    """A ``DownloadMediaRequest`` for a media id or ``(message_id, segment_index)``."""
    request = media_service_pb2.DownloadMediaRequest(account_id=account_id)
    if isinstance(target, str):
        if not target:
            raise ClientError("give a media id or (message_id, segment_index)")
        request.media_id = target
    else:
        message_id, segment_index = target
        request.message.message_id = message_id
        request.message.segment_index = segment_index
    return request


@dataclass(frozen=True)
class Downloaded:
    """A downloaded item: the header (media id, kind, MIME type, size, SHA-256, file name) and
    the bytes (checked against it)."""

    header: media_service_pb2.DownloadMediaHeader
    data: bytes


class DownloadWriter:
    """Takes a download's messages: the header first, then chunks, hashed as they come and
    written to a ``.part`` file beside ``path`` (or kept in memory without one); ``finish``
    checks the size and SHA-256 the header states, then renames the file into place."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self._hash = hashlib.sha256()
        self.received = 0
        self.header: media_service_pb2.DownloadMediaHeader | None = None
        self._chunks: list[bytes] = []
        self._path = os.fspath(path) if path is not None else None
        self._part = f"{self._path}.part" if self._path is not None else None
        try:
            self._file = open(self._part, "wb") if self._part is not None else None
        except OSError as err:
            raise FileError(err) from err

    @property
    def total(self) -> int:
        """The size the header states (0 before it)."""
        return self.header.size if self.header is not None else 0

    def take(
        self,
        message: media_service_pb2.DownloadMediaResponse | media_service_pb2.DownloadGroupFileResponse,
    ) -> None:
        """One message of the stream (of DownloadMedia or DownloadGroupFile)."""
        if message.WhichOneof("payload") == "header":
            if self.header is not None:
                raise ClientError("the download stream had a second header")
            self.header = message.header
            return
        if self.header is None:
            raise ClientError("the download stream did not start with a header")
        self._hash.update(message.chunk)
        self.received += len(message.chunk)
        if self._file is not None:
            try:
                self._file.write(message.chunk)
            except OSError as err:
                raise FileError(err) from err
        else:
            self._chunks.append(message.chunk)

    def abort(self) -> None:
        """Removes the partial file."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._part is not None and os.path.exists(self._part):
            os.remove(self._part)

    def finish(self) -> Downloaded:
        """Checks the bytes against the header and keeps them."""
        digest = self._hash.hexdigest()
        header = self.header
        if header is None or header.sha256 != digest or header.size != self.received:
            self.abort()
            stated = header.sha256 if header is not None else "(no header)"
            raise ClientError(
                f"download integrity check failed: header sha256 {stated}, "
                f"received {self.received} bytes sha256 {digest}"
            )
        if self._file is not None and self._part is not None and self._path is not None:
            try:
                self._file.close()
                self._file = None
                os.replace(self._part, self._path)
            except OSError as err:
                self.abort()
                raise FileError(err) from err
            return Downloaded(header, b"")
        return Downloaded(header, b"".join(self._chunks))


def history_request(
    account_id: str,
    group_id: int | None,
    user_id: int | None,
    count: int,
    anchor: int | None,
) -> message_service_pb2.GetHistoryRequest:
    """A ``GetHistoryRequest`` for exactly one of ``group_id`` / ``user_id``."""
    if (group_id is None) == (user_id is None):
        raise ClientError("give exactly one of group_id or user_id")
    chat = common_pb2.Chat()
    if group_id is not None:
        chat.group_id = group_id
    elif user_id is not None:
        chat.user_id = user_id
    request = message_service_pb2.GetHistoryRequest(account_id=account_id, chat=chat, count=count)
    if anchor is not None:
        request.anchor_message_id = anchor
    return request


def _timestamp(when: datetime) -> timestamp_pb2.Timestamp:
    if when.tzinfo is None:
        raise ClientError("times must be timezone-aware (datetime.now(timezone.utc), ...)")
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(when)
    return ts


def until_request(
    request: message_service_pb2.GetHistoryRequest, until: datetime | None
) -> message_service_pb2.GetHistoryRequest:
    """``request`` limited to messages before ``until`` (served from the archive and the peer)."""
    if until is not None:
        request.until.CopyFrom(_timestamp(until))
    return request


def search_request(
    account_id: str,
    query: str,
    group_id: int | None,
    user_id: int | None,
    since: datetime | None,
    until: datetime | None,
    sender_id: int | None,
    limit: int,
    include_recalled: bool,
) -> message_service_pb2.SearchMessagesRequest:
    """A ``SearchMessagesRequest``: at most one of ``group_id`` / ``user_id`` (none: every
    archived chat); times timezone-aware."""
    if group_id is not None and user_id is not None:
        raise ClientError("give at most one of group_id or user_id")
    request = message_service_pb2.SearchMessagesRequest(
        account_id=account_id, query=query, limit=limit, include_recalled=include_recalled
    )
    if group_id is not None:
        request.chat.group_id = group_id
    elif user_id is not None:
        request.chat.user_id = user_id
    if since is not None:
        request.since.CopyFrom(_timestamp(since))
    if until is not None:
        request.until.CopyFrom(_timestamp(until))
    if sender_id is not None:
        request.sender_id = sender_id
    return request
