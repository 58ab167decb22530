// The one-time setup link: while the install has no operator, `npm start` prints a link whose
// token makes the signed-in user who opens it the operator. Only its hash is stored; it is used
// once and expires after SETUP_TOKEN_HOURS. A new one is printed by each start that finds no
// operator (the older one stops working).
import { createHash, timingSafeEqual } from "node:crypto";
import { db } from "../../infra/db/client";
import { randomBase62 } from "../../kernel/ids";
import { GatewayError } from "../../kernel/errors";
import { hasOperator } from "./operators";

const KEY = "setup-token";
export const SETUP_TOKEN_HOURS = 24;

const hashOf = (token: string) => createHash("sha256").update(token).digest();

/** A new setup token when the install has no operator (null when it has one, and any older token goes). */
export async function issueSetupToken(now = new Date()): Promise<string | null> {
  if (await hasOperator()) {
    await db.installSetting.deleteMany({ where: { key: KEY } });
    return null;
  }
  return newSetupToken(now);
}

/** A new setup token, replacing any older one. */
export async function newSetupToken(now = new Date()): Promise<string> {
  const token = `setup_${randomBase62(32)}`;
  const value = JSON.stringify({ hash: hashOf(token).toString("hex"), expiresAt: new Date(now.getTime() + SETUP_TOKEN_HOURS * 3_600_000).toISOString() });
  await db.installSetting.upsert({ where: { key: KEY }, create: { key: KEY, value }, update: { value } });
  return token;
}

const refused = () =>
  new GatewayError({ status: 404, code: "setup_token_invalid", message: "This setup link is not valid: it was used already, it expired, or a newer one was printed. Restart the gateway for a new one." });

/** Makes `userId` an operator if `token` is the install's setup token; the token is used up. */
export async function claimSetupToken(userId: string, token: string, now = new Date()): Promise<void> {
  await db.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ value: string }[]>`SELECT "value" FROM "InstallSetting" WHERE "key" = ${KEY} FOR UPDATE`;
    if (!rows[0]) throw refused();
    const stored = JSON.parse(rows[0].value) as { hash: string; expiresAt: string };
    const expected = Buffer.from(stored.hash, "hex");
    const given = hashOf(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected) || new Date(stored.expiresAt) <= now) throw refused();
    await tx.installSetting.delete({ where: { key: KEY } });
    await tx.user.update({ where: { id: userId }, data: { isOperator: true } });
  });
}
