// A workspace's single sign-on connection (one at most): set (created or replaced) after the
// provider has been checked (OIDC discovery, or SAML metadata read), shown without its secret,
// removed. Every change is audited and announced (Channel.ssoChanged), so every instance's view
// of which domains require single sign-on follows at once.
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { open, seal } from "../../infra/secret-box";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { ROLES } from "../workspaces/permissions";
import { ZSsoSetInput, type SsoConnectionView, type SsoSetInput, type SsoShow } from "./connection-schemas";
import { addDomainTx, domainView, removeDomainTx } from "./domains";
import { discover } from "./oidc";
import { fetchMetadata, parseIdpMetadata } from "./saml-metadata";
import { ssoUrls } from "./sso-urls";

type ConnectionRow = NonNullable<Awaited<ReturnType<typeof findConnection>>>;

const findConnection = (where: { workspaceId: string } | { id: string }) =>
  db.ssoConnection.findUnique({ where: where as { id: string }, include: { domains: { orderBy: { domain: "asc" } } } });

/** The connection and its domains, for the sign-in routes (null when there is none). */
export const loadConnection = (id: string) => findConnection({ id });

/** The connection whose verified domain is the address's, or null. */
export async function connectionForDomain(domain: string): Promise<{ id: string } | null> {
  const row = await db.ssoDomain.findFirst({ where: { domain, verifiedAt: { not: null } }, select: { connectionId: true } });
  return row ? { id: row.connectionId } : null;
}

async function defaultRoleName(row: { defaultRole: string; defaultCustomRoleId: string | null }): Promise<string> {
  if (!row.defaultCustomRoleId) return row.defaultRole;
  return (await db.customRole.findUnique({ where: { id: row.defaultCustomRoleId }, select: { name: true } }))?.name ?? row.defaultRole;
}

function toView(row: ConnectionRow, defaultRole: string): SsoConnectionView {
  return {
    object: "sso_connection",
    id: row.id,
    kind: row.kind,
    issuer: row.kind === "oidc" ? row.oidcIssuer : row.samlIdpEntityId,
    client_id: row.oidcClientId,
    client_secret_set: Boolean(row.oidcClientSecret),
    saml_sso_url: row.samlSsoUrl,
    saml_metadata_url: row.samlMetadataUrl,
    saml_cert_valid_to: row.samlCertValidTo ? Math.floor(row.samlCertValidTo.getTime() / 1000) : null,
    default_role: defaultRole,
    require_sso: row.requireSso,
    allow_idp_initiated: row.allowIdpInitiated,
    updated_at: Math.floor(row.updatedAt.getTime() / 1000),
  };
}

/** What sso.set and sso.remove record (the client secret only as "[secret]"). */
const AUDIT_FIELDS = ["kind", "issuer", "client_id", "client_secret", "default_role", "require_sso", "allow_idp_initiated"] as const;
type AuditState = Record<(typeof AUDIT_FIELDS)[number], string | boolean | null>;
type ConnectionColumns = Omit<ConnectionRow, "domains">;
const auditState = (row: ConnectionColumns, defaultRole: string): AuditState => ({
  kind: row.kind,
  issuer: row.kind === "oidc" ? row.oidcIssuer : row.samlIdpEntityId,
  client_id: row.oidcClientId,
  client_secret: row.oidcClientSecret,
  default_role: defaultRole,
  require_sso: row.requireSso,
  allow_idp_initiated: row.allowIdpInitiated,
});

/** The connection, its domains with the TXT records to publish, and the addresses to register (when the origin is known). */
export async function showSso(workspaceId: string, origin: string | null): Promise<SsoShow> {
  const row = await findConnection({ workspaceId });
  if (!row) return { connection: null, domains: [], urls: null };
  return { connection: toView(row, await defaultRoleName(row)), domains: row.domains.map(domainView), urls: origin ? ssoUrls(origin, row.id) : null };
}

async function resolveDefaultRole(workspaceId: string, name: string | undefined): Promise<{ defaultRole: "admin" | "member" | "billing" | "viewer"; defaultCustomRoleId: string | null } | undefined> {
  if (name === undefined) return undefined;
  if ((ROLES as readonly string[]).includes(name)) {
    if (name === "owner") throw errors.invalidRequest("A new member cannot be made an owner.", "default_role", "invalid_role");
    return { defaultRole: name as "admin" | "member" | "billing" | "viewer", defaultCustomRoleId: null };
  }
  const custom = await db.customRole.findFirst({ where: { workspaceId, name }, select: { id: true } });
  if (!custom) throw errors.invalidRequest(`No role named "${name}": use admin, member, billing, viewer or a custom role of this workspace.`, "default_role", "role_not_found");
  return { defaultRole: "viewer", defaultCustomRoleId: custom.id };
}

