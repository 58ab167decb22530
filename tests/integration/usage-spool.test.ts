// The usage spool (server/ledger/usage-spool.ts, spool-replay.ts): a call's usage is written to
// the process's file before its answer ends and committed behind it; a segment all committed is
// emptied; the files of processes no longer running are replayed once, idempotently, a line cut
// short by a kill is skipped, and a running process's file is left alone.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { identify } from "../../server/infra/db/process-identity";
import { createWorkspace } from "../../server/onboarding/create-workspace";
import { randomBase62 } from "../../server/kernel/ids";
import { LeaseBook } from "../../server/ledger/credit-leases";
import { applyMovements, usageMovement, type Movement } from "../../server/ledger/movements";
import { replaySpools, spoolDir } from "../../server/ledger/spool-replay";
import { UsageSpool } from "../../server/ledger/usage-spool";
import { UsageWriter } from "../../server/ledger/usage-writer";
import { writeQueryable } from "../../server/infra/db/write-pool";
import { balanceOf, expectLedgerInvariant } from "./ledger-fixtures";
import { until } from "../helpers";

const books: LeaseBook[] = [];
afterEach(() => {
  for (const b of books.splice(0)) b.stop();
});

const usage = (workspaceId: string, cost: string, eventId = `req_${randomBase62(16)}`): Movement =>
  usageMovement({ workspaceId, apiKeyId: null }, cost, { eventId, modelId: "spool-test", nodeId: null, endpoint: "/v1/embeddings", inputTokens: 3 });

const spoolFiles = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
const events = (workspaceId: string) => db.usageEvent.count({ where: { workspaceId } });

