// Gateway operators (nodes, credits, install settings) are made explicitly, never by signing up:
// listed in OPERATOR_EMAILS, promoted with `npm run cli -- user promote <email>`, or the user who
// opens the one-time setup link that `npm start` prints while the install has none (setup-token.ts).
import { db } from "../../infra/db/client";
import { env } from "../../infra/env";
import { errors } from "../../kernel/errors";

const listed = new Set(
  env.OPERATOR_EMAILS.split(",")
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean),
);

/** Operators are the users flagged in the database and those listed in OPERATOR_EMAILS. */
export function isOperator(user: { email: string | null; isOperator: boolean }): boolean {
  return user.isOperator || (user.email !== null && listed.has(user.email.toLowerCase()));
}

/** Whether the install has an operator (flagged, or named in OPERATOR_EMAILS). */
export async function hasOperator(): Promise<boolean> {
  return listed.size > 0 || (await db.user.count({ where: { isOperator: true } })) > 0;
}

export type UserRow = { id: string; email: string | null; name: string | null; isOperator: boolean; createdAt: string };

/** Flags the user of `email` as an operator, or takes the flag away. */
export async function setOperator(email: string, operator: boolean): Promise<UserRow> {
  const user = await db.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  if (!user) throw errors.notFound(`No user with the email ${email}. They sign up first.`, "user_not_found");
  const row = await db.user.update({ where: { id: user.id }, data: { isOperator: operator } });
  return { id: row.id, email: row.email, name: row.name, isOperator: isOperator(row), createdAt: row.createdAt.toISOString() };
}

export async function listUsers(): Promise<UserRow[]> {
  const rows = await db.user.findMany({ orderBy: { createdAt: "asc" } });
  return rows.map((r) => ({ id: r.id, email: r.email, name: r.name, isOperator: isOperator(r), createdAt: r.createdAt.toISOString() }));
}
