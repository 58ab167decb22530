// The request log with several gateway instances on one database: calls answered by two
// instances are logged once each, none lost, none twice; and the calls an instance answered but
// had not written yet when it was killed with SIGKILL, the instant after its last answer, are
// written by another process from its spool.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listLogs } from "../../server/request-log/list-logs";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { newWorkspace, until } from "../helpers";

const MODEL = "local-chat-sim";
let a: GatewayInstance;
let b: GatewayInstance;

beforeAll(async () => {
  [a, b] = await Promise.all([startGatewayInstance(), startGatewayInstance()]);
}, 120_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

async function chat(instance: GatewayInstance, secret: string, content: string): Promise<string> {
  const res = await fetch(`${instance.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content }], max_tokens: 8 }),
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get("x-request-id")!;
}

async function allLogs(workspaceId: string, atLeast: number): Promise<string[]> {
  const { value } = await until(() => listLogs(workspaceId, { limit: 500 }), (r) => r.logs.length >= atLeast, 30_000);
  return value.logs.map((l) => l.request_id);
}

describe("the request log across instances", () => {
  it("two instances log every call they answered once: none lost, none twice", async () => {
    const { workspace, secret } = await newWorkspace("5");
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => chat(i % 2 ? a : b, secret, `call ${i}`)));
    const logged = await allLogs(workspace.id, 40);
    expect(logged).toHaveLength(40);
    expect(new Set(logged)).toEqual(new Set(ids));
  });

  it("an instance killed before writing its rows loses none of the calls it answered", async () => {
    // Rows wait a minute to be written: when the instance is killed they are only in its spool.
    const spool = mkdtempSync(path.join(tmpdir(), "log-spool-"));
    const slow = await startGatewayInstance({ env: { USAGE_SPOOL_DIR: spool, LOG_FLUSH_MS: "60000" } });
    const { workspace, secret } = await newWorkspace("5");
    const ids: string[] = [];
    try {
      for (let i = 0; i < 5; i++) ids.push(await chat(slow, secret, `answered ${i}`));
    } finally {
      // At once: a row's answer ends only once the row is down in the spool.
      await slow.kill();
    }
    expect((await listLogs(workspace.id, {})).logs).toEqual([]);
    // The next process started on the host with the same spool folder replays it.
    const next = await startGatewayInstance({ env: { USAGE_SPOOL_DIR: spool } });
    try {
      const logged = await allLogs(workspace.id, 5);
      expect(logged.sort()).toEqual([...ids].sort());
    } finally {
      await next.stop();
    }
  }, 90_000);
});
