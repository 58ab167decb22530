// The admin CLI, run as a real process against the test database (DATABASE_URL).
import { spawn } from "node:child_process";
import { describe, expect, inject, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { cli } from "../cli-process";

describe("npm run cli", () => {
  it("as `npm run cli` starts it (the TypeScript loader) and as the tests start it (the bundle), the same answer", async () => {
    const created = await cli("workspace", "create", "--name", "Loaders", "--credits", "3.5", "--json");
    const id = JSON.parse(created.stdout).workspace.id as string;
    const viaNpm = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const proc = spawn("npm", ["run", "-s", "cli", "--", "workspace", "show", id, "--json"], { env: { ...process.env, DATABASE_URL: inject("databaseUrl") } });
      let stdout = "";
      proc.stdout.on("data", (d) => (stdout += d));
      proc.on("exit", (code) => resolve({ code, stdout }));
    });
    const viaBundle = await cli("workspace", "show", id, "--json");
    expect(viaNpm.code).toBe(0);
    expect(viaBundle.code).toBe(0);
    expect(JSON.parse(viaNpm.stdout).workspace).toMatchObject({ id, name: "Loaders", balance: "3.5" });
    expect(JSON.parse(viaBundle.stdout)).toEqual(JSON.parse(viaNpm.stdout));
  }, 90_000);

  it("workspace create --json prints exactly one JSON object with the workspace and the key", async () => {
    const r = await cli("workspace", "create", "--name", "CLI Co", "--credits", "12.25", "--json");
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({
      workspace: { id: expect.stringMatching(/^ws_/), name: "CLI Co", balance: "12.25" },
      apiKey: expect.stringMatching(/^sk-gw-[0-9A-Za-z]{40}$/),
    });
    // the key works against the gateway
    const res = await fetch(`${inject("baseUrl")}/v1/models`, { headers: { authorization: `Bearer ${out.apiKey}` } });
    expect(res.status).toBe(200);

    const shown = await cli("workspace", "show", out.workspace.id, "--json");
    expect(shown.code).toBe(0);
    const detail = JSON.parse(shown.stdout);
    expect(detail.workspace).toMatchObject({ id: out.workspace.id, name: "CLI Co", balance: "12.25" });
    expect(detail.keys).toHaveLength(1);
    expect(JSON.stringify(detail)).not.toContain(out.apiKey);
  });

  it("credits add, key create, key list and key revoke work on a workspace", async () => {
    const ws = JSON.parse((await cli("workspace", "create", "--name", "Keys", "--json")).stdout).workspace;
    expect(ws.balance).toBe("0");
    const credited = await cli("credits", "add", ws.id, "0.000001", "--json");
    expect(JSON.parse(credited.stdout).workspace.balance).toBe("0.000001");
    const created = JSON.parse((await cli("key", "create", ws.id, "--name", "ci", "--json")).stdout);
    expect(created.key).toMatchObject({ name: "ci", workspaceId: ws.id, revokedAt: null });
    const listed = JSON.parse((await cli("key", "list", ws.id, "--json")).stdout);
    expect(listed.keys.map((k: { name: string }) => k.name).sort()).toEqual(["ci", "default"]);
    const revoked = JSON.parse((await cli("key", "revoke", created.key.id, "--json")).stdout);
    expect(revoked.key.revokedAt).not.toBeNull();
    const human = await cli("key", "list", ws.id);
    expect(human.stdout).toContain(created.key.prefix);
  }, 90_000); // the CLI run several times in turn, like cli-plans.test.ts

  it("bad arguments print the usage on stderr, exit non-zero and write nothing", async () => {
    const cases = [
      ["workspace", "create", "--credits", "5"],
      ["workspace", "create", "--name", "Half", "--credits", "abc"],
      ["workspace", "create", "--name", "Half", "--bogus"],
      ["workspace", "frobnicate"],
      ["credits", "add", "only-one-arg"],
      ["node", "add", "--name", "x", "--url", "not a url", "--city", "A", "--country", "DE"],
      ["node", "add", "--name", "y", "--url", "http://127.0.0.1:1/v1", "--city", "A", "--country", "Germany"],
      [],
    ];
    for (const args of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(" ")).not.toBe(0);
      expect(r.stderr, args.join(" ")).toContain("usage: npm run cli");
      expect(r.stdout).toBe("");
    }
    expect(await db.workspace.count({ where: { name: "Half" } })).toBe(0);
    expect(await db.node.count({ where: { name: { in: ["x", "y"] } } })).toBe(0);
  }, 90_000);

  it("an unknown id is an error on stderr with exit 1", async () => {
    const r = await cli("credits", "add", "ws_nope", "1");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("No workspace with id ws_nope");
  });

  it("node add discovers models, node list shows it without its key, node remove deletes it", async () => {
    const local = (await db.node.findUniqueOrThrow({ where: { name: "local" } })).baseUrl;
    // The built-in node needs its key; without it discovery fails and the node is added unlinked.
    const added = await cli("node", "add", "--name", "cli-node", "--url", local, "--city", "Oslo", "--country", "no", "--api-key", "wrong-key", "--json");
    expect(added.code).toBe(0);
    const out = JSON.parse(added.stdout);
    expect(out.node).toMatchObject({ name: "cli-node", region: { city: "Oslo", country: "NO" }, hasApiKey: true, models: [] });
    expect(out.discoveryError).toBe("HTTP 401");
    expect(added.stdout).not.toContain("wrong-key");
    const listed = await cli("node", "list", "--json");
    expect(listed.stdout).not.toContain("wrong-key");
    expect(JSON.parse(listed.stdout).nodes.map((n: { name: string }) => n.name)).toContain("cli-node");
    const dup = await cli("node", "add", "--name", "cli-node", "--url", local, "--city", "Oslo", "--country", "NO", "--no-discover");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("already exists");
    const removed = await cli("node", "remove", out.node.id, "--json");
    expect(removed.code).toBe(0);
    expect(await db.node.count({ where: { name: "cli-node" } })).toBe(0);
  }, 90_000);

  it("model list prints the catalog", async () => {
    const r = await cli("model", "list", "--json");
    expect(r.code).toBe(0);
    const ids = JSON.parse(r.stdout).data.map((m: { id: string }) => m.id);
    expect(ids).toContain("local-video");
    const human = await cli("model", "list");
    expect(human.stdout).toMatch(/local-chat-sim\s+chat/);
  });
});
