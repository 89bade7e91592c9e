// End-to-end: the TypeScript SDK against a real gateway on its sandbox peer
// (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, test } from "node:test";
import { format } from "node:util";

import { Code } from "@connectrpc/connect";

import * as examples from "../examples/readme_examples.js";
import {
  ACCOUNT_HEALTH_SERVICE_PREFIX,
  Client,
  ClientError,
  EventKind,
  GatewayError,
  mentionsMe,
} from "@onebot-gateway/client";
import type { Event } from "@onebot-gateway/client";

// The README examples print with console.log. Node's test runner reads its
// own protocol from a test file's stdout, and printed text that lands inside
// one of its frames breaks the run ("Unable to deserialize cloned data due to
// invalid or unsupported version", nodejs/node#48103 and #64061): the
// examples' output goes to stderr instead.
console.log = (...args: unknown[]) => {
  process.stderr.write(`${format(...args)}\n`);
};

let client: Client;

before(async () => {
  assert.ok(process.env.ONEBOT_GATEWAY_ADDR, "ONEBOT_GATEWAY_ADDR is not set: run ./scripts/sdk-tests.sh typescript");
  client = await examples.connect();
});

test("health", async () => {
  assert.equal(await examples.health(client), "SERVING");
  await assert.rejects(client.health("no.such.Service"), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, Code.NotFound);
    return true;
  });
});

const PLAYGROUND = 20000003n;

test("accounts", async () => {
  assert.ok((await examples.accounts(client)).includes("default"));
  const account = (await client.accounts()).find((a) => a.accountId === "default");
  assert.ok(account?.groups.includes(PLAYGROUND));
  // The embedded sandbox imitates NapCat: probed on connect, anchors in message_seq.
  assert.deepEqual(
    [account?.historyAnchor, account?.anchorIncluded, account?.historyAnchorSource],
    ["message_id_as_seq", true, "probed"],
  );
  assert.equal(await client.health(ACCOUNT_HEALTH_SERVICE_PREFIX + "default"), "SERVING");
});

test("history pages the playground group", async () => {
  const page = await examples.history(client);
  assert.equal(page.target, `group:${PLAYGROUND}`);
  assert.equal(page.messages.length, 5);
  assert.equal(page.rendered.split("\n").length, 5);
  assert.ok(page.nextAnchorMessageId !== undefined);
  const older = await client.history({ groupId: PLAYGROUND }, { count: 5, anchor: page.nextAnchorMessageId });
  const newer = new Set(page.messages.map((m) => m.messageId));
  assert.ok(older.messages.length > 0 && older.messages.every((m) => !newer.has(m.messageId)));
});

test("members and groups", async () => {
  const members = await examples.members(client);
  assert.deepEqual([members.total, members.shown], [36, 5]);
  assert.equal(members.members[0]?.userId, 10001n);
  assert.equal(members.members[0]?.role, "owner");
  assert.ok(members.rendered.endsWith("（仅显示前 5 / 共 36 名成员）"));
  const groups = await examples.groups(client);
  assert.ok(groups.groups.some((g) => g.groupId === PLAYGROUND && g.whitelisted));
});

test("upload a 5 MiB image", async () => {
  const path = process.env.ONEBOT_GATEWAY_TEST_IMAGE;
  assert.ok(path, "ONEBOT_GATEWAY_TEST_IMAGE");
  const size = statSync(path).size;
  assert.ok(size >= 5 * 1024 * 1024);
  const uploaded = await examples.upload(client, path);
  assert.ok(uploaded.mediaId.length > 0);
  assert.equal(uploaded.size, size);
  assert.equal(uploaded.mimeType, "image/png");
});

test("download received and uploaded media", async () => {
  const dir = mkdtempSync(join(tmpdir(), "onebot-dl-"));
  const picture = await examples.download(client, dir);
  assert.ok(picture !== undefined);
  assert.equal(createHash("sha256").update(picture.data).digest("hex"), picture.header.sha256);
  assert.deepEqual(new Uint8Array(readFileSync(join(dir, "picture"))), new Uint8Array(picture.data));
  assert.ok(!existsSync(join(dir, "picture.part")));
  assert.equal(picture.header.mimeType, "image/png");
  const bytes = new TextEncoder().encode("%PDF-1.4 round trip");
  const uploaded = await client.upload(bytes, "file", { fileName: "r.pdf" });
  const again = await client.download(uploaded.mediaId);
  assert.deepEqual(new Uint8Array(again.data), bytes);
  await assert.rejects(client.download("r_0123456789abcdef_1_0"), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.code, Code.NotFound);
    assert.equal(e.reason, "MEDIA_NOT_FOUND");
    return true;
  });
  await assert.rejects(client.downloadTo("r_0123456789abcdef_1_0", join(dir, "missing")));
  assert.ok(!existsSync(join(dir, "missing.part")));
});

