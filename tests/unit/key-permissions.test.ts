// Permission groups: every /v1 operation (served or not) belongs to one, the OpenAPI document says
// which, stored lists read as documented (empty: all), and the minting rules refuse every plan
// that would allow more than the key.
import { describe, expect, it } from "vitest";
import { operations } from "../../server/contract";
import { openApiDocument } from "../../server/contract/openapi";
import { grantOf, KEY_PERMISSIONS } from "../../server/identity/keys/permissions";
import { assertPermitted } from "../../server/pipeline/authenticate";
import type { PlanRule } from "../../server/identity/plans/plan-cache";
import { assertMayMintFor, tokenPermissions } from "../../server/identity/sessions/mint-rules";
import { GatewayError } from "../../server/kernel/errors";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const planRule = (id: string, models: string[] | null, tools: string[] | null = null): PlanRule => ({
  id,
  name: id,
  models: models && new Set(models),
  tools,
  region: null,
  dailyCap: null,
  monthlyCap: null,
  maxTtlSeconds: 3600,
  rpm: null,
  tpm: null,
  concurrency: null,
  cacheDefault: null,
  cacheOwnScope: false,
});

const codeOf = (fn: () => void): string | null => {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof GatewayError ? err.code : "not a GatewayError";
  }
};

describe("permission groups", () => {
  it("every operation with a credential declares a known group, and those without none", () => {
    for (const op of Object.values(operations)) {
      if (op.tier === "none") expect(op.permission, op.id).toBeNull();
      else expect(KEY_PERMISSIONS, op.id).toContain(op.permission);
    }
  });

  it("the OpenAPI document names each operation's group", () => {
    const doc = openApiDocument(operations) as Json;
    expect(doc.paths["/v1/embeddings"].post["x-permission"]).toBe("embeddings");
    expect(doc.paths["/v1/sessions"].post["x-permission"]).toBe("sessions");
    expect(doc.paths["/v1/files"].get["x-permission"]).toBe("files");
    expect(doc.paths["/v1/files"].get.responses["403"]).toBeDefined();
    expect(doc.paths["/health"].get["x-permission"]).toBeUndefined();
  });

  it("empty or null stored lists mean no restriction; a grant checks its groups only", () => {
    expect(grantOf([], [], null)).toBeNull();
    expect(grantOf(null, null, null)).toBeNull();
    const grant = grantOf(["text"], [], null);
    expect(grant?.models).toBeNull();
    expect(codeOf(() => assertPermitted({ kind: "api_key", grant }, "text", "POST", "/v1/chat/completions"))).toBeNull();
    expect(codeOf(() => assertPermitted({ kind: "api_key", grant }, "embeddings", "POST", "/v1/embeddings"))).toBe("insufficient_permissions");
    expect(codeOf(() => assertPermitted({ kind: "api_key" }, "embeddings", "POST", "/v1/embeddings"))).toBeNull();
    expect(codeOf(() => assertPermitted({ kind: "api_key", grant }, null, "GET", "/health"))).toBeNull();
  });

  it("a grant keeps its tool patterns (empty: every tool), and `mcp` is a group of its own", () => {
    expect(grantOf([], [], [])).toBeNull();
    expect(grantOf([], [], ["github__*"])).toEqual({ permissions: null, models: null, tools: ["github__*"] });
    const grant = grantOf(["mcp"], [], null);
    expect(grant?.tools).toBeNull();
    expect(codeOf(() => assertPermitted({ kind: "api_key", grant }, "mcp", "POST", "/mcp"))).toBeNull();
    expect(codeOf(() => assertPermitted({ kind: "api_key", grant }, "text", "POST", "/v1/responses"))).toBe("insufficient_permissions");
    expect(KEY_PERMISSIONS.indexOf("mcp")).toBe(KEY_PERMISSIONS.indexOf("batches") + 1);
  });
});

describe("minting rules", () => {
  const chat = planRule("plan_chat", ["chat"]);
  const every = planRule("plan_every", null);
  const both = planRule("plan_both", ["chat", "embed"]);

  it("a key on a plan mints only for that plan", () => {
    const onChat = { workspaceId: "ws", keyId: "key", planId: chat.id };
    expect(codeOf(() => assertMayMintFor(onChat, chat))).toBeNull();
    expect(codeOf(() => assertMayMintFor(onChat, every))).toBe("plan_not_allowed");
    expect(codeOf(() => assertMayMintFor(onChat, both))).toBe("plan_not_allowed");
  });

  it("a key limited to some models mints only for a plan within them; an unrestricted key for any", () => {
    const chatKey = { workspaceId: "ws", keyId: "key", grant: grantOf([], ["chat"], null) };
    expect(codeOf(() => assertMayMintFor(chatKey, chat))).toBeNull();
    expect(codeOf(() => assertMayMintFor(chatKey, every))).toBe("plan_not_allowed");
    expect(codeOf(() => assertMayMintFor(chatKey, both))).toBe("plan_not_allowed");
    for (const plan of [chat, every, both]) expect(codeOf(() => assertMayMintFor({ workspaceId: "ws", keyId: "key" }, plan))).toBeNull();
  });

  it("a key limited to some tools mints only for a plan whose tool patterns lie within the key's", () => {
    const githubKey = { workspaceId: "ws", keyId: "key", grant: grantOf(["mcp", "sessions"], [], ["github__*", "search__web"]) };
    for (const tools of [["github__get_issue"], ["github__list*"], ["search__web", "github__*"]]) {
      expect(codeOf(() => assertMayMintFor(githubKey, planRule("p", null, tools))), tools.join()).toBeNull();
    }
    for (const tools of [null, ["*"], ["*__get_issue"], ["search__*"], ["github__*", "slack__post"]]) {
      expect(codeOf(() => assertMayMintFor(githubKey, planRule("p", null, tools))), String(tools)).toBe("plan_not_allowed");
    }
    // Its tokens lack `mcp` when the key does, so its tool patterns do not narrow the plans it mints for.
    const noMcp = { workspaceId: "ws", keyId: "key", grant: grantOf(["sessions", "text"], [], ["github__*"]) };
    expect(codeOf(() => assertMayMintFor(noMcp, planRule("p", null, null)))).toBeNull();
  });

  it("a token carries a restricted key's groups less sessions, and nothing for an unrestricted key", () => {
    expect(tokenPermissions({ workspaceId: "ws", keyId: "k", grant: grantOf(["sessions", "text", "models"], [], null) })).toEqual(["models", "text"]);
    expect(tokenPermissions({ workspaceId: "ws", keyId: "k", grant: grantOf([], ["chat"], null) })).toBeNull();
    expect(tokenPermissions({ workspaceId: "ws", keyId: "k" })).toBeNull();
  });
});
