// End-to-end: the TypeScript SDK against a real gateway on its sandbox peer
// (scripts/sdk-tests.sh sets ONEBOT_GATEWAY_ADDR).

import assert from "node:assert/strict";
import { before, test } from "node:test";

import { Code } from "@connectrpc/connect";

import * as examples from "../examples/readme_examples.js";
import { Client, GatewayError } from "../src/index.js";

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

test("accounts", async () => {
  const ids = await examples.accounts(client);
  assert.equal(new Set(ids).size, ids.length);
});

test("an unreachable gateway is a GatewayError", async () => {
  const down = await Client.connect({ address: "http://127.0.0.1:1", timeoutMs: 5000 });
  await assert.rejects(down.accounts(), (err: unknown) => {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, Code.Unavailable);
    return true;
  });
});
