import { z } from "zod";
import { db } from "../db/client";
import { GatewayError } from "../errors";
import { hashPassword } from "./password";

export const ZEmail = z.string().trim().toLowerCase().email("must be an email address").max(254);
export const ZPassword = z.string().min(10, "must be at least 10 characters").max(200);

export const ZSignUpInput = z.object({
  name: z.string().trim().min(1, "must not be empty").max(100),
  email: ZEmail,
  password: ZPassword,
});
export type SignUpInput = z.input<typeof ZSignUpInput>;

/**
 * Creates a user with a password. The first user of an empty install becomes an operator: the
 * count and the insert run under one advisory lock, so two first sign-ups cannot both win.
 */
export async function signUp(input: SignUpInput): Promise<{ id: string; email: string; isOperator: boolean }> {
  const data = ZSignUpInput.parse(input);
  const passwordHash = await hashPassword(data.password);
  return db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext('gateway.sign-up'))`;
    const taken = await tx.user.findUnique({ where: { email: data.email }, select: { id: true } });
    if (taken) throw new GatewayError({ status: 409, code: "email_taken", message: "An account with this email already exists. Sign in instead.", param: "email" });
    const first = (await tx.user.count()) === 0;
    const user = await tx.user.create({ data: { name: data.name, email: data.email, passwordHash, isOperator: first } });
    return { id: user.id, email: data.email, isOperator: first };
  });
}
