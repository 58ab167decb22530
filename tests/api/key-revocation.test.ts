// A revoked key must stop working within 1 second on every gateway instance. Here the key is
// revoked by a process that is not a gateway (as the CLI does), so every instance hears of it
// only through the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import { baseUrl, newWorkspace, raw } from "../helpers";
import { startGatewayInstance, watchPropagation, type GatewayInstance } from "../instances";

const WITHIN_MS = 1000;
let second: GatewayInstance;

beforeAll(async () => {
  second = await startGatewayInstance();
});

afterAll(async () => {
  await second?.stop();
});

describe("key revocation across instances", () => {
  it(`both instances accept a key, and both refuse it within ${WITHIN_MS} ms of its revocation`, async () => {
    const { secret, key } = await newWorkspace();
    const instances = [baseUrl(), second.url];
    const status = (base: string) =>
      fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then(async (r) => (await r.body?.cancel(), r.status));
    for (const base of instances) expect(await status(base)).toBe(200);
    const since = performance.now();
    const watching = Promise.all(instances.map((base) => watchPropagation(since, () => status(base), (s) => s === 401)));
    await revokeKey(key.id);
    const committedMs = performance.now() - since;
    const results = await watching;
    for (const r of results) {
      expect(r.seen).toBe(401);
      // No call sent 1 s or more after the revocation was committed was still accepted.
      expect(r.lastStaleMs - committedMs).toBeLessThan(WITHIN_MS);
    }
    const body = await (await raw("/v1/models", { key: secret })).json();
    expect(body.error).toMatchObject({ code: "invalid_api_key", message: expect.stringContaining("revoked") });
  });
});
