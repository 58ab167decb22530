// A stored response is charged only when it is stored: a call whose response could not be
// written ends in an error and costs nothing. PostgreSQL is made to refuse the write with a real
// CHECK constraint scoped to the test's own workspace (added NOT VALID, so no other row is
// looked at, and dropped afterwards).
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { formatMoney } from "../../server/kernel/money";
import { newWorkspace } from "../helpers";

const MODEL = "local-chat-sim";
const added: string[] = [];

const drop = (name: string) => db.$executeRawUnsafe(`ALTER TABLE "StoredResponse" DROP CONSTRAINT IF EXISTS "${name}"`);

/**
 * Makes PostgreSQL refuse stored responses of `workspaceId` unless `allowed` (an SQL condition)
 * holds; returns what lifts it again.
 */
async function refuseResponses(workspaceId: string, allowed = "false"): Promise<() => Promise<unknown>> {
  const name = `test_refuse_${workspaceId.replace(/\W/g, "_")}`.slice(0, 60);
  // Identifiers and the id cannot be bound parameters in DDL; the id is the gateway's own (no quotes in it).
  await db.$executeRawUnsafe(`ALTER TABLE "StoredResponse" ADD CONSTRAINT "${name}" CHECK ("workspaceId" <> '${workspaceId}' OR (${allowed})) NOT VALID`);
  added.push(name);
  return () => drop(name);
}

afterEach(async () => {
  for (const name of added.splice(0)) await drop(name);
});

async function charges(workspaceId: string) {
  const [events, ws] = await Promise.all([db.usageEvent.count({ where: { workspaceId } }), db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })]);
  return { events, balance: formatMoney(ws.balance) };
}

describe("responses: no charge without the stored response", () => {
  it("a response whose insert fails is a 500 and costs nothing; the next one is charged once", async () => {
    const { openai, workspace } = await newWorkspace("1");
    const lift = await refuseResponses(workspace.id);
    const err = await openai.responses.create({ model: MODEL, input: "This answer cannot be stored" }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(await charges(workspace.id)).toEqual({ events: 0, balance: "1" });
    expect(await db.storedResponse.count({ where: { workspaceId: workspace.id } })).toBe(0);

    // store: false writes nothing, so it is answered and charged as usual
    const ephemeral = await openai.responses.create({ model: MODEL, input: "Not stored", store: false });
    expect(await db.usageEvent.count({ where: { id: ephemeral.id } })).toBe(1);

    // the reservation of the failed call was released: once the database accepts it again, a call is charged once
    await lift();
    const ok = await openai.responses.create({ model: MODEL, input: "This one is stored" });
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(2);
    expect(await db.usageEvent.count({ where: { id: ok.id } })).toBe(1);
    expect((await openai.responses.retrieve(ok.id)).status).toBe("completed");
  });

  it("a streamed response whose outcome cannot be stored ends with response.failed and costs nothing", async () => {
    const { openai, workspace } = await newWorkspace("1");
    // the opening insert (in_progress) and the failure are accepted; the finished outcome is not
    await refuseResponses(workspace.id, `"status" IN ('in_progress', 'failed')`);
    const stream = await openai.responses.create({ model: MODEL, input: "Stream an answer that cannot be stored", stream: true });
    const types: string[] = [];
    let text = "";
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.output_text.delta") text += e.delta;
    }
    expect(text.length).toBeGreaterThan(0); // the node did answer
    expect(types.at(-1)).toBe("response.failed");
    expect(types).not.toContain("response.completed");
    expect(await charges(workspace.id)).toEqual({ events: 0, balance: "1" });
    const [stored] = await db.storedResponse.findMany({ where: { workspaceId: workspace.id } });
    expect(stored?.status).toBe("failed");
  });

  it("a background response whose insert fails is refused before the node is called, uncharged", async () => {
    const { openai, workspace } = await newWorkspace("1");
    await refuseResponses(workspace.id);
    const err = await openai.responses.create({ model: MODEL, input: "later", background: true }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(await charges(workspace.id)).toEqual({ events: 0, balance: "1" });
  });
});
