import { env } from "../../infra/env";

const listed = new Set(
  env.OPERATOR_EMAILS.split(",")
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean),
);

/** Operators are the users flagged in the database (the first user of an empty install) and those listed in OPERATOR_EMAILS. */
export function isOperator(user: { email: string | null; isOperator: boolean }): boolean {
  return user.isOperator || (user.email !== null && listed.has(user.email.toLowerCase()));
}
