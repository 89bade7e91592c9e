// Offline tests of the agent helpers, the chat option and the checks before a send, against an
// in-process fake gateway (a real gRPC server on a loopback port) that records what reaches it.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http2";
import type { Http2Server, ServerHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

import {
  Client,
  ClientError,
  GatewayError,
  MAX_TEXT_CHARS,
  OneBotGatewayError,
  isApprovalOpen,
  mentionsMe,
  rateLimitWaitMs,
} from "@onebot-gateway/client";
import type { Event, SendMessageResponse } from "@onebot-gateway/client";
import { ChatMessageSchema, SegmentSchema } from "@onebot-gateway/client/gen/common_pb";
import type { Segment } from "@onebot-gateway/client/gen/common_pb";
import { EventSchema } from "@onebot-gateway/client/gen/event_service_pb";
import {
  ApprovalService,
  ApprovalState,
  AuditDecision,
  AuditService,
} from "@onebot-gateway/client/gen/governance_service_pb";
import type {
  DecideApprovalRequest,
  GetApprovalRequest,
  ListApprovalsRequest,
  ListAuditRecordsRequest,
} from "@onebot-gateway/client/gen/governance_service_pb";
import { GroupService } from "@onebot-gateway/client/gen/group_service_pb";
import type { PokeMemberRequest } from "@onebot-gateway/client/gen/group_service_pb";
import { MediaService } from "@onebot-gateway/client/gen/media_service_pb";
import { MessageService, SendMessageResponseSchema } from "@onebot-gateway/client/gen/message_service_pb";
import type {
  GetHistoryRequest,
  RecallMessageRequest,
  SearchMessagesRequest,
  SendMessageRequest,
} from "@onebot-gateway/client/gen/message_service_pb";

const BOT = 3889000000n;
const GROUP = 20000003;

let server: Http2Server;
const sessions = new Set<ServerHttp2Session>();
let address: string;
let uploads = 0;
let sent: SendMessageRequest[] = [];
let searched: SearchMessagesRequest[] = [];
let read: GetHistoryRequest[] = [];
let recalled: RecallMessageRequest[] = [];
let poked: PokeMemberRequest[] = [];
let governed: (ListApprovalsRequest | GetApprovalRequest | DecideApprovalRequest)[] = [];
let audited: ListAuditRecordsRequest[] = [];

before(async () => {
  const handler = connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    routes(router) {
      router.rpc(MediaService.method.uploadMedia, async (requests) => {
        uploads += 1;
        const hash = createHash("sha256");
        let size = 0;
        for await (const request of requests) {
          if (request.payload.case === "chunk") {
            hash.update(request.payload.value);
            size += request.payload.value.length;
          }
        }
        return { mediaId: `m${uploads}`, size: BigInt(size), sha256: hash.digest("hex"), mimeType: "image/png" };
      });
      router.rpc(MessageService.method.sendMessage, async (request) => {
        sent.push(request);
        if (request.text === "refuse") {
          throw new ConnectError("group 1 is not whitelisted", Code.PermissionDenied);
        }
        return { messageIds: [BigInt(sent.length)] };
      });
      router.rpc(MessageService.method.searchMessages, async (request) => {
        searched.push(request);
        return {};
      });
      router.rpc(MessageService.method.getHistory, async (request) => {
        read.push(request);
        return {};
      });
      router.rpc(MessageService.method.recallMessage, async (request) => {
        recalled.push(request);
        return {};
      });
      router.rpc(GroupService.method.pokeMember, async (request) => {
        poked.push(request);
        return {};
      });
      router.rpc(ApprovalService.method.listApprovals, async (request) => {
        governed.push(request);
        return { approvals: [{ approvalId: "a1", state: ApprovalState.PENDING }] };
      });
      router.rpc(ApprovalService.method.getApproval, async (request) => {
        governed.push(request);
        const state = request.wait === undefined ? ApprovalState.PENDING : ApprovalState.EXECUTED;
        return { approval: { approvalId: request.approvalId, state } };
      });
      router.rpc(ApprovalService.method.decideApproval, async (request) => {
        governed.push(request);
        const state = request.approve ? ApprovalState.EXECUTED : ApprovalState.REJECTED;
        return { approval: { approvalId: request.approvalId, state } };
      });
      router.rpc(AuditService.method.listAuditRecords, async (request) => {
        audited.push(request);
        return request.pageToken === ""
          ? { records: [{ id: 3n }, { id: 2n }], nextPageToken: "p2" }
          : { records: [{ id: 1n }] };
      });
    },
  });
  server = createServer(handler);
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const bound = server.address();
  assert.ok(bound !== null && typeof bound === "object");
  address = `http://127.0.0.1:${bound.port}`;
});

