// An /mcp session is the gateway's, kept in PostgreSQL: opened on one instance, it is served by
// another, and after the instance that opened it was killed (SIGKILL) by a new one; the session the
// gateway opened at the tool server goes on too (resumed by its id: no new handshake there).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { db } from "../../server/infra/db/client";
import { addServer } from "../../server/mcp/registry/registry-store";
import { newWorkspace, until } from "../helpers";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";
import { mcpClient } from "../mcp-client";

let standIn: StandInMcpServer;
const instances: GatewayInstance[] = [];

beforeAll(async () => {
  standIn = await startStandInMcpServer();
});
afterAll(async () => {
  await Promise.all(instances.map((i) => i.stop().catch(() => undefined)));
  await standIn.close();
});

async function instance(): Promise<GatewayInstance> {
  const started = await startGatewayInstance();
  instances.push(started);
  return started;
}

describe("/mcp sessions across instances", () => {
  it("a session opened on one instance is served by another, and by a new one after the first was killed", async () => {
    const { workspace, secret } = await newWorkspace();
    await addServer(cliActor(), workspace.id, { name: "kit", url: standIn.url });
    const [b, c] = [await instance(), await instance()];

    const onB = await mcpClient(secret, { url: `${b.url}/mcp` });
    const sessionId = onB.sessionId()!;
    const protocolVersion = onB.transport.protocolVersion!;
    expect((await onB.client.callTool({ name: "kit__echo", arguments: { text: "from b" } })).content).toEqual([{ type: "text", text: "from b" }]);
    const serverSessions = standIn.sessions;
    const row = await db.mcpSession.findUniqueOrThrow({ where: { id: sessionId } });
    expect(Object.values(row.upstream as object)).toHaveLength(1);

    // Another instance serves the same session, on the same session at the tool server.
    const onC = await mcpClient(secret, { url: `${c.url}/mcp`, resume: { sessionId, protocolVersion } });
    expect((await onC.client.listTools()).tools.map((t) => t.name).sort()).toEqual(["kit__add", "kit__echo", "kit__fail"]);
    expect((await onC.client.callTool({ name: "kit__add", arguments: { a: 20, b: 22 } })).content).toEqual([{ type: "text", text: "42" }]);
    expect(standIn.sessions).toBe(serverSessions);

    // The instance that opened it dies; a new instance goes on with it.
    await b.kill();
    await onB.close().catch(() => undefined);
    const d = await instance();
    const onD = await mcpClient(secret, { url: `${d.url}/mcp`, resume: { sessionId, protocolVersion } });
    expect((await onD.client.callTool({ name: "kit__echo", arguments: { text: "after the restart" } })).content).toEqual([{ type: "text", text: "after the restart" }]);
    expect(standIn.sessions).toBe(serverSessions);
    expect(standIn.calls.slice(-3).map((call) => call.name)).toEqual(["echo", "add", "echo"]);

    // Ended on one instance, it is gone on every other as the notification arrives.
    await onD.transport.terminateSession();
    const again = await mcpClient(secret, { url: `${c.url}/mcp`, resume: { sessionId, protocolVersion } });
    const { value: refused } = await until(() => again.client.listTools().then(() => null, (err: Error) => err), (err) => err !== null, 2000);
    expect(String(refused)).toMatch(/404|Session not found/);
    await Promise.all([onC.close(), onD.close(), again.close()].map((p) => p.catch(() => undefined)));
  });
});
