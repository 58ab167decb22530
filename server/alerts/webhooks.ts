// A workspace's webhooks: where its alerts are POSTed, for which events, at which thresholds. The
// URL is a tenant's choice: checked by the outbound policy when it is set (a literal private
// address, localhost or plain http is a 400 url_not_allowed) and fetched only through the
// outbound guard, which checks the addresses the name resolves to at send time (deliver.ts). The
// signing secret is stored sealed (infra/secret-box.ts) and shown once: on creation and rotation.
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../audit/record";
import { db } from "../infra/db/client";
import { assertOutboundUrlAllowed } from "../infra/net/outbound-policy";
import { open, seal } from "../infra/secret-box";
import { errors } from "../kernel/errors";
import { randomBase62 } from "../kernel/ids";
import { ZCreditAmount } from "../kernel/money";
import { ALERT_EVENTS, ZAlertType } from "./events";
import { forgetWebhooks } from "./subscribers";

/** A share of a cap, 0 < share <= 1 (e.g. 0.8: when 80% of a cap is spent). */
const ZShare = z.coerce.number().gt(0, "must be above 0").lte(1, "must be at most 1");

const ZFields = z.object({
  url: z.string().trim().url().max(2000),
  events: z.array(ZAlertType).min(1, "choose at least one event").transform((e) => [...new Set(e)]),
  /** balance.low: fires when the balance falls below this many USD. */
  balance_below: ZCreditAmount.nullable().default(null),
  /** spend.threshold: fires when a key's or a subject's spend reaches this share of its cap. */
  spend_share: ZShare.nullable().default(null),
  enabled: z.boolean().default(true),
});

/** balance.low needs its threshold, spend.threshold its share. */
function needsThresholds(d: { events?: string[]; balance_below?: string | null; spend_share?: number | null }, ctx: z.RefinementCtx): void {
  if (d.events?.includes("balance.low") && d.balance_below == null) ctx.addIssue({ code: "custom", path: ["balance_below"], message: "balance.low needs balance_below (USD)" });
  if (d.events?.includes("spend.threshold") && d.spend_share == null) ctx.addIssue({ code: "custom", path: ["spend_share"], message: "spend.threshold needs spend_share (0 to 1)" });
}

export const ZWebhookInput = ZFields.superRefine(needsThresholds);
export const ZWebhookPatch = ZFields.partial().extend({ id: z.string().min(1) });

export const ZWebhookView = z.object({
  object: z.literal("webhook"),
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  balance_below: z.string().nullable(),
  spend_share: z.number().nullable(),
  enabled: z.boolean(),
  created_at: z.number().int(),
});
export type WebhookView = z.infer<typeof ZWebhookView>;
/** The view with the signing secret: answered only by create and rotateSecret. */
export const ZWebhookWithSecret = ZWebhookView.extend({ secret: z.string() });

type Row = { id: string; url: string; events: string[]; balanceBelow: { toString(): string } | null; spendShare: { toString(): string } | null; enabled: boolean; createdAt: Date };

function toView(r: Row): WebhookView {
  return {
    object: "webhook",
    id: r.id,
    url: r.url,
    events: ALERT_EVENTS.filter((e) => r.events.includes(e)),
    balance_below: r.balanceBelow === null ? null : r.balanceBelow.toString(),
    spend_share: r.spendShare === null ? null : Number(r.spendShare.toString()),
    enabled: r.enabled,
    created_at: Math.floor(r.createdAt.getTime() / 1000),
  };
}

const newSecret = () => `whsec_${randomBase62(32)}`;

type Audited = { url: string; events: string[]; balanceBelow: unknown; spendShare: unknown; enabled: boolean; secretEncrypted: string };
const AUDITED = ["url", "events", "balance_below", "spend_share", "enabled", "secret"] as const;
const audited = (r: Audited | null) =>
  r && { url: r.url, events: r.events, balance_below: r.balanceBelow, spend_share: r.spendShare, enabled: r.enabled, secret: r.secretEncrypted };

