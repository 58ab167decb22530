// The routes the benches call: `bench-route` (one target, the mock model: a routed call against a
// call naming its model) and `bench-failover` (first the rate-limited mock model, which answers 429
// at once, then the mock model: a failover on every call). Gateway-wide routes written straight to
// the bench's database and notified, and the rate-limited mock registered as a node.
import type pg from "pg";
import { checkAllNodes } from "../../server/routing/nodes/health-check";
import { registerNode } from "../../server/routing/nodes/register-node";
import { MOCK_LIMITED_MODEL, MOCK_MODEL } from "../mock-upstream";

const route = (name: string, models: string[]) => ({ name, strategy: "fallback", targets: models.map((model) => ({ model, weight: 1 })), conditions: [], max_wait_ms: 2000, exploration: 0.05, prefer_region: false });

export async function benchRoutes(db: pg.Client, limitedV1: string, routable: (body: string) => Promise<void>): Promise<void> {
  await registerNode({ name: "mock-limited", url: limitedV1, apiKey: "mock-key", city: "Frankfurt", country: "DE" });
  await checkAllNodes();
  for (const r of [route("bench-route", [MOCK_MODEL]), route("bench-failover", [MOCK_LIMITED_MODEL, MOCK_MODEL])]) {
    await db.query(`INSERT INTO "Route" ("scope", "name", "definition", "updatedAt") VALUES ('*', $1, $2, now()) ON CONFLICT DO NOTHING`, [r.name, JSON.stringify(r)]);
  }
  await db.query(`SELECT pg_notify('gateway_routes_changed', '*')`);
  for (const name of ["bench-route", "bench-failover"]) await routable(JSON.stringify({ model: name, messages: [{ role: "user", content: "hi" }], max_tokens: 4 }));
}
