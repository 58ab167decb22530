// The e-mail domains of a connection. A domain signs people in (and can require single sign-on)
// only once verified: by a DNS TXT record its owner publishes, or by a gateway operator (CLI).
// One workspace at most holds a verified domain (a partial unique index); a second gets 409.
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db, type Tx } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { resolveTxt, type TxtResolver } from "../../infra/net/dns-txt";
import { errors, GatewayError } from "../../kernel/errors";
import { newId, randomBase62 } from "../../kernel/ids";
import { ZDomain, type SsoDomainView } from "./connection-schemas";

type DomainRow = { domain: string; verificationToken: string; verifiedAt: Date | null; verifiedBy: string | null };

export const txtName = (domain: string) => `_gateway-verification.${domain}`;
export const txtValue = (token: string) => `gateway-verification=${token}`;

export function domainView(d: DomainRow): SsoDomainView {
  return { domain: d.domain, verified: d.verifiedAt !== null, verified_by: d.verifiedBy, txt_name: txtName(d.domain), txt_value: txtValue(d.verificationToken) };
}

const domainTaken = (domain: string) =>
  new GatewayError({ status: 409, code: "domain_taken", param: "domain", message: `${domain} is already verified by another workspace.` });

export function parseDomain(raw: string): string {
  const parsed = ZDomain.safeParse(raw);
  if (!parsed.success) throw errors.invalidRequest(`"${raw}" is not a domain name such as example.com.`, "domain", "invalid_domain");
  return parsed.data;
}

async function connectionOf(tx: Tx, workspaceId: string): Promise<{ id: string }> {
  const conn = await tx.ssoConnection.findUnique({ where: { workspaceId }, select: { id: true } });
  if (!conn) throw errors.notFound("This workspace has no single sign-on connection. Set one first.", "sso_not_configured");
  return conn;
}

export async function addDomainTx(tx: Tx, workspaceId: string, connectionId: string, domain: string, actor?: AuditActor): Promise<SsoDomainView> {
  const row = await tx.ssoDomain.create({
    data: { id: newId("ssod"), connectionId, workspaceId, domain, verificationToken: randomBase62(32) },
  });
  await recordAudit(tx, { workspaceId, actor, action: "sso_domain.add", target: { type: "sso_domain", id: row.id }, changes: diff(null, { domain }, ["domain"]) });
  return domainView(row);
}

export async function removeDomainTx(tx: Tx, workspaceId: string, row: { id: string; domain: string; verifiedBy: string | null }, actor?: AuditActor): Promise<void> {
  await tx.ssoDomain.delete({ where: { id: row.id } });
  await recordAudit(tx, {
    workspaceId,
    actor,
    action: "sso_domain.remove",
    target: { type: "sso_domain", id: row.id },
    changes: diff({ domain: row.domain, verified_by: row.verifiedBy }, null, ["domain", "verified_by"]),
  });
}

export async function addDomain(workspaceId: string, rawDomain: string, actor?: AuditActor): Promise<SsoDomainView> {
  const domain = parseDomain(rawDomain);
  return db.$transaction(async (tx) => {
    const conn = await connectionOf(tx, workspaceId);
    if (await tx.ssoDomain.findFirst({ where: { connectionId: conn.id, domain }, select: { id: true } })) {
      throw new GatewayError({ status: 409, code: "domain_exists", param: "domain", message: `${domain} is already a domain of this connection.` });
    }
    return addDomainTx(tx, workspaceId, conn.id, domain, actor);
  });
}

export async function removeDomain(workspaceId: string, rawDomain: string, actor?: AuditActor): Promise<{ domain: string; removed: true }> {
  const domain = parseDomain(rawDomain);
  return db.$transaction(async (tx) => {
    const row = await tx.ssoDomain.findFirst({ where: { workspaceId, domain } });
    if (!row) throw errors.notFound(`${domain} is not a domain of this workspace's single sign-on.`, "sso_domain_not_found", "domain");
    await removeDomainTx(tx, workspaceId, row, actor);
    await notify(tx, Channel.ssoChanged, workspaceId);
    return { domain, removed: true as const };
  });
}

/**
 * Verifies a domain: the TXT record `_gateway-verification.<domain>` must hold
 * `gateway-verification=<token>`, unless a gateway operator vouches for it (`operator`).
 */
export async function verifyDomain(
  workspaceId: string,
  rawDomain: string,
  opts: { operator?: boolean; resolver?: TxtResolver } = {},
  actor?: AuditActor,
): Promise<SsoDomainView> {
  const domain = parseDomain(rawDomain);
  const row = await db.ssoDomain.findFirst({ where: { workspaceId, domain } });
  if (!row) throw errors.notFound(`${domain} is not a domain of this workspace's single sign-on. Add it first.`, "sso_domain_not_found", "domain");
  if (row.verifiedAt) return domainView(row);
  const other = await db.ssoDomain.findFirst({ where: { domain, verifiedAt: { not: null }, NOT: { workspaceId } }, select: { id: true } });
  if (other) throw domainTaken(domain);
  if (!opts.operator) {
    let records: string[];
    try {
      records = await (opts.resolver ?? resolveTxt)(txtName(domain));
    } catch (err) {
      throw errors.invalidRequest(`The DNS lookup of ${txtName(domain)} failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). Try again later.`, "domain", "domain_not_verified");
    }
    if (!records.map((r) => r.trim()).includes(txtValue(row.verificationToken))) {
      throw errors.invalidRequest(
        `No TXT record ${txtName(domain)} with the value "${txtValue(row.verificationToken)}" was found. Publish it, and try again once DNS has it.`,
        "domain",
        "domain_not_verified",
      );
    }
  }
  const verifiedBy = opts.operator ? "operator" : "dns";
  try {
    return await db.$transaction(async (tx) => {
      const updated = await tx.ssoDomain.update({ where: { id: row.id }, data: { verifiedAt: new Date(), verifiedBy } });
      await recordAudit(tx, {
        workspaceId,
        actor,
        action: "sso_domain.verify",
        target: { type: "sso_domain", id: row.id },
        changes: diff(null, { domain, verified_by: verifiedBy }, ["domain", "verified_by"]),
      });
      await notify(tx, Channel.ssoChanged, workspaceId);
      return domainView(updated);
    });
  } catch (err) {
    // Two workspaces verifying the same domain at once: the partial unique index lets one through.
    if ((err as { code?: string }).code === "P2002") throw domainTaken(domain);
    throw err;
  }
}
