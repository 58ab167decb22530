// /mcp with the official SDK as the client and stand-in servers built with it: tools listed under
// `<server>__<tool>` and called through the gateway, prompts and resources, isolation between
// workspaces, restricted keys' tool lists, exact prices charged through the ledger (nothing for a
// failed call or a server that is down), the request log's rows, and the session's rules
// (required, bound to its credential, ended by DELETE).
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { createKey } from "../../server/identity/keys/create-key";
import { db } from "../../server/infra/db/client";
import { addServer, setToolPrice } from "../../server/mcp/registry/registry-store";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { logBody } from "../../server/request-log/capture/body-store";
import { setCaptureSettings } from "../../server/request-log/capture/capture-settings";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { baseUrl, newWorkspace, until } from "../helpers";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";
import { mcpClient, mcpPost } from "../mcp-client";

const actor = cliActor();
let standIn: StandInMcpServer;
let down: string;

beforeAll(async () => {
  standIn = await startStandInMcpServer();
  const gone = await startStandInMcpServer();
  down = gone.url;
  await gone.close();
});
afterAll(() => standIn.close());

async function toolsWorkspace(credits = "10") {
  const ws = await newWorkspace(credits);
  await addServer(actor, ws.workspace.id, { name: "kit", url: standIn.url });
  return ws;
}

const rpcError = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
};

const usage = (workspaceId: string) => db.usageEvent.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
const balance = async (workspaceId: string) => (await db.workspace.findUniqueOrThrow({ where: { id: workspaceId } })).balance.toFixed(18);

describe("/mcp: tools through the gateway", () => {
  it("lists the workspace's servers' tools as <server>__<tool> and forwards calls; the stand-in receives them", async () => {
    const { workspace, secret } = await toolsWorkspace();
    const mcp = await mcpClient(secret);
    expect(mcp.sessionId()).toMatch(/^mcpsess_/);
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["kit__add", "kit__echo", "kit__fail"]);
    expect(tools.find((t) => t.name === "kit__add")!.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } });
    const before = standIn.calls.length;
    const result = await mcp.client.callTool({ name: "kit__add", arguments: { a: 2, b: 40 } });
    expect(result.content).toEqual([{ type: "text", text: "42" }]);
    expect(standIn.calls.slice(before)).toEqual([expect.objectContaining({ name: "add", arguments: { a: 2, b: 40 } })]);
    // Free tools cost nothing and leave no usage event.
    expect(await usage(workspace.id)).toEqual([]);
    await mcp.close();
  });

  it("offers the servers' prompts and resources, and forwards them", async () => {
    const { secret } = await toolsWorkspace();
    const mcp = await mcpClient(secret);
    const { prompts } = await mcp.client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(["kit__greet"]);
    const prompt = await mcp.client.getPrompt({ name: "kit__greet", arguments: { name: "Ada" } });
    expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Say hello to Ada." });
    const { resources } = await mcp.client.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: "standin://readme", name: "kit__readme" })]);
    const read = await mcp.client.readResource({ uri: "standin://readme" });
    expect(read.contents[0]).toMatchObject({ uri: "standin://readme", text: "A stand-in MCP server for tests." });
    await mcp.close();
  });

  it("another workspace sees none of them, and calling one is unknown there", async () => {
    await toolsWorkspace();
    const other = await newWorkspace();
    const mcp = await mcpClient(other.secret);
    expect((await mcp.client.listTools()).tools).toEqual([]);
    const err = await rpcError(mcp.client.callTool({ name: "kit__echo", arguments: { text: "hi" } }));
    expect(err.code).toBe(-32602);
    expect(err.data).toMatchObject({ status: 404, code: "tool_not_found" });
    await mcp.close();
  });
});

