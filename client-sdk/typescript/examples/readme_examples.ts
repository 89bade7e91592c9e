// The README's examples, one function per RPC. Everything between a `// region: <name>` and
// `// endregion` line is copied verbatim into README.md (test/readme.test.ts checks it) and run
// by test/e2e.test.ts against a real gateway.

import {
  ApprovalState,
  AuditDecision,
  Client,
  ClientError,
  EventKind,
  GatewayError,
  OneBotGatewayError,
  isApprovalOpen,
  mentionsMe,
  rateLimitWaitMs,
} from "@onebot-gateway/client";
import type {
  Downloaded,
  EssenceMessage,
  Event,
  GroupFile,
  GetHistoryResponse,
  GetMessageResponse,
  SearchMessagesResponse,
  SendMessageResponse,
  Uploaded,
} from "@onebot-gateway/client";
import type { CallToolResponse } from "@onebot-gateway/client/gen/agent_tool_service_pb";
import type {
  ListGroupMembersResponse,
  ListGroupsResponse,
  PokeMemberResponse,
} from "@onebot-gateway/client/gen/group_service_pb";

export async function connect(): Promise<Client> {
  // region: connect
  const client = await Client.connect({
    address: process.env.ONEBOT_GATEWAY_ADDR ?? "http://127.0.0.1:50051",
    token: process.env.ONEBOT_GATEWAY_TOKEN, // sent as `authorization: Bearer <token>`
    // For TLS: an https:// address, plus caFile: "ca.pem" for a private CA.
  });
  // endregion
  return client;
}

export async function health(client: Client): Promise<string> {
  // region: health
  const status = await client.health(); // or client.health(ACCOUNT_HEALTH_SERVICE_PREFIX + "default")
  console.log("gateway:", status); // SERVING
  // endregion
  return status;
}

export async function accounts(client: Client): Promise<string[]> {
  // region: accounts
  const accounts = await client.accounts();
  for (const account of accounts) {
    console.log(account.accountId, account.nickname, account.groups);
    // How the gateway pages this peer's history, learned from its own pages.
    console.log(account.historyAnchor, account.anchorIncluded, account.historyAnchorSource);
  }
  // endregion
  return accounts.map((a) => a.accountId);
}

export async function history(client: Client): Promise<GetHistoryResponse> {
  // region: history
  const page = await client.history({ groupId: 20000003 }, { count: 5 });
  console.log(page.rendered); // [HH:mm:ss] 名字(QQ号): 文本, oldest first
  if (page.nextAnchorMessageId !== undefined) {
    const older = await client.history({ groupId: 20000003 }, { count: 5, anchor: page.nextAnchorMessageId });
    console.log(older.messages.length, "older messages");
  }
  // endregion
  return page;
}

export async function members(client: Client): Promise<ListGroupMembersResponse> {
  // region: members
  const members = await client.members(20000003, { limit: 5 });
  console.log(members.rendered); // 名字(QQ号) — role, plus a truncation line
  console.log(`${members.shown} of ${members.total} shown`);
  // endregion
  return members;
}

export async function groups(client: Client): Promise<ListGroupsResponse> {
  // region: groups
  const groups = await client.groups();
  for (const group of groups.groups) {
    console.log(group.groupId, group.groupName, group.whitelisted ? "whitelisted" : "");
  }
  // endregion
  return groups;
}

export async function upload(client: Client, path: string): Promise<Uploaded> {
  // region: upload
  // Streams the file in 256 KiB chunks; the SHA-256 is checked against the gateway's.
  const uploaded = await client.upload(path, "image");
  console.log(uploaded.mediaId, uploaded.size, uploaded.sha256, uploaded.mimeType);
  // endregion
  return uploaded;
}

export async function download(client: Client, dir: string): Promise<Downloaded | undefined> {
  let picture: Downloaded | undefined;
  // region: download
  // A received picture (group 20000002's morning one): its segment's mediaId, or
  // { messageId, segmentIndex }. Sizes and SHA-256 are checked against the header.
  const page = await client.history({ groupId: 20000002 }, { count: 30 });
  for (const message of page.messages) {
    for (const [index, segment] of message.segments.entries()) {
      if (segment.kind.case === "image") {
        picture = await client.download(segment.kind.value.mediaId);
        console.log(picture.header.mimeType, picture.header.size, picture.header.sha256);
        // Or stream it into a file, by message id and segment index:
        const header = await client.downloadTo({ messageId: message.messageId, segmentIndex: index }, `${dir}/picture`);
        console.log("saved", header.fileName, header.size);
      }
    }
  }
  // endregion
  return picture;
}

export async function errors(client: Client): Promise<GatewayError | undefined> {
  let caught: GatewayError | undefined;
  // region: errors
  try {
    await client.members(0);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    // code InvalidArgument, reason INVALID_REQUEST, metadata, the offending field
    console.log(err.code, err.reason, err.metadata, err.fieldViolations);
    if (err.retryDelayMs !== undefined) console.log(`retry after ${err.retryDelayMs} ms`);
    caught = err;
  }
  // endregion
  return caught;
}

