// Fixtures for dashboard procedures: users, and tRPC callers acting as a signed-in user (in a
// workspace, as the /api/trpc endpoint resolves them from the session and `x-workspace-id`).
import { randomBytes } from "node:crypto";
import { resolveSession } from "../server/identity/users/session-principal";
import { signUp } from "../server/identity/users/sign-up";
import { db } from "../server/infra/db/client";
import type { Role } from "../server/generated/prisma/enums";
import { newRequestId } from "../server/kernel/ids";
import { createCaller, type Caller } from "../server/trpc/root";
import { createWorkspace } from "../server/onboarding/create-workspace";

export async function newUser(opts: { operator?: boolean; name?: string } = {}) {
  const email = `user-${randomBytes(6).toString("hex")}@example.test`;
  const password = "correct horse battery staple";
  const user = await signUp({ name: opts.name ?? "Test User", email, password });
  // Nobody becomes an operator by signing up: the flag is set only when asked for.
  if (opts.operator) await db.user.update({ where: { id: user.id }, data: { isOperator: opts.operator ?? false } });
  return { id: user.id, email, password };
}

/** A caller as the signed-in user, acting in `workspaceId` when given (as the header would say). */
export async function userCaller(userId: string, workspaceId: string | null = null): Promise<Caller> {
  const { user, principal } = await resolveSession(userId, workspaceId);
  return createCaller({ requestId: newRequestId(), user, principal });
}

/** A workspace with credits and a member in each given role; returns callers for each. */
export async function teamWorkspace(credits = "10", roles: Role[] = ["owner", "admin", "member", "billing"]) {
  const { workspace } = await createWorkspace({ name: "team workspace", credits });
  const members: Partial<Record<Role, { id: string; email: string; caller: Caller }>> = {};
  for (const role of roles) {
    const u = await newUser({ name: role });
    await db.membership.create({ data: { workspaceId: workspace.id, userId: u.id, role } });
    members[role] = { id: u.id, email: u.email, caller: await userCaller(u.id, workspace.id) };
  }
  return { workspace, members };
}
