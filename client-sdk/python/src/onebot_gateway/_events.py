"""Event streams that resume by themselves: the position a stream has reached (the last
event delivered, or the last heartbeat's ``last_sequence``), which failures are worth a
reconnect, and the backoff between attempts. Shared by the sync and asyncio clients."""

from __future__ import annotations

import random

import grpc

from onebot.gateway.v1 import event_service_pb2

from ._errors import GatewayError

#: Reconnect attempts in a row before the error reaches the caller.
MAX_RECONNECTS = 10

_RESUMABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.UNKNOWN,
    grpc.StatusCode.CANCELLED,
}


def resumable(err: GatewayError) -> bool:
    """True for a broken connection (a proxy or the network went away), for a subscriber
    the gateway dropped for lagging, and for a standby's refusal (``UNAVAILABLE``
    ``NOT_LEADER``): the stream is reopened from its position."""
    if err.code in _RESUMABLE:
        return True
    return err.code == grpc.StatusCode.RESOURCE_EXHAUSTED and err.reason == "EVENT_STREAM_LAGGED"


def backoff(attempt: int) -> float:
    """Seconds before reconnect attempt ``attempt`` (from 1): 0.1 doubling to 5, up to half
    taken off at random so the clients of one proxy do not all come back at once."""
    base: float = min(0.1 * 2 ** min(attempt - 1, 6), 5.0)
    return base - random.uniform(0, base / 2)


def reconnect_wait(err: GatewayError, attempt: int) -> float:
    """Seconds before reconnect attempt ``attempt`` after ``err``: a standby's ``NOT_LEADER``
    refusal says when to come back (``RetryInfo``), anything else backs off."""
    if err.is_not_leader and err.retry_delay:
        return err.retry_delay
    return backoff(attempt)


class Cursor:
    """Where a stream is: heartbeats move it without an event; events at or before it are
    not delivered again."""

    def __init__(self, after_sequence: int | None) -> None:
        self.position = after_sequence

    def take(self, response: event_service_pb2.StreamEventsResponse) -> event_service_pb2.Event | None:
        """The event to deliver from ``response``, if any."""
        if response.HasField("heartbeat"):
            beat = response.heartbeat.last_sequence
            self.position = beat if self.position is None else max(self.position, beat)
        if not response.HasField("event"):
            return None
        event = response.event
        if self.position is not None and event.sequence <= self.position:
            return None
        self.position = event.sequence
        return event

    def request(self, base: event_service_pb2.StreamEventsRequest) -> event_service_pb2.StreamEventsRequest:
        """``base`` resuming after the position."""
        request = event_service_pb2.StreamEventsRequest()
        request.CopyFrom(base)
        if self.position is not None:
            request.after_sequence = self.position
        return request