export async function send(client: Client, image: string): Promise<SendMessageResponse> {
  // region: send
  // Local files are uploaded first (streamed), then sent by media id.
  const sent = await client.send(20000003, { text: "hello from TypeScript", images: [image] });
  console.log("message ids", sent.messageIds, "queued", sent.queued);
  // How long the gateway's rate limits held the send back.
  console.log("waited", rateLimitWaitMs(sent), "ms");
  // endregion
  return sent;
}

export async function limits(client: Client, image: string): Promise<ClientError | undefined> {
  let refused: ClientError | undefined;
  // region: limits
  try {
    await client.send(20000003, { text: "five pictures", images: Array(5).fill(image) });
  } catch (err) {
    if (err instanceof ClientError) {
      // Refused here, before anything was uploaded, with the reason the gateway would give:
      // TOO_MANY_IMAGES images 5 images; at most 4
      console.log(err.reason, err.field, err.message);
      refused = err;
    } else if (err instanceof OneBotGatewayError) {
      console.log("failed:", err.message); // every other failure: a GatewayError or a ClientError
      throw err;
    } else {
      throw err;
    }
  }
  // endregion
  return refused;
}

export async function agent(client: Client, handled: bigint | undefined): Promise<SendMessageResponse | undefined> {
  let answer: SendMessageResponse | undefined;
  // region: agent
  // Answer each message that @s the bot, in its own chat (group or private), quoting it.
  // `handled` is the sequence number of the last event answered (undefined: from now on).
  for await (const event of client.events({ kinds: [EventKind.MESSAGE], afterSequence: handled })) {
    if (event.kind.case !== "message" || event.kind.value.selfSent) continue;
    if (mentionsMe(event)) {
      // { includeAll: true }: @全体成员 too
      console.log(event.kind.value.rendered); // [HH:mm:ss] 名字(QQ号): @沙盒 在吗
      answer = await client.reply(event, "在的"); // replyTo = the event's message
      handled = event.sequence;
      break; // an agent keeps following the stream
    }
  }
  // endregion
  return answer;
}

export async function conversation(client: Client): Promise<GetMessageResponse> {
  // region: conversation
  const page = await client.history({ groupId: 20000003 }, { count: 20 });
  const last = page.messages.at(-1);
  if (last === undefined) throw new Error("an empty group");
  // Quote the newest message and mention its sender, in one message.
  const sent = await client.send(20000003, {
    text: "收到",
    replyTo: last.messageId,
    mentions: [last.sender?.userId ?? 0n],
  });
  const reply = await client.getMessage(sent.messageIds[0] ?? 0n);
  console.log(reply.rendered); // [HH:mm:ss] 沙盒(…): [回复 名字: 文本]@名字收到
  // A private chat (the account's `users` whitelist), recalled within QQ's 2 minutes.
  const privately = await client.send(undefined, { userId: 10001, text: "私聊一句" });
  await client.recall(privately.messageIds[0] ?? 0n);
  // Open the first merged-forward bundle of the page.
  const forward = page.messages
    .flatMap((m) => m.segments)
    .find((s) => s.kind.case === "forward");
  if (forward?.kind.case === "forward") {
    const bundle = await client.getForward(forward.kind.value.id);
    console.log(bundle.rendered); // one line per forwarded message
  }
  // endregion
  return reply;
}

export async function poke(client: Client): Promise<PokeMemberResponse> {
  // region: poke
  const poked = await client.poke(10001, { groupId: 20000003 });
  console.log("poked", poked.userId, "in", poked.groupId);
  // endregion
  return poked;
}

export async function tools(client: Client): Promise<CallToolResponse> {
  // region: tools
  for (const tool of await client.listTools()) {
    console.log(tool.name, tool.inputSchemaJson);
  }
  const result = await client.callTool("qq_get_group_members", { groupId: 20000003, limit: 2 });
  // A failed tool call is a normal result: isError, text = details.error.
  console.log(result.isError, result.text);
  // endregion
  return result;
}

export async function events(client: Client): Promise<Event | undefined> {
  let first: Event | undefined;
  // region: events
  // Replays the buffered events after sequence 0, then follows new ones.
  for await (const event of client.events({ kinds: [EventKind.POKE], afterSequence: 0n })) {
    if (event.kind.case === "poke") {
      console.log(event.sequence, event.kind.value.userId, "poked", event.kind.value.targetId);
    }
    first = event;
    break; // leaving the loop cancels the stream (so does aborting a `signal` option)
  }
  // endregion
  return first;
}

