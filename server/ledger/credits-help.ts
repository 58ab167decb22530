// What the install tells its users about getting credits: a short text an operator sets (for
// example "Email billing@example.com to buy credits"), shown on the billing page and in the API's
// 402 insufficient_quota answers. Read from memory, at most CACHE_MS old on any instance.
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../audit/record";
import { db } from "../infra/db/client";

const KEY = "credits-help";
const CACHE_MS = 5000;

export const ZCreditsHelp = z.string().trim().max(500, "must be at most 500 characters");

/** Told to a user when the operator has said nothing. */
export const DEFAULT_CREDITS_HELP = "An operator of this gateway adds credits on the dashboard's Billing page: ask yours.";

let cached: { text: string | null; at: number } | null = null;

/** The operator's text; null when none is set. */
export async function creditsHelp(): Promise<string | null> {
  if (cached && Date.now() - cached.at < CACHE_MS) return cached.text;
  const row = await db.installSetting.findUnique({ where: { key: KEY } });
  cached = { text: row?.value ?? null, at: Date.now() };
  return cached.text;
}

/** Sets the text (empty: back to the default). */
export async function setCreditsHelp(text: string, actor?: AuditActor): Promise<string | null> {
  const value = ZCreditsHelp.parse(text);
  await db.$transaction(async (tx) => {
    const before = await tx.installSetting.findUnique({ where: { key: KEY } });
    if (value) await tx.installSetting.upsert({ where: { key: KEY }, create: { key: KEY, value }, update: { value } });
    else await tx.installSetting.deleteMany({ where: { key: KEY } });
    const changes = diff({ text: before?.value ?? null }, { text: value || null }, ["text"]);
    if (Object.keys(changes).length) await recordAudit(tx, { workspaceId: null, actor, action: "settings.credits_help", target: { type: "setting", id: KEY }, changes });
  });
  cached = null;
  return value || null;
}
