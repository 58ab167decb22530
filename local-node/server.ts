// The built-in node: a small HTTP server speaking the OpenAI wire format. The gateway reaches it
// over HTTP only, exactly as it reaches vLLM, Ollama or OpenAI.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { MODELS } from "./catalog";

export type LocalNodeOptions = { apiKey?: string };

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { error: { code, message, param: null, type: status === 401 ? "authentication_error" : "invalid_request_error" } });
}

type Route = (req: IncomingMessage, res: ServerResponse, match: RegExpMatchArray) => void | Promise<void>;

const startedAt = performance.now();

const ROUTES: [string, RegExp, Route][] = [
  ["GET", /^\/v1\/models$/, (_req, res) => send(res, 200, { object: "list", data: MODELS })],
  [
    "GET",
    /^\/v1\/models\/([^/]+)$/,
    (_req, res, m) => {
      const model = MODELS.find((x) => x.id === decodeURIComponent(m[1] ?? ""));
      if (model) send(res, 200, model);
      else error(res, 404, "model_not_found", `The model ${m[1]} does not exist`);
    },
  ],
];

export function createLocalNode(options: LocalNodeOptions = {}): Server {
  return createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path === "/health") return send(res, 200, { ok: true, uptimeMs: Math.round(performance.now() - startedAt) });
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return error(res, 401, "invalid_api_key", "Invalid API key for this node");
    }
    const known = ROUTES.filter(([, re]) => re.test(path));
    if (!known.length) return error(res, 404, "unknown_url", `Unknown path ${path}`);
    const route = known.find(([method]) => method === req.method);
    if (!route) return error(res, 405, "method_not_allowed", `Method ${req.method} not allowed`);
    Promise.resolve(route[2](req, res, path.match(route[1])!)).catch((err: Error) => {
      if (!res.headersSent) error(res, 500, "internal_error", err.message);
      else res.destroy(err);
    });
  });
}
