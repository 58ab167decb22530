// POST /v1/sessions: a workspace API key mints a session token for one end user (the subject)
// under one of the workspace's plans. The token is a JWT (ES256) whose `jti` is the session's id;
// docs/SESSIONS.md describes its claims.
import { SignJWT } from "jose";
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { formatMoney } from "../../kernel/money";
import { rulesWithPlan, workspaceRules, type WorkspaceRules } from "../plans/plan-cache";
import { assertMayMintFor, tokenPermissions, type Minter } from "./mint-rules";
import { CLAIMS, type MintedSession, type MintSessionInput } from "./session-schemas";
import { currentSigner, SIGNING_ALGORITHM } from "./signing-keys";

/**
 * What of the minting key bounds its tokens, read from the database (minting writes a row anyway,
 * and a limit set a moment ago counts). A key with a spend limit mints nothing (403
 * plan_not_allowed): what its tokens spend is billed to the workspace under the plan's and the
 * session's caps, not counted against the key's limit, so a token would let the key's holder spend
 * past it. Returns when the key expires (null: never, or no key), which its tokens may not outlive.
 */
async function keyBounds(minter: Minter): Promise<Date | null> {
  if (!minter.keyId) return null;
  const key = await db.apiKey.findUnique({ where: { id: minter.keyId }, select: { spendLimit: true, expiresAt: true } });
  if (key?.spendLimit != null) {
    throw errors.planNotAllowed(
      "This API key has a spend limit, which what session tokens spend does not count against: it may not mint them. Mint with a key without a spend limit, and bound the tokens with the plan's caps and spend_cap.",
    );
  }
  return key?.expiresAt ?? null;
}

export async function mintSession(minter: Minter, input: MintSessionInput): Promise<MintedSession> {
  const find = (rules: WorkspaceRules) => rules.plans.get(input.plan) ?? [...rules.plans.values()].find((p) => p.name === input.plan);
  // A plan created a moment ago may not be in memory yet: looked up once more in the database.
  const plan = find(await workspaceRules(minter.workspaceId)) ?? find(await rulesWithPlan(minter.workspaceId, input.plan));
  if (!plan) throw errors.invalidRequest(`No plan ${input.plan} in this workspace.`, "plan", "plan_not_found");
  assertMayMintFor(minter, plan);
  const keyExpiresAt = await keyBounds(minter);
  const ttl = input.expires_in ?? plan.maxTtlSeconds;
  if (ttl > plan.maxTtlSeconds) {
    throw errors.invalidRequest(`expires_in may be at most ${plan.maxTtlSeconds} seconds under plan ${plan.name}.`, "expires_in", "invalid_value");
  }
  const signer = await currentSigner();
  const id = newId("sess");
  const issuedAt = Math.floor(Date.now() / 1000);
  // A token never outlives the key that minted it.
  const expiresAt = keyExpiresAt ? Math.min(issuedAt + ttl, Math.floor(keyExpiresAt.getTime() / 1000)) : issuedAt + ttl;
  await db.planSession.create({
    data: {
      id,
      workspaceId: minter.workspaceId,
      planId: plan.id,
      subject: input.subject,
      apiKeyId: minter.keyId,
      spendCap: input.spend_cap === undefined ? null : formatMoney(input.spend_cap),
      createdAt: new Date(issuedAt * 1000),
      expiresAt: new Date(expiresAt * 1000),
    },
  });
  const permissions = tokenPermissions(minter);
  const claims = { [CLAIMS.workspace]: minter.workspaceId, [CLAIMS.plan]: plan.id, ...(permissions && { [CLAIMS.permissions]: permissions }) };
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, kid: signer.kid, typ: "JWT" })
    .setIssuer(env.SESSION_TOKEN_ISSUER)
    .setAudience(env.SESSION_TOKEN_AUDIENCE)
    .setSubject(input.subject)
    .setJti(id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(signer.privateKey);
  return {
    object: "session",
    id,
    token,
    subject: input.subject,
    plan: plan.id,
    expires_at: expiresAt,
    spend_cap: input.spend_cap === undefined ? null : formatMoney(input.spend_cap),
  };
}