describe("/mcp: how the gateway reaches servers", () => {
  it("the older HTTP+SSE transport, and a server that requires the header the gateway was given", async () => {
    const sse = await startStandInMcpServer({ sse: true });
    const locked = await startStandInMcpServer({ requireHeader: { name: "x-tool-key", value: "s3cret" } });
    try {
      const { workspace, secret } = await newWorkspace();
      await addServer(actor, workspace.id, { name: "old", url: sse.url, transport: "sse" });
      await addServer(actor, workspace.id, { name: "locked", url: locked.url, auth: { kind: "header", headers: { "x-tool-key": "s3cret" } } });
      const mcp = await mcpClient(secret);
      const names = (await mcp.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["old__echo", "locked__echo"]));
      expect((await mcp.client.callTool({ name: "old__echo", arguments: { text: "over sse" } })).content).toEqual([{ type: "text", text: "over sse" }]);
      expect((await mcp.client.callTool({ name: "locked__add", arguments: { a: 1, b: 1 } })).content).toEqual([{ type: "text", text: "2" }]);
      expect(locked.calls.at(-1)!.headers["x-tool-key"]).toBe("s3cret");
      // The caller's own credential never reaches the tool server.
      expect(JSON.stringify(locked.calls.at(-1)!.headers)).not.toContain(secret);
      await mcp.close();
    } finally {
      await Promise.all([sse.close(), locked.close()]);
    }
  });
});

