// Creating restricted keys: with the CLI (a real process against the test database) and with the
// dashboard's procedure (a caller acting as a signed-in member); both take the same schema, list
// what they made, and the key is then held to it over HTTP.
import { describe, expect, it } from "vitest";
import { createPlan } from "../../server/identity/plans/manage-plans";
import { cli } from "../cli-process";
import { teamWorkspace } from "../helpers-dashboard";
import { client } from "../helpers";
import { CHAT, EMBED } from "../plans-fixtures";

const newWorkspaceId = async () => JSON.parse((await cli("workspace", "create", "--name", "Restricted", "--credits", "1", "--json")).stdout).workspace.id as string;

describe("npm run cli: key create with permissions", () => {
  it("--permissions and --models make a restricted key, which key list shows and the gateway enforces", async () => {
    const ws = await newWorkspaceId();
    const r = await cli("key", "create", ws, "--name", "narrow", "--permissions", "text,embeddings", "--models", `${CHAT},${EMBED}`, "--json");
    expect(r.code).toBe(0);
    const { key, apiKey } = JSON.parse(r.stdout);
    // Stored in the list's order, whatever order they were given in.
    expect(key).toMatchObject({ name: "narrow", permissions: ["text", "embeddings"], models: [CHAT, EMBED] });

    const listed = JSON.parse((await cli("key", "list", ws, "--json")).stdout).keys as { name: string; permissions: string[] | null; models: string[] | null }[];
    expect(listed.find((k) => k.name === "narrow")).toMatchObject({ permissions: ["text", "embeddings"], models: [CHAT, EMBED] });
    expect(listed.find((k) => k.name === "default")).toMatchObject({ permissions: null, models: null });
    const human = (await cli("key", "list", ws)).stdout;
    expect(human).toContain("text,embeddings");

    const openai = client(apiKey);
    await expect(openai.models.list()).rejects.toMatchObject({ status: 403, code: "insufficient_permissions" });
    expect((await openai.embeddings.create({ model: EMBED, input: "x" })).data).toHaveLength(1);
  }, 90_000); // several CLI processes in turn, like cli-plans.test.ts

  it("an unknown permission, an empty list and a model outside the key's plan are usage errors, and nothing is created", async () => {
    const ws = await newWorkspaceId();
    const unknown = await cli("key", "create", ws, "--name", "bad", "--permissions", "text,telepathy");
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('--permissions: unknown permission "telepathy"');
    expect(unknown.stderr).toContain("embeddings");
    const empty = await cli("key", "create", ws, "--name", "bad", "--permissions", "");
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain("--permissions");
    const plan = await createPlan(ws, { name: "chat only", models: [CHAT] });
    const outside = await cli("key", "create", ws, "--name", "bad", "--plan", plan.id, "--models", EMBED);
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toContain(EMBED);
    const names = JSON.parse((await cli("key", "list", ws, "--json")).stdout).keys.map((k: { name: string }) => k.name);
    expect(names).toEqual(["default"]);
    // Nor can a key limited to a model be moved onto a plan without it.
    const narrow = JSON.parse((await cli("key", "create", ws, "--name", "embed", "--models", EMBED, "--json")).stdout).key;
    const moved = await cli("key", "set-plan", ws, narrow.id, plan.id);
    expect(moved.code).not.toBe(0);
    expect(moved.stderr).toContain(EMBED);
  }, 90_000);

  it("--permissions mcp --tools make a key limited to some MCP tools, which its view and key list show; a bad pattern is a usage error", async () => {
    const ws = await newWorkspaceId();
    const r = await cli("key", "create", ws, "--name", "tools", "--permissions", "mcp", "--tools", "a__*, search__web,a__*", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).key).toMatchObject({ name: "tools", permissions: ["mcp"], models: null, tools: ["a__*", "search__web"] });
    const listed = JSON.parse((await cli("key", "list", ws, "--json")).stdout).keys as { name: string; tools: string[] | null }[];
    expect(listed.find((k) => k.name === "tools")?.tools).toEqual(["a__*", "search__web"]);
    expect(listed.find((k) => k.name === "default")?.tools).toBeNull();
    expect((await cli("key", "list", ws)).stdout).toContain("a__*,search__web");

    const noServer = await cli("key", "create", ws, "--name", "bad", "--tools", "github");
    expect(noServer.code).not.toBe(0);
    expect(noServer.stderr).toContain('--tools: tool pattern "github" names no server: write <server>__<tool>');
    const badChars = await cli("key", "create", ws, "--name", "bad", "--tools", "a__b c");
    expect(badChars.stderr).toContain("--tools: tool pattern");
    expect(badChars.stderr).toContain("may hold only letters, digits");
    const empty = await cli("key", "create", ws, "--name", "bad", "--tools", "");
    expect(empty.stderr).toContain("--tools: name at least one tool pattern");
    const names = JSON.parse((await cli("key", "list", ws, "--json")).stdout).keys.map((k: { name: string }) => k.name);
    expect(names.sort()).toEqual(["default", "tools"]);
  }, 90_000);
});

describe("dashboard: keys.create with permissions", () => {
  it("a member creates a restricted key; the list shows its permissions; an unknown group is BAD_REQUEST", async () => {
    const { members } = await teamWorkspace("1", ["owner", "member"]);
    const member = members.member!.caller;
    const { key, secret } = await member.keys.create({ name: "text only", permissions: ["sessions", "text"], models: [CHAT] });
    expect(key).toMatchObject({ permissions: ["text", "sessions"], models: [CHAT] });
    const all = await member.keys.create({ name: "all" });
    expect(all.key).toMatchObject({ permissions: null, models: null });
    const listed = await member.keys.list();
    expect(listed.find((k) => k.id === key.id)).toMatchObject({ permissions: ["text", "sessions"], models: [CHAT] });
    await expect(member.keys.create({ name: "bad", permissions: ["telepathy" as never] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(member.keys.create({ name: "bad", permissions: [] })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    // MCP tools: kept and listed; a pattern naming no server is BAD_REQUEST (400) saying so.
    const tools = await member.keys.create({ name: "tools", permissions: ["mcp"], tools: ["github__*", "*__read_file"] });
    expect(tools.key).toMatchObject({ permissions: ["mcp"], tools: ["github__*", "*__read_file"] });
    expect((await member.keys.list()).find((k) => k.id === tools.key.id)?.tools).toEqual(["github__*", "*__read_file"]);
    const refused = await member.keys.create({ name: "bad", tools: ["github"] }).then(
      () => null,
      (e: { code: string; message: string }) => e,
    );
    expect(refused?.code).toBe("BAD_REQUEST");
    expect(refused?.message).toContain("names no server: write <server>__<tool>");

    const openai = client(secret);
    expect((await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "hi" }], max_tokens: 4 })).choices).toHaveLength(1);
    await expect(openai.embeddings.create({ model: EMBED, input: "x" })).rejects.toMatchObject({ status: 403, code: "insufficient_permissions" });
  });
});
