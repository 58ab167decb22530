// Who may call an operation of each tier (contract/operation.ts): `none` anyone; `api_key` a
// credential of a workspace (an API key, a session token, an x402 payer, or a signed-in member
// acting in a workspace); `billed` one that may spend it (dashboard members need a role that may
// call models, not `billing`).
import type { Tier } from "../contract/operation";
import type { Principal } from "../identity/principal";
import type { SessionUser } from "../identity/users/session-user";
import { can } from "../identity/workspaces/permissions";
import { errors } from "../kernel/errors";

/** Who is calling, as a host knows it: the principal, and for the dashboard the signed-in user (null: none; absent on /v1). */
export type Caller = { principal: Principal | null; user?: SessionUser | null };

function principalOf(caller: Caller): Principal {
  if (caller.principal) return caller.principal;
  // user: undefined is an API-key caller (/v1), null a dashboard request without a session.
  if (caller.user) throw errors.notFound("Pick a workspace (x-workspace-id) you are a member of.", "workspace_not_found");
  throw caller.user === null ? errors.unauthenticated() : errors.invalidApiKey();
}

/** Throws unless the caller may call an operation of `tier`. */
export function assertTier(tier: Tier, caller: Caller): void {
  if (tier === "none") return;
  const principal = principalOf(caller);
  if (tier === "billed" && principal.kind === "user" && !can(principal.role, "models.call")) {
    throw errors.permissionDenied(`The ${principal.role} role cannot call models from the dashboard.`);
  }
}