describe("/mcp: OAuth client credentials and session tokens", () => {
  it("the gateway gets a token from the server's token endpoint (client credentials, Basic) and sends it; a session token calls /mcp under its plan's tools", async () => {
    const seen: { authorization?: string; body: string }[] = [];
    const tokens = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        seen.push({ authorization: req.headers.authorization, body });
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ access_token: "tok-123", token_type: "Bearer", expires_in: 3600 }));
      });
    });
    await new Promise<void>((r) => tokens.listen(0, "127.0.0.1", r));
    const tokenUrl = `http://127.0.0.1:${(tokens.address() as AddressInfo).port}/token`;
    const locked = await startStandInMcpServer({ requireHeader: { name: "authorization", value: "Bearer tok-123" } });
    try {
      const { workspace, secret } = await newWorkspace();
      await addServer(actor, workspace.id, { name: "oauthed", url: locked.url, auth: { kind: "oauth", tokenUrl, clientId: "gw", clientSecret: "s3", scope: "tools" } });
      expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from("gw:s3").toString("base64")}`);
      expect(new URLSearchParams(seen[0]!.body).get("grant_type")).toBe("client_credentials");
      const plan = await createPlan(workspace.id, { name: "oauth-plan", tools: ["oauthed__echo"] });
      const minted = await fetch(`${baseUrl()}/v1/sessions`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify({ plan: plan.id, subject: "user-1" }) });
      const { token } = (await minted.json()) as { token: string };
      const mcp = await mcpClient(token);
      expect((await mcp.client.listTools()).tools.map((t) => t.name)).toEqual(["oauthed__echo"]);
      expect((await mcp.client.callTool({ name: "oauthed__echo", arguments: { text: "with a token" } })).content).toEqual([{ type: "text", text: "with a token" }]);
      expect(locked.calls.at(-1)!.headers.authorization).toBe("Bearer tok-123");
      await mcp.close();
    } finally {
      await locked.close();
      tokens.close();
    }
  });
});

describe("/mcp: permissions", () => {
  it("a key limited to some tools lists only them and gets a JSON-RPC error for the others", async () => {
    const { workspace } = await toolsWorkspace();
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "echo only", permissions: ["mcp"], tools: ["kit__echo"] }));
    const mcp = await mcpClient(secret);
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toEqual(["kit__echo"]);
    const before = standIn.calls.length;
    const err = await rpcError(mcp.client.callTool({ name: "kit__add", arguments: { a: 1, b: 1 } }));
    expect(err.code).toBe(-32003);
    expect(err.message).toMatch(/^MCP error -32003: This credential may not call the tool `kit__add`/);
    expect(err.data).toMatchObject({ status: 403, code: "tool_not_allowed" });
    expect(standIn.calls.length).toBe(before);
    expect((await mcp.client.callTool({ name: "kit__echo", arguments: { text: "ok" } })).content).toEqual([{ type: "text", text: "ok" }]);
    await mcp.close();
  });

  it("a key without the mcp group is refused at the door (403), as on /v1", async () => {
    const { workspace } = await toolsWorkspace();
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "text only", permissions: ["text"] }));
    const res = await mcpPost({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }, { authorization: `Bearer ${secret}` });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: -32003, data: { code: "insufficient_permissions" } });
  });

  it("no credential is 401 with WWW-Authenticate; a bad one too", async () => {
    const res = await mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(res.body.error.code).toBe(-32001);
    const bad = await mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { authorization: "Bearer sk-gw-nope" });
    expect(bad.status).toBe(401);
  });
});

describe("/mcp: money", () => {
  it("a priced tool is charged its exact price through the ledger; a tool error and a server that is down cost nothing", async () => {
    const { workspace, secret } = await toolsWorkspace("1");
    await setToolPrice(actor, workspace.id, "kit", "add", "0.000123456789012345");
    await addServer(actor, workspace.id, { name: "gone", url: down, price_per_call: "0.05" });
    const mcp = await mcpClient(secret);
    const before = await balance(workspace.id);
    const result = await mcp.client.callTool({ name: "kit__add", arguments: { a: 1, b: 2 } });
    expect(result.content).toEqual([{ type: "text", text: "3" }]);
    const events = await usage(workspace.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ modelId: "mcp:kit__add", endpoint: "mcp.tools" });
    expect(events[0]!.cost.toFixed(18)).toBe("0.000123456789012345");
    expect(await balance(workspace.id)).toBe((await import("decimal.js")).default.sub(before, "0.000123456789012345").toFixed(18));
    // A tool error (isError) is free.
    await setToolPrice(actor, workspace.id, "kit", "fail", "0.25");
    const failed = await mcp.client.callTool({ name: "kit__fail", arguments: {} });
    expect(failed.isError).toBe(true);
    // A server that is down: a clear JSON-RPC error, and free.
    const err = await rpcError(mcp.client.callTool({ name: "gone__echo", arguments: { text: "x" } }));
    expect(err.code).toBe(-32050);
    expect(err.message).toMatch(/^MCP error -32050: The MCP server `gone` could not be reached: /);
    expect(err.data).toMatchObject({ status: 502 });
    expect(await usage(workspace.id)).toHaveLength(1);
    expect(await balance(workspace.id)).toBe((await import("decimal.js")).default.sub(before, "0.000123456789012345").toFixed(18));
    await mcp.close();
  });

  it("a workspace without credits is refused a priced tool (402 as a JSON-RPC error); the server is not called", async () => {
    const { workspace, secret } = await toolsWorkspace("0");
    await setToolPrice(actor, workspace.id, "kit", "echo", "0.01");
    const mcp = await mcpClient(secret);
    const before = standIn.calls.length;
    const err = await rpcError(mcp.client.callTool({ name: "kit__echo", arguments: { text: "x" } }));
    expect(err.code).toBe(-32002);
    expect(err.data).toMatchObject({ status: 402 });
    expect(standIn.calls.length).toBe(before);
    await mcp.close();
  });
});

describe("/mcp: the request log", () => {
  it("a row per tool call: the tool, its server, status, duration and cost", async () => {
    const { workspace, secret } = await toolsWorkspace();
    await setToolPrice(actor, workspace.id, "kit", "echo", "0.002");
    const mcp = await mcpClient(secret);
    await mcp.client.callTool({ name: "kit__echo", arguments: { text: "logged" } });
    await rpcError(mcp.client.callTool({ name: "kit__nope", arguments: {} }));
    const { value: rows } = await until(
      () => db.requestLog.findMany({ where: { workspaceId: workspace.id, route: "/mcp/tools/call" }, orderBy: { createdAt: "asc" } }),
      (r) => r.length >= 2,
      5000,
    );
    const server = await db.mcpServer.findFirstOrThrow({ where: { scope: workspace.id, name: "kit" } });
    expect(rows[0]).toMatchObject({ model: "kit__echo", nodeId: server.id, status: 200, credential: "api_key", errorCode: null });
    expect(rows[0]!.cost?.toFixed(3)).toBe("0.002");
    expect(rows[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // A tool the server did not list is refused before anything is sent.
    expect(rows[1]).toMatchObject({ model: "kit__nope", status: 404, errorCode: "tool_not_found" });
    await mcp.close();
  });
});

describe("/mcp: capture and limits", () => {
  it("keeps a tool call's arguments and result only when the workspace captures bodies, redacted", async () => {
    const { workspace, secret } = await toolsWorkspace();
    const mcp = await mcpClient(secret);
    await mcp.client.callTool({ name: "kit__echo", arguments: { text: "not kept acct-111111" } });
    // Its row is written (request-log rows are written in batches) before capture is switched on.
    await until(() => db.requestLog.count({ where: { workspaceId: workspace.id, route: "/mcp/tools/call" } }), (n) => n === 1, 10_000);
    await setCaptureSettings(workspace.id, { enabled: true, redact_patterns: ["acct-[0-9]{6}"] });
    await until(() => mcp.client.callTool({ name: "kit__echo", arguments: { text: "kept acct-222222 sk-live0123456789abcdefghij" } }).then(() => db.requestLog.count({ where: { workspaceId: workspace.id, captured: true } })), (n) => n > 0, 10_000);
    const rows = await db.requestLog.findMany({ where: { workspaceId: workspace.id, route: "/mcp/tools/call" }, orderBy: { createdAt: "asc" } });
    expect(rows[0]!.captured).toBe(false);
    const kept = rows.find((r) => r.captured)!;
    const { value: body } = await until(() => logBody(workspace.id, kept.id, kept.createdAt), (b) => b !== null, 5000);
    expect(body!.request).toContain("kept [redacted]");
    expect(body!.request).not.toContain("acct-222222");
    expect(body!.request).not.toContain("sk-live0123456789abcdefghij");
    expect(body!.response).toContain('"type":"text"');
    expect(body!.response).not.toContain("acct-222222");
    await mcp.close();
  });

  it("a key's plan rate limit counts tool calls: past it, a JSON-RPC error (-32029) and the server is not called", async () => {
    const { workspace } = await toolsWorkspace();
    const plan = await createPlan(workspace.id, { name: "two-per-minute", rpm: 2 });
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "limited", planId: plan.id }));
    const mcp = await mcpClient(secret);
    await mcp.client.callTool({ name: "kit__echo", arguments: { text: "1" } });
    await mcp.client.callTool({ name: "kit__echo", arguments: { text: "2" } });
    const before = standIn.calls.length;
    const err = await rpcError(mcp.client.callTool({ name: "kit__echo", arguments: { text: "3" } }));
    expect(err.code).toBe(-32029);
    expect(err.data).toMatchObject({ status: 429 });
    expect(standIn.calls.length).toBe(before);
    await mcp.close();
  });

  it("a plan's tool list applies to its keys", async () => {
    const { workspace } = await toolsWorkspace();
    const plan = await createPlan(workspace.id, { name: "adders", tools: ["kit__add"] });
    const { secret } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "on plan", planId: plan.id }));
    const mcp = await mcpClient(secret);
    expect((await mcp.client.listTools()).tools.map((t) => t.name)).toEqual(["kit__add"]);
    expect((await rpcError(mcp.client.callTool({ name: "kit__echo", arguments: { text: "no" } }))).code).toBe(-32003);
    await mcp.close();
  });
});

describe("/mcp: sessions", () => {
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } };

  it("a request without a session is 400, an unknown one 404, another credential's 404; DELETE ends it", async () => {
    const { workspace, secret } = await toolsWorkspace();
    const auth = { authorization: `Bearer ${secret}` };
    const missing = await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/list" }, auth);
    expect(missing.status).toBe(400);
    const unknown = await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { ...auth, "mcp-session-id": "mcpsess_nope" });
    expect(unknown.status).toBe(404);
    const opened = await mcpPost(init, auth);
    expect(opened.status).toBe(200);
    expect(opened.body.result.serverInfo.name).toBe("model-gateway");
    const id = opened.headers.get("mcp-session-id")!;
    const { secret: other } = await db.$transaction((tx) => createKey(tx, { workspaceId: workspace.id, name: "other" }));
    expect((await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { authorization: `Bearer ${other}`, "mcp-session-id": id })).status).toBe(404);
    const listed = await mcpPost({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { ...auth, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" });
    expect(listed.status).toBe(200);
    expect(listed.body.result.tools).toHaveLength(3);
    const end = await fetch(`${(await import("../helpers")).baseUrl()}/mcp`, { method: "DELETE", headers: { ...auth, "mcp-session-id": id } });
    expect(end.status).toBe(200);
    // Every process of every instance forgets it as the notification arrives (milliseconds).
    const { value: after } = await until(() => mcpPost({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { ...auth, "mcp-session-id": id }), (r) => r.status === 404, 2000);
    expect(after.status).toBe(404);
    expect(await db.mcpSession.findUnique({ where: { id } })).toBeNull();
  });

  it("GET is 405 (no server-initiated stream); a body that is not JSON is a parse error", async () => {
    const { secret } = await toolsWorkspace();
    const res = await fetch(`${(await import("../helpers")).baseUrl()}/mcp`, { headers: { authorization: `Bearer ${secret}`, accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("POST");
    const bad = await mcpPost("{nope", { authorization: `Bearer ${secret}` });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe(-32700);
  });
});
