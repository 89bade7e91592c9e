// Offline tests: error details decoding and upload input checks.

import assert from "node:assert/strict";
import { test } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";

import { Client, ErrorReason, GatewayError } from "../src/index.js";
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

test("uploading a missing file fails before any call", async () => {
  const client = await Client.connect({ address: "http://127.0.0.1:1" });
  await assert.rejects(client.upload("/nonexistent/x.png", "image"), /ENOENT/);
});

test("a missing CA file fails at connect", async () => {
  await assert.rejects(Client.connect({ address: "http://127.0.0.1:1", caFile: "/nonexistent/ca.pem" }), /ENOENT/);
});
