// The embedded PostgreSQL started from a data directory its user cannot enter: as root (PostgreSQL
// then runs as `postgres`), a mode-700 folder, as a checkout in /root is. It starts, keeps its data
// across a restart, and leaves the folder's permissions as they were. Not as root, the same round
// trip in a private folder of the user's own.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startEmbeddedDatabase } from "../../server/infra/db/embedded";
import { SHARED_DIR } from "../../server/infra/db/postgres-as-root";

const root = userInfo().uid === 0;
const home = mkdtempSync(path.join(tmpdir(), "gateway-private-"));
const privateDir = path.join(home, "private");
mkdirSync(privateDir, { mode: 0o700 });
const dataDir = path.join(privateDir, "checkout", ".data");
const logs: string[] = [];

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** The shared cluster folders made for this test's data directory. */
function sharedClusters(): string[] {
  const dir = path.join(SHARED_DIR, "clusters");
  let names: string[] = [];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".owner"));
  } catch {
    return [];
  }
  return names.filter((n) => readFileSync(path.join(dir, n), "utf8").trim().startsWith(home)).map((n) => path.join(dir, n.replace(/\.owner$/, "")));
}

afterAll(() => {
  for (const cluster of sharedClusters()) {
    rmSync(cluster, { recursive: true, force: true });
    rmSync(`${cluster}.owner`, { force: true });
  }
  rmSync(home, { recursive: true, force: true });
});

describe("the embedded database in a private folder", () => {
  it("starts, keeps its data across a restart, and changes no folder's permissions", async () => {
    const first = await startEmbeddedDatabase(dataDir, (line) => logs.push(line));
    try {
      await query(first.url, "CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')");
      expect(await query(first.url, "SHOW server_encoding")).toEqual([{ server_encoding: "UTF8" }]);
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedDatabase(dataDir);
    try {
      expect(await query(second.url, "SELECT note FROM kept")).toEqual([{ note: "still here" }]);
    } finally {
      await second.stop();
    }
    expect(statSync(privateDir).mode & 0o777).toBe(0o700);
    if (root) {
      // PostgreSQL's user cannot enter the folder: the cluster is kept in the shared folder, owned by it.
      const [cluster] = sharedClusters();
      expect(cluster).toBeDefined();
      expect(statSync(path.join(cluster!, "pg", "PG_VERSION")).uid).not.toBe(0);
      expect(logs.join("")).toContain(`cannot enter ${path.resolve(dataDir)}`);
    }
  });
});