/** The change in the audit log, by the API's field names (the secret only as "[secret]"). */
function audit(workspaceId: string, actor: AuditActor | undefined, action: "webhook.create" | "webhook.update" | "webhook.delete" | "webhook.rotate_secret", id: string, before: Audited | null, after: Audited | null) {
  const changes = diff(audited(before), audited(after), AUDITED, ["secret"]);
  return recordAudit(db, { workspaceId, actor, action, target: { type: "webhook", id }, changes });
}

export async function createWebhook(workspaceId: string, input: z.input<typeof ZWebhookInput>, actor?: AuditActor): Promise<z.infer<typeof ZWebhookWithSecret>> {
  const d = ZWebhookInput.parse(input);
  assertOutboundUrlAllowed(d.url, "url");
  const secret = newSecret();
  const row = await db.webhook.create({
    data: {
      id: `wh_${randomBase62(24)}`,
      workspaceId,
      url: d.url,
      events: d.events,
      secretEncrypted: seal(secret),
      balanceBelow: d.balance_below,
      spendShare: d.spend_share,
      enabled: d.enabled,
    },
  });
  forgetWebhooks(workspaceId);
  await audit(workspaceId, actor, "webhook.create", row.id, null, row);
  return { ...toView(row), secret };
}

export async function listWebhooks(workspaceId: string): Promise<WebhookView[]> {
  const rows = await db.webhook.findMany({ where: { workspaceId }, orderBy: { createdAt: "asc" } });
  return rows.map(toView);
}

// Every lookup below is scoped by the workspace as well as the id: a webhook id of another
// workspace is "not found", never changed.
async function own(workspaceId: string, id: string) {
  const row = await db.webhook.findFirst({ where: { id, workspaceId } });
  if (!row) throw errors.notFound(`No webhook ${id} in this workspace.`, "webhook_not_found", "id");
  return row;
}

export async function updateWebhook(workspaceId: string, patch: z.input<typeof ZWebhookPatch>, actor?: AuditActor): Promise<WebhookView> {
  const { id, ...d } = ZWebhookPatch.parse(patch);
  const current = await own(workspaceId, id);
  const merged = {
    events: d.events ?? current.events,
    balance_below: d.balance_below === undefined ? current.balanceBelow?.toString() ?? null : d.balance_below,
    spend_share: d.spend_share === undefined ? (current.spendShare === null ? null : Number(current.spendShare)) : d.spend_share,
  };
  // The change must leave a valid webhook (balance.low keeps its threshold): a 400 naming the field otherwise.
  const whole = ZWebhookInput.safeParse({ url: d.url ?? current.url, ...merged });
  if (!whole.success) {
    const issue = whole.error.issues[0]!;
    throw errors.invalidRequest(`${issue.message}.`, String(issue.path[0] ?? "events"), "invalid_value");
  }
  if (d.url !== undefined) assertOutboundUrlAllowed(d.url, "url");
  const row = await db.webhook.update({
    where: { id },
    data: { url: d.url, events: d.events, balanceBelow: d.balance_below, spendShare: d.spend_share, enabled: d.enabled },
  });
  forgetWebhooks(workspaceId);
  await audit(workspaceId, actor, "webhook.update", id, current, row);
  return toView(row);
}

export async function deleteWebhook(workspaceId: string, id: string, actor?: AuditActor): Promise<{ object: "webhook.deleted"; id: string; deleted: true }> {
  const current = await own(workspaceId, id);
  await db.webhook.delete({ where: { id } });
  forgetWebhooks(workspaceId);
  await audit(workspaceId, actor, "webhook.delete", id, current, null);
  return { object: "webhook.deleted", id, deleted: true };
}

/** A new signing secret (the old one stops signing at once); answered once. */
export async function rotateWebhookSecret(workspaceId: string, id: string, actor?: AuditActor): Promise<z.infer<typeof ZWebhookWithSecret>> {
  const current = await own(workspaceId, id);
  const secret = newSecret();
  const row = await db.webhook.update({ where: { id }, data: { secretEncrypted: seal(secret) } });
  await audit(workspaceId, actor, "webhook.rotate_secret", id, current, row);
  return { ...toView(row), secret };
}

/** The secret a delivery is signed with (deliver.ts). */
export const webhookSecret = (row: { secretEncrypted: string }): string => open(row.secretEncrypted);
