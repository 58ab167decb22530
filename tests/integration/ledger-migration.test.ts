// Upgrading a database written before the ledger: the migration writes the movements of its
// credits, usage and video jobs, so every balance is the sum of its movements from the start (a
// balance that had drifted gets a visible adjustment). Runs on a database of its own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../../server/infra/db/embedded";
import { openSchemaEngine, readMigrationList } from "../../server/infra/db/schema-engine";

const LEDGER_MIGRATION = "20261123143804_ledger_movements";
let database: EmbeddedDatabase;
let dir: string;

/** Applies the migrations before `upTo` (or up to and including it, with `including`). */
async function migrate(url: string, upTo: string, including = false): Promise<string[]> {
  const { engine, close } = await openSchemaEngine(url);
  try {
    const list = await readMigrationList();
    const cut = list.migrationDirectories.findIndex((m) => m.path === upTo);
    if (cut < 0) throw new Error(`no migration ${upTo}`);
    list.migrationDirectories = list.migrationDirectories.slice(0, including ? cut + 1 : cut);
    const out = await engine.applyMigrations({ migrationsList: list, filters: { externalTables: [], externalEnums: [] } });
    return out.appliedMigrationNames;
  } finally {
    await close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "ledger-migration-"));
  database = await startEmbeddedDatabase(dir);
}, 120_000);

afterAll(async () => {
  await database?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("ledger migration", () => {
  it("writes the movements of what happened before it; a drifted balance gets an adjustment", async () => {
    const before = await migrate(database.url, LEDGER_MIGRATION);
    expect(before).not.toContain(LEDGER_MIGRATION);
    const c = new pg.Client({ connectionString: database.url });
    await c.connect();
    try {
      // As the gateway wrote them before the ledger: ws_a consistent (10 credited, 0.3 and 1 charged,
      // 2 held by a running video), ws_b drifted (2 credited, balance 1).
      await c.query(`INSERT INTO "Workspace" (id, name, balance, "updatedAt") VALUES ('ws_a', 'a', 6.7, now()), ('ws_b', 'b', 1, now())`);
      await c.query(`INSERT INTO "ApiKey" (id, "workspaceId", name, hash, prefix, spent) VALUES ('key_a', 'ws_a', 'k', 'h', 'p', 0.3)`);
      await c.query(`INSERT INTO "CreditLedgerEntry" (id, "workspaceId", kind, amount) VALUES ('cred_1', 'ws_a', 'credit', 10), ('cred_2', 'ws_b', 'credit', 2)`);
      await c.query(`INSERT INTO "UsageEvent" (id, "workspaceId", "apiKeyId", "modelId", endpoint, cost)
        VALUES ('req_1', 'ws_a', 'key_a', 'm', '/v1/chat/completions', 0.3), ('video-1', 'ws_a', NULL, 'v', '/v1/videos', 1)`);
      await c.query(`INSERT INTO "VideoJob" (id, "workspaceId", "modelId", prompt, seconds, size, fps, status, "pricePerVideoSecond", "priceMultiplier", "reservedAmount", cost)
        VALUES ('video-1', 'ws_a', 'v', 'p', 4, '1x1', 24, 'completed', 1, 1, 2, 1), ('video-2', 'ws_a', 'v', 'p', 4, '1x1', 24, 'failed', 1, 1, 2, NULL),
               ('video-3', 'ws_a', 'v', 'p', 4, '1x1', 24, 'in_progress', 1, 1, 2, NULL)`);

      expect(await migrate(database.url, LEDGER_MIGRATION, true)).toEqual([LEDGER_MIGRATION]);

      const { rows: balances } = await c.query(`SELECT w.id, trim_scale(w.balance)::text AS balance,
          trim_scale((SELECT SUM(amount) FROM "BalanceMovement" m WHERE m."workspaceId" = w.id))::text AS movements
        FROM "Workspace" w ORDER BY w.id`);
      expect(balances).toEqual([
        { id: "ws_a", balance: "6.7", movements: "6.7" },
        { id: "ws_b", balance: "1", movements: "1" },
      ]);
      const { rows: movements } = await c.query(`SELECT id, kind::text, trim_scale(amount)::text AS amount FROM "BalanceMovement" WHERE "workspaceId" = 'ws_a' ORDER BY id`);
      expect(movements).toEqual([
        { id: "credit:cred_1", kind: "credit", amount: "10" },
        { id: "usage:req_1", kind: "usage", amount: "-0.3" },
        { id: "usage:video-1", kind: "usage", amount: "-1" },
        { id: "video_release:video-1", kind: "video_settle", amount: "2" },
        { id: "video_release:video-2", kind: "video_release", amount: "2" },
        { id: "video_reserve:video-1", kind: "video_reserve", amount: "-2" },
        { id: "video_reserve:video-2", kind: "video_reserve", amount: "-2" },
        { id: "video_reserve:video-3", kind: "video_reserve", amount: "-2" },
      ]);
      const { rows: spent } = await c.query(`SELECT trim_scale(-SUM(amount))::text AS usage FROM "BalanceMovement" WHERE "apiKeyId" = 'key_a' AND kind = 'usage'`);
      expect(spent).toEqual([{ usage: "0.3" }]);
      const { rows: adjustment } = await c.query(`SELECT kind::text, trim_scale(amount)::text AS amount FROM "CreditLedgerEntry" WHERE "workspaceId" = 'ws_b' AND kind = 'adjustment'`);
      expect(adjustment).toEqual([{ kind: "adjustment", amount: "-1" }]);
    } finally {
      await c.end();
    }
  }, 120_000);
});
