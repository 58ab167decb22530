// Who a batch's lines run as: the caller that created it. An API key is kept by id and looked up
// again when the lines run, so a key revoked, expired or at its spend limit since stops its batch's
// remaining lines (each fails with the error a live call would get); session tokens and dashboard
// users are kept as they were when the batch was created.
import type { Prisma } from "../generated/prisma/client";
import { grantOf } from "../identity/keys/permissions";
import type { Principal } from "../identity/principal";
import { db } from "../infra/db/client";
import { errors, GatewayError } from "../kernel/errors";
import { money } from "../kernel/money";

type StoredCaller =
  | { kind: "api_key"; keyId: string }
  | { kind: "session"; planId: string; subject: string; sessionId: string | null; spendCap: string | null; permissions: string[] | null; models: string[] | null }
  | { kind: "user"; userId: string; role: string };

/** The caller as the batch row keeps it (`Batch.caller`). */
export function storedCaller(p: Principal): Prisma.InputJsonValue {
  if (p.kind === "api_key") return { kind: "api_key", keyId: p.keyId } satisfies StoredCaller;
  if (p.kind === "session") {
    const permissions = p.grant?.permissions ? [...p.grant.permissions] : null;
    const models = p.grant?.models ? [...p.grant.models] : null;
    return { kind: "session", planId: p.planId, subject: p.subject, sessionId: p.sessionId, spendCap: p.spendCap, permissions, models } satisfies StoredCaller;
  }
  if (p.kind === "user") return { kind: "user", userId: p.userId, role: p.role } satisfies StoredCaller;
  throw errors.invalidRequest("A caller paying with x402 cannot create batches: batches bill a workspace's balance.", null);
}

/** The principal a batch's lines run as, now; a GatewayError when its key can no longer call. */
export async function batchPrincipal(workspaceId: string, stored: unknown): Promise<Principal | GatewayError> {
  const c = stored as StoredCaller;
  if (c.kind === "session") {
    return { kind: "session", workspaceId, keyId: null, planId: c.planId, subject: c.subject, sessionId: c.sessionId, spendCap: c.spendCap, grant: grantOf(c.permissions, c.models, null) };
  }
  if (c.kind === "user") return { kind: "user", workspaceId, keyId: null, userId: c.userId, role: c.role as Extract<Principal, { kind: "user" }>["role"] };
  const key = await db.apiKey.findFirst({
    where: { id: c.keyId, workspaceId },
    select: { revokedAt: true, expiresAt: true, spendLimit: true, spent: true, planId: true, permissions: true, models: true, tools: true },
  });
  if (!key || key.revokedAt) return errors.invalidApiKey("The API key that created this batch has been revoked.");
  if (key.expiresAt && key.expiresAt <= new Date()) return errors.invalidApiKey("The API key that created this batch has expired.");
  if (key.spendLimit !== null && money(key.spent.toString()).gte(key.spendLimit.toString())) return errors.keySpendLimitReached();
  return { kind: "api_key", workspaceId, keyId: c.keyId, planId: key.planId, grant: grantOf(key.permissions, key.models, key.tools) ?? undefined };
}
