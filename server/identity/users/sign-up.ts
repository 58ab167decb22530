import { z } from "zod";
import { db } from "../../infra/db/client";
import { createUserTx } from "./create-user";
import { GatewayError } from "../../kernel/errors";
import { hashPassword } from "./password";
import { ssoRequiredFor } from "./sso-required";

export const ZEmail = z.string().trim().toLowerCase().email("must be an email address").max(254);
export const ZPassword = z.string().min(10, "must be at least 10 characters").max(200);

export const ZSignUpInput = z.object({
  name: z.string().trim().min(1, "must not be empty").max(100),
  email: ZEmail,
  password: ZPassword,
});
export type SignUpInput = z.input<typeof ZSignUpInput>;

/** Creates a user with a password (see create-user.ts for taken emails); never an operator (operators.ts). */
export async function signUp(input: SignUpInput): Promise<{ id: string; email: string; isOperator: boolean }> {
  const data = ZSignUpInput.parse(input);
  if (await ssoRequiredFor(data.email)) {
    throw new GatewayError({
      status: 403,
      code: "sso_required",
      param: "email",
      message: "Your organisation signs in with single sign-on: no password account can be made for this address. Use “Sign in with SSO”.",
    });
  }
  const passwordHash = await hashPassword(data.password);
  const user = await db.$transaction((tx) => createUserTx(tx, { name: data.name, email: data.email, passwordHash }));
  return { id: user.id, email: data.email, isOperator: user.isOperator };
}
