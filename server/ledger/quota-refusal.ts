// The 402 insufficient_quota a call gets when its workspace's credits do not cover it, saying how
// to get credits: a workspace that never had any is told so (not that it has "no credits left").
// Asked only when a call is refused, and remembered a moment per workspace, so a client retrying
// a refused call does not make the database answer each time.
import { boundedLru } from "../infra/cache/bounded-lru";
import { db } from "../infra/db/client";
import { errors, GatewayError } from "../kernel/errors";
import { creditsHelp, DEFAULT_CREDITS_HELP } from "./credits-help";

const funded = boundedLru<string, boolean>(10_000, { ttl: 5000 });

async function everFunded(workspaceId: string): Promise<boolean> {
  const known = funded.get(workspaceId);
  if (known !== undefined) return known;
  const rows = await db.$queryRaw<{ funded: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM "CreditLedgerEntry" WHERE "workspaceId" = ${workspaceId} AND "amount" > 0) AS "funded"`;
  const answer = rows[0]?.funded ?? false;
  funded.set(workspaceId, answer);
  return answer;
}

export async function quotaRefusal(workspaceId: string): Promise<GatewayError> {
  const [wasFunded, help] = await Promise.all([everFunded(workspaceId), creditsHelp()]);
  const how = help ?? DEFAULT_CREDITS_HELP;
  return errors.insufficientQuota(wasFunded ? `Your workspace has no credits left. ${how}` : `This workspace has no credits yet. ${how}`);
}

/** `err` with the workspace's refusal message when it is the plain insufficient_quota of the credit lease. */
export async function explainRefusal(err: unknown, workspaceId: string): Promise<unknown> {
  if (!(err instanceof GatewayError) || err.code !== "insufficient_quota") return err;
  return quotaRefusal(workspaceId).catch(() => err);
}
