// POST /v1/videos: validate against the model, reserve the job's highest possible cost, and
// insert the job and its queue entry, all in one transaction: a job exists only with its money
// reserved and its render queued, or not at all (the ledger's withVideoReservation).
import type { CallContext } from "../../identity/principal";
import { admitWithoutHold } from "../../admission/admit";
import { withVideoReservation } from "../../ledger/video-money";
import { videoCost } from "../../routing/catalog/media-pricing";
import { resolveModel } from "../../routing/catalog/catalog-cache";
import { env } from "../../infra/env";
import { errors } from "../../kernel/errors";
import { newId } from "../../kernel/ids";
import { inTransaction, jobQueue, QUEUES } from "../../infra/jobs/boss";
import { formatMoney, money } from "../../kernel/money";
import { db, type Tx } from "../../infra/db/client";
import { verifyCallPayment } from "../../admission/x402/admit-payment";
import type { X402Context } from "../../admission/x402/principal";
import { releaseClaim } from "../../admission/x402/payment-claims";
import { linkVideoPayment } from "../../admission/x402/video-payment";
import type { VideoCreate } from "./schema";
import { toVideoObject, type VideoJobObject } from "./video-object";
import { videoSpec } from "./video-spec";

/** How often pg-boss retries a render whose worker failed or vanished, before the job fails. */
export const RENDER_RETRY_LIMIT = 3;

export type RenderJobData = { jobId: string };

type Job = { id: string; workspaceId: string; apiKeyId: string | null; planId: string | null; subject: string | null; reserved: string };

/** Inserts the job and queues its render, in the caller's transaction. */
async function insertJob(tx: Tx, job: Job, modelId: string, req: VideoCreate, spec: ReturnType<typeof videoSpec>) {
  const created = await tx.videoJob.create({
    data: {
      id: job.id,
      workspaceId: job.workspaceId,
      apiKeyId: job.apiKeyId,
      planId: job.planId,
      subject: job.subject,
      modelId,
      prompt: req.prompt,
      seconds: spec.seconds,
      size: spec.size,
      aspectRatio: spec.aspectRatio,
      fps: spec.fps,
      pricePerVideoSecond: spec.price.perVideoSecond,
      priceMultiplier: spec.price.multiplier,
      reservedAmount: job.reserved,
    },
  });
  const data: RenderJobData = { jobId: job.id };
  await (await jobQueue()).send(QUEUES.videoRender, data, {
    db: inTransaction(tx),
    retryLimit: RENDER_RETRY_LIMIT,
    retryDelay: 2,
    retryBackoff: true,
    heartbeatSeconds: env.VIDEO_HEARTBEAT_SECONDS,
    // pg-boss caps an attempt at 24 h; the job's own timeout is enforced by the sweep either way.
    expireInSeconds: Math.min(Math.max(env.VIDEO_JOB_TIMEOUT_SECONDS, 1), 24 * 3600),
  });
  return created;
}

/**
 * How long a video job's payment must stay valid: it is settled when the job completes, at the
 * latest at the job's timeout; ten minutes more cover a settlement made then.
 */
const VIDEO_PAYMENT_SECONDS = env.VIDEO_JOB_TIMEOUT_SECONDS + 600;

/** A job paid with x402: its payment (exact, for its price) is verified and linked to it; settled when the job completes. */
async function createPaidVideo(ctx: X402Context, job: Job, modelId: string, req: VideoCreate, spec: ReturnType<typeof videoSpec>): Promise<VideoJobObject> {
  const paid = await verifyCallPayment(ctx, { endpoint: "/v1/videos", model: modelId, maxCost: money(job.reserved), timeoutSeconds: VIDEO_PAYMENT_SECONDS });
  try {
    const created = await db.$transaction(async (tx) => {
      const created = await insertJob(tx, job, modelId, req, spec);
      await linkVideoPayment(tx, paid.claim.id, job.id);
      return created;
    });
    return toVideoObject(created);
  } catch (err) {
    await releaseClaim(paid.claim.id);
    throw err;
  }
}

export async function createVideo(ctx: CallContext, req: VideoCreate): Promise<VideoJobObject> {
  const { row } = await resolveModel(req.model, ctx.principal.workspaceId);
  const spec = videoSpec(row, req);
  const reserved = formatMoney(videoCost(spec.price, spec.seconds));
  const workspaceId = ctx.principal.workspaceId;
  const id = newId("video");
  if (ctx.principal.kind === "x402") {
    return createPaidVideo(ctx as X402Context, { id, workspaceId, apiKeyId: null, planId: null, subject: null, reserved }, row.id, req, spec);
  }

  const refusal = () =>
    errors.insufficientQuota(
      `This video can cost up to ${reserved} USD (${spec.seconds} s at ${spec.size}, ${spec.fps} fps), more than the workspace's balance. Add credits, or ask for fewer seconds, a smaller size or a lower fps.`,
    );
  const gate = await admitWithoutHold(ctx, { endpoint: "/v1/videos", model: row.id, maxCost: money(reserved) });
  // The caps count the open video jobs of the same subject (or key) too, checked in the creating transaction.
  const payer = { id, workspaceId, apiKeyId: ctx.principal.keyId, subject: gate.access.subject, budgets: gate.access.budgets };
  const job = { id, workspaceId, apiKeyId: ctx.principal.keyId, planId: gate.access.planId, subject: gate.access.subject, reserved };
  const created = await withVideoReservation(payer, reserved, refusal, (tx) => insertJob(tx, job, row.id, req, spec)).finally(gate.end);
  return toVideoObject(created);
}
