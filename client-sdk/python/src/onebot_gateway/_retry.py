"""Retrying a call a standby gateway refused with ``UNAVAILABLE`` ``NOT_LEADER`` (under
``[ha]`` only the account's leader serves it; the standby did nothing, so a retry is always
safe). Unary calls only: ``NotLeaderRetry`` (sync) and ``AsyncNotLeaderRetry`` (asyncio) are
the interceptors the clients install; streams are not retried here (the event streams resume
after ``NOT_LEADER`` by themselves, uploads and downloads are not retried)."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import grpc

from ._errors import GatewayError

#: Seconds a unary call refused with ``NOT_LEADER`` is retried in all, unless the client says
#: otherwise (leadership moves within about 10-15 s of a leader dying).
DEFAULT_NOT_LEADER_RETRY_BUDGET = 30.0


def not_leader_backoff(attempt: int) -> float:
    """Seconds before retry ``attempt`` (from 1) of a refusal without ``RetryInfo``: 0.25
    doubling to 5, up to half taken off at random."""
    base: float = min(0.25 * 2 ** min(attempt - 1, 6), 5.0)
    return base - random.uniform(0, base / 2)


def _refusal(code: Any, message: Any, trailing: Any) -> GatewayError | None:
    """The ``NOT_LEADER`` refusal a failed call's status is, else None."""
    if code != grpc.StatusCode.UNAVAILABLE:
        return None
    err = GatewayError.from_status(code, message or "", trailing)
    return err if err.is_not_leader else None


class _Details(grpc.ClientCallDetails):
    """``base`` with ``timeout`` seconds left."""

    def __init__(self, base: grpc.ClientCallDetails, timeout: float | None) -> None:
        self.method = base.method
        self.timeout = timeout
        self.metadata = base.metadata
        self.credentials = base.credentials
        self.wait_for_ready = getattr(base, "wait_for_ready", None)
        self.compression = getattr(base, "compression", None)


class _Clock:
    """The budget and the call's deadline: ``wait`` says how long to sleep before the next
    attempt, None when that would pass either."""

    def __init__(self, budget: float, timeout: float | None) -> None:
        now = time.monotonic()
        self.deadline = now + timeout if timeout is not None else None
        self.stop = now + budget
        self.attempt = 0
        self.began = now

    def started(self) -> None:
        """An attempt starts now."""
        self.began = time.monotonic()

    def wait(self, refusal: GatewayError) -> float | None:
        self.attempt += 1
        delay = refusal.retry_delay if refusal.retry_delay else not_leader_backoff(self.attempt)
        now = time.monotonic()
        if now + delay >= self.stop:
            return None
        # An attempt cut by the deadline would end in DEADLINE_EXCEEDED: none is started that
        # would not finish in time, by the last one's duration.
        if self.deadline is not None and now + delay + (now - self.began) >= self.deadline:
            return None
        return delay

    def left(self) -> float | None:
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.0)


class NotLeaderRetry(grpc.UnaryUnaryClientInterceptor):
    """Retries a unary call refused with ``UNAVAILABLE`` ``NOT_LEADER`` (and no other error)
    for at most ``budget`` seconds and never past the call's timeout: each retry waits the
    refusal's ``RetryInfo`` delay, or 0.25 s doubling to 5 s with jitter. When the next wait
    would pass either, the last refusal is the call's result."""

    def __init__(self, budget: float = DEFAULT_NOT_LEADER_RETRY_BUDGET) -> None:
        self.budget = budget

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        clock = _Clock(self.budget, details.timeout)
        while True:
            clock.started()
            outcome = continuation(details, request)
            err = outcome.exception()
            if err is None:
                return outcome
            refusal = _refusal(err.code(), err.details(), err.trailing_metadata())
            delay = None if refusal is None else clock.wait(refusal)
            if delay is None:
                return outcome
            time.sleep(delay)
            details = _Details(details, clock.left())


class AsyncNotLeaderRetry(grpc.aio.UnaryUnaryClientInterceptor):
    """``NotLeaderRetry`` for ``grpc.aio`` channels."""

    def __init__(self, budget: float = DEFAULT_NOT_LEADER_RETRY_BUDGET) -> None:
        self.budget = budget

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        clock = _Clock(self.budget, details.timeout)
        while True:
            clock.started()
            call = await continuation(details, request)
            code = await call.code()
            if code == grpc.StatusCode.OK:
                return call
            refusal = _refusal(code, await call.details(), await call.trailing_metadata())
            delay = None if refusal is None else clock.wait(refusal)
            if delay is None:
                return call
            await asyncio.sleep(delay)
            details = grpc.aio.ClientCallDetails(
                details.method, clock.left(), details.metadata, details.credentials, details.wait_for_ready
            )