test("errors carry reason, metadata and field", async () => {
  const err = await examples.errors(client);
  assert.ok(err);
  assert.equal(err.code, Code.InvalidArgument);
  assert.equal(err.reason, "INVALID_REQUEST");
  assert.equal(err.domain, "onebot-gateway");
  assert.equal(err.fieldViolations[0]?.field, "group_id");
  const other = await Client.connect({ address: process.env.ONEBOT_GATEWAY_ADDR, accountId: "nope" });
  await assert.rejects(other.history({ groupId: PLAYGROUND }), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.code, Code.FailedPrecondition);
    assert.equal(e.reason, "ACCOUNT_NOT_CONFIGURED");
    assert.equal(e.metadata.account_id, "nope");
    return true;
  });
  await assert.rejects(client.upload(new Uint8Array(1024), "image"), (e: unknown) => {
    assert.ok(e instanceof GatewayError);
    assert.equal(e.reason, "MEDIA_TYPE_MISMATCH");
    return true;
  });
});

test("an unreachable gateway is a GatewayError", async () => {
  const down = await Client.connect({ address: "http://127.0.0.1:1", timeoutMs: 5000 });
  await assert.rejects(down.accounts(), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, Code.Unavailable);
    return true;
  });
});

test("send a 5 MiB image and read it back", async () => {
  const path = process.env.ONEBOT_GATEWAY_TEST_IMAGE;
  assert.ok(path, "ONEBOT_GATEWAY_TEST_IMAGE");
  const sent = await examples.send(client, path);
  assert.equal(sent.groupId, PLAYGROUND);
  assert.equal(sent.queued, false);
  assert.equal(sent.media?.images, 1);
  assert.equal(sent.messageIds.length, 2);
  const page = await client.history({ groupId: PLAYGROUND }, { count: 10 });
  const text = page.messages.find((m) => m.messageId === sent.messageIds[0]);
  assert.equal(text?.text, "hello from TypeScript");
  const image = page.messages.find((m) => m.messageId === sent.messageIds[1]);
  assert.ok(image?.segments.some((s) => s.kind.case === "image"));
});

test("limits are checked before uploading", async () => {
  const path = process.env.ONEBOT_GATEWAY_TEST_IMAGE;
  assert.ok(path, "ONEBOT_GATEWAY_TEST_IMAGE");
  const before = (await client.history({ groupId: PLAYGROUND }, { count: 1 })).messages.at(-1)?.messageId;
  const refused = await examples.limits(client, path);
  assert.deepEqual([refused?.reason, refused?.field], ["TOO_MANY_IMAGES", "images"]);
  // The same request past the SDK's check is what the gateway refuses, for the same reason.
  await assert.rejects(
    client.messageService.sendMessage({
      groupId: PLAYGROUND,
      images: Array.from({ length: 5 }, () => ({ source: { case: "mediaId" as const, value: "m" } })),
    }),
    (err: unknown) => GatewayError.from(err).reason === refused?.reason,
  );
  const after = (await client.history({ groupId: PLAYGROUND }, { count: 1 })).messages.at(-1)?.messageId;
  assert.equal(after, before);
});

/** Makes a sandbox user say something (the sandbox's own HTTP action); the message id. */
async function inject(message: unknown[], groupId: bigint | undefined, userId = 10001): Promise<bigint> {
  const url = process.env.ONEBOT_GATEWAY_SANDBOX_URL;
  assert.ok(url, "ONEBOT_GATEWAY_SANDBOX_URL is not set: run ./scripts/sdk-tests.sh typescript");
  const response = await fetch(`${url}/sandbox_inject_message`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: userId, message, ...(groupId === undefined ? {} : { group_id: Number(groupId) }) }),
  });
  const answer = (await response.json()) as { status: string; data: { message_id: number } };
  assert.equal(answer.status, "ok", JSON.stringify(answer));
  return BigInt(answer.data.message_id);
}

const atSegment = (qq: bigint | string) => ({ type: "at", data: { qq: String(qq) } });
const textSegment = (text: string) => ({ type: "text", data: { text } });

