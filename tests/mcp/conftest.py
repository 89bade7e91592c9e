"""Gateways for the MCP client tests: the release binary (ONEBOT_GATEWAY_BIN, set by
scripts/mcp-tests.sh) serving on its embedded sandbox (OneBot v11, or Milky with
`protocol="milky"`), whose HTTP API (POST /sandbox_inject_message, on both faces) makes a user
say something, and the Python SDK for the same calls over gRPC."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import tempfile
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from onebot_gateway import Client as GrpcClient

AGENT_TOKEN = "agent-token-0123456789abcdef"
READER_TOKEN = "reader-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Gateway:
    """One `onebot-gateway serve` process on its embedded sandbox."""

    binary: str
    port: int
    sandbox_port: int
    tokens: bool
    proc: subprocess.Popen[bytes]
    workdir: Path
    log: Path = field(init=False)

    def __post_init__(self) -> None:
        self.log = self.workdir / "gateway.log"

    @property
    def addr(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.addr}/mcp"

    def grpc(self, token: str | None = None) -> GrpcClient:
        return GrpcClient(self.addr, token=token or (AGENT_TOKEN if self.tokens else None))

    def inject(self, text: str, *, group_id: int | None = 20000003, user_id: int = 10001) -> int:
        """Makes `user_id` say `text` in the group (or privately); returns the message id."""
        params: dict[str, object] = {"user_id": user_id, "message": text}
        if group_id is not None:
            params["group_id"] = group_id
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.sandbox_port}/sandbox_inject_message",
            data=json.dumps(params).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = json.load(response)
        assert answer["status"] == "ok", answer
        return int(answer["data"]["message_id"])


def start_gateway(
    binary: str, workdir: Path, *, tokens: bool, protocol: str = "onebot_v11", extra: str = ""
) -> Gateway:
    """`protocol`: what the embedded sandbox (and so the `default` account) speaks, `onebot_v11`
    or `milky`; `extra`: more TOML appended to the config (e.g. a `[policy]` section)."""
    port, sandbox_port = free_port(), free_port()
    config = f"""
[server]
listen = "127.0.0.1:{port}"
data_dir = "{workdir / 'data'}"

[sandbox]
listen = "127.0.0.1:{sandbox_port}"
protocol = "{protocol}"
"""
    if tokens:
        config += f"""
[[auth.tokens]]
name = "agent"
value = "{AGENT_TOKEN}"
accounts = ["*"]
access = "read_write"

[[auth.tokens]]
name = "reader"
value = "{READER_TOKEN}"
accounts = ["*"]
"""
    path = workdir / "gateway.toml"
    path.write_text(config + extra)
    log = open(workdir / "gateway.log", "wb")
    proc = subprocess.Popen(
        [binary, "serve", "--config", str(path)], stdout=log, stderr=subprocess.STDOUT
    )
    gw = Gateway(binary, port, sandbox_port, tokens, proc, workdir)
    # Account health names answer only callers with a token when tokens are configured.
    token = ["--token", AGENT_TOKEN] if tokens else []
    ready = subprocess.run(
        [binary, "health", "--addr", gw.addr, *token, "--service", "onebot.gateway.v1.account.default", "--wait", "60s"],
        capture_output=True,
    )
    if ready.returncode != 0:
        proc.kill()
        pytest.fail(f"the gateway did not become healthy:\n{gw.log.read_text()}")
    return gw


@pytest.fixture(scope="session")
def binary() -> str:
    path = os.environ.get("ONEBOT_GATEWAY_BIN")
    if not path:
        pytest.fail("ONEBOT_GATEWAY_BIN is not set: run ./scripts/mcp-tests.sh")
    return path


def serve(binary: str, tokens: bool, protocol: str = "onebot_v11", extra: str = "") -> Iterator[Gateway]:
    """One gateway for as long as the generator runs (a fixture's body)."""
    with tempfile.TemporaryDirectory() as tmp:
        gw = start_gateway(binary, Path(tmp), tokens=tokens, protocol=protocol, extra=extra)
        try:
            yield gw
        finally:
            gw.proc.terminate()
            gw.proc.wait(timeout=30)


@pytest.fixture(scope="session")
def gateway(binary: str) -> Iterator[Gateway]:
    """A gateway without tokens (open, like gRPC)."""
    yield from serve(binary, tokens=False)


@pytest.fixture(scope="session")
def secured(binary: str) -> Iterator[Gateway]:
    """A gateway with a read-write token `agent` and a read-only token `reader`."""
    yield from serve(binary, tokens=True)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
