// Sign-in throttling: after SIGN_IN_MAX_FAILURES failed attempts for one email, or
// SIGN_IN_MAX_FAILURES_PER_IP from one client address, within SIGN_IN_WINDOW_SECONDS, further
// attempts are refused until the window ends. The address limit is higher because many people
// can share one address (an office, a proxy). Counted in PostgreSQL, so every gateway instance
// sees the same failures.
import { db } from "../db/client";
import { env } from "../env";

export type Throttled = { throttled: true; retryAfterSeconds: number } | { throttled: false };

export const throttleKeys = (email: string, clientIp: string | null): string[] =>
  [`email:${email.toLowerCase()}`, ...(clientIp ? [`ip:${clientIp}`] : [])];

export async function checkThrottle(keys: string[]): Promise<Throttled> {
  const rows = await db.$queryRaw<{ remaining: number }[]>`
    SELECT CEIL(EXTRACT(EPOCH FROM ("windowStart" + make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) - now())))::int AS remaining
    FROM "SignInThrottle"
    WHERE "key" = ANY(${keys})
      AND "failures" >= CASE WHEN "key" LIKE 'ip:%' THEN ${env.SIGN_IN_MAX_FAILURES_PER_IP}::int ELSE ${env.SIGN_IN_MAX_FAILURES}::int END
      AND "windowStart" > now() - make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int)`;
  if (!rows.length) return { throttled: false };
  return { throttled: true, retryAfterSeconds: Math.max(1, ...rows.map((r) => r.remaining)) };
}

/** Counts a failure against each key; a window that has ended starts again at one. */
export async function noteFailure(keys: string[]): Promise<void> {
  for (const key of keys) {
    await db.$executeRaw`
      INSERT INTO "SignInThrottle" ("key", "failures", "windowStart") VALUES (${key}, 1, now())
      ON CONFLICT ("key") DO UPDATE SET
        "failures" = CASE WHEN "SignInThrottle"."windowStart" <= now() - make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) THEN 1 ELSE "SignInThrottle"."failures" + 1 END,
        "windowStart" = CASE WHEN "SignInThrottle"."windowStart" <= now() - make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) THEN now() ELSE "SignInThrottle"."windowStart" END`;
  }
}

/** A successful sign-in clears the email's failures (not the address's: one good account must not unlock guessing at others). */
export async function clearFailures(email: string): Promise<void> {
  await db.signInThrottle.deleteMany({ where: { key: `email:${email.toLowerCase()}` } });
}