async function eventOf(messageId: bigint): Promise<Event> {
  for await (const event of client.events({ kinds: [EventKind.MESSAGE], afterSequence: 0n })) {
    if (event.kind.case === "message" && event.kind.value.message?.messageId === messageId) return event;
  }
  assert.fail(`no event of message ${messageId}`);
}

test("an agent answers a mention in its chat", async () => {
  const bot = (await client.accounts()).find((a) => a.accountId === "default")?.selfId;
  assert.ok(bot !== undefined);
  await inject([atSegment("all"), textSegment(" 全体注意")], PLAYGROUND);
  await inject([atSegment(10002n), textSegment(" 不是叫你")], PLAYGROUND);
  const asked = await inject([atSegment(bot), textSegment(" 在吗")], PLAYGROUND);
  const answer = await examples.agent(client, 0n);
  assert.equal(answer?.groupId, PLAYGROUND);
  const reply = await client.getMessage(answer?.messageIds[0] ?? 0n);
  const quote = reply.message?.segments[0]?.kind;
  assert.ok(quote?.case === "reply" && quote.value.id === String(asked));
  assert.equal(reply.message?.text, "在的");
  // A private message is answered privately, quoting it.
  const privately = await inject([atSegment(bot), textSegment(" 私聊")], undefined);
  const event = await eventOf(privately);
  assert.ok(mentionsMe(event));
  const sent = await client.reply(event, "私聊收到");
  assert.deepEqual([sent.groupId, sent.userId], [0n, 10001n]);
  const answered = (await client.getMessage(sent.messageIds[0] ?? 0n)).message?.segments[0]?.kind;
  assert.ok(answered?.case === "reply" && answered.value.id === String(privately));
});

test("a mention of everyone counts only when asked", async () => {
  const everyone = await inject([atSegment("all"), textSegment(" 开会了")], PLAYGROUND);
  const event = await eventOf(everyone);
  assert.equal(mentionsMe(event), false);
  assert.equal(mentionsMe(event, { includeAll: true }), true);
});

test("conversation: reply, mention, private, recall, forward", async () => {
  const reply = await examples.conversation(client);
  const message = reply.message;
  assert.ok(message);
  assert.deepEqual(
    message.segments.map((s) => s.kind.case),
    ["reply", "at", "text"],
  );
  const first = message.segments[0]?.kind;
  assert.ok(first?.case === "reply" && first.value.quoted && first.value.quoted.messageId !== 0n);
  assert.ok(reply.rendered.includes("[回复 ") && reply.rendered.endsWith("收到"));
  assert.ok(!message.text.includes("回复"));
  const privately = await client.history({ userId: 10001 }, { count: 5 });
  assert.ok(privately.messages.every((m) => m.text !== "私聊一句"));
  await assert.rejects(client.recall(privately.messages[0]?.messageId ?? 0n), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.reason, "ONEBOT_ACTION_FAILED");
    return true;
  });
  await assert.rejects(client.getForward("no-such-bundle"), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.reason, "MESSAGE_NOT_FOUND");
    return true;
  });
  await assert.rejects(client.send(undefined, { userId: 10002, text: "x" }), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.reason, "USER_NOT_ALLOWED");
    return true;
  });
});

test("poke", async () => {
  const poked = await examples.poke(client);
  assert.deepEqual([poked.groupId, poked.userId], [PLAYGROUND, 10001n]);
});

test("tool call", async () => {
  const result = await examples.tools(client);
  assert.equal(result.isError, false);
  const details = JSON.parse(result.detailsJson) as { status: string; total: number; shown: number };
  assert.deepEqual([details.status, details.total, details.shown], ["ok", 36, 2]);
  assert.equal(result.text.split("\n").length, 3);
  assert.equal((await client.callTool("qq_get_group_members", {})).isError, true);
});

test("events replay and follow", async () => {
  await client.poke(10002, { groupId: PLAYGROUND });
  const event = await examples.events(client);
  assert.ok(event && event.sequence >= 1n);
  assert.equal(event.kind.case, "poke");
  assert.equal(event.kind.case === "poke" ? event.kind.value.groupId : 0n, PLAYGROUND);
});

