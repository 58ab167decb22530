// Sign-in throttling: after SIGN_IN_MAX_FAILURES failed attempts for one email, or
// SIGN_IN_MAX_FAILURES_PER_IP from one client address, within SIGN_IN_WINDOW_SECONDS, further
// attempts are refused until the window ends. The address limit is higher because many people
// can share one address (an office, a proxy). Counted in PostgreSQL, so every gateway instance
// sees the same failures.
//
// An attempt is counted BEFORE the password is checked, in one atomic upsert: guesses sent in
// parallel each take a number, so no more than the limit are ever checked. A success gives its
// attempt back.
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";

export type Throttled = { throttled: true; retryAfterSeconds: number } | { throttled: false };

export const throttleKeys = (email: string, clientIp: string | null): string[] =>
  [`email:${email.toLowerCase()}`, ...(clientIp ? [`ip:${clientIp}`] : [])];

const limitOf = (key: string) => (key.startsWith("ip:") ? env.SIGN_IN_MAX_FAILURES_PER_IP : env.SIGN_IN_MAX_FAILURES);

/** Counts an attempt against each key (a window that has ended starts again at one) and says whether it is over a limit. */
export async function recordAttempt(keys: string[]): Promise<Throttled> {
  let retryAfterSeconds = 0;
  for (const key of keys) {
    const [row] = await db.$queryRaw<{ failures: number; remaining: number }[]>`
      INSERT INTO "SignInThrottle" ("key", "failures", "windowStart") VALUES (${key}, 1, now())
      ON CONFLICT ("key") DO UPDATE SET
        "failures" = CASE WHEN "SignInThrottle"."windowStart" <= now() - make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) THEN 1 ELSE "SignInThrottle"."failures" + 1 END,
        "windowStart" = CASE WHEN "SignInThrottle"."windowStart" <= now() - make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) THEN now() ELSE "SignInThrottle"."windowStart" END
      RETURNING "failures", CEIL(EXTRACT(EPOCH FROM ("windowStart" + make_interval(secs => ${env.SIGN_IN_WINDOW_SECONDS}::int) - now())))::int AS remaining`;
    if (row && row.failures > limitOf(key)) retryAfterSeconds = Math.max(retryAfterSeconds, row.remaining, 1);
  }
  return retryAfterSeconds ? { throttled: true, retryAfterSeconds } : { throttled: false };
}

/**
 * A successful sign-in clears the email's count, and gives back its attempt on the address (so
 * people signing in from one office do not add up), but never clears the address: one good
 * account must not unlock guessing at others.
 */
export async function noteSuccess(keys: string[]): Promise<void> {
  for (const key of keys) {
    if (key.startsWith("email:")) await db.signInThrottle.deleteMany({ where: { key } });
    else await db.$executeRaw`UPDATE "SignInThrottle" SET "failures" = GREATEST("failures" - 1, 0) WHERE "key" = ${key}`;
  }
}
