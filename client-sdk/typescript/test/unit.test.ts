// Offline tests: error details decoding and upload input checks.

import assert from "node:assert/strict";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";

import { ApprovalState, Client, ErrorReason, GatewayError, isApprovalOpen, isNotLeader } from "../src/index.js";
import { AccountService } from "../src/gen/onebot/gateway/v1/account_service_pb.js";
import { ApprovalSchema } from "../src/gen/onebot/gateway/v1/governance_service_pb.js";
import { BadRequestSchema, ErrorInfoSchema, RetryInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";

test("GatewayError decodes ErrorInfo, RetryInfo and BadRequest", () => {
  const cause = new ConnectError("offline", Code.Unavailable, undefined, [
    {
      desc: ErrorInfoSchema,
      value: { reason: "ACCOUNT_OFFLINE", domain: "onebot-gateway", metadata: { account_id: "a" } },
    },
    { desc: RetryInfoSchema, value: { retryDelay: { seconds: 1n, nanos: 500_000_000 } } },
    {
      desc: BadRequestSchema,
      value: { fieldViolations: [{ field: "group_id", description: "must be positive" }] },
    },
  ]);
  const err = GatewayError.from(cause);
  assert.equal(err.code, Code.Unavailable);
  assert.equal(err.reason, "ACCOUNT_OFFLINE");
  assert.equal(ErrorReason[`${err.reason}` as keyof typeof ErrorReason], ErrorReason.ACCOUNT_OFFLINE);
  assert.deepEqual(err.metadata, { account_id: "a" });
  assert.equal(err.retryDelayMs, 1500);
  assert.deepEqual(err.fieldViolations, [{ field: "group_id", description: "must be positive" }]);
  assert.equal(err.message, "Unavailable (ACCOUNT_OFFLINE): offline [retry after 1500 ms]");
});

test("a plain status has no reason", () => {
  const err = GatewayError.from(new ConnectError("nope", Code.Unimplemented));
  assert.equal(err.reason, undefined);
  assert.deepEqual(err.metadata, {});
});

test("GatewayError names the approval of APPROVAL_PENDING", () => {
  const held = GatewayError.from(
    new ConnectError("held for approval a1", Code.FailedPrecondition, undefined, [
      {
        desc: ErrorInfoSchema,
        value: { reason: "APPROVAL_PENDING", domain: "onebot-gateway", metadata: { approval_id: "a1", rule: "0", action: "send" } },
      },
    ]),
  );
  assert.equal(held.code, Code.FailedPrecondition);
  assert.equal(held.approvalId, "a1");
  assert.equal(held.isApprovalPending, true);
  assert.equal(held.isPolicyDenied, false);
  assert.equal(ErrorReason[`${held.reason}` as keyof typeof ErrorReason], ErrorReason.APPROVAL_PENDING);
  const denied = GatewayError.from(
    new ConnectError("no", Code.PermissionDenied, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "POLICY_DENIED", metadata: { role: "member", approval_id: "x" } } },
    ]),
  );
  assert.equal(denied.isPolicyDenied, true);
  assert.equal(denied.isApprovalPending, false);
  assert.equal(denied.approvalId, undefined);
  assert.equal(denied.metadata["role"], "member");
  const decided = GatewayError.from(
    new ConnectError("decided", Code.FailedPrecondition, undefined, [
      { desc: ErrorInfoSchema, value: { reason: "APPROVAL_DECIDED", metadata: { approval_id: "a2" } } },
    ]),
  );
  assert.equal(decided.approvalId, "a2");
  assert.equal(GatewayError.from(new ConnectError("nope", Code.Unknown)).approvalId, undefined);
});

test("isApprovalOpen: pending or executing", () => {
  const open = (state: ApprovalState) => isApprovalOpen(create(ApprovalSchema, { state }));
  assert.equal(open(ApprovalState.PENDING), true);
  assert.equal(open(ApprovalState.APPROVED), true);
  for (const state of [ApprovalState.EXECUTED, ApprovalState.FAILED, ApprovalState.REJECTED, ApprovalState.EXPIRED]) {
    assert.equal(open(state), false);
  }
});

test("uploading a missing file fails before any call", async () => {
  const client = await Client.connect({ address: "http://127.0.0.1:1" });
  await assert.rejects(client.upload("/nonexistent/x.png", "image"), /ENOENT/);
});

test("a missing CA file fails at connect", async () => {
  await assert.rejects(Client.connect({ address: "http://127.0.0.1:1", caFile: "/nonexistent/ca.pem" }), /ENOENT/);
});

