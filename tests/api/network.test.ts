// Network status is computed from the nodes that passed their last health check.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { db } from "../../server/infra/db/client";
import { freePort } from "../../server/infra/net/free-port";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { open } from "../../server/infra/secret-box";
import { raw, until } from "../helpers";

const UPSTREAM_KEY = "sk-upstream-tokyo-very-secret";
let upstream: Server;
let upstreamUrl: string;
const added: string[] = [];

beforeAll(async () => {
  // A stand-in OpenAI-compatible server that requires its own key.
  upstream = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ object: "list", data: [{ id: "local-chat-sim", object: "model" }, { id: "upstream-only", object: "model" }] }));
  });
  const port = await freePort();
  await new Promise<void>((r) => upstream.listen(port, "127.0.0.1", r));
  upstreamUrl = `http://127.0.0.1:${port}/v1`;
});

afterAll(async () => {
  for (const id of added) await removeNode(id).catch(() => undefined);
  await new Promise((r) => upstream.close(r));
});

async function status() {
  const res = await raw("/v1/network/status", { key: inject("demoKey") });
  expect(res.status).toBe(200);
  return res.json();
}

describe("GET /v1/network/status", () => {
  it("has the shape of part 2.10 and counts the built-in node's region", async () => {
    const s = await status();
    expect(s).toEqual({
      nodesOnline: expect.any(Number),
      regions: expect.any(Array),
      modelsAvailable: expect.any(Number),
      capabilities: expect.any(Object),
      legal: { geoip: "disabled" },
    });
    expect(s.nodesOnline).toBeGreaterThanOrEqual(1);
    expect(s.regions).toContainEqual({ city: "Frankfurt", country: "DE", nodes: 1, updatedAt: expect.any(String) });
    for (const r of s.regions) expect(new Date(r.updatedAt).toISOString()).toBe(r.updatedAt);
    // The built-in node's six models, one of each type, are available.
    for (const type of ["chat", "embedding", "speech", "transcription", "image", "video"]) expect(s.capabilities[type]).toBeGreaterThanOrEqual(1);
    expect(s.capabilities.tools).toBeGreaterThanOrEqual(1);
    expect(s.capabilities.json_mode).toBeGreaterThanOrEqual(1);
  });

  // Other test files add models and nodes while this one runs, so the totals are checked against
  // the database as it is at the same moment: exactly the models an online node serves.
  it("counts exactly the models that an online node serves, by type and capability", async () => {
    const fromDatabase = async () => {
      const rows = await db.model.findMany({
        // the catalog's models and the demo workspace's own fine-tuned ones (other workspaces' are not its to see)
        where: { deprecated: false, OR: [{ ownerWorkspaceId: null }, { ownerWorkspaceId: inject("demoWorkspaceId") }], nodes: { some: { node: { enabled: true, status: "online" } } } },
        select: { type: true, capTools: true, capJsonMode: true },
      });
      const capabilities: Record<string, number> = {};
      for (const r of rows) {
        capabilities[r.type] = (capabilities[r.type] ?? 0) + 1;
        if (r.capTools) capabilities.tools = (capabilities.tools ?? 0) + 1;
        if (r.capJsonMode) capabilities.json_mode = (capabilities.json_mode ?? 0) + 1;
      }
      return { modelsAvailable: rows.length, capabilities };
    };
    const agreed = await until(
      async () => ({ expected: await fromDatabase(), s: await status() }),
      ({ expected, s }) => s.modelsAvailable === expected.modelsAvailable,
      10_000,
    );
    const { expected, s } = agreed.value;
    expect(s.modelsAvailable).toBe(expected.modelsAvailable);
    expect(s.modelsAvailable).toBeGreaterThanOrEqual(6);
    for (const [name, count] of Object.entries(expected.capabilities)) expect(s.capabilities[name]).toBe(count);
  });

  // Other test files add and remove nodes at the same time, so this looks at its own regions
  // (Tokyo, Lima) rather than at the network's totals.
  it("counts a node once it passed its health check, and never one that failed it", async () => {
    const tokyoRegion = async () => (await status()).regions.find((r: { city: string }) => r.city === "Tokyo");
    const online = await addNode({ name: "tokyo-1", url: upstreamUrl, apiKey: UPSTREAM_KEY, city: "Tokyo", country: "JP" });
    added.push(online.node.id);
    const closedPort = await freePort();
    const offline = await addNode({ name: "lima-1", url: `http://127.0.0.1:${closedPort}/v1`, city: "Lima", country: "PE" });
    added.push(offline.node.id);

    // discovery linked the catalog model the upstream serves, and ignored the unknown one
    expect(online.node.models).toEqual([{ model: "local-chat-sim", upstreamModel: "local-chat-sim" }]);
    // Not counted before a health check has passed (the gateway's own checker, every 500 ms in
    // tests, may get there first: then the node must already be marked online).
    const early = await tokyoRegion();
    const checked = await db.node.findUniqueOrThrow({ where: { id: online.node.id } });
    if (early) expect(checked).toMatchObject({ status: "online", lastHealthCheckAt: expect.any(Date) });

    await checkAllNodes();
    const tokyo = await db.node.findUniqueOrThrow({ where: { id: online.node.id } });
    expect(tokyo).toMatchObject({ status: "online", lastError: null });
    const after = await status();
    // The total is the sum over the regions of the same answer.
    expect(after.nodesOnline).toBe(after.regions.reduce((n: number, r: { nodes: number }) => n + r.nodes, 0));
    expect(after.regions).toContainEqual({ city: "Tokyo", country: "JP", nodes: 1, updatedAt: expect.any(String) });
    expect(after.regions.find((r: { city: string }) => r.city === "Lima")).toBeUndefined();
    const lima = await db.node.findUniqueOrThrow({ where: { id: offline.node.id } });
    expect(lima.status).toBe("offline");
    expect(lima.lastError).toBe("connection failed");
  });

  it("keeps upstream keys encrypted at rest and out of every answer", async () => {
    const row = await db.node.findUniqueOrThrow({ where: { name: "tokyo-1" } });
    expect(row.apiKeyEncrypted).not.toContain(UPSTREAM_KEY);
    expect(open(row.apiKeyEncrypted!)).toBe(UPSTREAM_KEY);
    expect(JSON.stringify(await status())).not.toContain(UPSTREAM_KEY);
    for (const path of ["/v1/models", "/v1/models/local-chat-sim"]) {
      expect(await (await raw(path, { key: inject("demoKey") })).text()).not.toContain(UPSTREAM_KEY);
    }
  });
});
