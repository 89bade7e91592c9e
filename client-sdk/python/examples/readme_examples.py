"""The README's examples, one function per RPC.

Everything between a ``# region: <name>`` and ``# endregion`` line is copied verbatim into
README.md (tests/test_readme.py checks it) and run by tests/test_e2e.py against a real gateway.
"""

from __future__ import annotations

from onebot.gateway.v1 import (
    agent_tool_service_pb2,
    event_service_pb2,
    group_service_pb2,
    message_service_pb2,
)
from onebot_gateway import Client, ClientError, GatewayError, Uploaded
from onebot_gateway.aio import AsyncClient


def connect() -> Client:
    # region: connect
    import os

    from onebot_gateway import Client

    client = Client(
        os.environ.get("ONEBOT_GATEWAY_ADDR", "http://127.0.0.1:50051"),
        token=os.environ.get("ONEBOT_GATEWAY_TOKEN"),  # sent as `authorization: Bearer <token>`
        # For TLS: an https:// address, plus ca_file="ca.pem" for a private CA.
    )
    # endregion
    return client


def health(client: Client) -> str:
    # region: health
    status = client.health()  # or client.health(ACCOUNT_HEALTH_SERVICE_PREFIX + "default")
    print("gateway:", status)  # SERVING
    # endregion
    return status


def accounts(client: Client) -> list[str]:
    # region: accounts
    for account in client.accounts():
        print(account.account_id, account.nickname, list(account.groups))
        # How the gateway pages this peer's history, learned from its own pages.
        print(account.history_anchor, account.anchor_included, account.history_anchor_source)
    # endregion
    return [a.account_id for a in client.accounts()]


def history(client: Client) -> message_service_pb2.GetHistoryResponse:
    # region: history
    page = client.history(group_id=20000003, count=5)
    print(page.rendered)  # [HH:mm:ss] 名字(QQ号): 文本, oldest first
    if page.HasField("next_anchor_message_id"):
        older = client.history(group_id=20000003, count=5, anchor=page.next_anchor_message_id)
        print(len(older.messages), "older messages")
    # endregion
    return page


def members(client: Client) -> group_service_pb2.ListGroupMembersResponse:
    # region: members
    members = client.members(20000003, limit=5)
    print(members.rendered)  # 名字(QQ号) — role, plus a truncation line
    print(members.shown, "of", members.total, "shown")
    # endregion
    return members


def groups(client: Client) -> group_service_pb2.ListGroupsResponse:
    # region: groups
    groups = client.groups()
    for group in groups.groups:
        print(group.group_id, group.group_name, "whitelisted" if group.whitelisted else "")
    # endregion
    return groups


def upload(client: Client, path: str) -> Uploaded:
    # region: upload
    # Streams the file in 256 KiB chunks; the SHA-256 is checked against the gateway's.
    uploaded = client.upload(path, "image")
    print(uploaded.media_id, uploaded.size, uploaded.sha256, uploaded.mime_type)
    # endregion
    return uploaded


def download(client: Client, out_dir: str) -> tuple[str, bytes]:
    # region: download
    # A received picture (group 20000002's morning one): its segment's media_id, or
    # (message_id, segment_index). Sizes and SHA-256 are checked against the header.
    page = client.history(group_id=20000002, count=30)
    for message in page.messages:
        for index, segment in enumerate(message.segments):
            if segment.WhichOneof("kind") == "image":
                picture = client.download(segment.image.media_id)
                print(picture.header.mime_type, picture.header.size, picture.header.sha256)
                # Or stream it into a file, by message id and segment index:
                header = client.download_to((message.message_id, index), f"{out_dir}/picture")
                print("saved", header.file_name, header.size)
    # endregion
    return header.sha256, picture.data


def errors(client: Client) -> GatewayError:
    # region: errors
    from onebot_gateway import GatewayError

    try:
        client.members(0)
    except GatewayError as err:
        # code INVALID_ARGUMENT, reason INVALID_REQUEST, metadata, the offending field
        print(err.code, err.reason, err.metadata, err.field_violations)
        if err.retry_delay is not None:  # seconds, from RetryInfo
            print("retry after", err.retry_delay)
        caught = err
    # endregion
    return caught


