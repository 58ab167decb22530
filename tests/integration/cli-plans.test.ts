// The CLI's plan, session, signing-key, issuer and workspace-limit commands, run as a real process
// against the test database (DATABASE_URL), like cli.test.ts.
import { describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { cli } from "../cli-process";
import { mintSession } from "../../server/identity/sessions/mint-session";

/** Runs a command with --json, expects exit 0 and exactly one line of JSON, and parses it. */
async function json(...args: string[]) {
  const r = await cli(...args, "--json");
  expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
  expect(r.stdout.trim().split("\n"), r.stdout).toHaveLength(1);
  return JSON.parse(r.stdout);
}

async function newWorkspace(name: string): Promise<string> {
  return (await json("workspace", "create", "--name", name)).workspace.id;
}

describe("npm run cli: plans", () => {
  it("plan create with every flag, plan list, plan update (with none) and plan delete", async () => {
    const ws = await newWorkspace("CLI Plans");
    const { plan } = await json(
      "plan", "create", ws, "--name", "Pro", "--models", "local-chat-sim, local-embed", "--rpm", "60", "--tpm", "100000",
      "--concurrency", "4", "--daily-cap", "1.5", "--monthly-cap", "20", "--max-ttl", "7200",
    );
    expect(plan).toMatchObject({
      object: "plan",
      id: expect.stringMatching(/^plan_/),
      workspace_id: ws,
      name: "Pro",
      models: ["local-chat-sim", "local-embed"],
      rpm: 60,
      tpm: 100000,
      concurrency: 4,
      daily_cap: "1.5",
      monthly_cap: "20",
      max_ttl_seconds: 7200,
    });
    const free = (await json("plan", "create", ws, "--name", "Free")).plan;
    expect(free).toMatchObject({ models: [], rpm: null, tpm: null, concurrency: null, daily_cap: null, monthly_cap: null, max_ttl_seconds: 3600 });

    const listed = await json("plan", "list", ws);
    expect(listed.plans.map((p: { name: string }) => p.name)).toEqual(["Pro", "Free"]);
    const human = await cli("plan", "list", ws);
    expect(human.stdout).toMatch(new RegExp(`${plan.id}\\s+Pro\\s+local-chat-sim,local-embed\\s+60`));

    const updated = (await json("plan", "update", ws, plan.id, "--rpm", "none", "--daily-cap", "none", "--tpm", "5", "--models", "")).plan;
    expect(updated).toMatchObject({ name: "Pro", models: [], rpm: null, tpm: 5, concurrency: 4, daily_cap: null, monthly_cap: "20", max_ttl_seconds: 7200 });

    const dup = await cli("plan", "create", ws, "--name", "Free");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("already exists");

    const deleted = await json("plan", "delete", ws, free.id);
    expect(deleted).toEqual({ object: "plan.deleted", id: free.id, deleted: true });
    expect((await json("plan", "list", ws)).plans.map((p: { id: string }) => p.id)).toEqual([plan.id]);
    const again = await cli("plan", "delete", ws, free.id);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`No plan with id ${free.id}`);
  }, 90_000);

  it("plan create and update --tools set the MCP tool patterns a plan allows; a bad pattern is a usage error", async () => {
    const ws = await newWorkspace("CLI Plan Tools");
    const tooled = (await json("plan", "create", ws, "--name", "Tools", "--tools", "github__*,search__web,github__*")).plan;
    expect(tooled).toMatchObject({ tools: ["github__*", "search__web"] });
    expect((await json("plan", "create", ws, "--name", "Free")).plan.tools).toEqual([]);
    expect((await json("plan", "list", ws)).plans.find((p: { id: string }) => p.id === tooled.id).tools).toEqual(["github__*", "search__web"]);
    expect((await cli("plan", "list", ws)).stdout).toContain("github__*,search__web");
    expect((await json("plan", "update", ws, tooled.id, "--tools", "*__read_file")).plan.tools).toEqual(["*__read_file"]);
    expect((await json("plan", "update", ws, tooled.id, "--tools", "")).plan.tools).toEqual([]);
    const bad = await cli("plan", "update", ws, tooled.id, "--tools", "read_file");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--tools: tool pattern "read_file" names no server');
  }, 90_000);

  it("key create --plan and key set-plan put keys on plans", async () => {
    const ws = await newWorkspace("CLI Key Plans");
    const { plan } = await json("plan", "create", ws, "--name", "Team", "--rpm", "10");
    const created = await json("key", "create", ws, "--name", "on-plan", "--plan", plan.id);
    expect(created.key).toMatchObject({ name: "on-plan", workspaceId: ws, planId: plan.id });

    const cleared = await json("key", "set-plan", ws, created.key.id, "none");
    expect(cleared.key).toMatchObject({ id: created.key.id, planId: null });
    const set = await json("key", "set-plan", ws, created.key.id, plan.id);
    expect(set.key.planId).toBe(plan.id);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: created.key.id } })).planId).toBe(plan.id);

    const unknown = await cli("key", "create", ws, "--plan", "plan_nope");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No plan plan_nope in this workspace");
  }, 90_000);

  it("workspace limits sets, keeps and clears the workspace's defaults", async () => {
    const ws = await newWorkspace("CLI Limits");
    expect(await json("workspace", "limits", ws, "--rpm", "100", "--concurrency", "3")).toEqual({
      workspaceId: ws,
      limits: { rpm: 100, tpm: null, concurrency: 3 },
    });
    // Flags not given are left as they are.
    expect((await json("workspace", "limits", ws, "--tpm", "5000")).limits).toEqual({ rpm: 100, tpm: 5000, concurrency: 3 });
    expect((await json("workspace", "limits", ws, "--rpm", "none")).limits).toEqual({ rpm: null, tpm: 5000, concurrency: 3 });
    expect((await json("workspace", "limits", ws)).limits).toEqual({ rpm: null, tpm: 5000, concurrency: 3 });
    const human = await cli("workspace", "limits", ws);
    expect(human.stdout).toContain("rpm none, tpm 5000, concurrency 3");
  }, 90_000);
});

