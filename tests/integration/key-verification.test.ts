// The key cache's rules, checked in-process against the real database.
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { env } from "../../server/infra/env";
import { keyCacheStats } from "../../server/identity/keys/key-cache-stats";
import { revokeKey } from "../../server/identity/keys/revoke-key";
import { verifyKey } from "../../server/identity/keys/verify-key";
import { authenticateBearer } from "../../server/pipeline/authenticate";
import { createKey } from "../../server/identity/keys/create-key";
import { newWorkspace } from "../helpers";

describe("API key verification", () => {
  it("resolves a key to its own workspace and key", async () => {
    const a = await newWorkspace("1", "A");
    const b = await newWorkspace("1", "B");
    expect(await authenticateBearer(`Bearer ${a.secret}`, true)).toEqual({ kind: "api_key", workspaceId: a.workspace.id, keyId: a.key.id, keyName: a.key.name, planId: null });
    expect(await authenticateBearer(`Bearer ${b.secret}`, true)).toEqual({ kind: "api_key", workspaceId: b.workspace.id, keyId: b.key.id, keyName: b.key.name, planId: null });
  });

  it("a warm key costs no database round trip", async () => {
    const { secret } = await newWorkspace();
    await verifyKey(secret);
    const before = keyCacheStats.databaseLoads;
    for (let i = 0; i < 200; i++) expect((await verifyKey(secret)).valid).toBe(true);
    expect(keyCacheStats.databaseLoads).toBe(before);
  });

  it("malformed keys never reach the database", async () => {
    const before = keyCacheStats.databaseLoads;
    expect(await verifyKey("sk-gw-short")).toEqual({ valid: false, reason: "malformed" });
    expect(await verifyKey("sk-other-" + "a".repeat(40))).toEqual({ valid: false, reason: "malformed" });
    expect(keyCacheStats.databaseLoads).toBe(before);
  });

  it("a revocation that was never notified still takes effect within the max age", async () => {
    const { secret, key } = await newWorkspace();
    expect((await verifyKey(secret)).valid).toBe(true);
    // Simulate a lost notification: revoke behind the cache's back.
    await db.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    const start = Date.now();
    let result = await verifyKey(secret);
    while (result.valid && Date.now() - start < 10_000) {
      await new Promise((r) => setTimeout(r, 50));
      result = await verifyKey(secret);
    }
    expect(result).toEqual({ valid: false, reason: "revoked" });
    expect(Date.now() - start).toBeLessThanOrEqual(env.KEY_CACHE_MAX_AGE_MS + 500);
    expect(env.KEY_CACHE_MAX_AGE_MS).toBeLessThanOrEqual(5000);
  });

  it("a notified revocation takes effect at once", async () => {
    const { secret, key } = await newWorkspace();
    expect((await verifyKey(secret)).valid).toBe(true);
    await revokeKey(key.id);
    const start = Date.now();
    let result = await verifyKey(secret);
    while (result.valid && Date.now() - start < 5000) {
      await new Promise((r) => setTimeout(r, 10));
      result = await verifyKey(secret);
    }
    expect(result).toEqual({ valid: false, reason: "revoked" });
    expect(Date.now() - start).toBeLessThan(1000);
  });

  it("an expired key stops working the moment it expires, even while cached", async () => {
    const { workspace } = await newWorkspace();
    const { secret } = await db.$transaction((tx) =>
      createKey(tx, { workspaceId: workspace.id, name: "short-lived", expiresAt: new Date(Date.now() + 600) }),
    );
    expect((await verifyKey(secret)).valid).toBe(true);
    await new Promise((r) => setTimeout(r, 700));
    expect(await verifyKey(secret)).toEqual({ valid: false, reason: "expired" });
  });

  it("revokeKey scoped to a workspace cannot revoke another workspace's key", async () => {
    const a = await newWorkspace("1", "A");
    const b = await newWorkspace("1", "B");
    await expect(revokeKey(b.key.id, a.workspace.id)).rejects.toMatchObject({ status: 404, code: "key_not_found" });
    expect((await verifyKey(b.secret)).valid).toBe(true);
  });
});