/** The protocol columns of the connection, after checking the provider: discovery, or reading the metadata. */
async function protocolColumns(input: ReturnType<typeof ZSsoSetInput.parse>, existing: ConnectionRow | null) {
  if (input.kind === "oidc") {
    const kept = existing?.kind === "oidc" && existing.oidcClientSecret ? open(existing.oidcClientSecret) : null;
    const secret = input.client_secret ?? kept;
    if (!secret) throw errors.invalidRequest("An OIDC connection needs the client secret.", "client_secret", "missing_client_secret");
    await discover({ issuer: input.issuer, clientId: input.client_id, clientSecret: secret });
    return {
      kind: "oidc" as const,
      oidcIssuer: input.issuer,
      oidcClientId: input.client_id,
      oidcClientSecret: input.client_secret || !existing?.oidcClientSecret ? seal(secret) : existing.oidcClientSecret,
      samlMetadataUrl: null,
      samlMetadataXml: null,
      samlIdpEntityId: null,
      samlSsoUrl: null,
      samlIdpCerts: [],
      samlCertValidTo: null,
    };
  }
  if (Boolean(input.metadata_url) === Boolean(input.metadata_xml)) {
    throw errors.invalidRequest("Give the identity provider's SAML metadata, as XML or as a URL (one of them).", "metadata", "missing_metadata");
  }
  const meta = await parseIdpMetadata(input.metadata_xml ?? (await fetchMetadata(input.metadata_url!)));
  return {
    kind: "saml" as const,
    oidcIssuer: null,
    oidcClientId: null,
    oidcClientSecret: null,
    samlMetadataUrl: input.metadata_url ?? null,
    samlMetadataXml: meta.xml,
    samlIdpEntityId: meta.entityId,
    samlSsoUrl: meta.ssoUrl,
    samlIdpCerts: meta.certs,
    samlCertValidTo: meta.validTo,
  };
}

/**
 * Creates or replaces the workspace's connection. `domains`, when given, becomes the connection's
 * list (kept domains keep their verification); flags not given keep their value.
 */
export async function setConnection(workspaceId: string, raw: SsoSetInput, actor?: AuditActor): Promise<SsoShow & { connection: SsoConnectionView }> {
  const parsed = ZSsoSetInput.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw errors.invalidRequest(`${issue.path.join(".") || "input"}: ${issue.message}`, String(issue.path[0] ?? "") || null, "invalid_value");
  }
  const input = parsed.data;
  const existing = await findConnection({ workspaceId });
  const role = await resolveDefaultRole(workspaceId, input.default_role);
  const columns = await protocolColumns(input, existing);
  const flags = {
    ...(role ?? {}),
    ...(input.require_sso !== undefined ? { requireSso: input.require_sso } : {}),
    ...(input.allow_idp_initiated !== undefined ? { allowIdpInitiated: input.allow_idp_initiated } : {}),
  };
  const beforeRole = existing ? await defaultRoleName(existing) : "member";
  const before = existing ? auditState(existing, beforeRole) : null;
  const id = await db.$transaction(async (tx) => {
    const row = existing
      ? await tx.ssoConnection.update({ where: { id: existing.id }, data: { ...columns, ...flags } })
      : await tx.ssoConnection.create({ data: { id: newId("ssoc"), workspaceId, ...columns, ...flags } });
    if (input.domains) {
      const wanted = new Set(input.domains);
      for (const d of existing?.domains ?? []) if (!wanted.has(d.domain)) await removeDomainTx(tx, workspaceId, d, actor);
      const have = new Set(existing?.domains.map((d) => d.domain));
      for (const d of wanted) if (!have.has(d)) await addDomainTx(tx, workspaceId, row.id, d, actor);
    }
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "sso.set",
      target: { type: "sso_connection", id: row.id },
      changes: diff(before, auditState(row, input.default_role ?? beforeRole), AUDIT_FIELDS, ["client_secret"]),
    });
    await notify(tx, Channel.ssoChanged, workspaceId);
    return row.id;
  });
  const after = (await findConnection({ id }))!;
  const afterRole = await defaultRoleName(after);
  return { connection: toView(after, afterRole), domains: after.domains.map(domainView), urls: null };
}

export async function removeConnection(workspaceId: string, actor?: AuditActor): Promise<{ object: "sso_connection.deleted"; id: string; deleted: true }> {
  const existing = await findConnection({ workspaceId });
  if (!existing) throw errors.notFound("This workspace has no single sign-on connection.", "sso_not_configured");
  const before = auditState(existing, await defaultRoleName(existing));
  await db.$transaction(async (tx) => {
    await tx.ssoConnection.delete({ where: { id: existing.id } });
    await recordAudit(tx, { workspaceId, actor, action: "sso.remove", target: { type: "sso_connection", id: existing.id }, changes: diff(before, null, AUDIT_FIELDS, ["client_secret"]) });
    await notify(tx, Channel.ssoChanged, workspaceId);
  });
  return { object: "sso_connection.deleted", id: existing.id, deleted: true };
}
