"""Local media over the stdio bridge (`onebot-gateway mcp`), with the official MCP Python SDK:
the bridge runs on the agent's machine, so a qq_send image given as an absolute path or a
`file://` URI is uploaded (UploadMedia) and sent; the picture then comes back byte-exact through
qq_get_media. A local file that does not exist is a failed tool result that says so, and nothing
is sent."""

from __future__ import annotations

import base64
import zlib
import struct
from pathlib import Path

import pytest
from conftest import Gateway
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, ImageContent, TextContent

pytestmark = pytest.mark.anyio

GROUP = 20000003


def png(rgb: tuple[int, int, int]) -> bytes:
    """A 1×1 PNG of one colour (different colours, different bytes)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(bytes([0, *rgb]))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def stdio(gw: Gateway) -> Client:
    return Client(StdioServerParameters(command=gw.binary, args=["mcp", "--addr", gw.addr]), mode="legacy")


def text_of(result: CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, TextContent), result
    return first.text


async def sent_picture(client: Client, image: str) -> bytes:
    """Sends `image` with qq_send; the bytes of the sent picture, read back with qq_get_media."""
    sent = await client.call_tool("qq_send", {"groupId": GROUP, "images": [image]})
    assert not sent.is_error, text_of(sent)
    assert sent.structured_content is not None
    message_id = sent.structured_content["messageIds"][-1]
    got = await client.call_tool("qq_get_media", {"messageId": message_id, "segmentIndex": 0})
    assert not got.is_error, text_of(got)
    [picture] = [c for c in got.content if isinstance(c, ImageContent)]
    return base64.b64decode(picture.data)


async def test_local_paths_and_file_uris_are_uploaded(gateway: Gateway, tmp_path: Path) -> None:
    red, green = tmp_path / "red.png", tmp_path / "green picture.png"
    red.write_bytes(png((255, 0, 0)))
    green.write_bytes(png((0, 255, 0)))
    async with stdio(gateway) as client:
        assert await sent_picture(client, str(red)) == red.read_bytes()
        assert await sent_picture(client, green.as_uri()) == green.read_bytes()


async def test_a_missing_local_file_is_a_failed_result(gateway: Gateway, tmp_path: Path) -> None:
    missing = tmp_path / "nope.png"
    with gateway.grpc() as grpc:
        before = grpc.call_tool("qq_get_history", {"groupId": GROUP, "count": 1}).details_json
    async with stdio(gateway) as client:
        result = await client.call_tool("qq_send", {"groupId": GROUP, "text": "不该发出", "images": [str(missing)]})
    assert result.is_error is True
    assert text_of(result) == f"参数 images[0]：本地文件 {missing} 不存在。"
    assert result.structured_content == {
        "status": "failed",
        "error": text_of(result),
        "field": "images[0]",
        "path": str(missing),
    }
    with gateway.grpc() as grpc:
        after = grpc.call_tool("qq_get_history", {"groupId": GROUP, "count": 1}).details_json
    assert after == before, "nothing was sent"
