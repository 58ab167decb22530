// The members SCIM sees and changes: those whose e-mail is in one of the workspace's verified
// single sign-on domains. The IdP is authoritative for its own domains only, so its token can
// neither list nor deactivate the owner's personal address or a contractor invited from elsewhere.
import { db, type Tx } from "../../infra/db/client";
import type { Prisma } from "../../generated/prisma/client";

export async function verifiedDomains(workspaceId: string, client: Tx | typeof db = db): Promise<string[]> {
  const rows = await client.ssoDomain.findMany({ where: { workspaceId, verifiedAt: { not: null } }, select: { domain: true }, orderBy: { domain: "asc" } });
  return rows.map((r) => r.domain);
}

/** The memberships of the workspace in its verified domains (none when it has no verified domain). E-mails are stored lower case. */
export async function scimMemberScope(workspaceId: string, client: Tx | typeof db = db): Promise<Prisma.MembershipWhereInput> {
  const domains = await verifiedDomains(workspaceId, client);
  return { workspaceId, OR: domains.map((d) => ({ user: { email: { endsWith: `@${d}` } } })) };
}