describe("npm run cli: sessions and signing keys", () => {
  it("session list on a workspace without sessions is empty; list, revoke and revoke-subject work on minted ones", async () => {
    const ws = await newWorkspace("CLI Sessions");
    expect(await json("session", "list", ws)).toEqual({ sessions: [] });
    expect((await cli("session", "list", ws)).stdout.trim()).toBe("(none)");

    const { plan } = await json("plan", "create", ws, "--name", "Basic");
    const a = await mintSession({ workspaceId: ws, keyId: null }, { plan: plan.id, subject: "alice" });
    const b = await mintSession({ workspaceId: ws, keyId: null }, { plan: plan.id, subject: "bob" });
    const c = await mintSession({ workspaceId: ws, keyId: null }, { plan: plan.id, subject: "bob" });

    expect((await json("session", "list", ws)).sessions).toHaveLength(3);
    const alices = (await json("session", "list", ws, "--subject", "alice", "--plan", plan.id)).sessions;
    expect(alices).toEqual([expect.objectContaining({ id: a.id, plan: plan.id, subject: "alice", revoked_at: null })]);

    const revoked = await json("session", "revoke", ws, a.id);
    expect(revoked.session).toMatchObject({ id: a.id, revoked_at: expect.any(Number) });
    expect(await json("session", "revoke-subject", ws, "bob")).toEqual({ object: "session.revocation", subject: "bob", revoked: 2 });
    expect((await json("session", "list", ws)).sessions).toEqual([]);
    const all = (await json("session", "list", ws, "--all")).sessions;
    expect(all.map((s: { id: string }) => s.id).sort()).toEqual([a.id, b.id, c.id].sort());
  }, 90_000);

  it("signing-key rotate twice: the first key is retired by the second and stays published", async () => {
    // A session alive now keeps retired keys published until it expires.
    const ws = await newWorkspace("CLI Signing");
    const { plan } = await json("plan", "create", ws, "--name", "Keys");
    await mintSession({ workspaceId: ws, keyId: null }, { plan: plan.id, subject: "carol" });

    const first = await json("signing-key", "rotate");
    expect(first.kid).toMatch(/^gw-/);
    const second = await json("signing-key", "rotate");
    expect(second.kid).not.toBe(first.kid);
    const retired = second.retired.find((r: { kid: string }) => r.kid === first.kid);
    expect(retired).toBeDefined();
    expect(retired.published_until).toBeGreaterThan(Date.now() / 1000 + 60);

    const published = await json("signing-key", "list");
    const kids = published.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([first.kid, second.kid]));
    expect(published.keys.find((k: { kid: string }) => k.kid === second.kid)).toMatchObject({ alg: "ES256", kty: "EC", use: "sig" });
    expect(JSON.stringify(published)).not.toMatch(/"d":/); // public keys only

    const human = await cli("signing-key", "list");
    expect(human.stdout).toMatch(new RegExp(`${second.kid}\\s+ES256\\s+P-256\\s+true`));
    const rotatedText = await cli("signing-key", "rotate");
    expect(rotatedText.stdout).toContain(`Retired ${second.kid}: published until`);
  }, 90_000);
});

