// Creating a user, by password sign-up or a first OAuth sign-in. Under one advisory lock: an
// email is taken once (a clear 409, not a constraint error, when two sign-ups race). Nobody
// becomes an operator by signing up, not even first (operators.ts says how operators are made).
import type { Tx } from "../../infra/db/client";
import { GatewayError } from "../../kernel/errors";

export type NewUser = { email: string | null; name: string | null; image?: string | null; passwordHash?: string | null };

export async function createUserTx(tx: Tx, data: NewUser): Promise<{ id: string; isOperator: boolean }> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway.sign-up'))`;
  if (data.email && (await tx.user.findUnique({ where: { email: data.email }, select: { id: true } }))) {
    throw new GatewayError({ status: 409, code: "email_taken", message: "An account with this email already exists. Sign in instead.", param: "email" });
  }
  return tx.user.create({
    data: { email: data.email, name: data.name, image: data.image ?? null, passwordHash: data.passwordHash ?? null },
    select: { id: true, isOperator: true },
  });
}
