import type { Account } from "next-auth";
import { db } from "../db/client";

/**
 * The gateway user behind an OAuth sign-in: the one already linked to this provider account, or
 * the user with the same (provider-verified) email, or a new user. Returns the user id.
 */
export async function linkOAuthUser(account: Account, profile: { email: string | null; name: string | null; image: string | null }): Promise<string> {
  const linked = await db.account.findUnique({
    where: { provider_providerAccountId: { provider: account.provider, providerAccountId: account.providerAccountId } },
    select: { userId: true },
  });
  if (linked) return linked.userId;
  const email = profile.email?.toLowerCase() ?? null;
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway.sign-up'))`;
    const existing = email ? await tx.user.findUnique({ where: { email }, select: { id: true } }) : null;
    const first = !existing && (await tx.user.count()) === 0;
    const user = existing ?? (await tx.user.create({ data: { email, name: profile.name, image: profile.image, isOperator: first } }));
    await tx.account.create({
      data: { userId: user.id, type: account.type, provider: account.provider, providerAccountId: account.providerAccountId },
    });
    return user.id;
  });
}
