"""Offline tests of the helpers: addresses, tokens, error decoding, chunking."""

from __future__ import annotations

import hashlib
from pathlib import Path

import grpc
import pytest
from google.protobuf import any_pb2, duration_pb2
import google.rpc.error_details_pb2 as error_details_pb2
import google.rpc.status_pb2 as status_pb2

from onebot.gateway.v1 import error_reason_pb2, media_service_pb2
from onebot_gateway import CHUNK_SIZE, ClientError, FileError, GatewayError, Media
from onebot_gateway._common import ChunkReader, as_media, auth_metadata, resolve_target


def test_addresses_and_tls_settings() -> None:
    assert resolve_target("http://127.0.0.1:50051", None, None).target == "127.0.0.1:50051"
    assert resolve_target("127.0.0.1:50051", None, None).credentials is None
    tls = resolve_target("https://gw.example:443", None, "gw.internal")
    assert tls.target == "gw.example:443" and tls.credentials is not None
    assert ("grpc.ssl_target_name_override", "gw.internal") in tls.options
    with pytest.raises(ClientError):
        resolve_target("http://127.0.0.1:1", "ca.pem", None)
    with pytest.raises(FileError) as missing:
        resolve_target("https://127.0.0.1:1", "/nonexistent/ca.pem", None)
    assert isinstance(missing.value, OSError) and missing.value.filename == "/nonexistent/ca.pem"


def test_bearer_token() -> None:
    assert auth_metadata("s3cret") == (("authorization", "Bearer s3cret"),)
    assert auth_metadata(None) == ()
    with pytest.raises(ClientError):
        auth_metadata("line\nbreak")


def _any(message: object) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)  # type: ignore[arg-type]
    return packed


def test_error_details_are_decoded() -> None:
    status = status_pb2.Status(
        code=14,
        message="offline",
        details=[
            _any(error_details_pb2.ErrorInfo(reason="ACCOUNT_OFFLINE", domain="onebot-gateway",
                                             metadata={"account_id": "a"})),
            _any(error_details_pb2.RetryInfo(retry_delay=duration_pb2.Duration(seconds=1, nanos=500_000_000))),
            _any(error_details_pb2.BadRequest(field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field="group_id", description="must be positive")
            ])),
        ],
    )
    err = GatewayError.from_status(
        grpc.StatusCode.UNAVAILABLE, "offline",
        (("grpc-status-details-bin", status.SerializeToString()),),
    )
    assert err.reason == "ACCOUNT_OFFLINE"
    assert err.error_reason == error_reason_pb2.ERROR_REASON_ACCOUNT_OFFLINE
    assert err.metadata == {"account_id": "a"}
    assert err.retry_delay == 1.5
    assert err.field_violations[0].field == "group_id"
    assert str(err) == "UNAVAILABLE (ACCOUNT_OFFLINE): offline [retry after 1.5 s]"
    plain = GatewayError.from_status(grpc.StatusCode.UNIMPLEMENTED, "nope", None)
    assert plain.reason is None and plain.error_reason is None


def test_chunks_and_digest(tmp_path: Path) -> None:
    data = bytes(range(256)) * (CHUNK_SIZE // 128 + 1)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    reader = ChunkReader(path)
    assert reader.file_name == "f.bin" and reader.size == len(data)
    sizes = []
    while chunk := reader.read():
        sizes.append(len(chunk))
    reader.close()
    assert sizes == [CHUNK_SIZE, CHUNK_SIZE, len(data) - 2 * CHUNK_SIZE]
    digest = hashlib.sha256(data).hexdigest()
    ok = media_service_pb2.UploadMediaResponse(media_id="m", size=len(data), sha256=digest)
    assert reader.finish(ok).media_id == "m"
    with pytest.raises(ClientError):
        reader.finish(media_service_pb2.UploadMediaResponse(media_id="m", size=1, sha256=digest))
    with pytest.raises(ClientError):
        ChunkReader(tmp_path / "missing.png")


def test_media_normalisation() -> None:
    assert as_media("https://example.com/a.png") == Media.url("https://example.com/a.png")
    assert as_media("/tmp/a.png") == Media.path("/tmp/a.png")
    assert as_media(b"\x89PNG").kind == "bytes"
