"""End-to-end: the Python SDK against a real gateway on its sandbox peer."""

from __future__ import annotations

import asyncio

import grpc
import pytest

import readme_examples
from onebot_gateway import Client, GatewayError


def test_health(client: Client) -> None:
    assert readme_examples.health(client) == "SERVING"
    with pytest.raises(GatewayError) as err:
        client.health("no.such.Service")
    assert err.value.code == grpc.StatusCode.NOT_FOUND


def test_accounts(client: Client) -> None:
    ids = readme_examples.accounts(client)
    assert len(ids) == len(set(ids))


def test_asyncio_client(address: str) -> None:
    assert asyncio.run(readme_examples.asyncio_client(address)) == "SERVING"


def test_unreachable_gateway_raises_gateway_error() -> None:
    with Client("http://127.0.0.1:1", timeout=5) as down:
        with pytest.raises(GatewayError) as err:
            down.accounts()
    assert err.value.code == grpc.StatusCode.UNAVAILABLE