describe("npm run cli: trusted issuers", () => {
  it("issuer add, list and remove", async () => {
    const ws = await newWorkspace("CLI Issuers");
    const { plan } = await json("plan", "create", ws, "--name", "Idp");
    const iss = `https://idp-${ws}.example.com/`;
    const { issuer } = await json(
      "issuer", "add", ws, "--issuer", iss, "--jwks-url", `${iss}.well-known/jwks.json`, "--audience", "gateway",
      "--subject-claim", "email", "--plan-claim", "tier", "--default-plan", plan.id,
    );
    expect(issuer).toMatchObject({
      object: "trusted_issuer",
      id: expect.any(String),
      issuer: iss,
      audience: "gateway",
      subject_claim: "email",
      plan_claim: "tier",
      default_plan: plan.id,
    });
    const taken = await cli("issuer", "add", ws, "--issuer", iss, "--jwks-url", `${iss}jwks`, "--audience", "gateway");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("already trusted");

    expect((await json("issuer", "list", ws)).issuers).toEqual([issuer]);
    expect(await json("issuer", "remove", ws, issuer.id)).toEqual({ object: "trusted_issuer.deleted", id: issuer.id, deleted: true });
    expect((await json("issuer", "list", ws)).issuers).toEqual([]);

    // A JWKS URL the outbound guard refuses: the reason on stderr, a non-zero exit, nothing stored.
    for (const [url, why] of [["https://169.254.169.254/jwks", "link-local address"], ["https://localhost/jwks", "points at localhost"], ["http://10.0.0.1/jwks", "plain http is not allowed"]]) {
      const refused = await cli("issuer", "add", ws, "--issuer", iss, "--jwks-url", url!, "--audience", "gateway");
      expect(refused.code, url).toBe(1);
      expect(refused.stderr, url).toContain("error: The jwks_url is not allowed");
      expect(refused.stderr, url).toContain(why);
    }
    expect((await json("issuer", "list", ws)).issuers).toEqual([]);
  }, 90_000);
});

describe("npm run cli: plan usage errors", () => {
  it("invalid numbers, amounts and arguments exit 2 with the usage and write nothing", async () => {
    const ws = await newWorkspace("CLI Plan Errors");
    const cases: [string[], string][] = [
      [["plan", "create", ws, "--name", "Bad", "--rpm", "abc"], '--rpm must be a whole number above zero or "none", got "abc"'],
      [["plan", "create", ws, "--name", "Bad", "--tpm", "0"], "--tpm must be a whole number above zero"],
      [["plan", "create", ws, "--name", "Bad", "--concurrency", "1.5"], "--concurrency must be a whole number"],
      [["plan", "create", ws, "--name", "Bad", "--daily-cap=-1"], "--daily-cap must be a USD amount"],
      [["plan", "create", ws, "--name", "Bad", "--monthly-cap", "ten"], "--monthly-cap must be a USD amount"],
      [["plan", "create", ws, "--name", "Bad", "--max-ttl", "10"], "--max-ttl:"],
      [["plan", "create", ws, "--name", "Bad", "--max-ttl", "none"], "--max-ttl must be a whole number"],
      [["plan", "create", ws, "--rpm", "5"], "--name is required"],
      [["plan", "update", ws, "plan_x"], "at least one flag"],
      [["plan", "update", ws, "plan_x", "--rpm", "1e3"], "--rpm must be a whole number"],
      [["plan", "delete", ws], "expected WORKSPACE_ID PLAN_ID"],
      [["workspace", "limits", ws, "--rpm", "abc"], "--rpm must be a whole number"],
      [["workspace", "limits", ws, "--concurrency=-2"], "--concurrency must be a whole number"],
      [["session", "list", ws, "--limit", "1000"], "--limit must be at most 500"],
      [["key", "set-plan", ws, "key_x"], "expected WORKSPACE_ID KEY_ID PLAN_ID|none"],
      [["issuer", "add", ws, "--issuer", "https://x.example", "--jwks-url", "ftp://x.example/jwks", "--audience", "a"], "--jwks-url:"],
      [["issuer", "add", ws, "--issuer", "https://x.example", "--audience", "a"], "--jwks-url is required"],
      [["signing-key", "rotate", "extra"], "expected no positional arguments"],
    ];
    for (const [args, message] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(message);
      expect(r.stderr, args.join(" ")).toContain("usage: npm run cli");
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect(await db.plan.count({ where: { workspaceId: ws } })).toBe(0);
    const ws2 = await db.workspace.findUniqueOrThrow({ where: { id: ws } });
    expect([ws2.defaultRpm, ws2.defaultTpm, ws2.defaultConcurrency]).toEqual([null, null, null]);
  }, 120_000);
});
