// The registry of MCP servers, against stand-in servers built with the official SDK: added with the
// CLI (a workspace's and the operator's), listed with their tools under `<server>__<tool>` and their
// health, a server that is down added as down with the reason, header auth sealed at rest and sent
// to the server, bad input refused naming the field, URLs the outbound policy refuses, names unique
// across the two scopes, isolation between workspaces, the operator's servers not changed by a
// workspace, tool prices, the tRPC procedures by role, and every change in the audit log.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActor } from "../../server/audit/actor";
import { db } from "../../server/infra/db/client";
import { listServers, showServer } from "../../server/mcp/registry/registry-health";
import { addServer, removeServer, setAdhocServers, setToolPrice } from "../../server/mcp/registry/registry-store";
import type { McpServerView } from "../../server/mcp/registry/registry-view";
import { cli } from "../cli-process";
import { teamWorkspace } from "../helpers-dashboard";
import { newWorkspace } from "../helpers";
import { startStandInMcpServer, type StandInMcpServer } from "../mcp-fixtures";

const actor = cliActor();
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString("hex")}`;
let standIn: StandInMcpServer;
const started: StandInMcpServer[] = [];

async function standInServer(opts: Parameters<typeof startStandInMcpServer>[0] = {}) {
  const s = await startStandInMcpServer(opts);
  started.push(s);
  return s;
}

/** Runs the CLI with --json and parses its answer; the exit code must be 0. */
async function cliJson<T>(...args: string[]): Promise<T> {
  const out = await cli(...args, "--json");
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as T;
}

const auditOf = (targetId: string) => db.auditEvent.findMany({ where: { targetType: "mcp_server", targetId }, orderBy: { id: "asc" } });

beforeAll(async () => {
  standIn = await standInServer();
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
});

describe("adding and listing", () => {
  it("mcp add (CLI): the server's tools, prompts and resources under `<server>__<name>`, status up, priced per call", async () => {
    const { workspace } = await newWorkspace();
    const added = await cliJson<McpServerView>("mcp", "add", workspace.id, "--name", "stand", "--url", standIn.url, "--price-per-call", "0.002", "--description", "the stand-in");
    expect(added).toMatchObject({ object: "mcp_server", name: "stand", scope: "workspace", url: standIn.url, transport: "streamable_http", auth: { kind: "none" }, price_per_call: "0.002", status: "up", last_error: null, description: "the stand-in" });
    expect(added.id).toMatch(/^mcps_/);
    expect(added.tools.map((t) => t.qualified_name)).toEqual(["stand__echo", "stand__add", "stand__fail"]);
    expect(added.tools[0]).toEqual({ name: "echo", qualified_name: "stand__echo", description: "Answers the text it is given.", price_per_call: "0.002" });
    expect(added.prompts).toEqual([{ name: "greet", qualified_name: "stand__greet", description: "A greeting for someone." }]);
    expect(added.resources).toEqual([{ uri: "standin://readme", name: "readme", description: "What the stand-in is.", mime_type: "text/plain" }]);
    expect(added.checked_at).toBeGreaterThan(0);

    const list = await cliJson<{ object: string; data: McpServerView[]; adhoc_servers: boolean }>("mcp", "list", workspace.id);
    expect(list.adhoc_servers).toBe(false);
    expect(list.data.find((s) => s.name === "stand")).toMatchObject({ status: "up", tools: [{ name: "echo" }, { name: "add" }, { name: "fail" }] });
    // Human output: the server, its health and price, each tool by its qualified name.
    const text = await cli("mcp", "list", workspace.id);
    expect(text.stdout).toContain(`stand  ${standIn.url} (streamable_http)  up  $0.002/call`);
    expect(text.stdout).toContain("stand__add  $0.002/call  Adds two numbers.");
    expect((await auditOf(added.id)).map((e) => e.action)).toEqual(["mcp_server.add"]);
  });

  it("the older HTTP+SSE transport: --transport sse", async () => {
    const { workspace } = await newWorkspace();
    const old = await standInServer({ sse: true });
    const added = await cliJson<McpServerView>("mcp", "add", workspace.id, "--name", "legacy", "--url", old.url, "--transport", "sse");
    expect(added).toMatchObject({ transport: "sse", status: "up" });
    expect(added.tools.map((t) => t.name)).toEqual(["echo", "add", "fail"]);
  });

  it("mcp add --global: the operator's server is in every workspace's list, as global", async () => {
    const name = unique("shared");
    const added = await cliJson<McpServerView>("mcp", "add", "--global", "--name", name, "--url", standIn.url);
    expect(added.scope).toBe("global");
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    for (const ws of [a, b]) expect((await listServers(ws.workspace.id)).find((s) => s.name === name)).toMatchObject({ scope: "global", status: "up" });
    const audit = await auditOf(added.id);
    expect(audit).toEqual([expect.objectContaining({ action: "mcp_server.add", workspaceId: null, actorType: "cli" })]);
    await removeServer(actor, null, name);
  });

  it("a server that is down is added, marked down with a clear error; a refresh lists it again when it is back", async () => {
    const { workspace } = await newWorkspace();
    const later = await standInServer();
    const url = later.url;
    await later.close();
    const added = await addServer(actor, workspace.id, { name: "sleepy", url });
    expect(added).toMatchObject({ status: "down", tools: [], checked_at: null });
    expect(added.last_error).toMatch(/could not be reached|not completed/);
    const human = await cli("mcp", "list", workspace.id);
    expect(human.stdout).toMatch(/sleepy .* down: /);

    // Up again on a new port: re-adding updates it (the same id) and lists its tools.
    const back = await standInServer();
    const updated = await addServer(actor, workspace.id, { name: "sleepy", url: back.url });
    expect(updated).toMatchObject({ id: added.id, status: "up", last_error: null });
    expect(updated.tools).toHaveLength(3);
    // Down again: a refresh marks it down and keeps the tools it listed.
    await back.close();
    const refreshed = (await listServers(workspace.id, { refresh: true })).find((s) => s.name === "sleepy")!;
    expect(refreshed).toMatchObject({ status: "down", tools: [{ name: "echo" }, { name: "add" }, { name: "fail" }] });
    expect(refreshed.last_error).toBeTruthy();
    expect((await auditOf(added.id)).map((e) => e.action)).toEqual(["mcp_server.add", "mcp_server.update"]);
  });
});

describe("auth", () => {
  it("a header is sealed at rest (the column holds no value), shown by name only, and sent to the server", async () => {
    const { workspace } = await newWorkspace();
    const secret = `tok-${randomBytes(12).toString("hex")}`;
    const guarded = await standInServer({ requireHeader: { name: "x-api-token", value: secret } });
    // Without the header the server refuses: added, but down.
    const without = await addServer(actor, workspace.id, { name: "guarded", url: guarded.url });
    expect(without.status).toBe("down");
    expect(without.last_error).toContain("401");

    const added = await cliJson<McpServerView>("mcp", "add", workspace.id, "--name", "guarded", "--url", guarded.url, "--header", `X-Api-Token: ${secret}`);
    expect(added).toMatchObject({ status: "up", auth: { kind: "header", header_names: ["X-Api-Token"] } });
    expect(JSON.stringify(added)).not.toContain(secret);
    const row = await db.mcpServer.findUniqueOrThrow({ where: { id: added.id } });
    expect(row.authKind).toBe("header");
    expect(row.authSealed).toBeTruthy();
    expect(JSON.stringify(row)).not.toContain(secret);
    // The refresh opens the sealed header and the server accepts it.
    expect((await showServer(workspace.id, "guarded", { refresh: true })).status).toBe("up");
    // The audit log says the auth changed, never its value.
    const update = (await auditOf(added.id)).find((e) => e.action === "mcp_server.update")!;
    expect(update.changes).toMatchObject({ auth_kind: { from: "none", to: "header" }, auth: { from: null, to: "[secret]" } });
    expect(JSON.stringify(update.changes)).not.toContain(secret);
  });

  it("oauth client credentials: the token URL is checked by the outbound policy; the secret never shown", async () => {
    const { workspace } = await newWorkspace();
    const bad = addServer(actor, workspace.id, { name: "oauthed", url: standIn.url, auth: { kind: "oauth", tokenUrl: "http://10.0.0.1/token", clientId: "id", clientSecret: "s3cr3t" } });
    await expect(bad).rejects.toMatchObject({ status: 400, code: "url_not_allowed", param: "auth.tokenUrl" });
  });
});

describe("refusals", () => {
  it("bad input is a 400 naming the field: name, URL, price, transport", async () => {
    const { workspace } = await newWorkspace();
    const add = (input: object) => addServer(actor, workspace.id, { name: "ok", url: standIn.url, ...input });
    await expect(add({ name: "Bad Name" })).rejects.toMatchObject({ status: 400, param: "name" });
    await expect(add({ name: "a__b" })).rejects.toMatchObject({ status: 400, param: "name" });
    await expect(add({ url: "not a url" })).rejects.toMatchObject({ status: 400, param: "url" });
    await expect(add({ price_per_call: "-1" })).rejects.toMatchObject({ status: 400, param: "price_per_call" });
    await expect(add({ price_per_call: "1e-3" })).rejects.toMatchObject({ status: 400, param: "price_per_call" });
    await expect(add({ transport: "websocket" })).rejects.toMatchObject({ status: 400, param: "transport" });
    // The CLI says the same, exit 1 (its arguments were well formed).
    const out = await cli("mcp", "add", workspace.id, "--name", "Bad Name", "--url", standIn.url);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("Invalid value for 'name'");
    const usage = await cli("mcp", "add", workspace.id, "--name", "x", "--url", standIn.url, "--header", "no colon");
    expect(usage.code).toBe(2);
    expect(await db.mcpServer.count({ where: { scope: workspace.id } })).toBe(0);
  });

  it("URLs the outbound policy refuses: private networks, localhost, other schemes", async () => {
    const { workspace } = await newWorkspace();
    for (const url of ["http://10.0.0.1/mcp", "http://localhost:8080/mcp", "http://169.254.169.254/mcp", "ftp://example.com/mcp"]) {
      const err = await addServer(actor, workspace.id, { name: "nope", url }).catch((e: unknown) => e);
      expect(err, url).toMatchObject({ status: 400, code: "url_not_allowed", param: "url" });
    }
  });

  it("one name, one server: a workspace cannot take an operator's server's name, nor the operator a workspace's (409)", async () => {
    const { workspace } = await newWorkspace();
    const global = unique("op");
    await addServer(actor, null, { name: global, url: standIn.url });
    await expect(addServer(actor, workspace.id, { name: global, url: standIn.url })).rejects.toMatchObject({ status: 409, code: "mcp_server_name_taken", param: "name" });
    const own = unique("mine");
    await addServer(actor, workspace.id, { name: own, url: standIn.url });
    await expect(addServer(actor, null, { name: own, url: standIn.url })).rejects.toMatchObject({ status: 409, code: "mcp_server_name_taken" });
    await removeServer(actor, null, global);
  });

  it("another workspace neither sees nor removes a workspace's server (404); a workspace cannot change the operator's (403)", async () => {
    const [a, b] = [await newWorkspace(), await newWorkspace()];
    const own = await addServer(actor, a.workspace.id, { name: "private", url: standIn.url });
    expect((await listServers(b.workspace.id)).some((s) => s.id === own.id)).toBe(false);
    await expect(showServer(b.workspace.id, "private")).rejects.toMatchObject({ status: 404, code: "mcp_server_not_found" });
    await expect(showServer(b.workspace.id, own.id)).rejects.toMatchObject({ status: 404 });
    await expect(removeServer(actor, b.workspace.id, own.id)).rejects.toMatchObject({ status: 404 });
    await expect(setToolPrice(actor, b.workspace.id, own.id, "echo", "1")).rejects.toMatchObject({ status: 404 });
    const out = await cli("mcp", "remove", b.workspace.id, "private");
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("No MCP server named `private`");

    const global = unique("op");
    await addServer(actor, null, { name: global, url: standIn.url });
    expect(await showServer(a.workspace.id, global)).toMatchObject({ scope: "global" });
    await expect(removeServer(actor, a.workspace.id, global)).rejects.toMatchObject({ status: 403, code: "permission_denied" });
    await expect(setToolPrice(actor, a.workspace.id, global, "echo", "1")).rejects.toMatchObject({ status: 403 });
    expect((await listServers(a.workspace.id)).some((s) => s.name === global)).toBe(true);
    await removeServer(actor, null, global);
    expect((await listServers(a.workspace.id)).some((s) => s.name === global)).toBe(false);
  });
});

describe("prices", () => {
  it("mcp price sets one tool's price; --clear gives it the server's again; unknown tools and bad prices are refused", async () => {
    const { workspace } = await newWorkspace();
    const added = await addServer(actor, workspace.id, { name: "priced", url: standIn.url, price_per_call: "0.01" });
    const set = await cliJson<McpServerView>("mcp", "price", workspace.id, "priced", "add", "--per-call", "0.000001");
    expect(set.tool_prices).toEqual({ add: "0.000001" });
    expect(set.tools.map((t) => [t.name, t.price_per_call])).toEqual([["echo", "0.01"], ["add", "0.000001"], ["fail", "0.01"]]);
    // Free: a price of 0.
    const free = await setToolPrice(actor, workspace.id, "priced", "echo", "0");
    expect(free.tools.find((t) => t.name === "echo")!.price_per_call).toBeNull();
    // Re-adding keeps the tool prices.
    const again = await addServer(actor, workspace.id, { name: "priced", url: standIn.url });
    expect(again).toMatchObject({ price_per_call: "0.01", tool_prices: { add: "0.000001", echo: "0" } });

    await expect(setToolPrice(actor, workspace.id, "priced", "nope", "1")).rejects.toMatchObject({ status: 404, code: "mcp_tool_not_found", param: "tool" });
    await expect(setToolPrice(actor, workspace.id, "priced", "add", "-2")).rejects.toMatchObject({ status: 400 });
    const cleared = await cliJson<McpServerView>("mcp", "price", workspace.id, "priced", "add", "--clear");
    expect(cleared.tool_prices).toEqual({ echo: "0" });
    expect(cleared.tools.find((t) => t.name === "add")!.price_per_call).toBe("0.01");
    expect((await cli("mcp", "price", workspace.id, "priced", "add")).code).toBe(2);

    const prices = (await auditOf(added.id)).filter((e) => e.action === "mcp_server.price").map((e) => e.changes);
    expect(prices).toEqual([{ "tool_prices.add": { from: null, to: "0.000001" } }, { "tool_prices.echo": { from: null, to: "0" } }, { "tool_prices.add": { from: "0.000001", to: null } }]);
  });

  it("a server never listed (down when added) takes a price for any tool name", async () => {
    const { workspace } = await newWorkspace();
    await addServer(actor, workspace.id, { name: "unlisted", url: "http://127.0.0.1:9/mcp" });
    expect((await setToolPrice(actor, workspace.id, "unlisted", "search", "0.5")).tool_prices).toEqual({ search: "0.5" });
  });
});

describe("removing, ad-hoc servers, tRPC", () => {
  it("mcp remove: gone from the list, audited with its fields", async () => {
    const { workspace } = await newWorkspace();
    const added = await addServer(actor, workspace.id, { name: "gone", url: standIn.url });
    expect(await cliJson("mcp", "remove", workspace.id, "gone")).toEqual({ object: "mcp_server", id: added.id, name: "gone", deleted: true });
    expect((await listServers(workspace.id)).filter((s) => s.scope === "workspace")).toEqual([]);
    const removed = (await auditOf(added.id)).at(-1)!;
    expect(removed).toMatchObject({ action: "mcp_server.remove", workspaceId: workspace.id, changes: { name: { from: "gone", to: null }, url: { from: standIn.url, to: null } } });
  });

  it("mcp adhoc on|off: the workspace's switch, audited", async () => {
    const { workspace } = await newWorkspace();
    expect(await cliJson("mcp", "adhoc", workspace.id, "on")).toEqual({ object: "mcp_settings", adhoc_servers: true });
    expect((await db.workspace.findUniqueOrThrow({ where: { id: workspace.id } })).mcpAdhocServers).toBe(true);
    await setAdhocServers(actor, workspace.id, false);
    const events = await db.auditEvent.findMany({ where: { workspaceId: workspace.id, action: "workspace.mcp_adhoc" }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.changes)).toEqual([{ mcp_adhoc_servers: { from: false, to: true } }, { mcp_adhoc_servers: { from: true, to: false } }]);
    expect((await cli("mcp", "adhoc", workspace.id, "maybe")).code).toBe(2);
  });

  it("tRPC: every member lists (with refresh); owners and admins add, price, remove and switch ad-hoc servers; others are refused", async () => {
    const { workspace, members } = await teamWorkspace();
    const owner = members.owner!.caller;
    const added = await owner.mcp.add({ server: { name: "dash", url: standIn.url, auth: { kind: "header", headers: { "X-Key": "v" } } } });
    expect(added).toMatchObject({ name: "dash", status: "up", auth: { kind: "header", header_names: ["X-Key"] } });
    await expect(owner.mcp.add({ server: { name: "dash", url: "nope" } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    for (const role of ["member", "billing"] as const) {
      const caller = members[role]!.caller;
      const list = await caller.mcp.list({ refresh: true });
      expect(list).toMatchObject({ object: "list", adhoc_servers: false });
      expect(list.data.filter((s) => s.scope === "workspace")).toMatchObject([{ name: "dash", status: "up" }]);
      await expect(caller.mcp.add({ server: { name: "x", url: standIn.url } })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.mcp.remove({ server: "dash" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.mcp.price({ server: "dash", tool: "echo", per_call: "1" })).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.mcp.adhoc({ on: true })).rejects.toMatchObject({ code: "FORBIDDEN" });
    }
    const admin = members.admin!.caller;
    expect((await admin.mcp.price({ server: "dash", tool: "echo", per_call: "0.25" })).tool_prices).toEqual({ echo: "0.25" });
    expect(await admin.mcp.adhoc({ on: true })).toEqual({ object: "mcp_settings", adhoc_servers: true });
    expect((await owner.mcp.list()).adhoc_servers).toBe(true);
    await admin.mcp.remove({ server: "dash" });
    expect((await owner.mcp.list()).data.filter((s) => s.scope === "workspace")).toEqual([]);
    const events = await db.auditEvent.findMany({ where: { workspaceId: workspace.id, targetType: "mcp_server" }, orderBy: { id: "asc" } });
    expect(events.map((e) => [e.action, e.actorType])).toEqual([["mcp_server.add", "user"], ["mcp_server.price", "user"], ["mcp_server.remove", "user"]]);
  });
});
