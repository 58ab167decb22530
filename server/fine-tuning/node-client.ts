// OpenAI's fine-tuning API on a node (the built-in node, OpenAI itself, any node that speaks it):
// files uploaded for training, jobs created, read, cancelled, paused and resumed, their events
// and checkpoints paged, result files read and tuned models deleted. Calls go through the
// gateway's upstream HTTP (providers/http.ts: its pools, timeouts and auth headers). A node's
// refusal becomes a GatewayError with the node's own code and words; a node that cannot be
// reached (or fails on its side) becomes a 5xx GatewayError that `nodeIsDown` recognises.
import { GatewayError } from "../kernel/errors";
import { request, postJson, type UpstreamTarget } from "../providers/http";
import { nodeTarget, type StoredNode } from "../providers/node-target";
import { FormData, postMultipart } from "../providers/openai-compatible/multipart";
import { UpstreamFailure } from "../providers/upstream-failure";
import { upstreamError } from "../routing/nodes/router";
import { finite, nodeJobEnded, page, toCheckpoint, toEvent, toJob, type NodeCheckpoint, type NodeEvent, type NodeFile, type NodeJob, type NodeJobRequest, type NodePage } from "./node-shapes";

export type { NodeCheckpoint, NodeEvent, NodeFile, NodeJob, NodeJobRequest, NodeJobStatus, NodePage } from "./node-shapes";

/** The largest result file read from a node (a metrics CSV is a line per step). */
const MAX_RESULT_BYTES = 64 * 1024 * 1024;

/** Whether an error from this client means the node could not be reached or failed on its side (worth retrying later). */
export function nodeIsDown(err: unknown): boolean {
  if (err instanceof UpstreamFailure) return err.retryable;
  return err instanceof GatewayError && err.cause instanceof UpstreamFailure && err.cause.retryable;
}

/** Whether the node answered that it does not know what was asked for (404). */
export function nodeNotFound(err: unknown): boolean {
  return err instanceof GatewayError && err.cause instanceof UpstreamFailure && err.cause.status === 404;
}

/**
 * A node's failure as the gateway's error. Its fine-tuning API's answers about a job or file (404:
 * unknown to it, 409: not in a state for that) are passed on in its words; anything else is the
 * failure of any node call (routing/nodes/router.ts upstreamError), which keeps the failure as
 * its cause (nodeIsDown reads it).
 */
function gatewayErrorOf(failure: UpstreamFailure, what: string): GatewayError {
  const status = failure.status ?? 0;
  if (failure.kind !== "status" || (status !== 404 && status !== 409)) return upstreamError(failure);
  const body = failure.body as { error?: { message?: unknown; code?: unknown; param?: unknown } } | null;
  return new GatewayError({
    status,
    code: typeof body?.error?.code === "string" ? body.error.code : status === 404 ? "not_found" : "upstream_rejected",
    message: typeof body?.error?.message === "string" ? body.error.message : `The node refused to ${what} (HTTP ${status}).`,
    param: typeof body?.error?.param === "string" ? body.error.param : null,
    cause: failure,
  });
}

/** Whether the node refused the call as not possible in the job's state (400 or 409). */
function refused(err: unknown): boolean {
  const cause = err instanceof GatewayError ? err.cause : err;
  return cause instanceof UpstreamFailure && cause.kind === "status" && (cause.status === 400 || cause.status === 409);
}

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof UpstreamFailure) throw gatewayErrorOf(err, what);
    throw err;
  }
}

async function json(res: { body: { text(): Promise<string> } }, what: string): Promise<Record<string, unknown>> {
  const text = await res.body.text();
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object") return parsed as Record<string, unknown>;
  } catch {
    // below
  }
  throw new UpstreamFailure("protocol", `the node's ${what} could not be read`, 502);
}

const listQuery = (after?: string, limit = 100) => `?limit=${limit}${after ? `&after=${encodeURIComponent(after)}` : ""}`;

/** A node's row (its key still sealed) or a routable node (its headers made). */
export type FineTuningNode = (StoredNode & { id?: string }) | (UpstreamTarget & { id?: string; headers: Record<string, string> });

