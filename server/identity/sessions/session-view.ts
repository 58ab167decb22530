import { z } from "zod";
import { formatMoney } from "../../kernel/money";

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

/** A session as listed (never its token, which is shown once, when minted). */
export const ZSessionView = z.object({
  object: z.literal("session"),
  id: z.string(),
  plan: z.string(),
  subject: z.string(),
  /** USD decimal string: what the session may spend over its life; null: only the plan's caps. */
  spend_cap: z.string().nullable(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
  revoked_at: z.number().int().nullable(),
});
export type SessionView = z.infer<typeof ZSessionView>;

type Row = { id: string; planId: string; subject: string; spendCap: { toString(): string } | null; createdAt: Date; expiresAt: Date; revokedAt: Date | null };

export function toSessionView(r: Row): SessionView {
  return {
    object: "session",
    id: r.id,
    plan: r.planId,
    subject: r.subject,
    spend_cap: r.spendCap === null ? null : formatMoney(r.spendCap),
    created_at: unix(r.createdAt),
    expires_at: unix(r.expiresAt),
    revoked_at: r.revokedAt ? unix(r.revokedAt) : null,
  };
}
