// The hand-over from our callback (OIDC) or ACS (SAML) to next-auth: a random ticket, of which only
// the hash is stored, good once and for 60 seconds. next-auth's "sso" provider redeems it and
// writes its own session cookie.
import { createHash, randomBytes } from "node:crypto";
import type { Tx } from "../../infra/db/client";
import { db } from "../../infra/db/client";

const TICKET_TTL_MS = 60_000;
const hashOf = (ticket: string) => createHash("sha256").update(ticket).digest("hex");

export async function issueTicketTx(tx: Tx, userId: string, connectionId: string): Promise<string> {
  const ticket = randomBytes(32).toString("base64url");
  await tx.ssoTicket.create({ data: { hash: hashOf(ticket), userId, connectionId, expiresAt: new Date(Date.now() + TICKET_TTL_MS) } });
  return ticket;
}

/** The user a ticket was issued to, deleting it (single use), or null for an unknown, used or expired ticket. */
export async function redeemSsoTicket(ticket: string): Promise<{ id: string; email: string | null; name: string | null } | null> {
  if (!ticket || ticket.length > 100) return null;
  const rows = await db.$queryRaw<{ userId: string }[]>`
    DELETE FROM "SsoTicket" WHERE hash = ${hashOf(ticket)} AND "expiresAt" > now() RETURNING "userId"`;
  const userId = rows[0]?.userId;
  if (!userId) return null;
  return db.user.findUnique({ where: { id: userId }, select: { id: true, email: true, name: true } });
}
