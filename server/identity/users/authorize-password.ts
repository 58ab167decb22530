import { db } from "../../infra/db/client";
import { dummyHash, verifyPassword } from "./password";
import { noteSuccess, recordAttempt, throttleKeys } from "./sign-in-throttle";
import { ZEmail } from "./sign-up";
import { ssoRequiredFor } from "./sso-required";

/** Thrown messages reach the sign-in form (next-auth passes them as the error). */
export class SignInRefused extends Error {}

export const SSO_REQUIRED_MESSAGE = "Your organisation signs in with single sign-on. Use “Sign in with SSO”.";

/** Checks an email and password. Every attempt counts against the throttle until it succeeds; throttled callers are refused before any check. */
export async function authorizeWithPassword(rawEmail: string, password: string, clientIp: string | null): Promise<{ id: string; email: string; name: string | null } | null> {
  const parsed = ZEmail.safeParse(rawEmail);
  if (!parsed.success || !password) return null;
  const email = parsed.data;
  const keys = throttleKeys(email, clientIp);
  const throttle = await recordAttempt(keys);
  if (throttle.throttled) {
    throw new SignInRefused(`Too many failed sign-ins. Try again in ${Math.ceil(throttle.retryAfterSeconds / 60)} minute(s).`);
  }
  // Before the password is checked: the answer is the same whether or not it was right.
  if (await ssoRequiredFor(email)) throw new SignInRefused(SSO_REQUIRED_MESSAGE);
  const user = await db.user.findUnique({ where: { email }, select: { id: true, email: true, name: true, passwordHash: true } });
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), password);
  if (!user || !user.passwordHash || !ok) return null;
  await noteSuccess(keys);
  return { id: user.id, email, name: user.name };
}
