// The spool writes the lines of one turn of the event loop together: nothing is in the file until
// the turn's write, every line is then, and `written` tells the appenders; a failed write rejects
// it and leaves none of those lines waiting for a commit.
import { closeSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Spool } from "../../server/infra/spool/spool";

const owner = { pid: 2 ** 22 + 5, startTime: "1" };

describe("a spool's lines of one turn", () => {
  it("go to the file in one write after the turn, and `written` resolves then", async () => {
    const spool = new Spool<{ n: number }>(mkdtempSync(path.join(tmpdir(), "spool-turn-")), "t~", JSON.stringify, owner);
    const a = spool.appendSoon({ n: 1 });
    const b = spool.appendSoon({ n: 2 });
    const c = spool.appendSoon({ n: 3 });
    expect(a.segment).toBe(c.segment);
    expect(readFileSync(a.segment.file, "utf8")).toBe("");
    await Promise.all([a.written, b.written, c.written]);
    expect(readFileSync(a.segment.file, "utf8")).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(a.segment.pending).toBe(3);
    // A synchronous append writes at once, with whatever waits.
    spool.appendSoon({ n: 4 });
    spool.append({ n: 5 });
    expect(readFileSync(a.segment.file, "utf8").trim().split("\n")).toHaveLength(5);
    for (let i = 0; i < 5; i++) spool.committed(a.segment);
    expect(readFileSync(a.segment.file, "utf8")).toBe("");
  });

  it("reject `written` when the write fails, and none of its lines waits for a commit", async () => {
    const spool = new Spool<{ n: number }>(mkdtempSync(path.join(tmpdir(), "spool-turn-")), "t~", JSON.stringify, owner);
    const a = spool.appendSoon({ n: 1 });
    closeSync(a.segment.fd);
    await expect(a.written).rejects.toMatchObject({ code: "EBADF" });
    expect(a.segment.pending).toBe(0);
  });
});