def send(client: Client, image: str) -> message_service_pb2.SendMessageResponse:
    # region: send
    # Local files are uploaded first (streamed), then sent by media id.
    sent = client.send(20000003, text="hello from Python", images=[image])
    print("message ids", list(sent.message_ids), "queued", sent.queued)
    # How long the gateway's rate limits held the send back (a datetime.timedelta).
    print("waited", sent.rate_limit_wait.ToTimedelta())
    # endregion
    return sent


def limits(client: Client, image: str) -> ClientError:
    # region: limits
    from onebot_gateway import ClientError, OneBotGatewayError

    try:
        client.send(20000003, text="five pictures", images=[image] * 5)
    except ClientError as err:
        # Refused here, before anything was uploaded, with the reason the gateway would give:
        # TOO_MANY_IMAGES images 5 images; at most 4
        print(err.reason, err.field, err)
        refused = err
    except OneBotGatewayError as err:  # every other failure: a GatewayError or a ClientError
        print("failed:", err)
        raise
    # endregion
    return refused


def agent(client: Client, handled: int | None) -> message_service_pb2.SendMessageResponse:
    # region: agent
    from onebot_gateway import mentions_me

    # Answer each message that @s the bot, in its own chat (group or private), quoting it.
    # `handled` is the sequence number of the last event answered (None: from now on).
    for event in client.events(kinds=[event_service_pb2.EVENT_KIND_MESSAGE], after_sequence=handled):
        if mentions_me(event) and not event.message.self_sent:  # include_all=True: @全体成员 too
            print(event.message.rendered)  # [HH:mm:ss] 名字(QQ号): @沙盒 在吗
            answer = client.reply(event, "在的")  # reply_to = the event's message
            handled = event.sequence
            break  # an agent keeps following the stream
    # endregion
    return answer


def conversation(client: Client) -> message_service_pb2.GetMessageResponse:
    # region: conversation
    page = client.history(group_id=20000003, count=20)
    last = page.messages[-1]
    # Quote the newest message and mention its sender, in one message.
    sent = client.send(20000003, text="收到", reply_to=last.message_id, mentions=[last.sender.user_id])
    reply = client.get_message(sent.message_ids[0])
    print(reply.rendered)  # [HH:mm:ss] 沙盒(…): [回复 名字: 文本]@名字收到
    # A private chat (the account's `users` whitelist), recalled within QQ's 2 minutes.
    private = client.send(user_id=10001, text="私聊一句")
    client.recall(private.message_ids[0])
    # Open the first merged-forward bundle of the page.
    forward_id = next(s.forward.id for m in page.messages for s in m.segments if s.WhichOneof("kind") == "forward")
    bundle = client.get_forward(forward_id)
    print(bundle.rendered)  # one line per forwarded message
    # endregion
    return reply


def poke(client: Client) -> group_service_pb2.PokeMemberResponse:
    # region: poke
    poked = client.poke(10001, group_id=20000003)
    print("poked", poked.user_id, "in", poked.group_id)
    # endregion
    return poked


def tools(client: Client) -> agent_tool_service_pb2.CallToolResponse:
    # region: tools
    for tool in client.list_tools():
        print(tool.name, tool.input_schema_json)
    result = client.call_tool("qq_get_group_members", {"groupId": 20000003, "limit": 2})
    # A failed tool call is a normal result: is_error, text = details.error.
    print(result.is_error, result.text)
    # endregion
    return result


def events(client: Client) -> event_service_pb2.Event:
    # region: events
    from onebot.gateway.v1 import event_service_pb2

    # Replays the buffered events after sequence 0, then follows new ones.
    stream = client.events(kinds=[event_service_pb2.EVENT_KIND_POKE], after_sequence=0)
    for event in stream:
        if event.WhichOneof("kind") == "poke":
            print(event.sequence, event.poke.user_id, "poked", event.poke.target_id)
        break  # leaving the loop and closing the iterator cancels the stream
    stream.close()
    # endregion
    return event


def search(client: Client) -> list[message_service_pb2.SearchMessagesResponse]:
    # region: search
    from datetime import datetime, timedelta, timezone

    # The archive's messages containing 开会 in the last 7 days, newest page first
    # (each page oldest first); the iterator fetches the next page as it advances.
    week_ago = datetime.now(timezone.utc) - timedelta(days=7)
    pages = list(client.search("开会", group_id=20000003, since=week_ago, limit=20))
    for page in pages:
        print(page.rendered)  # [HH:mm:ss] 名字(QQ号): 文本
    # endregion
    return pages


