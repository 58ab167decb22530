// The video pipeline on S3-compatible storage (s3rver over HTTP): a worker renders a job on the
// built-in node, streams the mp4 into the bucket, settles the bill; the content is then served
// from the bucket, whole and by Range. Runs the worker and the content service in this process,
// on a job row of its own that no other worker is told about.
import { buffer } from "node:stream/consumers";
import Decimal from "decimal.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BinaryBody } from "../../server/kernel/binary-body";
import { db } from "../../server/infra/db/client";
import { newId } from "../../server/kernel/ids";
import { useBlobStore } from "../../server/infra/storage/blob-store";
import { renderVideoJob } from "../../server/inference/videos/render-video";
import { videoContent } from "../../server/inference/videos/video-content";
import { startS3Server, type S3Server } from "../fakes/s3-server";
import { newWorkspace } from "../helpers";
import { balanceOf, expectedCost } from "../helpers-video";

let s3: S3Server;
beforeAll(async () => {
  s3 = await startS3Server();
  useBlobStore(s3.store("gateway"));
});
afterAll(async () => {
  await s3?.close();
});

async function body(b: BinaryBody): Promise<Buffer> {
  return buffer(b.body as AsyncIterable<Uint8Array> as NodeJS.ReadableStream);
}

describe("video jobs with BLOB_STORE=s3", () => {
  it("stores the rendered mp4 in the bucket and serves it from there, ranges included", async () => {
    const { workspace, key } = await newWorkspace("10");
    const reserve = expectedCost(2, 24, "0.5");
    const id = newId("video");
    // A queued job with its reservation taken, as POST /v1/videos leaves it (but not enqueued).
    await db.$transaction([
      db.workspace.update({ where: { id: workspace.id }, data: { balance: { decrement: reserve.toFixed() } } }),
      db.videoJob.create({
        data: {
          id, workspaceId: workspace.id, apiKeyId: key.id, modelId: "local-video", prompt: "to the bucket", seconds: 2, size: "320x180", fps: 24,
          pricePerVideoSecond: "0.05", priceMultiplier: "0.5", reservedAmount: reserve.toFixed(),
        },
      }),
    ]);

    await renderVideoJob(id, { retryCount: 0, signal: new AbortController().signal });

    const job = await db.videoJob.findUniqueOrThrow({ where: { id } });
    expect(job.status).toBe("completed");
    expect(job.contentKey).toBe(`videos/${id}-1.mp4`);
    const cost = expectedCost(job.billedSeconds!.toString(), 24, "0.5");
    expect(job.cost!.toString()).toBe(cost.toFixed());
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost).toFixed());

    // The object is in the bucket, under the store's prefix, with the video's type and length.
    const res = await fetch(`${s3.endpoint}/gateway-test/gateway/videos/${id}-1.mp4`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const stored = Buffer.from(await res.arrayBuffer());
    expect(stored.length).toBe(Number(job.contentBytes));
    expect(stored.subarray(4, 8).toString()).toBe("ftyp");

    const ctx = { principal: { kind: "api_key" as const, workspaceId: workspace.id, keyId: key.id, planId: null }, requestId: "req_test", outcome: {} };
    const whole = await videoContent(ctx, { id, variant: "video" });
    expect(whole.options.status).toBe(200);
    expect(whole.length).toBe(stored.length);
    expect((await body(whole)).equals(stored)).toBe(true);
    const part = await videoContent(ctx, { id, variant: "video", range: "bytes=10-29" });
    expect(part.options.status).toBe(206);
    expect(part).toMatchObject({ length: 20, range: { start: 10, end: 29, size: stored.length } });
    expect((await body(part)).equals(stored.subarray(10, 30))).toBe(true);
  });
});