/** The fine-tuning API of one node. */
export function nodeFineTuning(node: FineTuningNode) {
  const target: UpstreamTarget = "headers" in node && node.headers ? (node as UpstreamTarget) : nodeTarget(node as StoredNode);
  const get = <T>(path: string, what: string, map: (raw: Record<string, unknown>) => T, signal?: AbortSignal) =>
    call(what, async () => map(await json(await request(target, "GET", path, { headers: { accept: "application/json" }, signal }), what)));
  const postBody = <T>(path: string, body: unknown, what: string, map: (raw: Record<string, unknown>) => T, signal?: AbortSignal) =>
    call(what, async () => map(await json(await postJson(target, path, JSON.stringify(body), signal), what)));
  const job = (id: string) => `/fine_tuning/jobs/${encodeURIComponent(id)}`;
  /** DELETE of something the node may already have forgotten (a 404 is fine). */
  const remove = (path: string, what: string, signal?: AbortSignal) =>
    call(what, async () => {
      try {
        await (await request(target, "DELETE", path, { signal })).body.dump();
      } catch (err) {
        if (!(err instanceof UpstreamFailure && err.status === 404)) throw err;
      }
    });

  const getJob = (id: string, signal?: AbortSignal): Promise<NodeJob> => get(job(id), "report on the fine-tuning job", toJob, signal);

  return {
    /** Uploads a training or validation file (purpose `fine-tune`). */
    async uploadFile(name: string, bytes: Uint8Array, signal?: AbortSignal): Promise<NodeFile> {
      return call("accept the training file", async () => {
        const form = new FormData();
        form.append("purpose", "fine-tune");
        form.append("file", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/jsonl" }), name);
        const raw = await json(await postMultipart(target, "/files", form, signal), "file");
        if (typeof raw.id !== "string") throw new UpstreamFailure("protocol", "the node answered something that is not a file", 502);
        return { id: raw.id, bytes: finite(raw.bytes) ?? bytes.length, filename: String(raw.filename ?? name), purpose: String(raw.purpose ?? "fine-tune") };
      });
    },
    async createJob(body: NodeJobRequest, signal?: AbortSignal): Promise<NodeJob> {
      return postBody("/fine_tuning/jobs", body, "start the fine-tuning job", toJob, signal);
    },
    /** One page of the node's jobs, newest first; `after`: only jobs older than that one. */
    async listJobs(after?: string, signal?: AbortSignal): Promise<NodePage<NodeJob>> {
      return get(`/fine_tuning/jobs${listQuery(after)}`, "list its fine-tuning jobs", (raw) => page(raw, toJob), signal);
    },
    getJob,
    /** One page of the job's events, newest first; `after`: only events older than that one. */
    async listEvents(id: string, after?: string, signal?: AbortSignal): Promise<NodePage<NodeEvent>> {
      return get(`${job(id)}/events${listQuery(after)}`, "list the job's events", (raw) => page(raw, toEvent), signal);
    },
    /** One page of the job's checkpoints, newest first; `after`: only checkpoints older than that one. */
    async listCheckpoints(id: string, after?: string, signal?: AbortSignal): Promise<NodePage<NodeCheckpoint>> {
      return get(`${job(id)}/checkpoints${listQuery(after)}`, "list the job's checkpoints", (raw) => page(raw, toCheckpoint), signal);
    },
    /**
     * Cancels the job. A node that refuses because its job has just ended (400 or 409) is asked
     * for the job instead: the answer then says how it ended (succeeded, failed, cancelled).
     */
    async cancel(id: string, signal?: AbortSignal): Promise<NodeJob> {
      try {
        return await postBody(`${job(id)}/cancel`, {}, "cancel the fine-tuning job", toJob, signal);
      } catch (err) {
        if (!refused(err)) throw err;
        const now = await getJob(id, signal);
        if (nodeJobEnded(now.status)) return now;
        throw err;
      }
    },
    async pause(id: string, signal?: AbortSignal): Promise<NodeJob> {
      return postBody(`${job(id)}/pause`, {}, "pause the fine-tuning job", toJob, signal);
    },
    async resume(id: string, signal?: AbortSignal): Promise<NodeJob> {
      return postBody(`${job(id)}/resume`, {}, "resume the fine-tuning job", toJob, signal);
    },
    /** A file's content (a job's metrics CSV), whole. */
    async fileContent(id: string, signal?: AbortSignal): Promise<{ bytes: Buffer; filename: string | null }> {
      return call("send the result file", async () => {
        const res = await request(target, "GET", `/files/${encodeURIComponent(id)}/content`, { signal });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > MAX_RESULT_BYTES) {
            res.body.destroy();
            throw new UpstreamFailure("protocol", `the node's result file is larger than ${MAX_RESULT_BYTES} bytes`, 502);
          }
          chunks.push(chunk as Buffer);
        }
        const disposition = String(res.headers["content-disposition"] ?? "");
        const filename = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? null;
        return { bytes: Buffer.concat(chunks), filename };
      });
    },
    /** A file's metadata (its name). */
    async getFile(id: string, signal?: AbortSignal): Promise<NodeFile> {
      const toFile = (raw: Record<string, unknown>) => ({ id: String(raw.id ?? id), bytes: finite(raw.bytes) ?? 0, filename: String(raw.filename ?? id), purpose: String(raw.purpose ?? "") });
      return get(`/files/${encodeURIComponent(id)}`, "describe the file", toFile, signal);
    },
    /** Deletes a file on the node; one it no longer has is fine. */
    deleteFile: (id: string, signal?: AbortSignal) => remove(`/files/${encodeURIComponent(id)}`, "delete the file", signal),
    /** Deletes a tuned model on the node; one it no longer has is fine. */
    deleteModel: (name: string, signal?: AbortSignal) => remove(`/models/${encodeURIComponent(name)}`, "delete the tuned model", signal),
  };
}

export type NodeFineTuning = ReturnType<typeof nodeFineTuning>;
