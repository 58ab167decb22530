import type { Account } from "next-auth";
import { db } from "../../infra/db/client";
import { createUserTx } from "./create-user";

type Profile = { email: string | null; name: string | null; image: string | null };

/**
 * Whether an OAuth sign-in may go ahead. An account already linked to this provider account may.
 * A new one may only if no user has its email yet: linking by email would hand an existing account
 * (whose address nobody verified) to whoever shows up with that address at the provider.
 */
export async function mayUseOAuthAccount(account: Account, profile: Profile): Promise<boolean> {
  if (await linkedUserId(account)) return true;
  const email = profile.email?.toLowerCase();
  return !email || !(await db.user.findUnique({ where: { email }, select: { id: true } }));
}

async function linkedUserId(account: Account): Promise<string | null> {
  const linked = await db.account.findUnique({
    where: { provider_providerAccountId: { provider: account.provider, providerAccountId: account.providerAccountId } },
    select: { userId: true },
  });
  return linked?.userId ?? null;
}

/** The gateway user behind an OAuth sign-in: the one linked to this provider account, or a new user. Returns the user id. */
export async function linkOAuthUser(account: Account, profile: Profile): Promise<string> {
  const linked = await linkedUserId(account);
  if (linked) return linked;
  return db.$transaction(async (tx) => {
    const user = await createUserTx(tx, { email: profile.email?.toLowerCase() ?? null, name: profile.name, image: profile.image });
    await tx.account.create({
      data: { userId: user.id, type: account.type, provider: account.provider, providerAccountId: account.providerAccountId },
    });
    return user.id;
  });
}
