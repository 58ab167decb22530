// Fine-tuned models in the catalog: a job's resulting model and each of its checkpoints become
// catalog models owned by the job's workspace (no other workspace sees them: catalog-cache.ts
// visibleTo), served by the node that trained them under that node's own name, and priced from the
// base model's card (its fine-tuned input and output prices, else its own). Their names, and their
// deletion by the workspace that owns them.
import type { AuditActor } from "../../audit/actor";
import { recordAudit } from "../../audit/record";
import { db } from "../../infra/db/client";
import { Channel, notify } from "../../infra/db/notify";
import { logFor } from "../../infra/telemetry/log";
import { errors } from "../../kernel/errors";
import { money } from "../../kernel/money";
import { request } from "../../providers/http";
import { nodeTarget } from "../../providers/node-target";
import type { Wire } from "../../providers/wire";

const log = logFor("routing");

/** How long the node is given to forget a deleted model (the deletion never waits for more). */
const NODE_DELETE_TIMEOUT_MS = 10_000;

/** A workspace's name as it appears in its models' names: lower case, runs of other characters one `-`, at most 32 characters. */
export function workspaceSlug(workspaceName: string): string {
  const slug = workspaceName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32)
    .replace(/-+$/, "");
  return slug || "ws";
}

/** `ft:<base>:<workspace slug>:<suffix>:<first 8 characters of the job id after ftjob->` (the suffix empty when none). */
export function tunedModelName(base: string, workspaceName: string, suffix: string | null | undefined, jobId: string): string {
  const short = jobId.replace(/^ftjob-/, "").slice(0, 8);
  return `ft:${base}:${workspaceSlug(workspaceName)}:${suffix ?? ""}:${short}`;
}

/** A checkpoint of a tuned model: `<its name>:ckpt-step-<step>`. */
export function checkpointModelName(name: string, step: number): string {
  return `${name}:ckpt-step-${step}`;
}

export type TunedModels = {
  workspaceId: string;
  baseModelId: string;
  jobId: string;
  nodeId: string;
  /** The gateway's names, each with the node's name for it; a checkpoint with its step. */
  models: { id: string; upstreamModel: string; checkpointStep?: number }[];
};

/** The tuned price of a base model: its fine-tuned price when set (above 0), else its own. */
const tunedPrice = (ft: { toString(): string }, own: { toString(): string }) => (money(ft.toString()).gt(0) ? ft.toString() : own.toString());

/**
 * Registers a job's models in the catalog for its workspace, each served by the node that trained
 * it (idempotent: a second call with the same models changes nothing). The base model's card is
 * copied (type, limits, capabilities), its prices are the base's fine-tuned ones.
 */