test("events resume across a proxy restart", async () => {
  // scripts/sdk-tests.sh runs nginx in front of the gateway and gives a command that kills
  // and restarts it.
  const proxy = process.env.ONEBOT_GATEWAY_PROXY_ADDR;
  const restart = process.env.ONEBOT_GATEWAY_PROXY_RESTART;
  assert.ok(proxy && restart, "ONEBOT_GATEWAY_PROXY_ADDR is not set: run ./scripts/sdk-tests.sh typescript");
  const viaProxy = await Client.connect({ address: proxy });
  let reconnects = 0;
  const stream = viaProxy.events({
    kinds: [EventKind.POKE],
    afterSequence: 0n,
    onReconnect: () => {
      reconnects += 1;
    },
  });
  const target = (e: Event): bigint => (e.kind.case === "poke" ? e.kind.value.targetId : 0n);
  await client.poke(10013, { groupId: PLAYGROUND });
  let first: Event | undefined;
  while (first === undefined) {
    const next = await stream.next();
    assert.ok(!next.done);
    if (target(next.value) === 10013n) {
      first = next.value;
    }
  }
  execFileSync(restart);
  await client.poke(10014, { groupId: PLAYGROUND });
  let last = first.sequence;
  for (;;) {
    const next = await stream.next();
    assert.ok(!next.done);
    assert.ok(next.value.sequence > last, "in order, once");
    assert.notEqual(target(next.value), 10013n, "the event before the restart came again");
    last = next.value.sequence;
    if (target(next.value) === 10014n) {
      break;
    }
  }
  await stream.return(undefined);
  assert.ok(reconnects >= 1);
});

test("search finds what was sent", async () => {
  const sent = await client.send(PLAYGROUND, { text: "TypeScript 明天下午开会" });
  const pages = await examples.search(client);
  const found = pages.flatMap((p) => p.messages);
  assert.ok(found.some((m) => m.messageId === sent.messageIds[0]));
  assert.ok(found.every((m) => m.text.includes("开会")));
  // One chat shape, as history takes it: another is refused before any call, never read as
  // "every chat".
  const refused = async (options: object): Promise<ClientError> => {
    try {
      for await (const page of client.search("开会", options as Parameters<Client["search"]>[1])) void page;
    } catch (err) {
      assert.ok(err instanceof ClientError, String(err));
      return err;
    }
    assert.fail(`search accepted ${JSON.stringify(options)}`);
  };
  const wrongShape = await refused({ chat: { groupId: PLAYGROUND } });
  assert.match(wrongShape.message, /\{ groupId: <group number> \} or \{ userId: <QQ number> \}/);
  assert.equal((await refused({ group_id: PLAYGROUND })).field, "group_id");
  assert.equal((await refused({ groupId: 0 })).reason, "INVALID_REQUEST");
  assert.equal((await refused({ groupId: PLAYGROUND, limt: 5 })).field, "limt");
});

test("group files: list and download", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ts-e2e-"));
  const files = await examples.groupFiles(client, dir);
  assert.ok(files.length > 0, `group ${PLAYGROUND} has files`);
  for (const [file, got] of files) {
    assert.equal(BigInt(got.data.length), file.size, file.name);
  }
  assert.equal(BigInt(statSync(join(dir, "group-file")).size), files.at(-1)![0].size);
});

test("react and list essence", async () => {
  const essence = await examples.react(client);
  assert.ok(essence.length > 0, `group ${PLAYGROUND} has essence messages`);
  const first = await client.listEssence(PLAYGROUND, { pageSize: 1 }).next();
  assert.ok(!first.done && first.value.groupId === BigInt(PLAYGROUND) && first.value.messages.length <= 1);
});

test("typing needs a whitelisted user", async () => {
  await assert.rejects(client.setTyping(10002), (err: unknown) => {
    assert.ok(err instanceof GatewayError, String(err));
    assert.deepEqual([err.code, err.reason], [Code.PermissionDenied, "USER_NOT_ALLOWED"]);
    return true;
  });
  await examples.typing(client);
});

test("moderation without a policy rule is denied", async () => {
  const refused = await examples.moderation(client);
  assert.ok(refused !== undefined, "no policy rule names `mute`");
  assert.equal(refused.code, Code.PermissionDenied);
  assert.ok(refused.isPolicyDenied && refused.metadata["rule"] === "none");
  for (const run of [
    () => client.muteAll(true, { groupId: PLAYGROUND }),
    () => client.kickMember(10003, { groupId: PLAYGROUND }),
    () => client.setMemberCard(10003, "新名片", { groupId: PLAYGROUND }),
  ]) {
    await assert.rejects(run(), (err: unknown) => {
      assert.ok(err instanceof GatewayError && err.reason === "POLICY_DENIED", String(err));
      return true;
    });
  }
});
