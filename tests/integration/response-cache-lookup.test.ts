// The response cache's lookups from PostgreSQL (server/response-cache/entries.ts): the keys asked
// for in one turn go in one prepared statement, each key looked up on its own. Each call gets its
// own key's live entry: not another workspace's or scope's with the same hash, not an expired one,
// nothing for a key never stored. The pools' sessions plan it once, generically, for any keys.
// New entries: found by their process at once, written behind.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { findEntry, LOOKUP_SQL, storeEntry } from "../../server/response-cache/entries";
import { answerText, wantText } from "../../server/kernel/answer-text";
import { behindPool, writePool } from "../../server/infra/db/write-pool";

async function insert(workspaceId: string, scope: string, hash: string, body: unknown, expiresInMs: number): Promise<void> {
  await writePool().query(
    `INSERT INTO "ResponseCacheEntry" ("workspaceId", "scope", "hash", "route", "modelId", "kind", "body", "bytes", "inputTokens", "outputTokens", "cost", "expiresAt")
     VALUES ($1, $2, $3, 'chat', 'm', 'json', convert_to($4, 'UTF8'), length($4), 3, 4, '0.000001', (now() + $5 * interval '1 millisecond') AT TIME ZONE 'UTC')`,
    [workspaceId, scope, hash, JSON.stringify(body), expiresInMs],
  );
}

describe("the response cache's lookups in PostgreSQL", () => {
  it("answers each key of one batch with its own live entry, and nothing for the others", async () => {
    for (let round = 0; round < 8; round++) {
      const [a, b] = [`ws-a-${randomUUID()}`, `ws-b-${randomUUID()}`];
      await insert(a, "", "h1", { from: "a" }, 60_000);
      await insert(b, "", "h1", { from: "b" }, 60_000);
      await insert(a, "key:k1", "h2", { from: "a's key" }, 60_000);
      await insert(a, "", "h3", { from: "expired" }, -1_000);
      // In one turn of the event loop: one statement for all six.
      const found = await Promise.all([
        findEntry(a, "", "h1"),
        findEntry(b, "", "h1"),
        findEntry(a, "", "h2"),
        findEntry(a, "key:k1", "h2"),
        findEntry(a, "", "h3"),
        findEntry(a, "", "never"),
      ]);
      expect(found.map((e) => (e?.answer.kind === "json" ? e.answer.body : null)), `round ${round}`).toEqual([
        { from: "a" },
        { from: "b" },
        null,
        { from: "a's key" },
        null,
        null,
      ]);
      expect(found[0]).toMatchObject({ workspaceId: a, scope: "", hash: "h1", route: "chat", modelId: "m", inputTokens: 3, outputTokens: 4 });
      expect(Number(found[0]!.cost)).toBe(0.000001);
    }
  });
});

describe("the write pools' sessions", () => {
  it("plan the lookup once, generically, though its custom plans look cheaper to PostgreSQL", async () => {
    for (const pool of [writePool(), behindPool()]) {
      const client = await pool.connect();
      try {
        expect((await client.query("SHOW plan_cache_mode")).rows[0].plan_cache_mode).toBe("force_generic_plan");
        const name = `lookup-${randomUUID()}`;
        for (let i = 0; i < 8; i++) await client.query({ name, text: LOOKUP_SQL, values: [[`ws-${i}`], [""], ["h"]] });
        const [plans] = (await client.query("SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = $1", [name])).rows;
        expect(plans).toEqual({ generic: 8, custom: 0 });
      } finally {
        client.release();
      }
    }
  });
});

describe("the response cache's new entries", () => {
  const entry = (workspaceId: string, body: unknown) => ({
    workspaceId,
    scope: "",
    hash: "h",
    route: "chat",
    modelId: "m",
    apiKeyId: null,
    answer: { kind: "json" as const, body },
    inputTokens: 3,
    outputTokens: 4,
    cost: "0.000001",
    expiresAt: Date.now() + 60_000,
  });
  const stored = async (workspaceId: string) =>
    (await writePool().query<{ body: string }>(`SELECT convert_from("body", 'UTF8') AS body FROM "ResponseCacheEntry" WHERE "workspaceId" = $1`, [workspaceId])).rows.map((r) => r.body);

  it("are found by their process before their statement ran, and the table gets the text the answer went out as", async () => {
    const ws = `ws-${randomUUID()}`;
    const body = { id: "chatcmpl-1", choices: [{ message: { role: "assistant", content: "hi" } }] };
    wantText(body);
    const sent = answerText(body); // what the transport wrote
    const written = storeEntry(entry(ws, body), false);
    body.choices[0]!.message.content = "changed after it went out"; // the table keeps what went out
    expect(await stored(ws)).toEqual([]); // not in the table yet
    expect((await findEntry(ws, "", "h"))?.answer).toEqual({ kind: "json", body });
    await written;
    expect(await stored(ws)).toEqual([sent]);
    expect(sent).toContain('"content":"hi"');
    expect((await findEntry(ws, "", "h"))?.answer).toEqual({ kind: "json", body });
  });

  it("a refreshed answer replaces the one this process kept, and one nobody asked for is serialised as it is", async () => {
    const ws = `ws-${randomUUID()}`;
    await storeEntry(entry(ws, { v: 1 }), false);
    expect((await findEntry(ws, "", "h"))?.answer).toEqual({ kind: "json", body: { v: 1 } }); // kept in memory now
    const written = storeEntry(entry(ws, { v: 2 }), true);
    expect((await findEntry(ws, "", "h"))?.answer).toEqual({ kind: "json", body: { v: 2 } });
    await written;
    expect(await stored(ws)).toEqual([JSON.stringify({ v: 2 })]);
  });
});
