// POST /v1/videos: validate against the model, reserve the job's highest possible cost, and
// insert the job and its queue entry, all in one transaction: a job exists only with its money
// reserved and its render queued, or not at all (the ledger's withVideoReservation).
import type { CallContext } from "../../identity/principal";
import { admitWithoutHold } from "../../identity/admission";
import { withVideoReservation } from "../../ledger/video-money";
import { videoCost } from "../../routing/catalog/media-pricing";
import { resolveModel } from "../../routing/catalog/models";
import { env } from "../../infra/env";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { inTransaction, jobQueue, QUEUES } from "../../infra/jobs/boss";
import { formatMoney, money } from "../../kernel/money";
import type { VideoCreate } from "./schema";
import { toVideoObject, type VideoJobObject } from "./video-object";
import { videoSpec } from "./video-spec";

/** How often pg-boss retries a render whose worker failed or vanished, before the job fails. */
export const RENDER_RETRY_LIMIT = 3;

export type RenderJobData = { jobId: string };

export async function createVideo(ctx: CallContext, req: VideoCreate): Promise<VideoJobObject> {
  const { row } = await resolveModel(req.model);
  const spec = videoSpec(row, req);
  const reserved = formatMoney(videoCost(spec.price, spec.seconds));
  const workspaceId = ctx.principal.workspaceId;
  const id = newId("video");
  const boss = await jobQueue();

  const refusal = () =>
    errors.insufficientQuota(
      `This video can cost up to ${reserved} USD (${spec.seconds} s at ${spec.size}, ${spec.fps} fps), more than the workspace's balance. Add credits, or ask for fewer seconds, a smaller size or a lower fps.`,
    );
  const gate = await admitWithoutHold(ctx, { endpoint: "/v1/videos", model: row.id, maxCost: money(reserved) });
  // The caps count the open video jobs of the same subject (or key) too, checked in the creating transaction.
  const payer = { id, workspaceId, apiKeyId: ctx.principal.keyId, subject: gate.access.subject, budgets: gate.access.budgets };
  const job = await withVideoReservation(payer, reserved, refusal, async (tx) => {
    const job = await tx.videoJob.create({
      data: {
        id,
        workspaceId,
        apiKeyId: ctx.principal.keyId,
        planId: gate.access.planId,
        subject: gate.access.subject,
        modelId: row.id,
        prompt: req.prompt,
        seconds: spec.seconds,
        size: spec.size,
        aspectRatio: spec.aspectRatio,
        fps: spec.fps,
        pricePerVideoSecond: spec.price.perVideoSecond,
        priceMultiplier: spec.price.multiplier,
        reservedAmount: reserved,
      },
    });
    const data: RenderJobData = { jobId: id };
    await boss.send(QUEUES.videoRender, data, {
      db: inTransaction(tx),
      retryLimit: RENDER_RETRY_LIMIT,
      retryDelay: 2,
      retryBackoff: true,
      heartbeatSeconds: env.VIDEO_HEARTBEAT_SECONDS,
      // pg-boss caps an attempt at 24 h; the job's own timeout is enforced by the sweep either way.
      expireInSeconds: Math.min(Math.max(env.VIDEO_JOB_TIMEOUT_SECONDS, 1), 24 * 3600),
    });
    return job;
  }).finally(gate.end);
  return toVideoObject(job);
}
