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

afterEach(() => vi.restoreAllMocks());
afterAll(async () => {
  await db.model.deleteMany({ where: { id: MODEL } });
  if (nodeId) await removeNode(nodeId).catch(() => undefined);
});

describe("catalog and node registry past their TTL", () => {
  it("the catalog held is served at once while it is read again; the change made without a notification is seen after", async () => {
    await db.model.create({ data: cardToRow({ ...chatModelCard(MODEL), display_name: "before" }) });
    invalidateCatalog();
    const held = await getCatalog();
    expect(held.byId.get(MODEL)?.row.displayName).toBe("before");

    await db.model.update({ where: { id: MODEL }, data: { displayName: "after" } }); // no NOTIFY
    ahead(6000);
    // Past the TTL: the same catalog, without waiting for the database.
    expect(await getCatalog()).toBe(held);
    // The read behind it lands: the change is seen.
    const seen = await until(async () => (await getCatalog()).byId.get(MODEL)?.row.displayName, (name) => name === "after", 5000);
    expect(seen.value).toBe("after");

    // A notified change (invalidation): the next call waits for the read and sees it.
    await db.model.update({ where: { id: MODEL }, data: { displayName: "notified" } });
    invalidateCatalog();
    expect((await getCatalog()).byId.get(MODEL)?.row.displayName).toBe("notified");
  });

  it("the nodes held are served at once while they are read again; a weight changed without a notification is seen after", async () => {
    const { node } = await addNode({ name: `catalog-ttl-${Math.random().toString(36).slice(2, 8)}`, url: "http://127.0.0.1:9/v1", city: "Lyon", country: "FR", discover: false });
    nodeId = node.id;
    invalidateNodes();
    const held = await getRoutableNodes();
    expect(held.find((n) => n.id === nodeId)?.weight).toBe(1);

    await db.node.update({ where: { id: nodeId }, data: { weight: 7 } }); // no NOTIFY
    ahead(6000);
    expect(await getRoutableNodes()).toBe(held);
    const seen = await until(async () => (await getRoutableNodes()).find((n) => n.id === nodeId)?.weight, (w) => w === 7, 5000);
    expect(seen.value).toBe(7);
  });
});