after(() => {
  // The clients keep their connections open: closing them lets the process end.
  for (const session of sessions) session.destroy();
  server.close();
});

beforeEach(() => {
  uploads = 0;
  sent = [];
  searched = [];
  read = [];
  recalled = [];
  poked = [];
  governed = [];
  audited = [];
});

function image(): string {
  const path = join(mkdtempSync(join(tmpdir(), "ts-sdk-")), "a.png");
  writeFileSync(path, Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.alloc(64)]));
  return path;
}

async function refusal(promise: Promise<unknown>): Promise<ClientError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ClientError, `expected a ClientError, got ${String(err)}`);
    assert.ok(err instanceof OneBotGatewayError);
    return err;
  }
  assert.fail("expected a ClientError");
}

test("a send over the limits uploads nothing", async () => {
  const client = await Client.connect({ address });
  const png = image();
  const cases: [Parameters<Client["send"]>[1], string, string | undefined][] = [
    [{ images: Array(5).fill(png) }, "TOO_MANY_IMAGES", "images"],
    [{ videos: [png, png] }, "TOO_MANY_VIDEOS", "videos"],
    [{ images: [png], text: "x".repeat(MAX_TEXT_CHARS + 1) }, "TEXT_TOO_LONG", "text"],
    [{ images: [png], mentions: Array.from({ length: 21 }, (_, i) => 10001 + i) }, "INVALID_REQUEST", "mentions"],
    [{ images: [png], mentions: [10001, 0] }, "INVALID_REQUEST", "mentions[1]"],
    [{ images: [png], replyTo: 0 }, "INVALID_REQUEST", "replyTo"],
    [{ images: [png], userId: 10001 }, "INVALID_REQUEST", "userId"],
    [{ images: [png], idempotencyKey: "k".repeat(129) }, "INVALID_REQUEST", "idempotencyKey"],
    [{ text: "   " }, "EMPTY_MESSAGE", undefined],
  ];
  for (const [message, reason, field] of cases) {
    const err = await refusal(client.send(GROUP, message));
    assert.deepEqual([err.reason, err.field], [reason, field], err.message);
  }
  const missing = await refusal(client.send(GROUP, { images: [png, join(tmpdir(), "no-such-file.png")] }));
  assert.match(missing.message, /ENOENT/);
  const shape = await refusal(client.send(GROUP, { images: [png, { path: png } as unknown as string] }));
  assert.equal(shape.field, "images[1]");
  const option = await refusal(client.send(GROUP, { text: "x", image: png } as unknown as { text: string }));
  assert.equal(option.field, "image");
  assert.deepEqual([uploads, sent.length], [0, 0]);
});

test("limits count characters, and a send at the limits goes through", async () => {
  const client = await Client.connect({ address });
  const png = image();
  // 20000 characters of 2 UTF-16 units each: within the limit.
  await client.send(GROUP, {
    text: "😀".repeat(MAX_TEXT_CHARS),
    images: [png, png, png, png],
    mentions: Array.from({ length: 20 }, (_, i) => 10001 + i),
  });
  assert.equal(uploads, 4);
  assert.deepEqual(
    sent.map((m) => m.images.map((i) => (i.source.case === "mediaId" ? i.source.value : ""))),
    [["m1", "m2", "m3", "m4"]],
  );
});