export async function registerTunedModels(input: TunedModels): Promise<void> {
  if (!input.models.length) return;
  await db.$transaction(async (tx) => {
    const base = await tx.model.findUnique({ where: { id: input.baseModelId } });
    if (!base) throw errors.modelNotFound(input.baseModelId);
    const input1m = tunedPrice(base.priceFtInputPer1m, base.priceInputPer1m);
    const output1m = tunedPrice(base.priceFtOutputPer1m, base.priceOutputPer1m);
    const cacheRead1m = money(base.priceFtInputPer1m.toString()).gt(0) ? input1m : base.priceCacheReadPer1m.toString();
    const taken = await tx.model.findMany({ where: { id: { in: input.models.map((m) => m.id) } }, select: { id: true, ownerWorkspaceId: true } });
    const other = taken.find((t) => t.ownerWorkspaceId !== input.workspaceId);
    if (other) throw new Error(`the catalog already has a model \`${other.id}\` that is not this workspace's fine-tuned model`);
    for (const m of input.models) {
      const fields = {
        displayName: m.checkpointStep === undefined ? `${base.displayName} (fine-tuned)` : `${base.displayName} (fine-tuned, step ${m.checkpointStep})`,
        ownedBy: input.workspaceId,
        provider: base.provider,
        type: base.type,
        contextLength: base.contextLength,
        maxOutputTokens: base.maxOutputTokens,
        knowledgeCutoff: base.knowledgeCutoff,
        inputModalities: base.inputModalities,
        outputModalities: base.outputModalities,
        capJsonMode: base.capJsonMode,
        capReasoning: base.capReasoning,
        capStreaming: base.capStreaming,
        capStructuredOutput: base.capStructuredOutput,
        capTools: base.capTools,
        priceInputPer1m: input1m,
        priceCacheReadPer1m: cacheRead1m,
        priceCacheWritePer1m: "0",
        priceOutputPer1m: output1m,
        priceReasoningPer1m: output1m,
        batchDiscount: base.batchDiscount,
        pricingStatus: base.pricingStatus,
        fineTunable: false,
        ownerWorkspaceId: input.workspaceId,
        baseModelId: base.id,
        fineTuningJobId: input.jobId,
      };
      await tx.model.upsert({ where: { id: m.id }, create: { id: m.id, ...fields }, update: {} });
      await tx.nodeModel.upsert({
        where: { nodeId_modelId: { nodeId: input.nodeId, modelId: m.id } },
        create: { nodeId: input.nodeId, modelId: m.id, upstreamModel: m.upstreamModel },
        update: { upstreamModel: m.upstreamModel },
      });
    }
    // The catalog and the node registry (which node serves which model) both read again, so the
    // new models are served at once on every instance.
    await notify(tx, Channel.catalogChanged);
    await notify(tx, Channel.nodesChanged);
  });
}

/**
 * The workspace deletes one of its fine-tuned models (or checkpoints): gone from the catalog at
 * once; then each node that served it is asked to delete it too, best effort (a node that fails
 * or no longer has it changes nothing: the gateway no longer routes to it). Another workspace's
 * model and an unknown id are 404 alike; a model of the catalog that is no workspace's is refused
 * as before (403: models are managed by the gateway's operators).
 */
export async function deleteTunedModel(workspaceId: string, modelId: string, actor?: AuditActor): Promise<{ id: string; object: "model"; deleted: true }> {
  const served = await db.$transaction(async (tx) => {
    const row = await tx.model.findUnique({
      where: { id: modelId },
      select: { id: true, ownerWorkspaceId: true, baseModelId: true, fineTuningJobId: true, nodes: { select: { upstreamModel: true, node: { select: { id: true, baseUrl: true, wire: true, apiKeyEncrypted: true, cloud: true, credentialsEncrypted: true } } } } },
    });
    if (!row || (row.ownerWorkspaceId !== null && row.ownerWorkspaceId !== workspaceId)) throw errors.modelNotFound(modelId);
    if (row.ownerWorkspaceId === null) throw errors.permissionDenied(`Models are managed by the gateway's operators; an API key cannot delete \`${modelId}\`.`);
    await tx.model.delete({ where: { id: modelId } }); // its node mappings go with it
    await notify(tx, Channel.catalogChanged);
    await notify(tx, Channel.nodesChanged);
    await recordAudit(tx, {
      workspaceId,
      actor,
      action: "model.delete",
      target: { type: "model", id: modelId },
      changes: { base_model: { from: row.baseModelId, to: null }, fine_tuning_job: { from: row.fineTuningJobId, to: null } },
    });
    return row.nodes;
  });
  await Promise.all(served.map((s) => forgetOnNode({ ...s.node, wire: s.node.wire as Wire }, s.upstreamModel)));
  return { id: modelId, object: "model", deleted: true };
}

/** `DELETE /v1/models/{name}` on a node, after the gateway's deletion committed; a failure is logged, never raised. */
async function forgetOnNode(node: Parameters<typeof nodeTarget>[0] & { id: string }, upstreamModel: string): Promise<void> {
  try {
    const res = await request(nodeTarget(node), "DELETE", `/models/${encodeURIComponent(upstreamModel)}`, { signal: AbortSignal.timeout(NODE_DELETE_TIMEOUT_MS) });
    await res.body.dump();
  } catch (err) {
    log.warn({ err, nodeId: node.id, model: upstreamModel }, "a node did not delete a fine-tuned model the gateway deleted");
  }
}
