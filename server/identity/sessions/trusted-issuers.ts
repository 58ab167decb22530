// OIDC issuers a workspace trusts: tokens its identity provider signs are accepted like the
// gateway's own session tokens, with the subject and the plan taken from the claims it names.
// The JWKS URL is a tenant's choice: it is checked by the outbound guard when it is configured
// (a literal private address or localhost is a 400) and fetched only through it.
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { FreshCache, Channel } from "../../infra/cache/fresh-cache";
import { notify } from "../../infra/db/notify";
import { env } from "../../infra/env";
import { assertOutboundUrlAllowed } from "../../infra/net/outbound-policy";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";

const ZClaim = z.string().trim().min(1).max(100);

export const ZIssuerInput = z.object({
  issuer: z.string().trim().min(1).max(500),
  jwks_url: z.string().url().refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL"),
  audience: z.string().trim().min(1).max(500),
  subject_claim: ZClaim.default("sub"),
  plan_claim: ZClaim.default("plan"),
  /** The plan of a token without the plan claim; unset: such tokens are refused. */
  default_plan: z.string().min(1).nullable().default(null),
});

export const ZIssuerView = z.object({
  object: z.literal("trusted_issuer"),
  id: z.string(),
  issuer: z.string(),
  jwks_url: z.string(),
  audience: z.string(),
  subject_claim: z.string(),
  plan_claim: z.string(),
  default_plan: z.string().nullable(),
  created_at: z.number().int(),
});
export type IssuerView = z.infer<typeof ZIssuerView>;

export type TrustedIssuer = {
  id: string;
  workspaceId: string;
  issuer: string;
  jwksUrl: string;
  audience: string;
  subjectClaim: string;
  planClaim: string;
  defaultPlanId: string | null;
};

function toView(r: TrustedIssuer & { createdAt: Date }): IssuerView {
  return {
    object: "trusted_issuer",
    id: r.id,
    issuer: r.issuer,
    jwks_url: r.jwksUrl,
    audience: r.audience,
    subject_claim: r.subjectClaim,
    plan_claim: r.planClaim,
    default_plan: r.defaultPlanId,
    created_at: Math.floor(r.createdAt.getTime() / 1000),
  };
}

/** The fields of a trusted issuer its audit events show (none of them is a secret: a JWKS holds public keys). */
const ISSUER_FIELDS = ["issuer", "jwks_url", "audience", "subject_claim", "plan_claim", "default_plan"] as const;

export async function addIssuer(workspaceId: string, input: z.input<typeof ZIssuerInput>, actor?: AuditActor): Promise<IssuerView> {
  const d = ZIssuerInput.parse(input);
  if (d.issuer === env.SESSION_TOKEN_ISSUER) throw errors.invalidRequest("That is the gateway's own issuer.", "issuer", "invalid_value");
  assertOutboundUrlAllowed(d.jwks_url, "jwks_url");
  return db.$transaction(async (tx) => {
    if (d.default_plan && !(await tx.plan.findFirst({ where: { id: d.default_plan, workspaceId }, select: { id: true } }))) {
      throw errors.invalidRequest(`No plan ${d.default_plan} in this workspace.`, "default_plan", "plan_not_found");
    }
    const taken = await tx.trustedIssuer.findFirst({ where: { issuer: d.issuer, audience: d.audience }, select: { id: true } });
    if (taken) throw errors.invalidRequest("This issuer and audience are already trusted by a workspace.", "audience", "issuer_taken");
    const row = await tx.trustedIssuer.create({
      data: {
        id: newId("iss"),
        workspaceId,
        issuer: d.issuer,
        jwksUrl: d.jwks_url,
        audience: d.audience,
        subjectClaim: d.subject_claim,
        planClaim: d.plan_claim,
        defaultPlanId: d.default_plan,
      },
    });
    await notify(tx, Channel.issuersChanged, "*");
    const view = toView(row);
    await recordAudit(tx, { workspaceId, actor, action: "issuer.add", target: { type: "issuer", id: row.id }, changes: diff(null, view, ISSUER_FIELDS) });
    return view;
  });
}

export async function listIssuers(workspaceId: string): Promise<IssuerView[]> {
  const rows = await db.trustedIssuer.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(toView);
}

export async function removeIssuer(workspaceId: string, id: string, actor?: AuditActor): Promise<{ object: "trusted_issuer.deleted"; id: string; deleted: true }> {
  return db.$transaction(async (tx) => {
    const found = await tx.trustedIssuer.findFirst({ where: { id, workspaceId } });
    const { count } = await tx.trustedIssuer.deleteMany({ where: { id, workspaceId } });
    if (!count || !found) throw errors.notFound(`No trusted issuer with id ${id}.`, "issuer_not_found", "id");
    await notify(tx, Channel.issuersChanged, "*");
    await recordAudit(tx, { workspaceId, actor, action: "issuer.remove", target: { type: "issuer", id }, changes: diff(toView(found), null, ISSUER_FIELDS) });
    return { object: "trusted_issuer.deleted", id, deleted: true };
  });
}

const cache = new FreshCache<TrustedIssuer[]>({
  name: "trusted issuers",
  load: (issuer) => db.trustedIssuer.findMany({ where: { issuer } }),
  channel: Channel.issuersChanged,
  maxAgeMs: env.KEY_CACHE_MAX_AGE_MS,
  refreshMs: env.KEY_CACHE_REFRESH_MS,
  max: 10_000,
});

/** The workspaces' trust in an issuer (by its `iss`), from memory. */
export function issuersNamed(issuer: string): Promise<TrustedIssuer[]> {
  return cache.get(issuer);
}