test("every failure shares one base class", async () => {
  const client = await Client.connect({ address });
  await assert.rejects(
    client.send(GROUP, { text: "refuse" }),
    (err: unknown) =>
      err instanceof OneBotGatewayError && err instanceof GatewayError && err.code === Code.PermissionDenied,
  );
  const ca = await refusal(Client.connect({ address: "https://127.0.0.1:1", caFile: "/nonexistent/ca.pem" }));
  assert.equal((ca.cause as NodeJS.ErrnoException).code, "ENOENT");
  const target = join(tmpdir(), "no-such-dir", "out");
  await refusal(client.downloadTo("m1", target));
});

test("history and search take one chat shape and refuse any other", async () => {
  const client = await Client.connect({ address });
  await client.history({ groupId: GROUP }, { count: 5 });
  for await (const page of client.search("开会", { groupId: GROUP })) void page;
  for await (const page of client.search("开会", { userId: 10001n })) void page;
  for await (const page of client.search("开会")) void page;
  assert.equal(read[0]?.chat?.kind.case, "groupId");
  assert.deepEqual(
    searched.map((r) => r.chat?.kind.case),
    ["groupId", "userId", undefined],
  );
  const search = async (options: object): Promise<ClientError> =>
    refusal(
      (async () => {
        for await (const page of client.search("开会", options as Parameters<Client["search"]>[1])) void page;
      })(),
    );
  const nested = await search({ chat: { groupId: GROUP } });
  assert.match(nested.message, /search\(query, \{ groupId: 20000003 \}\)/);
  assert.equal((await search({ group_id: GROUP })).field, "group_id");
  assert.equal((await search({ groupId: GROUP, userId: 10001 })).field, "userId");
  assert.equal((await search({ groupId: -1 })).reason, "INVALID_REQUEST");
  assert.equal((await search({ groupId: GROUP, limt: 5 })).field, "limt");
  const history = (chat: object, options: object = {}): Promise<ClientError> =>
    refusal(
      client.history(
        chat as Parameters<Client["history"]>[0],
        options as Parameters<Client["history"]>[1],
      ),
    );
  assert.equal((await history({ group_id: GROUP })).field, "group_id");
  assert.equal((await history({})).field, "groupId");
  assert.equal((await history({ groupId: GROUP, count: 5 })).field, "count");
  assert.equal((await history({ groupId: GROUP }, { anchorMessageId: 5n })).field, "anchorMessageId");
  assert.deepEqual([read.length, searched.length], [1, 3]);
});

function at(userId: bigint, all = false): Segment {
  return create(SegmentSchema, { kind: { case: "at", value: { userId, all } } });
}

function text(value: string): Segment {
  return create(SegmentSchema, { kind: { case: "text", value: { text: value } } });
}

function messageEvent(
  segments: Segment[],
  chat: { case: "groupId"; value: bigint } | { case: "userId"; value: bigint } = { case: "groupId", value: BigInt(GROUP) },
  messageId = 77n,
): Event {
  return create(EventSchema, {
    sequence: 5n,
    selfId: BOT,
    kind: {
      case: "message",
      value: { message: { messageId, segments, chat: { kind: chat }, sender: { userId: 10001n } } },
    },
  });
}

