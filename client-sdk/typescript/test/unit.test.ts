// Offline tests: error details decoding and upload input checks.

import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import { ApprovalState, Client, ErrorReason, GatewayError, isApprovalOpen } from "../src/index.js";
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
