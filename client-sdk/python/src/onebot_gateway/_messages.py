"""What the sync and asyncio clients share about messages: the gateway's SendMessage limits,
checked before anything is uploaded, and the helpers an agent answers with (``mentions_me``,
the chat and quote of a reply)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias, Union

from onebot.gateway.v1 import common_pb2, event_service_pb2

from ._errors import ClientError

#: Longest text of one send, in characters (Unicode code points), as the gateway counts.
MAX_TEXT_CHARS = 20_000
#: Most images of one send.
MAX_IMAGES = 4
#: Most videos of one send.
MAX_VIDEOS = 1
#: Most voice messages of one send.
MAX_VOICES = 1
#: Most mentions of one send (``mentions``, before duplicates are dropped).
MAX_MENTIONS = 20
#: Longest ``idempotency_key``, in UTF-8 bytes.
MAX_IDEMPOTENCY_KEY_BYTES = 128


def check_send(
    *,
    group_id: int | None,
    user_id: int | None,
    text: str,
    images: int,
    videos: int,
    has_file: bool,
    voices: int = 0,
    reply_to: int | None,
    mentions: Sequence[int],
    mention_all: bool,
    idempotency_key: str,
) -> None:
    """Refuses, with a ``ClientError`` carrying the gateway's reason, a send the gateway would
    refuse for its form: run before any media is uploaded, so a refused send uploads nothing."""
    key_bytes = len(idempotency_key.encode())
    if key_bytes > MAX_IDEMPOTENCY_KEY_BYTES:
        raise ClientError(
            f"idempotency_key is {key_bytes} bytes; at most {MAX_IDEMPOTENCY_KEY_BYTES}",
            reason="INVALID_REQUEST",
            field="idempotency_key",
        )
    if group_id is not None and user_id is not None:
        raise ClientError(
            "give group_id or user_id, not both: a message goes to one chat",
            reason="INVALID_REQUEST",
            field="user_id",
        )
    for name, chat_id in (("group_id", group_id), ("user_id", user_id)):
        if chat_id is not None and chat_id <= 0:
            raise ClientError(f"{name} must be positive, got {chat_id}", reason="INVALID_REQUEST", field=name)
    has_lead = reply_to is not None or bool(mentions) or mention_all
    if not text.strip() and not images and not videos and not voices and not has_file and not has_lead:
        raise ClientError(
            "nothing to send: give text, images, videos, a voice, a file, a quote or mentions",
            reason="EMPTY_MESSAGE",
        )
    if len(text) > MAX_TEXT_CHARS:
        raise ClientError(
            f"text is {len(text)} characters; at most {MAX_TEXT_CHARS}",
            reason="TEXT_TOO_LONG",
            field="text",
        )
    if images > MAX_IMAGES:
        raise ClientError(f"{images} images; at most {MAX_IMAGES}", reason="TOO_MANY_IMAGES", field="images")
    if videos > MAX_VIDEOS:
        raise ClientError(f"{videos} videos; at most {MAX_VIDEOS}", reason="TOO_MANY_VIDEOS", field="videos")
    if voices > MAX_VOICES:
        raise ClientError(f"{voices} voices; at most {MAX_VOICES}", reason="INVALID_REQUEST", field="voices")
    if reply_to == 0:
        raise ClientError(
            "reply_to must be a message id (not 0)", reason="INVALID_REQUEST", field="reply_to"
        )
    if len(mentions) > MAX_MENTIONS:
        raise ClientError(
            f"{len(mentions)} mentions; at most {MAX_MENTIONS} per message",
            reason="INVALID_REQUEST",
            field="mentions",
        )
    for i, mentioned in enumerate(mentions):
        if mentioned <= 0:
            raise ClientError(
                f"mentions[{i}] must be a positive QQ number, got {mentioned}",
                reason="INVALID_REQUEST",
                field=f"mentions[{i}]",
            )


#: What ``reply`` and ``mentions_me`` take: an event from ``events()`` (a message event), its
#: ``MessageEvent``, or a ``ChatMessage`` (from history, search, ``get_message``).
MessageLike: TypeAlias = Union[
    event_service_pb2.Event, event_service_pb2.MessageEvent, common_pb2.ChatMessage
]


def chat_message(message: MessageLike) -> common_pb2.ChatMessage:
    """The ``ChatMessage`` of an event, a message event or a message."""
    if isinstance(message, event_service_pb2.Event):
        if message.WhichOneof("kind") != "message":
            raise ClientError(
                f"event {message.sequence} is a {message.WhichOneof('kind')} event, not a message"
            )
        return message.message.message
    if isinstance(message, event_service_pb2.MessageEvent):
        return message.message
    if isinstance(message, common_pb2.ChatMessage):
        return message
    raise ClientError(
        f"expected an Event, a MessageEvent or a ChatMessage, got {type(message).__name__}"
    )


def mentions_me(
    event: MessageLike, *, self_id: int | None = None, include_all: bool = False
) -> bool:
    """True when the message has an ``@`` naming the bot: an at segment whose ``user_id`` is
    the event's ``self_id``. ``@全体成员`` counts only with ``include_all=True`` (it addresses
    every member, not the bot). Any other event kind is not a mention: False.

    An ``Event`` carries the bot's number; for a ``MessageEvent`` or a ``ChatMessage`` (from
    history) pass it as ``self_id`` (``Account.self_id`` of ``accounts()``)."""
    if isinstance(event, event_service_pb2.Event):
        if event.WhichOneof("kind") != "message":
            return False
        if self_id is None:
            self_id = event.self_id
    if self_id is None:
        raise ClientError("mentions_me needs self_id for a message without its event")
    for segment in chat_message(event).segments:
        if segment.WhichOneof("kind") != "at":
            continue
        if segment.at.all:
            if include_all:
                return True
        elif segment.at.user_id == self_id:
            return True
    return False


@dataclass(frozen=True)
class ReplyTarget:
    """Where a reply goes: the message's group, else its private chat; and the id it quotes."""

    group_id: int | None
    user_id: int | None
    reply_to: int | None


def reply_target(message: MessageLike, quote: bool) -> ReplyTarget:
    """The chat of ``message`` and, with ``quote``, its id to quote."""
    msg = chat_message(message)
    kind = msg.chat.WhichOneof("kind")
    if kind is None:
        raise ClientError(f"message {msg.message_id} has no chat to reply in")
    if quote and msg.message_id == 0:
        raise ClientError(
            "this message has no id to quote (a forwarded node): reply with quote=False"
        )
    reply_to = msg.message_id if quote else None
    if kind == "group_id":
        return ReplyTarget(msg.chat.group_id, None, reply_to)
    return ReplyTarget(None, msg.chat.user_id, reply_to)