test("mentionsMe", () => {
  assert.equal(mentionsMe(messageEvent([at(BOT), text(" 在吗")])), true);
  assert.equal(mentionsMe(messageEvent([at(10002n), text(" 在吗")])), false);
  assert.equal(mentionsMe(messageEvent([text(`@${BOT} is only text`)])), false);
  // @全体成员 addresses everyone: a mention of the bot only when asked for.
  assert.equal(mentionsMe(messageEvent([at(0n, true)])), false);
  assert.equal(mentionsMe(messageEvent([at(0n, true)]), { includeAll: true }), true);
  const poke = create(EventSchema, { selfId: BOT, kind: { case: "poke", value: { targetId: BOT } } });
  assert.equal(mentionsMe(poke), false);
  // Without its event, a message needs the bot's number.
  const message = create(ChatMessageSchema, { segments: [at(BOT)] });
  assert.equal(mentionsMe(message, { selfId: BOT }), true);
  assert.throws(() => mentionsMe(message), ClientError);
  assert.throws(() => mentionsMe(message, { selfID: BOT } as unknown as { selfId: bigint }), /unknown option "selfID"/);
});

test("reply answers in the chat of the message, quoting it", async () => {
  const client = await Client.connect({ address });
  const privately = messageEvent([text("hi")], { case: "userId", value: 10001n }, 88n);
  const answers: SendMessageResponse[] = [
    await client.reply(messageEvent([at(BOT)]), "收到"),
    await client.reply(privately, "私聊", { mentions: [10001] }),
  ];
  assert.ok(privately.kind.case === "message" && privately.kind.value.message !== undefined);
  await client.reply(privately.kind.value.message, "no quote", { quote: false });
  await refusal(client.reply(create(EventSchema, { kind: { case: "poke", value: {} } }), "x"));
  await refusal(client.reply(messageEvent([text("node")], undefined, 0n), "x"));
  await refusal(client.reply(messageEvent([text("?")]), "x", { userId: 1 } as unknown as { quote: boolean }));
  const [first, second, third] = sent;
  assert.deepEqual([first?.groupId, first?.userId, first?.replyToMessageId, first?.text], [
    BigInt(GROUP),
    undefined,
    77n,
    "收到",
  ]);
  assert.deepEqual([second?.groupId, second?.userId, second?.replyToMessageId], [undefined, 10001n, 88n]);
  assert.deepEqual(second?.mentionUserIds, [10001n]);
  assert.deepEqual([third?.userId, third?.replyToMessageId], [10001n, undefined]);
  assert.equal(sent.length, 3);
  assert.deepEqual(
    answers.map((a) => a.messageIds),
    [[1n], [2n]],
  );
  assert.equal(uploads, 0);
});

test("rateLimitWaitMs reads the send's wait", () => {
  assert.equal(rateLimitWaitMs(create(SendMessageResponseSchema, {})), 0);
  const waited = create(SendMessageResponseSchema, { rateLimitWait: { seconds: 1n, nanos: 250_000_000 } });
  assert.equal(rateLimitWaitMs(waited), 1250);
});