async def asyncio_client(address: str) -> str:
    # region: asyncio
    from onebot_gateway.aio import AsyncClient

    async with AsyncClient(address) as aclient:
        status = await aclient.health()
        accounts = await aclient.accounts()
        print(status, [a.account_id for a in accounts])
    # endregion
    assert isinstance(aclient, AsyncClient)
    return status


def governance(client: Client, approver: Client, event: event_service_pb2.Event) -> None:
    """Shown in the README; it needs a gateway with ``[policy]`` rules and an approver token,
    so no e2e test runs it (tests/test_governance.py covers the helpers offline)."""
    # region: governance
    from onebot.gateway.v1 import governance_service_pb2
    from onebot_gateway import GatewayError, is_approval_open

    # Answer a received message on behalf of its sender: to its chat, quoting it; the
    # gateway's [policy] rules decide by the sender's role there.
    try:
        client.reply_for(event, "好的")
    except GatewayError as err:
        if not err.is_approval_pending or err.approval_id is None:
            raise  # e.g. err.is_policy_denied: refused for this role
        # Held for a bot owner's approval (they were asked in QQ): do not retry, wait for it.
        approval = client.wait_approval(err.approval_id, 300)
        if is_approval_open(approval):
            # Still pending after the wait: decide with a token that has approve = true
            # (approver.reject(approval_id) rejects instead).
            approval = approver.approve(approval.approval_id)
        print(governance_service_pb2.ApprovalState.Name(approval.state), approval.message_ids)
    # The audit trail of held sends, newest first, one page at a time.
    for page in client.audit(action="send", decision=governance_service_pb2.AUDIT_DECISION_PENDING):
        for record in page.records:
            print(record.time.ToDatetime(), record.requester_user_id, record.summary, record.approval_id)
    # endregion


def group_files(client: Client, directory: str) -> list[tuple[group_service_pb2.GroupFile, bytes]]:
    downloaded: list[tuple[group_service_pb2.GroupFile, bytes]] = []
    # region: group_files
    import os

    # The root folder of group 20000003's files (群文件): the iterator fetches the next page as
    # it advances; each page lists its folders first, then its files.
    for page in client.list_group_files(20000003):
        for folder in page.folders:
            print(f"{folder.name}/ ({folder.file_count} files)")
        for file in page.files:
            # Into memory, or streamed into a file; both check the header's size and SHA-256.
            got = client.download_group_file(file.file_id, group_id=20000003)
            print(file.name, len(got.data), "bytes", got.header.mime_type)
            header = client.download_group_file_to(
                file.file_id, os.path.join(directory, "group-file"), group_id=20000003
            )
            print("saved", header.file_name, header.size)
            downloaded.append((file, got.data))
    # endregion
    return downloaded


def react(client: Client) -> list[message_service_pb2.EssenceMessage]:
    # region: react
    # React to a group message with 赞 (QQ face 76; a Unicode emoji is its code point, 128077).
    sent = client.send(20000003, text="react to me")
    reacted = client.react(sent.message_ids[0], 76)
    print("reacted in", reacted.group_id)
    # The group's essence messages (精华), newest marking first, across every page.
    essence = list(client.essence_messages(20000003))
    for entry in essence:
        print(entry.message.sender.user_id, entry.message.text, "marked by", entry.operator_name)
    # endregion
    return essence


def typing(client: Client) -> None:
    # region: typing
    # "正在输入" in the private chat with 10001 (a user of the `users` whitelist) while the
    # model thinks. A courtesy: never let it stop the answer (some implementations have no
    # such action: err.is_not_supported_by_implementation, and nothing is sent).
    try:
        client.set_typing(10001)
    except GatewayError as err:
        print("no typing indicator:", err.reason)
    # endregion


def moderation(client: Client) -> GatewayError | None:
    refused: GatewayError | None = None
    # region: moderation
    from datetime import timedelta

    # Mute, mute-all, kick and set-card are refused unless a [[policy.rules]] entry names the
    # action (mute, mute_all, kick, set_card); the sandbox has none, so this is POLICY_DENIED.
    try:
        muted = client.mute_member(10003, timedelta(minutes=10), group_id=20000003)
        print("muted", muted.user_id, "in", muted.group_id)
    except GatewayError as err:
        # Also: err.is_bot_not_admin (the bot is not an admin), err.is_protected_member (the
        # owner, the bot).
        if not err.is_policy_denied:
            raise
        print("no policy rule allows it, rule =", err.metadata.get("rule"))
        refused = err
    # endregion
    return refused
