// The videos API through HTTP with the official SDK: create, poll, content (whole and by Range),
// list, delete; validation before anything is reserved or queued; reservation, settlement and
// release of the money; 404s that reveal nothing; retention; the stuck-job timeout.
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Decimal from "decimal.js";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../../server/infra/db/client";
import { createKey } from "../../server/identity/keys/create-key";
import { client, expectApiError, newWorkspace, raw } from "../helpers";
import { balanceOf, createJob, expectedCost, getJob, MULTIPLIER, probeVideo, waitForJob, type Job } from "../helpers-video";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "videos-api-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Where the job's video is stored: its key names the attempt that made it. */
async function videoFile(id: string): Promise<string> {
  const { contentKey } = await db.videoJob.findUniqueOrThrow({ where: { id }, select: { contentKey: true } });
  return path.join(process.env.DATA_DIR!, "blobs", contentKey!);
}

/** Waits until a worker has taken the job. */
async function untilInProgress(openai: OpenAI, id: string): Promise<void> {
  await expect.poll(async () => (await getJob(openai, id)).status, { timeout: 10_000 }).toBe("in_progress");
}

/** After the node's render has had time to end: the job is still failed, with no usage and the balance whole. */
async function expectStillUncharged(openai: OpenAI, id: string, workspaceId: string, credits: string, waitMs: number): Promise<void> {
  await new Promise((r) => setTimeout(r, waitMs));
  expect((await getJob(openai, id)).status).toBe("failed");
  expect(await db.usageEvent.count({ where: { workspaceId } })).toBe(0);
  expect((await balanceOf(workspaceId)).toFixed()).toBe(credits);
}

describe("a video job, from create to download", () => {
  it("is queued at once with its money reserved, renders a real H.264 mp4, and settles exactly", async () => {
    const { workspace, key, openai } = await newWorkspace("10");
    const created = await createJob(openai, { model: "local-video", prompt: "a red fox crossing a snowy field", seconds: 2, size: "640x360" });
    expect(created).toMatchObject({ object: "video.generation.job", status: "queued", model: "local-video", seconds: 2, size: "640x360", fps: 24, progress: 0, completed_at: null, cost: "0" });
    expect(created.id).toMatch(/^video-/);
    // The most the job can cost (2 s × 24/24 × 0.05 × 1) is held back from the balance at once.
    const reserve = expectedCost(2, 24, "1");
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(reserve).toFixed());

    const { job, seen } = await waitForJob(openai, created.id);
    expect(job.status).toBe("completed");
    expect(job.progress).toBe(100);
    expect(job.completed_at).toBeGreaterThanOrEqual(job.created_at);
    expect(job.expires_at! - job.completed_at!).toBe(24 * 3600); // default retention: 24 h
    // Status only moves forward: queued -> in_progress -> completed.
    const order = ["queued", "in_progress", "completed"];
    const steps = seen.map((s) => order.indexOf(s.status));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.progress).toBeGreaterThanOrEqual(seen[i - 1]!.progress);

    // Settled against the seconds the node reported: reservation released, cost charged, once.
    const cost = expectedCost(job.billed_seconds!, 24, "1");
    expect(job.cost).toBe(cost.toFixed());
    expect(job.billed_seconds).toBeGreaterThan(1.9);
    expect(job.billed_seconds).toBeLessThanOrEqual(2);
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(cost).toFixed());
    const events = await db.usageEvent.findMany({ where: { workspaceId: workspace.id } });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: job.id, endpoint: "/v1/videos", modelId: "local-video" });
    expect(events[0]!.cost.toString()).toBe(cost.toFixed());
    expect(events[0]!.videoSeconds.toString()).toBe(String(job.billed_seconds));
    // The key's running spend moves with the settlement, for its spend limit.
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).spent.toString()).toBe(cost.toFixed());

    // The mp4: streamed with its type and length; H.264 at the size, fps and length asked for.
    const res = await openai.videos.downloadContent(job.id);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    const file = path.join(dir, `${job.id}.mp4`);
    await writeFile(file, bytes);
    const probe = await probeVideo(file);
    expect(probe).toMatchObject({ codec: "h264", width: 640, height: 360, fps: "24/1" });
    expect(probe.duration).toBeCloseTo(2, 1);
  });

  it("defaults come from the model; fps is an optional extension; the cost of a non-terminating fraction is rounded half-even to 18 places", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const defaults = await createJob(openai, { model: "local-video", prompt: "defaults" });
    expect(defaults).toMatchObject({ seconds: 4, size: "640x360", fps: 24 });
    // 1 s × 25/24 × 0.05 = 0.0520833… USD; "4" as a string is what the OpenAI SDK's types send.
    const odd = await createJob(openai, { model: "local-video", prompt: "odd fps", seconds: "1", fps: 25, size: "640x360" });
    expect(odd).toMatchObject({ seconds: 1, fps: 25 });
    const [a, b] = await Promise.all([waitForJob(openai, defaults.id), waitForJob(openai, odd.id)]);
    expect(a.job.status).toBe("completed");
    expect(b.job.status).toBe("completed");
    const costB = expectedCost(b.job.billed_seconds!, 25, "1");
    expect(costB.decimalPlaces()).toBeGreaterThan(10);
    expect(b.job.cost).toBe(costB.toFixed());
    const costA = expectedCost(a.job.billed_seconds!, 24, "1");
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(costA).minus(costB).toFixed());
    const file = path.join(dir, `${odd.id}.mp4`);
    await writeFile(file, Buffer.from(await (await openai.videos.downloadContent(odd.id)).arrayBuffer()));
    expect((await probeVideo(file)).fps).toBe("25/1");
  });

  it("an aspect ratio alone picks the cheapest size of that ratio", async () => {
    const { openai } = await newWorkspace("10");
    const job = await createJob(openai, { model: "local-video", prompt: "ratio", seconds: 1, aspect_ratio: "16:9" });
    expect(job.size).toBe("320x180");
    const matching = await createJob(openai, { model: "local-video", prompt: "ratio", seconds: 1, size: "1280x720", aspect_ratio: "16:9" });
    expect(matching.size).toBe("1280x720");
    await Promise.all([waitForJob(openai, job.id), waitForJob(openai, matching.id)]);
  });
});