export async function search(client: Client): Promise<SearchMessagesResponse[]> {
  const pages: SearchMessagesResponse[] = [];
  // region: search
  // The archive's messages containing 开会 in the last 7 days, newest page first (each page
  // oldest first); the iteration fetches the next page as it goes on.
  const weekAgo = new Date(Date.now() - 7 * 24 * 3600 * 1000);
  for await (const page of client.search("开会", { groupId: 20000003, since: weekAgo })) {
    console.log(page.rendered); // [HH:mm:ss] 名字(QQ号): 文本
    pages.push(page);
  }
  // endregion
  return pages;
}

// Shown in the README; it needs a gateway with `[policy]` rules and an approver token, so no e2e
// test runs it (test/helpers.test.ts covers the helpers against a fake gateway).
export async function governance(client: Client, approver: Client, event: Event): Promise<void> {
  // region: governance
  // Answer a received message on behalf of its sender: to its chat, quoting it; the
  // gateway's [policy] rules decide by the sender's role there.
  try {
    await client.replyFor(event, "好的");
  } catch (err) {
    if (!(err instanceof GatewayError) || !err.isApprovalPending || err.approvalId === undefined) {
      throw err; // e.g. err.isPolicyDenied: refused for this role
    }
    // Held for a bot owner's approval (they were asked in QQ): do not retry, wait for it.
    let approval = await client.waitApproval(err.approvalId, 5 * 60_000);
    if (isApprovalOpen(approval)) {
      // Still pending after the wait: decide with a token that has approve = true
      // (approver.reject(id) rejects instead).
      approval = await approver.approve(approval.approvalId);
    }
    console.log(ApprovalState[approval.state], approval.messageIds); // EXECUTED [ ... ]
  }
  // The audit trail of held sends, newest first, one page at a time.
  for await (const page of client.audit({ action: "send", decision: AuditDecision.PENDING })) {
    for (const record of page.records) {
      console.log(record.time, record.requesterUserId, record.summary, record.approvalId);
    }
  }
  // endregion
}

export async function groupFiles(client: Client, dir: string): Promise<[GroupFile, Downloaded][]> {
  const downloaded: [GroupFile, Downloaded][] = [];
  // region: groupFiles
  // The root folder of group 20000003's files (群文件): the iteration fetches the next page as
  // it goes on; each page lists its folders first, then its files.
  for await (const page of client.listGroupFiles(20000003)) {
    for (const folder of page.folders) console.log(`${folder.name}/ (${folder.fileCount} files)`);
    for (const file of page.files) {
      // Into memory, or streamed into a file; both check the header's size and SHA-256.
      const got = await client.downloadGroupFile(file.fileId, { groupId: 20000003 });
      console.log(file.name, got.data.length, "bytes", got.header.mimeType);
      const header = await client.downloadGroupFileTo(file.fileId, `${dir}/group-file`, { groupId: 20000003 });
      console.log("saved", header.fileName, header.size);
      downloaded.push([file, got]);
    }
  }
  // endregion
  return downloaded;
}

export async function react(client: Client): Promise<EssenceMessage[]> {
  const essence: EssenceMessage[] = [];
  // region: react
  // React to a group message with 赞 (QQ face 76; a Unicode emoji is its code point, 128077).
  const sent = await client.send(20000003, { text: "react to me" });
  const reacted = await client.react(sent.messageIds[0]!, 76);
  console.log("reacted in", reacted.groupId);
  // The group's essence messages (精华), newest marking first, across every page.
  for await (const entry of client.essenceMessages(20000003)) {
    console.log(entry.message?.sender?.userId, entry.message?.text, "marked by", entry.operatorName);
    essence.push(entry);
  }
  // endregion
  return essence;
}

export async function typing(client: Client): Promise<void> {
  // region: typing
  // "正在输入" in the private chat with 10001 (a user of the `users` whitelist) while the model
  // thinks. A courtesy: never let it stop the answer (some implementations have no such action:
  // err.isNotSupportedByImplementation, and nothing is sent).
  try {
    await client.setTyping(10001);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    console.log("no typing indicator:", err.reason);
  }
  // endregion
}

export async function moderation(client: Client): Promise<GatewayError | undefined> {
  let refused: GatewayError | undefined;
  // region: moderation
  // Mute, mute-all, kick and set-card are refused unless a [[policy.rules]] entry names the
  // action (mute, mute_all, kick, set_card); the sandbox has none, so this is POLICY_DENIED.
  try {
    const muted = await client.muteMember(10003, 10 * 60_000, { groupId: 20000003 });
    console.log("muted", muted.userId, "in", muted.groupId);
  } catch (err) {
    // Also: err.isBotNotAdmin (the bot is not an admin), err.isProtectedMember (the owner, the bot).
    if (!(err instanceof GatewayError) || !err.isPolicyDenied) throw err;
    console.log("no policy rule allows it, rule =", err.metadata["rule"]);
    refused = err;
  }
  // endregion
  return refused;
}
