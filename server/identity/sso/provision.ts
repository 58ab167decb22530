// Who a single sign-on answer signs in, once the protocol checks have passed: the address must be
// in a verified domain of this connection (otherwise any identity provider could assert anyone's
// address, here or in another workspace), the user is found by the connection's subject link or
// by the address, or created; a first sign-in makes them a member with the connection's default
// role. All in the caller's transaction, which also issues the sign-in ticket.
import { diff, recordAudit } from "../../audit/record";
import { ssoActor } from "../../audit/actor";
import type { Tx } from "../../infra/db/client";
import { GatewayError } from "../../kernel/errors";
import { createUserTx } from "../users/create-user";
import { domainOf } from "../users/sso-required";

export type SsoIdentity = { subject: string; email: string | null; emailVerified?: boolean | null; name: string | null };
export type ProvisioningConnection = { id: string; workspaceId: string; defaultRole: string; defaultCustomRoleId: string | null };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const accountProvider = (connectionId: string) => `sso:${connectionId}`;

export async function provisionTx(tx: Tx, conn: ProvisioningConnection, who: SsoIdentity): Promise<{ userId: string; membershipId: string; created: boolean }> {
  const email = who.email?.trim().toLowerCase() ?? "";
  if (!EMAIL.test(email)) throw new GatewayError({ status: 400, code: "sso_no_email", message: "The identity provider sent no e-mail address for this person." });
  if (who.emailVerified === false) throw new GatewayError({ status: 403, code: "sso_email_unverified", message: "The identity provider says this e-mail address is not verified." });
  const domain = domainOf(email);
  const verified = await tx.ssoDomain.findFirst({ where: { connectionId: conn.id, domain, verifiedAt: { not: null } }, select: { id: true } });
  if (!verified) {
    throw new GatewayError({
      status: 403,
      code: "sso_domain_mismatch",
      message: `${domain} is not a verified domain of this workspace's single sign-on connection, so its identity provider cannot sign in ${email}.`,
    });
  }
  const provider = accountProvider(conn.id);
  const linked = await tx.account.findUnique({ where: { provider_providerAccountId: { provider, providerAccountId: who.subject } }, select: { userId: true } });
  const userId =
    linked?.userId ??
    (await tx.user.findUnique({ where: { email }, select: { id: true } }))?.id ??
    (await createUserTx(tx, { email, name: who.name })).id;
  if (!linked) {
    // The verified domain makes this provider authoritative for the address: an existing user of that address is linked.
    await tx.account.create({ data: { userId, type: "sso", provider, providerAccountId: who.subject } });
  }
  const member = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: conn.workspaceId, userId } }, select: { id: true, active: true } });
  if (member && !member.active) {
    throw new GatewayError({ status: 403, code: "member_deactivated", message: "Your membership of this workspace has been deactivated. Ask its administrators." });
  }
  if (member) return { userId, membershipId: member.id, created: false };
  const role = conn.defaultCustomRoleId ? "viewer" : (conn.defaultRole as "admin" | "member" | "billing" | "viewer");
  const created = await tx.membership.create({
    data: { workspaceId: conn.workspaceId, userId, role, customRoleId: conn.defaultCustomRoleId, source: "sso" },
    select: { id: true, customRole: { select: { name: true } } },
  });
  await recordAudit(tx, {
    workspaceId: conn.workspaceId,
    actor: ssoActor(conn.id),
    action: "member.provision",
    target: { type: "member", id: userId },
    changes: diff(null, { email, role, custom_role: created.customRole?.name ?? null, source: "sso" }, ["email", "role", "custom_role", "source"]),
  });
  return { userId, membershipId: created.id, created: true };
}