describe("validation happens before anything is reserved or queued", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["seconds below the model's range", { seconds: 0 }, "seconds"],
    ["seconds above the model's range", { seconds: 11 }, "seconds"],
    ["seconds not a whole number", { seconds: 2.5 }, "seconds"],
    ["fps below the range", { fps: 7 }, "fps"],
    ["fps above the range", { fps: 31 }, "fps"],
    ["an unsupported size", { size: "1920x1080" }, "size"],
    ["a malformed size", { size: "big" }, "size"],
    ["an aspect ratio that does not match the size", { size: "640x360", aspect_ratio: "4:3" }, "aspect_ratio"],
    ["an aspect ratio no size has", { aspect_ratio: "1:1" }, "aspect_ratio"],
    ["a malformed aspect ratio", { aspect_ratio: "wide" }, "aspect_ratio"],
    ["a non-video model", { model: "local-chat-sim" }, "model"],
    ["a missing prompt", { prompt: undefined }, "prompt"],
    ["an empty prompt", { prompt: "" }, "prompt"],
    ["an image input (not served)", { input_reference: "data:image/png;base64,AAAA" }, "input_reference"],
  ];
  it.each(cases)("%s is a 400 naming the param", async (_name, change, param) => {
    const { workspace, openai } = await newWorkspace("10");
    const body = { model: "local-video", prompt: "a cat", ...change };
    const err = await expectApiError(createJob(openai, body), 400, param);
    expect(err.message).toMatch(new RegExp(param === "prompt" ? "prompt" : param.replace("_", "."), "i"));
    expect(await db.videoJob.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
  });

  it("an unknown model is a 404 model_not_found", async () => {
    const { openai } = await newWorkspace("10");
    await expectApiError(createJob(openai, { model: "no-such-video", prompt: "x" }), 404, "model", "model_not_found");
  });

  it("a job the balance cannot cover is a 402 insufficient_quota, with nothing created", async () => {
    const { workspace, openai } = await newWorkspace("1.5");
    // 10 s × 30/24 × 0.05 × 2.5 = 1.5625 USD > 1.5
    await expectApiError(createJob(openai, { model: "local-video", prompt: "x", seconds: 10, fps: 30, size: "1280x720" }), 402, null, "insufficient_quota");
    expect(await db.videoJob.count({ where: { workspaceId: workspace.id } })).toBe(0);
    expect((await balanceOf(workspace.id)).toFixed()).toBe("1.5");
    // Exactly enough is enough: 10 s × 24/24 × 0.05 × 2.5 = 1.25
    const ok = await createJob(openai, { model: "local-video", prompt: "x", seconds: 10, size: "1280x720", fps: 24 });
    expect((await balanceOf(workspace.id)).toFixed()).toBe("0.25");
    // A second job cannot spend the reserved money.
    await expectApiError(createJob(openai, { model: "local-video", prompt: "y", seconds: 10, size: "640x360" }), 402, null, "insufficient_quota");
    await waitForJob(openai, ok.id);
  });
});

