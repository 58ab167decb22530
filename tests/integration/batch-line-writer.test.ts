// A batch's finished lines, written in groups with the batch's counts in one statement
// (server/batches/line-writer.ts): each line once, the counts and cost grown only by the lines a
// write inserted (a resumed attempt writing a line again changes nothing), and the answers and
// errors read back as they were written.
import { describe, expect, it } from "vitest";
import { type FinishedLine, LineWriter } from "../../server/batches/line-writer";
import { db } from "../../server/infra/db/client";
import { randomBase62 } from "../../server/kernel/ids";
import { createWorkspace } from "../../server/onboarding/create-workspace";

/**
 * A batch row to write lines into. The writer does not look at its status; it is made
 * `cancelled` so that no instance of the test run takes it for work waiting (a batch process
 * started for it, in tests/api/batches.test.ts), as lines in flight when a batch is cancelled are
 * still written.
 */
async function newBatch(): Promise<string> {
  const { workspace } = await createWorkspace({ name: "line writer", credits: "1" });
  const id = `batch_${randomBase62(16)}`;
  await db.batch.create({
    data: { id, workspaceId: workspace.id, caller: {}, endpoint: "/v1/chat/completions", inputFileId: "file-none", completionWindow: "24h", status: "cancelled", expiresAt: new Date(Date.now() + 86_400_000) },
  });
  return id;
}

const line = (index: number, over: Partial<FinishedLine> = {}): FinishedLine => ({
  index,
  customId: `c-${index}`,
  statusCode: 200,
  requestId: `req_${index}`,
  body: { id: `chatcmpl-${index}`, choices: [{ message: { content: `answer ${index}` } }] },
  error: null,
  cost: "0.000001250000000001",
  ...over,
});

describe("batch line writer", () => {
  it("writes each line once with the batch's counts and cost, and keeps the bodies as they were", async () => {
    const batchId = await newBatch();
    const odd = { text: 'a "quoted" \\ back\\slash, {braces}, NULL, héllo ✓ 𝄞', list: [1, null, true], nested: { empty: "" } };
    const writer = new LineWriter(batchId);
    writer.add(line(0));
    writer.add(line(1, { body: odd, customId: 'custom "id", with {braces}' }));
    writer.add(line(2, { statusCode: 429, body: { error: { message: "Rate limit" } }, error: { code: "rate_limit_exceeded", message: "slow down" }, cost: "0" }));
    await writer.close();

    const batch = await db.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect([batch.completed, batch.failed, batch.cost.toString()]).toEqual([2, 1, "0.000002500000000002"]);
    const rows = await db.batchLine.findMany({ where: { batchId }, orderBy: { index: "asc" } });
    expect(rows.map((r) => [r.index, r.customId, r.statusCode, r.requestId, r.cost.toString()])).toEqual([
      [0, "c-0", 200, "req_0", "0.000001250000000001"],
      [1, 'custom "id", with {braces}', 200, "req_1", "0.000001250000000001"],
      [2, "c-2", 429, "req_2", "0"],
    ]);
    expect(rows[1]!.body).toEqual(odd);
    expect(rows[0]!.error).toBeNull();
    expect(rows[2]!.error).toEqual({ code: "rate_limit_exceeded", message: "slow down" });

    // A resumed attempt writes lines 1 and 2 again, and a new line 3: only line 3 counts.
    const again = new LineWriter(batchId);
    again.add(line(1, { cost: "5" }));
    again.add(line(2, { statusCode: 200, cost: "5" }));
    again.add(line(3, { body: null }));
    await again.close();
    const after = await db.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect([after.completed, after.failed, after.cost.toString()]).toEqual([3, 1, "0.000003750000000003"]);
    const three = await db.batchLine.findUniqueOrThrow({ where: { batchId_index: { batchId, index: 3 } } });
    expect(three.body).toBeNull();
    expect((await db.batchLine.findUniqueOrThrow({ where: { batchId_index: { batchId, index: 1 } } })).cost.toString()).toBe("0.000001250000000001");

    // Written again whole: nothing changes.
    const third = new LineWriter(batchId);
    for (let i = 0; i < 4; i++) third.add(line(i, { cost: "9" }));
    await third.close();
    const last = await db.batch.findUniqueOrThrow({ where: { id: batchId } });
    expect([last.completed, last.failed, last.cost.toString()]).toEqual([3, 1, "0.000003750000000003"]);
  });
});
