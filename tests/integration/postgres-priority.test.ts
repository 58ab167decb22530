// The embedded database's backends that write behind the answers yield the CPU: lowerProcess sets
// a backend's nice and its own autogroup's (each backend leads a session of its own), never the
// caller's; and the gateway's serving processes lower their pool's backends that way, with the
// embedded database only.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startEmbeddedDatabase } from "../../server/infra/db/embedded";
import { lowerProcess } from "../../server/infra/db/postgres-priority";
import { BEHIND_POOL_NAME, WRITE_POOL_NAME } from "../../server/infra/db/write-pool";
import { newWorkspace, until } from "../helpers";

const dir = mkdtempSync(path.join(tmpdir(), "gateway-pg-nice-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hasAutogroups = existsSync("/proc/self/autogroup");
const autogroup = (pid: number | "self") => readFileSync(`/proc/${pid}/autogroup`, "utf8").trim();
/** A local process's nice; null for one not on this machine. */
const niceOf = (pid: number) => {
  try {
    return getPriority(pid);
  } catch {
    return null;
  }
};
const backendPid = async (c: pg.Client) => (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;

describe("a PostgreSQL backend's CPU priority", () => {
  it("lowers the backend and its own autogroup, not another backend, and not the caller's", async () => {
    const ownPriority = getPriority();
    const ownGroup = hasAutogroups ? autogroup("self") : null;
    const database = await startEmbeddedDatabase(path.join(dir, "data"));
    const lowered = new pg.Client({ connectionString: database.url });
    const other = new pg.Client({ connectionString: database.url });
    try {
      await lowered.connect();
      await other.connect();
      const [a, b] = [await backendPid(lowered), await backendPid(other)];
      const otherBefore = getPriority(b);
      lowerProcess(a, 10);
      expect(getPriority(a)).toBe(10);
      expect(getPriority(b)).toBe(otherBefore);
      if (hasAutogroups) {
        expect(autogroup(a)).toMatch(/nice 10$/);
        expect(autogroup(b)).not.toMatch(/nice 10$/);
        expect(autogroup("self")).toBe(ownGroup);
      }
      expect(getPriority()).toBe(ownPriority);
      // Still a working session.
      expect((await lowered.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await lowered.end();
      await other.end();
      await database.stop();
    }
  }, 60_000);

  it("the serving processes' writes behind the answers run at nice 10 on the embedded database, their other writes as they were", async () => {
    const { openai } = await newWorkspace();
    await openai.chat.completions.create({ model: "local-chat-sim", messages: [{ role: "user", content: "hi" }], max_tokens: 4 });
    const db = new pg.Client({ connectionString: inject("databaseUrl") });
    await db.connect();
    try {
      const sessions = async (name: string) => (await db.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE application_name = $1", [name])).rows.map((r) => r.pid);
      // Test files' own processes may hold such sessions too, at their own setting (none): the gateway's are among them.
      const niced = async () => (await sessions(BEHIND_POOL_NAME)).filter((pid) => niceOf(pid) === 10);
      const { value } = await until(niced, (pids) => pids.length > 0, 10_000);
      expect(value.length > 0).toBe(inject("embeddedDatabase"));
      for (const pid of await sessions(WRITE_POOL_NAME)) expect(niceOf(pid)).not.toBe(10);
    } finally {
      await db.end();
    }
  });
});