describe("a key's spend limit counts what its running jobs hold", () => {
  it("a job that could take the key past its limit is a 402 key_spend_limit_reached; other keys go on", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const { key, secret } = await createKey(db, { workspaceId: workspace.id, name: "limited", spendLimit: "0.1" });
    const limited = client(secret);
    // 1 s at 640x360 and 24 fps can cost 0.05: two fit in 0.1 (held, not yet charged), a third does not.
    const first = await createJob(limited, { model: "local-video", prompt: "one", seconds: 1, size: "640x360" });
    const second = await createJob(limited, { model: "local-video", prompt: "two", seconds: 1, size: "640x360" });
    await expectApiError(createJob(limited, { model: "local-video", prompt: "three", seconds: 1, size: "640x360" }), 402, null, "key_spend_limit_reached");
    expect(await db.videoJob.count({ where: { apiKeyId: key.id } })).toBe(2);
    await createJob(openai, { model: "local-video", prompt: "other key", seconds: 1, size: "640x360" });
    // Once its jobs are charged the key is at its limit: it can still follow and download them.
    await waitForJob(limited, first.id);
    await waitForJob(limited, second.id);
    expect((await db.apiKey.findUniqueOrThrow({ where: { id: key.id } })).spent.toString()).toBe("0.1");
    expect((await limited.videos.downloadContent(first.id)).status).toBe(200);
    await expectApiError(createJob(limited, { model: "local-video", prompt: "four", seconds: 1, size: "320x180" }), 402, null, "key_spend_limit_reached");
  });
});

describe("failures cost nothing", () => {
  it("a render the node fails ends failed with the node's code and message, and the reservation comes back", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const created = await createJob(openai, { model: "local-video", prompt: "this one breaks [sim:fail]", seconds: 3 });
    const { job } = await waitForJob(openai, created.id);
    expect(job.status).toBe("failed");
    expect(job.error).toEqual({ code: "simulated_failure", message: expect.stringContaining("[sim:fail]") });
    expect(job.cost).toBe("0");
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(0);
    // A failed job never has content.
    await expectApiError(openai.videos.downloadContent(job.id), 409, "id", "video_not_ready");
  });

  it("content before completion is a 409 and charges nothing", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const created = await createJob(openai, { model: "local-video", prompt: "slowly [sim:slow]", seconds: 3, size: "320x180" });
    const err = await expectApiError(openai.videos.downloadContent(created.id), 409, "id", "video_not_ready");
    expect(err.message).toContain(`/v1/videos/${created.id}`);
    const reserve = expectedCost(3, 24, "0.5");
    expect((await balanceOf(workspace.id)).toFixed()).toBe(new Decimal(10).minus(reserve).toFixed());
    const { job } = await waitForJob(openai, created.id);
    expect(job.status).toBe("completed");
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });

  it("a job stuck past the timeout ends failed with code timeout, uncharged, and a late render changes nothing", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const created = await createJob(openai, { model: "local-video", prompt: "stuck [sim:slow]", seconds: 5, size: "320x180" });
    await untilInProgress(openai, created.id);
    // As if the job had been running longer than VIDEO_JOB_TIMEOUT_SECONDS (default 1 h).
    await db.videoJob.update({ where: { id: created.id }, data: { createdAt: new Date(Date.now() - 3601_000) } });
    const { job } = await waitForJob(openai, created.id, 15_000);
    expect(job.status).toBe("failed");
    expect(job.error?.code).toBe("timeout");
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
    // The render still finishes on the node; the job stays failed and uncharged.
    await expectStillUncharged(openai, created.id, workspace.id, "10", 6000);
  });
});

