// Which plans a credential may mint session tokens for, and what the token may call: a token
// never allows more than the key that minted it (docs/SESSIONS.md, "What a key may mint"). Checked
// before anything is written, from the verified key and the plan cache.
import { errors } from "../../kernel/errors";
import { KEY_PERMISSIONS, type KeyGrant, type KeyPermission } from "../keys/permissions";
import { patternWithin } from "../keys/tool-patterns";
import type { PlanRule } from "../plans/plan-cache";

/** Who asks to mint: a workspace API key (its plan and restrictions), or a dashboard member or operator tool (neither). */
export type Minter = { workspaceId: string; keyId: string | null; planId?: string | null; grant?: KeyGrant | null };

const listed = (ids: Iterable<string>) => [...ids].map((id) => `\`${id}\``).join(", ");

/**
 * 403 plan_not_allowed unless the plan allows no more than the minter:
 * - a key on a plan mints only for that plan (its limits and caps were chosen for it, and another
 *   plan could allow more models or higher limits);
 * - a key restricted to some models mints only for a plan whose models are all among them (a plan
 *   allowing every model allows more than such a key);
 * - likewise for MCP tools (assertToolsWithin).
 */
export function assertMayMintFor(minter: Minter, plan: PlanRule): void {
  if (minter.planId && plan.id !== minter.planId) {
    throw errors.planNotAllowed(`This API key is on plan ${minter.planId}; it may mint session tokens only for that plan, not for ${plan.id}.`);
  }
  assertToolsWithin(minter, plan);
  const keyModels = minter.grant?.models;
  if (!keyModels) return;
  if (!plan.models) {
    throw errors.planNotAllowed(`Plan ${plan.name} allows every model; this API key may call only ${listed(keyModels)}, so it may mint only for a plan limited to those.`);
  }
  const beyond = [...plan.models].filter((m) => !keyModels.has(m));
  if (beyond.length) {
    throw errors.planNotAllowed(`Plan ${plan.name} allows ${listed(beyond)}, which this API key may not call; it may mint only for a plan limited to its own models.`);
  }
}

/**
 * A token's tools are its plan's (it carries no patterns of its own), so a key that may use only
 * some tools mints only for a plan whose every pattern lies within the key's. A key without the
 * `mcp` group mints tokens without it, whose tools do not matter.
 */
function assertToolsWithin(minter: Minter, plan: PlanRule): void {
  const keyTools = minter.grant?.tools;
  const groups = minter.grant?.permissions;
  if (!keyTools || (groups && !groups.has("mcp"))) return;
  if (!plan.tools) {
    throw errors.planNotAllowed(`Plan ${plan.name} allows every MCP tool; this API key may use only ${listed(keyTools)}, so it may mint only for a plan limited to those.`);
  }
  const beyond = plan.tools.filter((p) => !patternWithin(keyTools, p));
  if (beyond.length) {
    throw errors.planNotAllowed(`Plan ${plan.name} allows the MCP tools ${listed(beyond)}, beyond this API key's ${listed(keyTools)}; it may mint only for a plan limited to its own tools.`);
  }
}

/**
 * The operation groups a token minted by a restricted key carries (in its signed claims): the
 * key's, less `sessions`, which no token has. null: the key is unrestricted, so is the token
 * (within its plan).
 */
export function tokenPermissions(minter: Minter): KeyPermission[] | null {
  const groups = minter.grant?.permissions;
  return groups ? KEY_PERMISSIONS.filter((g) => g !== "sessions" && groups.has(g)) : null;
}
