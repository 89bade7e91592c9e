// Offline tests of the agent helpers, the chat option, the checks before a send and the group
// actions, against in-process fake gateways (real gRPC servers on loopback ports) that record
// what reaches them.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http2";
import type { Http2Server, ServerHttp2Session } from "node:http2";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

import {
  Client,
  ClientError,
  GatewayError,
  MAX_MUTE_SECONDS,
  MAX_TEXT_CHARS,
  MediaKind,
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

// The group actions (reactions, essence, typing, voice, group files, moderation) and their error
// predicates, against a second fake gateway.

const FILE_BYTES = Buffer.alloc(300 * 1024, 7); // two chunks

let gaServer: Http2Server;
const gaSessions = new Set<ServerHttp2Session>();
let gaAddress: string;
let gaRequests: { method: string; request: unknown }[] = [];
let gaUploadKinds: MediaKind[] = [];

/** A refusal carrying a `google.rpc.ErrorInfo` (encoded here: the package exports no schema of it). */
function refused(message: string, code: Code, reason: string, metadata: Record<string, string>): ConnectError {
  const info = new BinaryWriter();
  info.tag(1, WireType.LengthDelimited).string(reason);
  info.tag(2, WireType.LengthDelimited).string("onebot-gateway");
  for (const [key, value] of Object.entries(metadata)) {
    info.tag(3, WireType.LengthDelimited).fork();
    info.tag(1, WireType.LengthDelimited).string(key).tag(2, WireType.LengthDelimited).string(value).join();
  }
  const err = new ConnectError(message, code);
  err.details.push({ type: "google.rpc.ErrorInfo", value: info.finish() });
  return err;
}

function seen(method: string): any[] {
  return gaRequests.filter((r) => r.method === method).map((r) => r.request);
}

before(async () => {
  const handler = connectNodeAdapter({
    grpc: true,
    connect: false,
    grpcWeb: false,
    routes(router) {
      router.rpc(MessageService.method.reactToMessage, async (request) => {
        gaRequests.push({ method: "react", request });
        return { groupId: BigInt(GROUP) };
      });
      router.rpc(MessageService.method.setEssence, async (request) => {
        gaRequests.push({ method: "essence", request });
        return { groupId: BigInt(GROUP) };
      });
      router.rpc(MessageService.method.listEssence, async (request) => {
        gaRequests.push({ method: "listEssence", request });
        return request.pageToken === ""
          ? { groupId: BigInt(GROUP), messages: [{ operatorId: 10001n }, { operatorId: 10001n }], nextPageToken: "e2" }
          : { groupId: BigInt(GROUP), messages: [{ operatorId: 10002n }] };
      });
      router.rpc(MessageService.method.setTyping, async (request) => {
        gaRequests.push({ method: "typing", request });
        if (request.userId === 10002n) throw refused("not allowed", Code.PermissionDenied, "USER_NOT_ALLOWED", {});
        if (request.userId === 10003n) {
          throw refused("no such action", Code.Unimplemented, "NOT_SUPPORTED_BY_IMPLEMENTATION", {
            implementation: "llonebot",
            action: "typing",
          });
        }
        return {};
      });
      router.rpc(MessageService.method.sendMessage, async (request) => {
        gaRequests.push({ method: "send", request });
        return { messageIds: [1n, 2n], media: { voices: request.voices.length } };
      });
      router.rpc(MediaService.method.uploadMedia, async (stream) => {
        const hash = createHash("sha256");
        let size = 0;
        for await (const request of stream) {
          if (request.payload.case === "header") gaUploadKinds.push(request.payload.value.kind);
          if (request.payload.case === "chunk") {
            hash.update(request.payload.value);
            size += request.payload.value.length;
          }
        }
        return { mediaId: `v${gaUploadKinds.length}`, size: BigInt(size), sha256: hash.digest("hex"), mimeType: "audio/amr" };
      });
      router.rpc(GroupService.method.listGroupFiles, async (request) => {
        gaRequests.push({ method: "listFiles", request });
        return request.pageToken === ""
          ? {
              groupId: BigInt(GROUP),
              folders: [{ folderId: "/d1", name: "资料" }],
              files: [{ fileId: "f1", name: "a.txt", size: BigInt(FILE_BYTES.length) }],
              nextPageToken: "g2",
            }
          : { groupId: BigInt(GROUP), files: [{ fileId: "f2", name: "b.txt", size: 1n }] };
      });
      router.rpc(MediaService.method.downloadGroupFile, async function* (request) {
        gaRequests.push({ method: "download", request });
        const data = request.fileId === "bad" ? Buffer.from("x") : FILE_BYTES;
        yield {
          payload: {
            case: "header" as const,
            value: {
              kind: MediaKind.FILE,
              mimeType: "text/plain",
              size: BigInt(FILE_BYTES.length),
              sha256: createHash("sha256").update(FILE_BYTES).digest("hex"),
              fileName: "a.txt",
            },
          },
        };
        for (let i = 0; i < data.length; i += 256 * 1024) {
          yield { payload: { case: "chunk" as const, value: data.subarray(i, i + 256 * 1024) } };
        }
      });
      router.rpc(GroupService.method.muteMember, async (request) => {
        gaRequests.push({ method: "mute", request });
        if (request.userId === 10001n) {
          throw refused("owner", Code.PermissionDenied, "PROTECTED_MEMBER", { user_id: "10001", why: "owner" });
        }
        throw refused("no rule", Code.PermissionDenied, "POLICY_DENIED", { rule: "none", action: "mute" });
      });
      router.rpc(GroupService.method.muteAll, async (request) => {
        gaRequests.push({ method: "muteAll", request });
        throw refused("not admin", Code.FailedPrecondition, "BOT_NOT_ADMIN", {
          group_id: "20000002",
          bot_role: "member",
          needed_role: "admin",
        });
      });
      router.rpc(GroupService.method.kickMember, async (request) => {
        gaRequests.push({ method: "kick", request });
        return { groupId: BigInt(GROUP), userId: request.userId };
      });
      router.rpc(GroupService.method.setMemberCard, async (request) => {
        gaRequests.push({ method: "card", request });
        return { groupId: BigInt(GROUP), userId: request.userId };
      });
    },
  });
  gaServer = createServer(handler);
  gaServer.on("session", (session) => {
    gaSessions.add(session);
    session.on("close", () => gaSessions.delete(session));
  });
  await new Promise<void>((resolve) => gaServer.listen(0, "127.0.0.1", resolve));
  const bound = gaServer.address();
  assert.ok(bound !== null && typeof bound === "object");
  gaAddress = `http://127.0.0.1:${bound.port}`;
});

after(() => {
  for (const session of gaSessions) session.destroy();
  gaServer.close();
});

beforeEach(() => {
  gaRequests = [];
  gaUploadKinds = [];
});

async function gatewayError(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected a GatewayError");
}

test("react, essence and typing reach the gateway", async () => {
  const client = await Client.connect({ address: gaAddress, accountId: "bot1" });
  assert.equal((await client.react(77, 76)).groupId, BigInt(GROUP));
  await client.react(77n, "128077", { remove: true, onBehalfOf: { messageId: 77 } });
  await client.setEssence(77, { onBehalfOf: { userId: 10001 } });
  await client.setEssence(77, { remove: true });
  await client.setTyping(10001);
  const [react, unreact] = seen("react");
  assert.deepEqual([react.accountId, react.messageId, react.emojiId, react.remove], ["bot1", 77n, "76", false]);
  assert.equal(react.onBehalfOf, undefined);
  assert.deepEqual([unreact.emojiId, unreact.remove, unreact.onBehalfOf.requester.value], ["128077", true, 77n]);
  const [essence, unessence] = seen("essence");
  assert.deepEqual([essence.remove, essence.onBehalfOf.requester.value, unessence.remove], [false, 10001n, true]);
  assert.equal(seen("typing")[0].userId, 10001n);
});

test("bad arguments are refused before any call", async () => {
  const client = await Client.connect({ address: gaAddress });
  const cases: [() => Promise<unknown>, string][] = [
    [() => client.react(0, "76"), "messageId"],
    [() => client.react(1, ""), "emojiId"],
    [() => client.react(1, "x".repeat(33)), "emojiId"],
    [() => client.setEssence(0), "messageId"],
    [() => client.setTyping(0), "userId"],
    [() => client.muteMember(10003, (MAX_MUTE_SECONDS + 1) * 1000), "durationMs"],
    [() => client.muteMember(10003, -1), "durationMs"],
    [() => client.kickMember(0), "userId"],
    [() => client.setMemberCard(10003, "名".repeat(21)), "card"],
    [() => client.downloadGroupFile(""), "fileId"],
    [() => client.listEssence(GROUP, { pageSize: 51 }).next(), "pageSize"],
    [() => client.listGroupFiles(GROUP, { pageSize: 201 }).next(), "pageSize"],
  ];
  for (const [run, field] of cases) {
    await assert.rejects(run(), (err: unknown) => {
      assert.ok(err instanceof ClientError, String(err));
      assert.deepEqual([err.reason, err.field], ["INVALID_REQUEST", field]);
      return true;
    });
  }
  await assert.rejects(client.kickMember(10003, { reject: true } as never), /unknown option "reject"/);
  assert.deepEqual(gaRequests, []);
});

test("listEssence and listGroupFiles follow the pages", async () => {
  const client = await Client.connect({ address: gaAddress, accountId: "bot1" });
  const pages = [];
  for await (const page of client.listEssence(GROUP, { pageSize: 2 })) pages.push(page.messages.length);
  const everything = [];
  for await (const message of client.essenceMessages()) everything.push(message.operatorId);
  assert.deepEqual(pages, [2, 1]);
  assert.deepEqual(everything, [10001n, 10001n, 10002n]);
  const [first, second, unset] = seen("listEssence");
  assert.deepEqual([first.accountId, first.groupId, first.pageSize, first.pageToken], ["bot1", BigInt(GROUP), 2, ""]);
  assert.deepEqual([second.pageToken, second.pageSize, unset.groupId], ["e2", 2, undefined]);
  const folders = [];
  for await (const page of client.listGroupFiles(GROUP, { folderId: "/d1", pageSize: 100 })) {
    for (const folder of page.folders) folders.push(folder.name);
  }
  const files = [];
  for await (const file of client.groupFiles(GROUP)) files.push(file.fileId);
  assert.deepEqual([folders, files], [["资料"], ["f1", "f2"]]);
  const [listed, next] = seen("listFiles");
  assert.deepEqual([listed.folderId, listed.pageSize, listed.pageToken, next.pageToken], ["/d1", 100, "", "g2"]);
});

test("group files download into memory and into a file, checked", async () => {
  const client = await Client.connect({ address: gaAddress });
  const dir = mkdtempSync(join(tmpdir(), "ts-sdk-"));
  const data = await client.downloadGroupFile("f1", { groupId: GROUP });
  assert.ok(Buffer.from(data.data).equals(FILE_BYTES));
  assert.equal(data.header.fileName, "a.txt");
  const progress: [number, number][] = [];
  const header = await client.downloadGroupFileTo("f1", join(dir, "a.txt"), {
    onProgress: (received, total) => progress.push([received, total]),
  });
  assert.equal(header.size, BigInt(FILE_BYTES.length));
  assert.ok(readFileSync(join(dir, "a.txt")).equals(FILE_BYTES));
  assert.deepEqual(progress.at(-1), [FILE_BYTES.length, FILE_BYTES.length]);
  await assert.rejects(client.downloadGroupFileTo("bad", join(dir, "bad.txt")), /integrity/);
  assert.ok(!existsSync(join(dir, "bad.txt")) && !existsSync(join(dir, "bad.txt.part")));
  const download = seen("download");
  assert.deepEqual([download[0].groupId, download[1].groupId, download[2].fileId], [BigInt(GROUP), undefined, "bad"]);
});

test("moderation requests and the error predicates", async () => {
  const client = await Client.connect({ address: gaAddress });
  const denied = await gatewayError(
    client.muteMember(10003, 600_000, { groupId: GROUP, onBehalfOf: { userId: 10002 } }),
  );
  const isProtected = await gatewayError(client.muteMember(10001, 500));
  const notAdmin = await gatewayError(client.muteAll(true, { groupId: 20000002 }));
  const unsupported = await gatewayError(client.setTyping(10003));
  const kicked = await client.kickMember(10003, { groupId: GROUP, rejectRejoin: true });
  const carded = await client.setMemberCard(10003, "新名片", { groupId: GROUP });
  assert.equal(denied.code, Code.PermissionDenied);
  assert.ok(denied.isPolicyDenied && denied.metadata["rule"] === "none");
  assert.ok(isProtected.isProtectedMember && isProtected.metadata["why"] === "owner");
  assert.ok(notAdmin.isBotNotAdmin && notAdmin.metadata["needed_role"] === "admin");
  assert.equal(unsupported.code, Code.Unimplemented);
  assert.ok(unsupported.isNotSupportedByImplementation);
  assert.ok(!denied.isBotNotAdmin && !unsupported.isProtectedMember && !notAdmin.isPolicyDenied);
  assert.deepEqual([kicked.userId, carded.userId], [10003n, 10003n]);
  const [mute, lift] = seen("mute");
  assert.deepEqual(
    [mute.groupId, mute.userId, mute.durationSecs, mute.onBehalfOf.requester.value],
    [BigInt(GROUP), 10003n, 600n, 10002n],
  );
  assert.deepEqual([lift.durationSecs, lift.groupId], [1n, undefined]); // a part second rounds up
  assert.deepEqual([seen("muteAll")[0].groupId, seen("muteAll")[0].enable], [20000002n, true]);
  assert.deepEqual([seen("kick")[0].rejectRejoin, seen("card")[0].card], [true, "新名片"]);
});

test("a voice is uploaded as a RECORD", async () => {
  const client = await Client.connect({ address: gaAddress });
  const voice = join(mkdtempSync(join(tmpdir(), "ts-sdk-")), "hello.amr");
  writeFileSync(voice, Buffer.concat([Buffer.from("#!AMR\n"), Buffer.alloc(32)]));
  const sent = await client.send(GROUP, { text: "听", voices: [voice] });
  await assert.rejects(client.send(GROUP, { voices: [voice, voice] }), (err: unknown) => {
    assert.ok(err instanceof ClientError && err.field === "voices");
    return true;
  });
  await client.send(GROUP, { voices: [new Uint8Array([1, 2, 3])] });
  assert.deepEqual(gaUploadKinds, [MediaKind.RECORD, MediaKind.RECORD]);
  const [request] = seen("send");
  assert.deepEqual(
    request.voices.map((v: { source: { value: string } }) => v.source.value),
    ["v1"],
  );
  assert.equal(sent.media?.voices, 1);
});
