// The README's examples, one function per RPC. Everything between a `// region: <name>` and
// `// endregion` line is copied verbatim into README.md (test/readme.test.ts checks it) and run
// by test/e2e.test.ts against a real gateway.

import { Client } from "../src/index.js";

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
  const status = await client.health(); // or client.health("onebot.gateway.v1.account.default")
  console.log("gateway:", status); // SERVING
  // endregion
  return status;
}

export async function accounts(client: Client): Promise<string[]> {
  // region: accounts
  const accounts = await client.accounts();
  for (const account of accounts) {
    console.log(account.accountId, account.nickname, account.groups);
  }
  // endregion
  return accounts.map((a) => a.accountId);
}