test("GatewayError predicates of the group actions' reasons", () => {
  const of = (code: Code, reason: string) =>
    GatewayError.from(new ConnectError(reason, code, undefined, [{ desc: ErrorInfoSchema, value: { reason } }]));
  const unsupported = of(Code.Unimplemented, "NOT_SUPPORTED_BY_IMPLEMENTATION");
  const notAdmin = of(Code.FailedPrecondition, "BOT_NOT_ADMIN");
  const isProtected = of(Code.PermissionDenied, "PROTECTED_MEMBER");
  assert.deepEqual(
    [unsupported, notAdmin, isProtected].map((e) => [e.isNotSupportedByImplementation, e.isBotNotAdmin, e.isProtectedMember]),
    [
      [true, false, false],
      [false, true, false],
      [false, false, true],
    ],
  );
  assert.equal(ErrorReason[`${notAdmin.reason}` as keyof typeof ErrorReason], ErrorReason.BOT_NOT_ADMIN);
  assert.equal(GatewayError.from(new ConnectError("nope", Code.Unknown)).isBotNotAdmin, false);
});

// A standby gateway (UNAVAILABLE NOT_LEADER) on a loopback HTTP/2 port: a stub AccountService
// that refuses the first `refusals` calls with `reason` (RetryInfo `retryMs` when set), then
// answers with one account.
async function standby(
  refusals: number,
  reason: string,
  retryMs: number | undefined,
): Promise<{ address: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(AccountService, {
        listAccounts() {
          calls += 1;
          if (calls <= refusals) {
            throw new ConnectError("another gateway leads account default", Code.Unavailable, undefined, [
              {
                desc: ErrorInfoSchema,
                value: {
                  reason,
                  domain: "onebot-gateway",
                  metadata: { account_id: "default", leader: "gw-a", advertise: "10.0.0.1:50051" },
                },
              },
              ...(retryMs === undefined
                ? []
                : [{ desc: RetryInfoSchema, value: { retryDelay: { seconds: 0n, nanos: retryMs * 1_000_000 } } }]),
            ]);
          }
          return { accounts: [{ accountId: "default" }] };
        },
      }),
  });
  const server = http2.createServer(handler);
  // Closing the server waits for its sessions: the clients' idle connections are destroyed.
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      }),
  };
}

test("NOT_LEADER is retried until the leader answers", async () => {
  const gw = await standby(3, "NOT_LEADER", 20);
  try {
    const client = await Client.connect({ address: gw.address });
    const accounts = await client.accounts();
    assert.deepEqual(
      accounts.map((a) => a.accountId),
      ["default"],
    );
    assert.equal(gw.calls(), 4);
  } finally {
    await gw.close();
  }
});

test("NOT_LEADER without RetryInfo backs off from 250 ms", async () => {
  const gw = await standby(1, "NOT_LEADER", undefined);
  try {
    const client = await Client.connect({ address: gw.address });
    const start = Date.now();
    await client.accounts();
    assert.ok(Date.now() - start >= 125, `${Date.now() - start} ms`);
    assert.equal(gw.calls(), 2);
  } finally {
    await gw.close();
  }
});

test("with NOT_LEADER retry off the refusal comes back, its leader readable", async () => {
  const gw = await standby(1, "NOT_LEADER", 20);
  try {
    const client = await Client.connect({ address: gw.address, notLeaderRetryBudgetMs: 0 });
    const err = await client.accounts().then(
      () => assert.fail("no refusal"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof GatewayError);
    assert.ok(err.isNotLeader && isNotLeader(err));
    assert.equal(err.code, Code.Unavailable);
    assert.equal(err.leader, "gw-a");
    assert.equal(err.advertise, "10.0.0.1:50051");
    assert.equal(err.metadata["account_id"], "default");
    assert.equal(err.retryDelayMs, 20);
    assert.equal(gw.calls(), 1);
  } finally {
    await gw.close();
  }
});

test("the budget and the deadline end NOT_LEADER retries with the last refusal", async () => {
  const gw = await standby(Number.MAX_SAFE_INTEGER, "NOT_LEADER", 20);
  try {
    let client = await Client.connect({ address: gw.address, notLeaderRetryBudgetMs: 150 });
    let err = await client.accounts().then(() => assert.fail("no refusal"), (e: unknown) => e);
    assert.ok(isNotLeader(err), String(err));
    assert.ok(gw.calls() >= 3 && gw.calls() <= 9, `${gw.calls()} calls`);
    const before = gw.calls();
    client = await Client.connect({ address: gw.address, timeoutMs: 100 });
    const start = Date.now();
    err = await client.accounts().then(() => assert.fail("no refusal"), (e: unknown) => e);
    assert.ok(isNotLeader(err), String(err));
    assert.ok(Date.now() - start < 1000);
    assert.ok(gw.calls() - before >= 2, `${gw.calls() - before} calls`);
  } finally {
    await gw.close();
  }
});

test("other UNAVAILABLE reasons are not retried", async () => {
  const gw = await standby(1, "ACCOUNT_OFFLINE", 20);
  try {
    const client = await Client.connect({ address: gw.address });
    const err = await client.accounts().then(() => assert.fail("no refusal"), (e: unknown) => e);
    assert.ok(err instanceof GatewayError);
    assert.equal(err.reason, "ACCOUNT_OFFLINE");
    assert.ok(!err.isNotLeader && !isNotLeader(err));
    assert.equal(err.leader, undefined);
    assert.equal(gw.calls(), 1);
  } finally {
    await gw.close();
  }
});
