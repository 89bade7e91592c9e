"""Shared fixtures: the gateway address (set by scripts/sdk-tests.sh) and a client."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))

from onebot_gateway import Client  # noqa: E402


@pytest.fixture(scope="session")
def address() -> str:
    addr = os.environ.get("ONEBOT_GATEWAY_ADDR")
    if not addr:
        pytest.fail("ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh python")
    return addr


@pytest.fixture
def client(address: str) -> Iterator[Client]:
    import readme_examples

    with readme_examples.connect() as c:
        yield c
