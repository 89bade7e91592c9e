"""Typed errors: one base class, ``OneBotGatewayError``, for every failure the SDK raises:
``GatewayError`` (a failed call, with the gateway's google.rpc details decoded) and
``ClientError`` (a failure found on this side: bad arguments, a send over the gateway's limits,
an integrity mismatch, a local file that cannot be read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
import google.rpc.error_details_pb2 as error_details_pb2
import google.rpc.status_pb2 as status_pb2

from onebot.gateway.v1 import error_reason_pb2

#: ``ErrorInfo.domain`` of the gateway's errors.
ERROR_DOMAIN = "onebot-gateway"

_DETAILS_KEY = "grpc-status-details-bin"


class OneBotGatewayError(Exception):
    """Base class of every failure the SDK raises: ``except OneBotGatewayError`` catches them
    all. Its subclasses are ``GatewayError`` (the gateway or the connection failed a call) and
    ``ClientError`` (found on this side, before any call or after one)."""


class ClientError(OneBotGatewayError):
    """A failure found on this side, before a call or after one: bad arguments, a send the
    gateway would refuse (checked before anything is uploaded), an integrity mismatch, a local
    file that cannot be read or written.

    ``reason`` is the ``ErrorReason`` name the gateway would answer with (without the
    ``ERROR_REASON_`` prefix, e.g. ``TOO_MANY_IMAGES``) when the check is one of the gateway's
    own, else ``None``; ``field`` names the argument at fault, when one is.
    """

    def __init__(self, message: str, *, reason: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.field = field


class FileError(ClientError, OSError):
    """A local file that cannot be opened, read or written: a ``ClientError`` that is also the
    ``OSError`` it stands for (``errno``, ``strerror``, ``filename`` kept)."""

    def __init__(self, err: OSError) -> None:
        OSError.__init__(self, err.errno, err.strerror, err.filename)
        self.message = str(err)
        self.reason = None
        self.field = None

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class FieldViolation:
    """One ``BadRequest.FieldViolation``: which request field is at fault."""

    field: str
    description: str


@dataclass(eq=False)
class GatewayError(OneBotGatewayError):
    """A failed call, with the gateway's ``ErrorInfo``, ``RetryInfo`` and ``BadRequest``.

    ``reason`` is the ``ErrorInfo.reason`` without the ``ERROR_REASON_`` prefix (for example
    ``GROUP_NOT_ALLOWED``), ``None`` when the status carried no ``ErrorInfo``.
    """

    code: grpc.StatusCode
    message: str
    reason: str | None = None
    domain: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    retry_delay: float | None = None
    """Seconds to wait before retrying (``RetryInfo.retry_delay``), when known."""
    field_violations: list[FieldViolation] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        text = self.code.name
        if self.reason:
            text += f" ({self.reason})"
        text += f": {self.message}"
        if self.retry_delay is not None:
            text += f" [retry after {self.retry_delay:g} s]"
        return text

    @property
    def error_reason(self) -> error_reason_pb2.ErrorReason.ValueType | None:
        """The reason as the generated ``ErrorReason`` enum value, when known."""
        if self.reason is None:
            return None
        try:
            return error_reason_pb2.ErrorReason.Value("ERROR_REASON_" + self.reason)
        except ValueError:
            return None

    @property
    def approval_id(self) -> str | None:
        """The approval the error names (``ErrorInfo`` metadata ``approval_id``): the action a
        ``[policy]`` rule held for a bot owner's approval (``APPROVAL_PENDING``: follow it with
        ``wait_approval``, do not retry the call), or the approval of an
        ``APPROVAL_NOT_FOUND`` / ``APPROVAL_DECIDED`` error. None for any other error."""
        if self.reason not in ("APPROVAL_PENDING", "APPROVAL_NOT_FOUND", "APPROVAL_DECIDED"):
            return None
        return self.metadata.get("approval_id")

    @property
    def is_approval_pending(self) -> bool:
        """True when the call was held for a bot owner's approval (``FAILED_PRECONDITION``,
        ``APPROVAL_PENDING``); ``approval_id`` names the approval."""
        return self.reason == "APPROVAL_PENDING"

    @property
    def is_policy_denied(self) -> bool:
        """True when a ``[policy]`` rule refused the call for its requester
        (``PERMISSION_DENIED``, ``POLICY_DENIED``; metadata ``rule``, ``action``, ``role``,
        ``allowed_roles``)."""
        return self.reason == "POLICY_DENIED"

    @property
    def is_not_supported_by_implementation(self) -> bool:
        """True when the account's OneBot implementation has no such action (``UNIMPLEMENTED``,
        ``NOT_SUPPORTED_BY_IMPLEMENTATION``; metadata ``implementation``, ``action``): nothing
        was sent, and retrying will not help."""
        return self.reason == "NOT_SUPPORTED_BY_IMPLEMENTATION"

    @property
    def is_bot_not_admin(self) -> bool:
        """True when the bot lacks the group role the action needs (``FAILED_PRECONDITION``,
        ``BOT_NOT_ADMIN``; metadata ``group_id``, ``bot_role``, ``needed_role``)."""
        return self.reason == "BOT_NOT_ADMIN"

    @property
    def is_protected_member(self) -> bool:
        """True when a moderation targeted the group's owner or the bot itself
        (``PERMISSION_DENIED``, ``PROTECTED_MEMBER``; metadata ``user_id``, ``why``)."""
        return self.reason == "PROTECTED_MEMBER"

    @property
    def is_not_leader(self) -> bool:
        """True when a standby gateway refused the call because another gateway leads the
        account (``UNAVAILABLE``, ``NOT_LEADER``, under ``[ha]``; metadata ``account_id``,
        ``leader``, ``advertise``): nothing was done, so a retry is safe. The clients retry
        these by themselves for unary calls (``not_leader_retry_budget``); this is the last
        refusal when the budget or the call's timeout ran out."""
        return self.code == grpc.StatusCode.UNAVAILABLE and self.reason == "NOT_LEADER"

    @property
    def leader(self) -> str | None:
        """The instance name of the account's leader a ``NOT_LEADER`` refusal names (metadata
        ``leader``), when the standby knows it; None otherwise."""
        return self.metadata.get("leader") if self.is_not_leader else None

    @property
    def advertise(self) -> str | None:
        """The leader's advertised ``host:port`` a ``NOT_LEADER`` refusal names (metadata
        ``advertise``), when the leader gave one; None otherwise."""
        return self.metadata.get("advertise") if self.is_not_leader else None

    @classmethod
    def from_status(
        cls, code: grpc.StatusCode, message: str, trailing_metadata: Any
    ) -> GatewayError:
        """Decodes ``grpc-status-details-bin`` from a call's trailing metadata."""
        error = cls(code=code, message=message)
        for key, value in _pairs(trailing_metadata):
            if key != _DETAILS_KEY or not isinstance(value, bytes):
                continue
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                retry = error_details_pb2.RetryInfo()
                bad = error_details_pb2.BadRequest()
                if detail.Unpack(info):
                    error.reason = info.reason
                    error.domain = info.domain
                    error.metadata = dict(info.metadata)
                elif detail.Unpack(retry):
                    error.retry_delay = retry.retry_delay.ToTimedelta().total_seconds()
                elif detail.Unpack(bad):
                    error.field_violations = [
                        FieldViolation(v.field, v.description) for v in bad.field_violations
                    ]
        return error

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError) -> GatewayError:
        """Converts a ``grpc.RpcError`` (sync) or ``grpc.aio.AioRpcError``."""
        code = getattr(err, "code", None)
        details = getattr(err, "details", None)
        trailing = getattr(err, "trailing_metadata", None)
        return cls.from_status(
            code() if callable(code) else grpc.StatusCode.UNKNOWN,
            (details() if callable(details) else None) or "",
            trailing() if callable(trailing) else None,
        )


def _pairs(metadata: Any) -> list[tuple[str, Any]]:
    if metadata is None:
        return []
    out: list[tuple[str, Any]] = []
    for item in metadata:
        if isinstance(item, tuple) and len(item) == 2:
            out.append((str(item[0]), item[1]))
        else:  # grpc's _Metadatum namedtuple-like objects
            out.append((str(getattr(item, "key", "")), getattr(item, "value", None)))
    return out
