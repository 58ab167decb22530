// The built-in node: a small HTTP server speaking the OpenAI wire format. The gateway reaches it
// over HTTP only, exactly as it reaches vLLM, Ollama or OpenAI.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { MODELS } from "./catalog";
import { chatCompletions } from "./chat";
import { embeddings } from "./embeddings";
import { FineTuning } from "./fine-tune/service";
import { imageEdits, imageVariations } from "./image-edits";
import { imageGenerations } from "./images";
import { moderations } from "./moderations";
import { speech } from "./speech";
import { transcriptions } from "./transcriptions";
import { ApiError, error, send, sendError } from "./http";
import { VideoStore } from "./video-jobs";
import { createVideo, deleteVideo, getVideo, listVideos, videoContent } from "./videos";
import "./tokenizer"; // loads the BPE ranks now, not on the first request

export type LocalNodeOptions = {
  apiKey?: string;
  /** Pause between streamed token deltas (ms). Default 0. */
  tokenDelayMs?: number;
  /** Pause before the first byte of every chat and embeddings answer (ms). Default 0. */
  latencyMs?: number;
  /** Pause before every video render starts (ms). Default 0. */
  videoDelayMs?: number;
  /** Video renders running at once; the others wait queued. Default 2. */
  videoConcurrency?: number;
  /** Where fine-tuning keeps its files, jobs and models; a temporary folder when absent. */
  dataDir?: string;
  /** Pause between two fine-tuning steps (ms). Default 0. */
  fineTuneStepDelayMs?: number;
  /** Fine-tuning jobs training at once; the others wait queued. Default 2. */
  fineTuneConcurrency?: number;
};

type Route = (req: IncomingMessage, res: ServerResponse, match: RegExpMatchArray) => void | Promise<void>;

const startedAt = performance.now();

function routes(options: LocalNodeOptions, videos: VideoStore, tuning: FineTuning): [string, RegExp, Route][] {
  const id = (m: RegExpMatchArray) => decodeURIComponent(m[1] ?? "");
  const timing = { tokenDelayMs: options.tokenDelayMs ?? 0, latencyMs: options.latencyMs ?? 0 };
  return [
    ["GET", /^\/v1\/models$/, (_req, res) => send(res, 200, { object: "list", data: MODELS })],
    [
      "GET",
      /^\/v1\/models\/([^/]+)$/,
      (_req, res, m) => {
        const model = MODELS.find((x) => x.id === id(m)) ?? tuning.card(id(m));
        if (model) send(res, 200, model);
        else error(res, 404, "model_not_found", `The model ${m[1]} does not exist`, "model");
      },
    ],
    ["DELETE", /^\/v1\/models\/([^/]+)$/, (_req, res, m) => tuning.deleteModel(res, id(m))],
    ["POST", /^\/v1\/chat\/completions$/, (req, res) => chatCompletions(req, res, timing, (name) => tuning.model(name))],
    ["POST", /^\/v1\/embeddings$/, (req, res) => embeddings(req, res, timing.latencyMs)],
    ["POST", /^\/v1\/moderations$/, (req, res) => moderations(req, res)],
    ["POST", /^\/v1\/audio\/speech$/, (req, res) => speech(req, res)],
    ["POST", /^\/v1\/audio\/transcriptions$/, (req, res) => transcriptions(req, res, "transcribe")],
    ["POST", /^\/v1\/audio\/translations$/, (req, res) => transcriptions(req, res, "translate")],
    ["POST", /^\/v1\/images\/generations$/, (req, res) => imageGenerations(req, res)],
    ["POST", /^\/v1\/images\/edits$/, (req, res) => imageEdits(req, res)],
    ["POST", /^\/v1\/images\/variations$/, (req, res) => imageVariations(req, res)],
    ["POST", /^\/v1\/videos$/, (req, res) => createVideo(req, res, videos)],
    ["GET", /^\/v1\/videos$/, (req, res) => listVideos(req, res, videos)],
    ["GET", /^\/v1\/videos\/([^/]+)$/, (_req, res, m) => getVideo(res, videos, id(m))],
    ["DELETE", /^\/v1\/videos\/([^/]+)$/, (_req, res, m) => deleteVideo(res, videos, id(m))],
    ["GET", /^\/v1\/videos\/([^/]+)\/content$/, (req, res, m) => videoContent(req, res, videos, id(m))],
    ...tuning.routes(),
  ];
}

export function createLocalNode(options: LocalNodeOptions = {}): Server {
  const videos = new VideoStore({ delayMs: options.videoDelayMs ?? 0, concurrency: options.videoConcurrency ?? 2 });
  const tuning = new FineTuning({ dataDir: options.dataDir, stepDelayMs: options.fineTuneStepDelayMs, concurrency: options.fineTuneConcurrency });
  const table = routes(options, videos, tuning);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === "/health") return send(res, 200, { ok: true, uptimeMs: Math.round(performance.now() - startedAt) });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return error(res, 401, "invalid_api_key", "Invalid API key for this node");
    }
    const known = table.filter(([, re]) => re.test(path));
    if (!known.length) return error(res, 404, "unknown_url", `Unknown path ${path}`);
    const route = known.find(([method]) => method === req.method);
    if (!route) return error(res, 405, "method_not_allowed", `Method ${req.method} not allowed`);
    // a route that throws at once is answered like one that rejects
    new Promise<void>((resolve) => resolve(route[2](req, res, path.match(route[1])!))).catch((err: Error) => {
      if (res.headersSent) res.destroy(err);
      else if (err instanceof ApiError) sendError(res, err);
      else error(res, 500, "internal_error", err.message);
    });
  });
  server.once("close", () => {
    videos.close(); // stops renders, removes the rendered files
    void tuning.close(); // stops training; saved jobs go on at the next start
  });
  return server;
}