describe("a job whose every attempt was lost", () => {
  it("ends failed (render_failed), uncharged, once the queue has no attempt left", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const created = await createJob(openai, { model: "local-video", prompt: "abandoned [sim:slow]", seconds: 5, size: "320x180" });
    await untilInProgress(openai, created.id);
    // As if the last attempt's worker had died: pg-boss has given the job up (failed, no retry
    // left), and the claim the running worker holds is stale.
    await db.$executeRaw`UPDATE pgboss.job SET state = 'failed' WHERE name = 'video-render' AND data->>'jobId' = ${created.id}`;
    await db.videoJob.update({ where: { id: created.id }, data: { attempts: { increment: 1 } } });
    const { job } = await waitForJob(openai, created.id, 15_000);
    expect(job.status).toBe("failed");
    expect(job.error?.code).toBe("render_failed");
    expect((await balanceOf(workspace.id)).toFixed()).toBe("10");
    // The stale worker's render ends later and changes nothing.
    await expectStillUncharged(openai, created.id, workspace.id, "10", 5000);
  });
});

describe("content by HTTP Range", () => {
  let openai: OpenAI;
  let key: string;
  let job: Job;
  let whole: Buffer;
  beforeAll(async () => {
    const ws = await newWorkspace("10");
    openai = ws.openai;
    key = ws.secret;
    job = (await waitForJob(openai, (await createJob(openai, { model: "local-video", prompt: "ranges", seconds: 2, size: "320x180" })).id)).job;
    whole = Buffer.from(await (await openai.videos.downloadContent(job.id)).arrayBuffer());
  });
  const ranged = (range: string) => raw(`/v1/videos/${job.id}/content`, { key, headers: { range } });

  it("answers 206 with exactly the bytes asked for, Content-Range and Content-Length", async () => {
    const size = whole.length;
    for (const [range, start, end] of [
      ["bytes=0-99", 0, 99],
      ["bytes=100-", 100, size - 1],
      ["bytes=-50", size - 50, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    ] as const) {
      const res = await ranged(range);
      expect(res.status, range).toBe(206);
      expect(res.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers.get("content-length")).toBe(String(end - start + 1));
      expect(res.headers.get("accept-ranges")).toBe("bytes");
      expect(Buffer.from(await res.arrayBuffer()).equals(whole.subarray(start, end + 1))).toBe(true);
    }
  });

  it("a range past the end is a 416 with the size; a header that is not a single byte range gets the whole", async () => {
    const res = await ranged(`bytes=${whole.length}-`);
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe(`bytes */${whole.length}`);
    expect((await res.json()).error.code).toBe("range_not_satisfiable");
    for (const range of ["bytes=0-1,5-9", "items=0-5", "bytes=9-3"]) {
      const full = await ranged(range);
      expect(full.status).toBe(200);
      expect(Buffer.from(await full.arrayBuffer()).equals(whole)).toBe(true);
    }
  });

  it("HEAD answers the headers of the download without a body", async () => {
    const res = await raw(`/v1/videos/${job.id}/content`, { key, method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    expect(res.headers.get("content-length")).toBe(String(whole.length));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it("only the video variant exists", async () => {
    const res = await raw(`/v1/videos/${job.id}/content?variant=thumbnail`, { key });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe("variant");
  });
});

describe("ids, lists and deletes are per workspace", () => {
  it("an unknown, another workspace's, or an expired id gets the same 404 on every route", async () => {
    const mine = await newWorkspace("10");
    const theirs = await newWorkspace("10");
    const done = (await waitForJob(mine.openai, (await createJob(mine.openai, { model: "local-video", prompt: "mine", seconds: 1, size: "320x180" })).id)).job;
    const bodies: unknown[] = [];
    for (const id of [done.id, "video-doesnotexist"]) {
      for (const [method, suffix] of [["GET", ""], ["GET", "/content"], ["DELETE", ""]] as const) {
        const res = await raw(`/v1/videos/${id}${suffix}`, { key: theirs.secret, method });
        expect(res.status).toBe(404);
        const body = (await res.json()) as { error: { message: string; code: string; param: string } };
        expect(body.error.code).toBe("video_not_found");
        bodies.push({ ...body.error, message: body.error.message.replace(id, "ID") });
      }
    }
    // Nothing tells a foreign id from an unknown one.
    expect(bodies.slice(0, 3)).toEqual(bodies.slice(3));
    expect((await theirs.openai.videos.list()).data).toHaveLength(0);

    // Expired: the job answers 404 and its video is deleted by the retention sweep.
    const file = await videoFile(done.id);
    expect(existsSync(file)).toBe(true);
    await db.videoJob.update({ where: { id: done.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectApiError(mine.openai.videos.retrieve(done.id), 404, "id", "video_not_found");
    await expectApiError(mine.openai.videos.downloadContent(done.id), 404, "id", "video_not_found");
    expect((await mine.openai.videos.list()).data.map((v) => v.id)).not.toContain(done.id);
    await expect.poll(() => existsSync(file), { timeout: 10_000 }).toBe(false);
  });

  it("lists the workspace's jobs newest first, a page at a time", async () => {
    const { openai } = await newWorkspace("10");
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createJob(openai, { model: "local-video", prompt: `list ${i}`, seconds: 1, size: "320x180" })).id);
    const newestFirst = [...ids].reverse();
    const first = (await raw(`/v1/videos?limit=2`, { key: (openai as unknown as { apiKey: string }).apiKey }).then((r) => r.json())) as {
      object: string; data: Job[]; has_more: boolean; first_id: string; last_id: string;
    };
    expect(first.object).toBe("list");
    expect(first.data.map((j) => j.id)).toEqual(newestFirst.slice(0, 2));
    expect(first).toMatchObject({ has_more: true, first_id: newestFirst[0], last_id: newestFirst[1] });
    // The SDK follows `after` page by page.
    const all: string[] = [];
    for await (const v of openai.videos.list({ limit: 2 })) all.push(v.id);
    expect(all).toEqual(newestFirst);
    const asc = await openai.videos.list({ order: "asc", limit: 10 });
    expect(asc.data.map((v) => v.id)).toEqual(ids);
    const badLimit = await raw(`/v1/videos?limit=0`, { key: (openai as unknown as { apiKey: string }).apiKey });
    expect(badLimit.status).toBe(400);
    await Promise.all(ids.map((id) => waitForJob(openai, id)));
  });

  it("deletes a finished job and its video; a job still rendering cannot be deleted", async () => {
    const { workspace, openai } = await newWorkspace("10");
    const slow = await createJob(openai, { model: "local-video", prompt: "busy [sim:slow]", seconds: 3, size: "320x180" });
    await expectApiError(openai.videos.delete(slow.id), 409, "id", "video_not_finished");
    const { job } = await waitForJob(openai, slow.id);
    expect(job.status).toBe("completed");
    // The file of the attempt that finished (a job retried after a lost lease has its own).
    const file = await videoFile(job.id);
    expect(existsSync(file)).toBe(true);
    expect(await openai.videos.delete(job.id)).toEqual({ id: job.id, object: "video.deleted", deleted: true });
    expect(existsSync(file)).toBe(false);
    await expectApiError(openai.videos.retrieve(job.id), 404, "id");
    // Its usage stays billed: deleting a video is not a refund.
    expect(await db.usageEvent.count({ where: { workspaceId: workspace.id } })).toBe(1);
  });
});
