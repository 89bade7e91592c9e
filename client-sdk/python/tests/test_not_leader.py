"""A standby gateway's refusal (UNAVAILABLE NOT_LEADER) is retried by the clients: a stub
AccountService on a loopback port refuses the first calls, then answers. Offline."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc
import pytest
from google.protobuf import any_pb2, duration_pb2
import google.rpc.error_details_pb2 as error_details_pb2
import google.rpc.status_pb2 as status_pb2

from onebot.gateway.v1 import account_service_pb2, account_service_pb2_grpc
from onebot_gateway import AsyncClient, Client, GatewayError


class Standby(account_service_pb2_grpc.AccountServiceServicer):
    """Refuses the first ``refusals`` calls with UNAVAILABLE ``reason`` (RetryInfo ``retry``
    seconds when set), then answers with one account."""

    def __init__(self, refusals: int, reason: str, retry: float | None) -> None:
        self.refusals = refusals
        self.reason = reason
        self.retry = retry
        self.calls = 0
        self._lock = threading.Lock()

    def ListAccounts(
        self, request: account_service_pb2.ListAccountsRequest, context: grpc.ServicerContext
    ) -> account_service_pb2.ListAccountsResponse:
        with self._lock:
            self.calls += 1
            call = self.calls
        if call <= self.refusals:
            message = "another gateway leads account default"
            status = status_pb2.Status(code=grpc.StatusCode.UNAVAILABLE.value[0], message=message)
            info = any_pb2.Any()
            info.Pack(
                error_details_pb2.ErrorInfo(
                    reason=self.reason,
                    domain="onebot-gateway",
                    metadata={"account_id": "default", "leader": "gw-a", "advertise": "10.0.0.1:50051"},
                )
            )
            status.details.append(info)
            if self.retry is not None:
                delay = duration_pb2.Duration()
                delay.FromMilliseconds(int(self.retry * 1000))
                retry = any_pb2.Any()
                retry.Pack(error_details_pb2.RetryInfo(retry_delay=delay))
                status.details.append(retry)
            context.set_trailing_metadata((("grpc-status-details-bin", status.SerializeToString()),))
            context.abort(grpc.StatusCode.UNAVAILABLE, message)
        return account_service_pb2.ListAccountsResponse(
            accounts=[account_service_pb2.Account(account_id="default")]
        )


Serve = Callable[[int, str, "float | None"], tuple[str, Standby]]


@pytest.fixture
def serve() -> Iterator[Serve]:
    servers: list[grpc.Server] = []

    def start(refusals: int, reason: str, retry: float | None) -> tuple[str, Standby]:
        standby = Standby(refusals, reason, retry)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        account_service_pb2_grpc.add_AccountServiceServicer_to_server(standby, server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        servers.append(server)
        return f"http://127.0.0.1:{port}", standby

    yield start
    for server in servers:
        server.stop(None)


def test_not_leader_is_retried_until_the_leader_answers(serve: Serve) -> None:
    address, standby = serve(3, "NOT_LEADER", 0.02)
    with Client(address) as client:
        assert [a.account_id for a in client.accounts()] == ["default"]
    assert standby.calls == 4


def test_without_retry_info_the_backoff_starts_at_a_quarter_second(serve: Serve) -> None:
    address, standby = serve(1, "NOT_LEADER", None)
    with Client(address) as client:
        start = time.monotonic()
        client.accounts()
        assert time.monotonic() - start >= 0.125
    assert standby.calls == 2


def test_with_retry_off_the_refusal_is_raised(serve: Serve) -> None:
    address, standby = serve(1, "NOT_LEADER", 0.02)
    with Client(address, not_leader_retry_budget=0) as client:
        with pytest.raises(GatewayError) as raised:
            client.accounts()
    err = raised.value
    assert err.is_not_leader and err.code == grpc.StatusCode.UNAVAILABLE
    assert err.leader == "gw-a" and err.advertise == "10.0.0.1:50051"
    assert err.metadata["account_id"] == "default" and err.retry_delay == pytest.approx(0.02)
    assert standby.calls == 1


def test_the_budget_and_the_timeout_end_the_retries(serve: Serve) -> None:
    address, standby = serve(1 << 30, "NOT_LEADER", 0.02)
    with Client(address, not_leader_retry_budget=0.15) as client:
        with pytest.raises(GatewayError) as raised:
            client.accounts()
    assert raised.value.is_not_leader and 3 <= standby.calls <= 9
    before = standby.calls
    with Client(address, timeout=0.1) as client:
        start = time.monotonic()
        with pytest.raises(GatewayError) as raised:
            client.accounts()
        assert time.monotonic() - start < 1
    assert raised.value.is_not_leader and standby.calls - before >= 2


def test_other_unavailable_reasons_are_not_retried(serve: Serve) -> None:
    address, standby = serve(1, "ACCOUNT_OFFLINE", 0.02)
    with Client(address) as client:
        with pytest.raises(GatewayError) as raised:
            client.accounts()
    assert raised.value.reason == "ACCOUNT_OFFLINE" and not raised.value.is_not_leader
    assert raised.value.leader is None
    assert standby.calls == 1


def test_the_async_client_retries_not_leader_too(serve: Serve) -> None:
    async def run() -> None:
        address, standby = serve(2, "NOT_LEADER", 0.02)
        async with AsyncClient(address) as client:
            assert [a.account_id for a in await client.accounts()] == ["default"]
        assert standby.calls == 3

        address, standby = serve(1, "NOT_LEADER", 0.02)
        async with AsyncClient(address, not_leader_retry_budget=0) as client:
            with pytest.raises(GatewayError) as raised:
                await client.accounts()
        assert raised.value.is_not_leader and raised.value.leader == "gw-a"
        assert standby.calls == 1

        address, standby = serve(1, "ACCOUNT_OFFLINE", 0.02)
        async with AsyncClient(address) as client:
            with pytest.raises(GatewayError) as raised:
                await client.accounts()
        assert raised.value.reason == "ACCOUNT_OFFLINE" and standby.calls == 1

    asyncio.run(run())
