// The spool writes the lines of one turn of the event loop together: nothing of them is in the
// file until the turn's write, every line is then, and `written` tells the appenders; a line that
// comes alone (nothing written for ALONE_MS) is written at once. A failed write rejects `written`
// and leaves none of those lines waiting for a commit.
import { closeSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Spool } from "../../server/infra/spool/spool";

const owner = { pid: 2 ** 22 + 5, startTime: "1" };
const spoolOf = (aloneMs?: number) => new Spool<{ n: number }>(mkdtempSync(path.join(tmpdir(), "spool-turn-")), "t~", JSON.stringify, owner, aloneMs);
const lines = (file: string) => readFileSync(file, "utf8");

describe("a spool's lines of one turn", () => {
  it("go to the file in one write after the turn, and `written` resolves then", async () => {
    const spool = spoolOf(60_000);
    const first = spool.appendSoon({ n: 0 }); // alone: written at once
    expect(lines(first.segment.file)).toBe('{"n":0}\n');
    await first.written;
    const a = spool.appendSoon({ n: 1 });
    const b = spool.appendSoon({ n: 2 });
    const c = spool.appendSoon({ n: 3 });
    expect(a.segment).toBe(c.segment);
    expect(lines(a.segment.file)).toBe('{"n":0}\n');
    await Promise.all([a.written, b.written, c.written]);
    expect(lines(a.segment.file)).toBe('{"n":0}\n{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(a.segment.pending).toBe(4);
    // A synchronous append writes at once, with whatever waits, and tells those waiting.
    const d = spool.appendSoon({ n: 4 });
    spool.append({ n: 5 });
    expect(lines(a.segment.file).trim().split("\n")).toHaveLength(6);
    await d.written;
    for (let i = 0; i < 6; i++) spool.committed(a.segment);
    expect(lines(a.segment.file)).toBe("");
  });

  it("a line that comes alone is written at once, and its `written` has resolved", async () => {
    const spool = spoolOf(0);
    const a = spool.appendSoon({ n: 1 });
    expect(lines(a.segment.file)).toBe('{"n":1}\n');
    const b = spool.appendSoon({ n: 2 });
    expect(lines(a.segment.file)).toBe('{"n":1}\n{"n":2}\n');
    let told = false;
    void b.written.then(() => (told = true));
    await Promise.resolve();
    expect(told).toBe(true); // no turn waited for
  });

  it("reject `written` when the write fails, and none of its lines waits for a commit", async () => {
    const batched = spoolOf(60_000);
    await batched.appendSoon({ n: 0 }).written;
    const a = batched.appendSoon({ n: 1 });
    closeSync(a.segment.fd);
    await expect(a.written).rejects.toMatchObject({ code: "EBADF" });
    expect(a.segment.pending).toBe(1); // the first line, written before
    // Written at once: the same.
    const alone = spoolOf(0);
    const first = alone.appendSoon({ n: 1 });
    closeSync(first.segment.fd);
    const failed = alone.appendSoon({ n: 2 });
    await expect(failed.written).rejects.toMatchObject({ code: "EBADF" });
    expect(failed.segment.pending).toBe(1);
    expect(() => alone.append({ n: 3 })).toThrow(/EBADF|bad file/i);
    expect(failed.segment.pending).toBe(1);
  });
});
