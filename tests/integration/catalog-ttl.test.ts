// The catalog and the node registry past their TTL: a call is served at once from what the process
// holds while they are read again behind it (no call waits for the read), and a change made
// without a notification is seen once that read is done. After a notified change, the next call
// waits for the read, so it never sees the catalog from before the change.
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { db } from "../../server/infra/db/client";
import { cardToRow } from "../../server/routing/catalog/model-row";
import { getCatalog, invalidateCatalog } from "../../server/routing/catalog/catalog-cache";
import { getRoutableNodes, invalidateNodes } from "../../server/routing/nodes/node-registry";
import { addNode, removeNode } from "../../server/routing/nodes/nodes";
import { chatModelCard } from "../fakes/chat-model-card";
import { until } from "../helpers";

const MODEL = "test-catalog-ttl-chat";
const realNow = Date.now.bind(Date);
let nodeId: string | undefined;

/** Moves this process's clock `ms` ahead (the caches' ages are read from Date.now). */
const ahead = (ms: number) => vi.spyOn(Date, "now").mockImplementation(() => realNow() + ms);

/** How many invalidations each cache has had in this process (notifications included). */
const generations = globalThis as unknown as { gatewayCatalogGeneration?: number; gatewayNodesGeneration?: number };

/**
 * Runs `scenario` until it ran without a notification arriving during it (it says so: true):
 * other test files change the catalog and the nodes of the same database at the same time, and
 * their notifications make this process read again at once, which is not what is measured here.
 */
async function undisturbed(scenario: (attempt: number) => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const done = await scenario(attempt);
    vi.restoreAllMocks();
    if (done) return;
  }
  throw new Error("every attempt was interrupted by another file's notification");
}

afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await db.model.deleteMany({ where: { id: MODEL } });
  if (nodeId) await removeNode(nodeId).catch(() => undefined);
});

describe("catalog and node registry past their TTL", () => {
  it("the catalog held is served at once while it is read again; the change made without a notification is seen after", async () => {
    await db.model.create({ data: cardToRow({ ...chatModelCard(MODEL), display_name: "start" }) });
    await undisturbed(
      async (attempt) => {
        invalidateCatalog();
        const generation = generations.gatewayCatalogGeneration; // a notification from here on makes the attempt void
        const held = await getCatalog();
        const name = held.byId.get(MODEL)?.row.displayName;
        await db.model.update({ where: { id: MODEL }, data: { displayName: `after ${attempt}` } }); // no NOTIFY
        ahead(6000);
        // Past the TTL: the same catalog, without waiting for the database.
        const served = await getCatalog();
        if (served !== held && generations.gatewayCatalogGeneration !== generation) return false; // a notification came: read again at once
        expect(served).toBe(held);
        expect(served.byId.get(MODEL)?.row.displayName).toBe(name);
        // The read behind it lands: the change is seen.
        const seen = await until(async () => (await getCatalog()).byId.get(MODEL)?.row.displayName, (n) => n === `after ${attempt}`, 5000);
        expect(seen.value).toBe(`after ${attempt}`);
        return generations.gatewayCatalogGeneration === generation;
      },
    );

    // A notified change (invalidation): the next call waits for the read and sees it.
    await db.model.update({ where: { id: MODEL }, data: { displayName: "notified" } });
    invalidateCatalog();
    expect((await getCatalog()).byId.get(MODEL)?.row.displayName).toBe("notified");
  });

  it("the nodes held are served at once while they are read again; a weight changed without a notification is seen after", async () => {
    const { node } = await addNode({ name: `catalog-ttl-${Math.random().toString(36).slice(2, 8)}`, url: "http://127.0.0.1:9/v1", city: "Lyon", country: "FR", discover: false });
    nodeId = node.id;
    await undisturbed(
      async (attempt) => {
        invalidateNodes();
        const generation = generations.gatewayNodesGeneration;
        const held = await getRoutableNodes();
        const weight = held.find((n) => n.id === nodeId)?.weight;
        expect(weight).toBeGreaterThanOrEqual(1);
        await db.node.update({ where: { id: nodeId }, data: { weight: 10 + attempt } }); // no NOTIFY
        ahead(6000);
        const served = await getRoutableNodes();
        if (served !== held && generations.gatewayNodesGeneration !== generation) return false;
        expect(served).toBe(held);
        expect(served.find((n) => n.id === nodeId)?.weight).toBe(weight);
        const seen = await until(async () => (await getRoutableNodes()).find((n) => n.id === nodeId)?.weight, (w) => w === 10 + attempt, 5000);
        expect(seen.value).toBe(10 + attempt);
        return generations.gatewayNodesGeneration === generation;
      },
    );
  });
});
