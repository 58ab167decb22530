// The local node's video jobs: kept in memory, rendered in the background (at most `concurrency`
// at a time, the others wait queued), files in a private folder under os.tmpdir() that is removed
// on DELETE, when the node closes and when the process exits.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep } from "./http";
import { Slots } from "./slots";
import { probeDuration, renderVideo, type RenderSpec } from "./video-render";

/** How long a finished video is announced to stay downloadable (advisory `expires_at`). */
export const RETENTION_S = 24 * 3600;

export type VideoObject = {
  id: string;
  object: "video";
  model: string;
  status: "queued" | "in_progress" | "completed" | "failed";
  progress: number;
  created_at: number;
  completed_at: number | null;
  expires_at: number;
  prompt: string;
  remixed_from_video_id: null;
  seconds: string;
  size: string;
  fps: number;
  error: { code: string; message: string } | null;
  billed_seconds?: number;
};

type Job = { video: VideoObject; spec: RenderSpec; file: string; abort: AbortController; seq: number };

const liveDirs = new Set<string>();
let exitHookInstalled = false;
function removeOnExit(dir: string): void {
  liveDirs.add(dir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const d of liveDirs) rmSync(d, { recursive: true, force: true });
  });
}

export class VideoStore {
  readonly dir = mkdtempSync(join(tmpdir(), "local-node-videos-"));
  private readonly jobs = new Map<string, Job>();
  private seq = 0;
  private readonly slots: Slots;

  constructor(private readonly options: { delayMs: number; concurrency: number }) {
    this.slots = new Slots(options.concurrency);
    removeOnExit(this.dir);
  }

  create(model: string, spec: RenderSpec): VideoObject {
    const now = Math.floor(Date.now() / 1000);
    const id = `video_${randomBytes(16).toString("hex")}`;
    const video: VideoObject = {
      id, object: "video", model, status: "queued", progress: 0, created_at: now, completed_at: null,
      expires_at: now + RETENTION_S, prompt: spec.prompt, remixed_from_video_id: null,
      seconds: String(spec.seconds), size: `${spec.width}x${spec.height}`, fps: spec.fps, error: null,
    };
    const job: Job = { video, spec, file: join(this.dir, id, "video.mp4"), abort: new AbortController(), seq: this.seq++ };
    this.jobs.set(id, job);
    void this.run(job);
    return { ...video };
  }

  get(id: string): VideoObject | undefined {
    const job = this.jobs.get(id);
    return job && { ...job.video };
  }

  /** The mp4 path of a completed video. */
  file(id: string): string | undefined {
    const job = this.jobs.get(id);
    return job?.video.status === "completed" ? job.file : undefined;
  }

  list(): VideoObject[] {
    return [...this.jobs.values()].sort((a, b) => b.seq - a.seq).map((j) => ({ ...j.video }));
  }

  /** Forgets the job, stops its render and removes its file; false when unknown. */
  async delete(id: string): Promise<boolean> {
    const job = this.jobs.get(id);
    if (!job) return false;
    this.jobs.delete(id);
    job.abort.abort();
    await rm(join(this.dir, id), { recursive: true, force: true });
    return true;
  }

  /** Stops every render and removes the folder. */
  close(): void {
    for (const job of this.jobs.values()) job.abort.abort();
    this.jobs.clear();
    rmSync(this.dir, { recursive: true, force: true });
    liveDirs.delete(this.dir);
  }

  private async run(job: Job): Promise<void> {
    const { video, spec, abort } = job;
    const signal = abort.signal;
    if (!(await sleep(this.options.delayMs, signal))) return;
    await this.slots.take();
    try {
      if (signal.aborted) return;
      video.status = "in_progress";
      if (spec.prompt.includes("[sim:fail]")) {
        video.progress = 25;
        await sleep(200, signal);
        throw Object.assign(new Error("The render failed on purpose: the prompt contains [sim:fail]."), { code: "simulated_failure" });
      }
      const dir = join(this.dir, video.id);
      await mkdir(dir, { recursive: true });
      await renderVideo(spec, dir, job.file, (pct) => (video.progress = Math.max(video.progress, pct)), signal);
      video.billed_seconds = await probeDuration(job.file);
      video.progress = 100;
      video.completed_at = Math.floor(Date.now() / 1000);
      video.status = "completed";
    } catch (err) {
      if (signal.aborted) return;
      video.status = "failed";
      const simulated = (err as { code?: unknown }).code === "simulated_failure";
      video.error = { code: simulated ? "simulated_failure" : "render_failed", message: (err as Error).message };
    } finally {
      this.slots.release();
    }
  }
}
