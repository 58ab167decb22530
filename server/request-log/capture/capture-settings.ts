// A workspace's capture settings (whether its calls' request and answer bodies are kept, how much
// of each, and its own redaction patterns) and a key's override. Each change is audited and drops
// the cached settings on every instance (NOTIFY), so the next call anywhere follows it.
import { z } from "zod";
import { diff, recordAudit, type AuditActor } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { errors } from "../../kernel/errors";
import { validationError } from "../../kernel/validation-error";
import { compilePattern, MAX_CAPTURE_BYTES, MIN_CAPTURE_BYTES } from "./policy";

const MAX_PATTERNS = 50;

export const ZCaptureSettings = z.object({
  enabled: z.boolean(),
  max_bytes: z.number().int().min(MIN_CAPTURE_BYTES).max(MAX_CAPTURE_BYTES),
  /** RE2 expressions; each match is replaced by [redacted]. */
  redact_patterns: z.array(z.string().min(1).max(500)).max(MAX_PATTERNS),
});
export type CaptureSettingsView = z.infer<typeof ZCaptureSettings>;

export const ZCapturePatch = ZCaptureSettings.partial();

const SELECT = { captureBodies: true, captureMaxBytes: true, captureRedact: true } as const;

const view = (w: { captureBodies: boolean; captureMaxBytes: number; captureRedact: string[] }): CaptureSettingsView => ({
  enabled: w.captureBodies,
  max_bytes: w.captureMaxBytes,
  redact_patterns: w.captureRedact,
});

export async function getCaptureSettings(workspaceId: string): Promise<CaptureSettingsView> {
  const ws = await db.workspace.findUnique({ where: { id: workspaceId }, select: SELECT });
  if (!ws) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
  return view(ws);
}

/** 400 naming the first pattern RE2 does not accept, and why. */
function checkPatterns(patterns: readonly string[]): void {
  patterns.forEach((pattern, i) => {
    const compiled = compilePattern(pattern);
    if (typeof compiled === "string") throw errors.invalidRequest(`redact_patterns[${i}] is not a valid pattern (RE2 syntax): ${compiled}`, `redact_patterns[${i}]`);
  });
}

export async function setCaptureSettings(workspaceId: string, patch: z.input<typeof ZCapturePatch>, actor?: AuditActor): Promise<CaptureSettingsView> {
  const parsed = ZCapturePatch.safeParse(patch);
  if (!parsed.success) throw validationError(parsed.error.issues);
  const p = parsed.data;
  if (p.redact_patterns) checkPatterns(p.redact_patterns);
  return db.$transaction(async (tx) => {
    const before = await tx.workspace.findUnique({ where: { id: workspaceId }, select: SELECT });
    if (!before) throw errors.notFound(`No workspace with id ${workspaceId}`, "workspace_not_found");
    const after = await tx.workspace.update({
      where: { id: workspaceId },
      data: { captureBodies: p.enabled, captureMaxBytes: p.max_bytes, captureRedact: p.redact_patterns },
      select: SELECT,
    });
    await notify(tx, Channel.plansChanged, workspaceId);
    const changes = diff(view(before), view(after), ["enabled", "max_bytes", "redact_patterns"]);
    if (Object.keys(changes).length) await recordAudit(tx, { workspaceId, actor, action: "capture.update", target: { type: "workspace", id: workspaceId }, changes });
    return view(after);
  });
}

/** A key's own choice: `true` captures its calls, `false` never does, `null` follows the workspace. */
export async function setKeyCapture(workspaceId: string, keyId: string, capture: boolean | null, actor?: AuditActor): Promise<{ key_id: string; capture: boolean | null }> {
  return db.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, workspaceId }, select: { captureBodies: true } });
    if (!key) throw errors.notFound(`No API key with id ${keyId}`, "key_not_found");
    const row = await tx.apiKey.update({ where: { id: keyId }, data: { captureBodies: capture }, select: { hash: true, captureBodies: true } });
    await notify(tx, Channel.keyChanged, row.hash);
    const changes = diff({ capture: key.captureBodies }, { capture: row.captureBodies }, ["capture"]);
    if (Object.keys(changes).length) await recordAudit(tx, { workspaceId, actor, action: "capture.update", target: { type: "key", id: keyId }, changes });
    return { key_id: keyId, capture: row.captureBodies };
  });
}