test("onBehalfOf reaches the gateway: replyFor, send, recall and poke", async () => {
  const client = await Client.connect({ address, accountId: "bot1" });
  await client.replyFor(messageEvent([text("hi")]), "收到");
  const privateMessage = create(ChatMessageSchema, {
    messageId: 88n,
    chat: { kind: { case: "userId", value: 10001n } },
  });
  await client.replyFor(privateMessage, "私聊");
  await client.send(GROUP, { text: "for a user", onBehalfOf: { userId: 10002 } });
  await client.send(GROUP, { text: "for nobody" });
  await client.recall(99, { onBehalfOf: { messageId: 77 } });
  await client.recall(100);
  await client.poke(10002, { groupId: GROUP, onBehalfOf: { userId: 10001 } });
  await client.poke(10002);
  const [groupReply, privateReply, forUser, forNobody] = sent;
  assert.equal(groupReply?.groupId, BigInt(GROUP));
  assert.equal(groupReply?.replyToMessageId, 77n);
  assert.deepEqual(groupReply?.onBehalfOf?.requester, { case: "messageId", value: 77n });
  assert.equal(groupReply?.accountId, "bot1");
  assert.equal(privateReply?.userId, 10001n);
  assert.equal(privateReply?.groupId, undefined);
  assert.deepEqual(privateReply?.onBehalfOf?.requester, { case: "messageId", value: 88n });
  assert.deepEqual(forUser?.onBehalfOf?.requester, { case: "userId", value: 10002n });
  assert.equal(forNobody?.onBehalfOf, undefined);
  assert.deepEqual(recalled[0]?.onBehalfOf?.requester, { case: "messageId", value: 77n });
  assert.equal(recalled[0]?.messageId, 99n);
  assert.equal(recalled[1]?.onBehalfOf, undefined);
  assert.deepEqual(poked[0]?.onBehalfOf?.requester, { case: "userId", value: 10001n });
  assert.equal(poked[0]?.groupId, BigInt(GROUP));
  assert.equal(poked[1]?.onBehalfOf, undefined);
  // A requester is one of the two, and replyFor decides it.
  await refusal(client.send(GROUP, { text: "x", onBehalfOf: {} as { userId: number } }));
  await refusal(client.send(GROUP, { text: "x", onBehalfOf: { userId: 1, messageId: 2 } as { userId: number } }));
  await refusal(client.replyFor(privateMessage, "x", { onBehalfOf: { userId: 1 } } as object));
  assert.equal(sent.length, 4);
});

test("approvals: list, get, wait, approve, reject", async () => {
  const client = await Client.connect({ address, accountId: "bot1", timeoutMs: 5000 });
  const listed = await client.approvals({ state: ApprovalState.PENDING });
  assert.deepEqual(listed.map((a) => a.approvalId), ["a1"]);
  assert.ok(listed[0] !== undefined && isApprovalOpen(listed[0]));
  const now = await client.approval("a1");
  assert.equal(now.state, ApprovalState.PENDING);
  const done = await client.waitApproval("a1", 90_500);
  assert.equal(done.state, ApprovalState.EXECUTED);
  assert.ok(!isApprovalOpen(done));
  assert.equal((await client.approve("a1")).state, ApprovalState.EXECUTED);
  assert.equal((await client.reject("a2")).state, ApprovalState.REJECTED);
  await refusal(client.waitApproval("a1", 600_001));
  const [list, get, wait, approve, reject] = governed;
  assert.equal((list as ListApprovalsRequest).accountId, "bot1");
  assert.equal((list as ListApprovalsRequest).state, ApprovalState.PENDING);
  assert.equal((get as GetApprovalRequest).wait, undefined);
  assert.equal((wait as GetApprovalRequest).wait?.seconds, 90n);
  assert.equal((wait as GetApprovalRequest).wait?.nanos, 500_000_000);
  assert.equal((approve as DecideApprovalRequest).approve, true);
  assert.equal((reject as DecideApprovalRequest).approve, false);
  assert.equal((reject as DecideApprovalRequest).approvalId, "a2");
});

test("audit follows the pages", async () => {
  const client = await Client.connect({ address, accountId: "bot1" });
  const since = new Date("2026-01-01T00:00:00Z");
  const ids: bigint[] = [];
  for await (const page of client.audit({ since, action: "send", target: `group:${GROUP}`, decision: AuditDecision.PENDING })) {
    ids.push(...page.records.map((r) => r.id));
  }
  assert.deepEqual(ids, [3n, 2n, 1n]);
  assert.equal(audited.length, 2);
  assert.equal(audited[0]?.accountId, "bot1");
  assert.equal(audited[0]?.pageToken, "");
  assert.equal(audited[0]?.action, "send");
  assert.equal(audited[0]?.target, `group:${GROUP}`);
  assert.equal(audited[0]?.decision, AuditDecision.PENDING);
  assert.equal(audited[0]?.since?.seconds, BigInt(since.getTime() / 1000));
  assert.equal(audited[1]?.pageToken, "p2");
  await refusal(client.audit({ chat: 1 } as object).next());
});
