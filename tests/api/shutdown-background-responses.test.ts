// A background response whose process was killed (SIGKILL: no shutdown of any kind) is failed,
// uncharged, soon after the next start, while a background response running on a live
// instance is left alone and completes.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { Channel, notify } from "../../server/infra/db/notify";
import { freePort } from "../../server/infra/net/free-port";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { checkNode } from "../../server/routing/nodes/health-check";
import { addNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { newWorkspace, until } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";

const MODEL = "test-shutdown-background-chat";

/** A node that holds every completion until `answerAll` (then answers them, and later ones at once). */
async function startHoldingNode() {
  const held: (() => void)[] = [];
  let holding = true;
  const server: Server = createServer((req, res) => {
    if (req.url === "/v1/models") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: MODEL, object: "model" }] }));
    req.resume();
    req.on("end", () => {
      const answer = () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            id: "chatcmpl-held",
            object: "chat.completion",
            created: 1,
            model: MODEL,
            choices: [{ index: 0, message: { role: "assistant", content: "at last" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
          }),
        );
      };
      if (holding) held.push(answer);
      else answer();
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${port}/v1`,
    held: () => held.length,
    answerAll: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

const instances: GatewayInstance[] = [];
let node: Awaited<ReturnType<typeof startHoldingNode>>;
/** Calls wait for the held node's answer, not for a first-byte timeout. */
const start = async () => {
  const instance = await startGatewayInstance({ env: { UPSTREAM_FIRST_BYTE_TIMEOUT_MS: "120000" } });
  instances.push(instance);
  return instance;
};

beforeAll(async () => {
  node = await startHoldingNode();
  await db.model.create({ data: cardToRow(chatModelCard(MODEL)) });
  const { node: row } = await addNode({ name: `bg-lost-${Math.random().toString(36).slice(2, 8)}`, url: node.url, city: "Lyon", country: "FR" });
  await checkNode({ id: row.id, baseUrl: node.url, apiKeyEncrypted: null, status: "unknown" });
  await notify(db, Channel.catalogChanged);
  await notify(db, Channel.nodesChanged);
});

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill()));
  await db.node.deleteMany({ where: { baseUrl: node?.url } });
  await db.model.deleteMany({ where: { id: MODEL } });
  await notify(db, Channel.nodesChanged);
  await notify(db, Channel.catalogChanged);
  await node?.close();
});

async function createBackground(url: string, secret: string): Promise<string> {
  // The instance may not route to the new node yet: retried until it accepts the response.
  const created = await until(
    async () => {
      const res = await fetch(`${url}/v1/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, input: "take your time", background: true }),
      });
      return { status: res.status, body: (await res.json()) as { id: string } };
    },
    (r) => r.status === 200,
    10_000,
  );
  expect(created.value.status).toBe(200);
  return created.value.body.id;
}

const statusOf = async (id: string) => (await db.storedResponse.findUniqueOrThrow({ where: { id } })).status;

describe("a background response whose process was killed", () => {
  it("is failed (background_interrupted), uncharged, within a minute of the next start; one running on a live instance is not touched", async () => {
    const { secret, workspace } = await newWorkspace("1", "background lost");
    const [doomed, alive] = await Promise.all([start(), start()]);
    const lostId = await createBackground(doomed.url, secret);
    const liveId = await createBackground(alive.url, secret);
    await until(async () => node.held(), (n) => n >= 2, 10_000);
    expect(await statusOf(lostId)).toBe("in_progress");

    await doomed.kill();
    const next = await start();
    const startedAt = Date.now();
    const failed = await until(() => statusOf(lostId), (s) => s === "failed", 60_000);
    expect(failed.value, next.output()).toBe("failed");
    console.log(`the lost background response was failed ${Date.now() - startedAt} ms after the next start`);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    const lost = await db.storedResponse.findUniqueOrThrow({ where: { id: lostId } });
    expect((lost.error as { code: string }).code).toBe("background_interrupted");
    // Its run holds no lock any more, but the live one does: it survived every sweep so far.
    expect(await statusOf(liveId)).toBe("in_progress");

    // ...and completes once the node answers; only it is billed.
    node.answerAll();
    await until(() => statusOf(liveId), (s) => s === "completed", 10_000);
    expect(await statusOf(liveId)).toBe("completed");
    expect(await statusOf(lostId)).toBe("failed");
    // A background response is settled first and charged right after (background.ts).
    const charged = await until(() => db.usageEvent.findMany({ where: { workspaceId: workspace.id } }), (e) => e.length > 0, 10_000);
    expect(charged.value.map((e) => e.id)).toEqual([liveId]);
    // What the API shows of the lost one.
    const res = await fetch(`${next.url}/v1/responses/${lostId}`, { headers: { authorization: `Bearer ${secret}` } });
    const body = (await res.json()) as { status: string; error: { code: string } };
    expect([body.status, body.error.code]).toEqual(["failed", "background_interrupted"]);
  }, 120_000);
});