describe("usage spool", () => {
  it("an answer waits for the file, not for PostgreSQL; the commit follows, and empties the file", async () => {
    const { workspace } = await createWorkspace({ name: "spool writer", credits: "1" });
    const dir = mkdtempSync(path.join(tmpdir(), "spool-"));
    const book = new LeaseBook(`spool-${randomBase62(6)}`, { maintainEveryMs: 0 });
    books.push(book);
    const writer = new UsageWriter({ book: () => book, commitDelayMs: 300 });
    writer.useSpool(new UsageSpool(dir));
    const hold = await book.hold(workspace.id, "0.01");
    const movements = Array.from({ length: 10 }, () => usage(workspace.id, "0.001"));
    await Promise.all(movements.map((m, i) => writer.record(i === 0 ? { ...m, leaseInstanceId: hold.instanceId } : m, i === 0 ? hold : undefined)));
    // Written down, not yet committed: the reservation is still held.
    const [file] = spoolFiles(dir);
    const lines = readFileSync(path.join(dir, file!), "utf8").trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as Movement).id)).toEqual(movements.map((m) => m.id));
    expect(await events(workspace.id)).toBe(0);
    expect(hold.isOpen).toBe(true);
    expect(writer.lag().pending).toBe(10);

    expect(await writer.drain()).toBe(true);
    expect(await events(workspace.id)).toBe(10);
    expect(await balanceOf(workspace.id)).toBe("0.99");
    expect(hold.isOpen).toBe(false);
    await expectLedgerInvariant(workspace.id);
    // Drained and closed: nothing is left to replay.
    expect(spoolFiles(dir)).toEqual([]);
  });

  it("the file of a process that stopped is replayed once: what it had committed is not charged again, a cut line is skipped", async () => {
    const { workspace } = await createWorkspace({ name: "spool replay", credits: "1" });
    const dir = mkdtempSync(path.join(tmpdir(), "spool-"));
    const committed = usage(workspace.id, "0.1");
    const pending = [usage(workspace.id, "0.02"), usage(workspace.id, "0.03")];
    await applyMovements(writeQueryable, [committed]);
    // A process that is not running (no pid is this large), killed in the middle of its last line.
    const text = [committed, ...pending].map((m) => JSON.stringify(m)).join("\n") + `\n{"id":"usage:req_cut","kind":"us`;
    writeFileSync(path.join(dir, "usage~4194999.12345~0.jsonl"), text);
    // A running process's file (this one's) is not touched.
    const mine = new UsageSpool(dir);
    mine.append(usage(workspace.id, "0.5"));

    expect(await replaySpools(dir)).toBe(2);
    expect(await events(workspace.id)).toBe(3);
    expect(await balanceOf(workspace.id)).toBe("0.85");
    await expectLedgerInvariant(workspace.id);
    const me = identify(process.pid);
    expect(spoolFiles(dir)).toEqual([`usage~${me.pid}.${me.startTime}~0.jsonl`]);
    // Again: nothing left to do.
    expect(await replaySpools(dir)).toBe(0);
    expect(await balanceOf(workspace.id)).toBe("0.85");
  });

  it("a file claimed by a replayer that died is claimed again", async () => {
    const { workspace } = await createWorkspace({ name: "spool reclaim", credits: "1" });
    const dir = mkdtempSync(path.join(tmpdir(), "spool-"));
    writeFileSync(path.join(dir, "usage~4194998.1~3~4194997.2.jsonl"), `${JSON.stringify(usage(workspace.id, "0.25"))}\n`);
    expect(await replaySpools(dir)).toBe(1);
    expect(await balanceOf(workspace.id)).toBe("0.75");
    expect(spoolFiles(dir)).toEqual([]);
  });

  it("while the database is away, spooled usage is kept and committed once it is back", async () => {
    const { workspace } = await createWorkspace({ name: "spool retry", credits: "1" });
    const book = new LeaseBook(`spool-${randomBase62(6)}`, { maintainEveryMs: 0 });
    books.push(book);
    let down = true;
    let tries = 0;
    const flaky = {
      $queryRawUnsafe: <T>(sql: string, ...values: unknown[]): Promise<T> => {
        tries++;
        if (down) return Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));
        return writeQueryable.$queryRawUnsafe<T>(sql, ...values);
      },
    };
    const writer = new UsageWriter({ book: () => book, commitDelayMs: 10, db: flaky });
    writer.useSpool(new UsageSpool(mkdtempSync(path.join(tmpdir(), "spool-"))));
    const hold = await book.hold(workspace.id, "0.01");
    const movements = Array.from({ length: 3 }, () => usage(workspace.id, "0.001"));
    await Promise.all(movements.map((m, i) => writer.record(i === 0 ? { ...m, leaseInstanceId: hold.instanceId } : m, i === 0 ? hold : undefined)));
    await until(async () => tries, (n) => n >= 1, 5000);
    // The batch failed whole (not tried movement by movement), and nothing was let go.
    expect(tries).toBe(1);
    expect(writer.lag().pending).toBe(3);
    expect(hold.isOpen).toBe(true);
    down = false;
    expect(await writer.drain()).toBe(true);
    expect(await events(workspace.id)).toBe(3);
    expect(await balanceOf(workspace.id)).toBe("0.997");
    expect(hold.isOpen).toBe(false);
  });

  it("a file that cannot be written makes the answer wait for its commit instead", async () => {
    const { workspace } = await createWorkspace({ name: "spool unwritable", credits: "1" });
    const blocked = path.join(mkdtempSync(path.join(tmpdir(), "spool-")), "a-file");
    writeFileSync(blocked, "not a folder");
    const writer = new UsageWriter({ commitDelayMs: 60_000 });
    writer.useSpool(new UsageSpool(path.join(blocked, "spool")));
    await writer.record(usage(workspace.id, "0.5"));
    // Resolved only once committed, despite the minute-long commit delay.
    expect(await events(workspace.id)).toBe(1);
    expect(await balanceOf(workspace.id)).toBe("0.5");
  });

  it("keeps one folder per database, named by an id kept in the database, whatever its URL", async () => {
    const base = mkdtempSync(path.join(tmpdir(), "spool-"));
    const a = await spoolDir(base);
    expect(await spoolDir(base)).toBe(a);
    const { value } = await db.installSetting.findUniqueOrThrow({ where: { key: "database_id" } });
    expect(a).toBe(path.join(base, value));
    expect(await spoolDir("off")).toBeNull();
  });
});
