// A revoked key must stop working within 5 seconds on every gateway instance.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { freePort } from "../../server/infra/net/free-port";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import { spawnGateway, stopChild, waitForHttp, type Child } from "../../scripts/lib/processes";
import { newWorkspace, raw, until } from "../helpers";

let second: Child;
let secondUrl: string;

beforeAll(async () => {
  const port = await freePort();
  second = spawnGateway(
    { port, host: "127.0.0.1", distDir: ".next-test", env: { DATABASE_URL: inject("databaseUrl"), DATA_DIR: process.env.DATA_DIR! } },
    "ignore",
  );
  secondUrl = `http://127.0.0.1:${port}`;
  await waitForHttp(`${secondUrl}/health`, second);
});

afterAll(async () => {
  await stopChild(second);
});

describe("key revocation across instances", () => {
  it("both instances accept a key, and both refuse it within 5 s of its revocation", async () => {
    const { secret, key } = await newWorkspace();
    const instances = [inject("baseUrl"), secondUrl];
    const status = (base: string) => fetch(`${base}/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    for (const base of instances) expect(await status(base)).toBe(200);
    await revokeKey(key.id);
    const results = await Promise.all(instances.map((base) => until(() => status(base), (s) => s === 401, 8000)));
    for (const r of results) {
      expect(r.value).toBe(401);
      expect(r.ms).toBeLessThan(5000);
    }
    const body = await (await raw("/v1/models", { key: secret })).json();
    expect(body.error).toMatchObject({ code: "invalid_api_key", message: expect.stringContaining("revoked") });
  });
});
