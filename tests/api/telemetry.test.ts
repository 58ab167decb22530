// Metrics and logs of a gateway instance with two processes (WEB_CONCURRENCY=2), as `npm start`
// runs it: /metrics aggregates both processes' figures exactly, is refused without its token and
// served without one on METRICS_PORT; every request is logged as one JSON line with its request
// id, workspace, model, status and durations, and no secret is ever written.
import { createServer } from "node:http";
import OpenAI from "openai";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/infra/net/free-port";
import { startGatewayInstance, type GatewayInstance } from "../instances";
import { newWorkspace } from "../helpers";

const TOKEN = "metrics-token-for-tests-0123456789";
const CHAT = "local-chat-sim";
const EMBED = "local-embed-ngram";

let instance: GatewayInstance;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  instance = await startGatewayInstance({
    env: { WEB_CONCURRENCY: "2", METRICS_TOKEN: TOKEN, METRICS_PORT: String(metricsPort), LOG_FORMAT: "json", LOG_REQUESTS: "true" },
  });
}, 120_000);

afterAll(async () => {
  await instance?.stop();
});

/** A client on a connection of its own, so the cluster hands each to either process. */
function freshClient(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${instance.url}/v1`, maxRetries: 0, fetchOptions: { dispatcher: new Agent({ pipelining: 0 }) } as never });
}

async function scrape(url = `${instance.url}/metrics`, token: string | null = TOKEN): Promise<string> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  return res.text();
}

/** The value of one series (labels given in any order; all must match), summed over the others' labels. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).match(/^\{(.*)\}/)?.[1] ?? "";
    const have = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(line.split(" ").at(-1));
  }
  return sum;
}

/** The first log line that `match` accepts, once the instance wrote it (lines are written asynchronously). */
async function logLine(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown> | undefined> {
  for (let i = 0; i < 50; i++) {
    const line = logLines().find(match);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** The instance's JSON log lines. */
function logLines(): Record<string, unknown>[] {
  return instance
    .output()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("metrics", () => {
  it("are refused without the token, in the OpenAI error shape", async () => {
    for (const authorization of [undefined, "Bearer wrong-token-0123456789abcdef"]) {
      const res = await fetch(`${instance.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain("Bearer");
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_metrics_token");
    }
  });

  it("count every call of both processes once, with tokens, cost and the node's part of the time", async () => {
    const { secret } = await newWorkspace("5");
    const before = await scrape();
    const route = { route: "/v1/chat/completions", method: "POST", status: "200", credential: "api_key", model: CHAT };
    const CALLS = 8;
    let inputTokens = 0;
    let outputTokens = 0;
    const requestIds: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      const openai = freshClient(secret);
      if (i % 2) {
        const { data, response } = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: `hello ${i}` }] }).withResponse();
        inputTokens += data.usage!.prompt_tokens;
        outputTokens += data.usage!.completion_tokens;
        requestIds.push(response.headers.get("x-request-id")!);
      } else {
        const stream = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: `stream ${i}` }], stream: true, stream_options: { include_usage: true } });
        for await (const chunk of stream) {
          if (chunk.usage) {
            inputTokens += chunk.usage.prompt_tokens;
            outputTokens += chunk.usage.completion_tokens;
          }
        }
      }
    }
    await freshClient(secret).embeddings.create({ model: EMBED, input: "metrics" });
    const after = await scrape();

    expect(value(after, "gateway_http_requests_total", route) - value(before, "gateway_http_requests_total", route)).toBe(CALLS);
    expect(value(after, "gateway_http_requests_total", { route: "/v1/embeddings", status: "200", model: EMBED }) - value(before, "gateway_http_requests_total", { route: "/v1/embeddings", status: "200", model: EMBED })).toBe(1);
    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta("gateway_tokens_total", { model: CHAT, direction: "input" })).toBe(inputTokens);
    expect(delta("gateway_tokens_total", { model: CHAT, direction: "output" })).toBe(outputTokens);
    expect(delta("gateway_cost_usd_total", { model: CHAT })).toBeGreaterThan(0);
    // Every call reached the node: its whole time, the node's part and the gateway's own.
    expect(delta("gateway_http_request_duration_seconds_count", { route: "/v1/chat/completions" })).toBe(CALLS);
    expect(delta("gateway_overhead_duration_seconds_count", { route: "/v1/chat/completions" })).toBe(CALLS);
    expect(delta("gateway_upstream_duration_seconds_count", { model: CHAT })).toBe(CALLS);
    expect(delta("gateway_usage_write_batch_size_sum", {})).toBeGreaterThanOrEqual(CALLS + 1);

    // Both processes answered some of them (the log says which; its lines are written in blocks,
    // at most half a second late), and the figures are of both.
    const servedBy = () => {
      const served = logLines().filter((l) => l.msg === "request" && l.route === "/v1/chat/completions" && l.workspaceId !== undefined);
      return new Set(served.filter((l) => requestIds.includes(l.requestId as string) || l.status === 200).map((l) => l.pid)).size;
    };
    await expect.poll(servedBy, { timeout: 5000 }).toBe(2);

    // The scrape-time gauges.
    expect(value(after, "gateway_node_up")).toBeGreaterThanOrEqual(1);
    expect(after).toMatch(/^gateway_node_breaker_open\{node="[^"]+"\} 0$/m);
    expect(after).toMatch(/^gateway_video_jobs\{status="queued"\} \d+$/m);
    expect(after).toMatch(/^gateway_video_job_oldest_seconds\{status="in_progress"\} [\d.e+-]+$/m);
    expect(after).toMatch(/^gateway_usage_writer_lag_seconds [\d.e+-]+$/m);
    expect(after).toMatch(/^gateway_usage_writer_pending_events \d+$/m);
    expect(after).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it("label a refused call by its credential kind and status, without the unknown model's name", async () => {
    const before = await scrape();
    const { secret } = await newWorkspace("5");
    await expect(freshClient(secret).chat.completions.create({ model: "no-such-model-xyz", messages: [{ role: "user", content: "hi" }] })).rejects.toMatchObject({ status: 404 });
    await expect(freshClient("sk-gw-not-a-key").models.list()).rejects.toMatchObject({ status: 401 });
    const after = await scrape();
    const delta = (labels: Record<string, string>) => value(after, "gateway_http_requests_total", labels) - value(before, "gateway_http_requests_total", labels);
    expect(delta({ route: "/v1/chat/completions", status: "404", credential: "api_key", model: "" })).toBe(1);
    expect(delta({ route: "/v1/models", status: "401", credential: "none" })).toBe(1);
    expect(after).not.toContain("no-such-model-xyz");
  });

  it("are served without a token on METRICS_PORT, the same aggregate", async () => {
    const onPort = await scrape(`http://127.0.0.1:${metricsPort}/metrics`, null);
    expect(onPort).toContain("gateway_http_requests_total{");
    const onMain = await scrape();
    const chat = { route: "/v1/chat/completions", status: "200", model: CHAT };
    expect(value(onPort, "gateway_http_requests_total", chat)).toBe(value(onMain, "gateway_http_requests_total", chat));
    expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
  });
});

describe("logs", () => {
  it("are one JSON line per request with its id, workspace, model, status and durations, and never a secret", async () => {
    const { secret, workspace } = await newWorkspace("5");
    const { response } = await freshClient(secret).chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "log me" }] }).withResponse();
    const requestId = response.headers.get("x-request-id")!;
    await expect(freshClient(secret).chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "x" }], max_tokens: -5 })).rejects.toMatchObject({ status: 400 });
    const line = await logLine((l) => l.requestId === requestId);
    expect(line).toMatchObject({ level: "info", msg: "request", method: "POST", route: "/v1/chat/completions", status: 200, credential: "api_key", workspaceId: workspace.id, model: CHAT });
    expect(line!.durationMs).toBeGreaterThan(0);
    expect(line!.nodeMs).toBeGreaterThan(0);
    expect(typeof line!.gatewayMs).toBe("number");
    expect(Number(line!.inputTokens)).toBeGreaterThan(0);
    expect(String(line!.cost)).toMatch(/^\d+(\.\d+)?$/);
    expect(typeof line!.time).toBe("string");
    // The refused call is logged with its status too.
    expect(await logLine((l) => l.workspaceId === workspace.id && l.status === 400)).toMatchObject({ level: "info", route: "/v1/chat/completions", credential: "api_key" });
    // No credential anywhere in the output, whatever was logged.
    expect(instance.output()).not.toContain(secret);
    expect(instance.output()).not.toContain(TOKEN);
  });
});

describe("traces", () => {
  it("go out over OTLP/HTTP from the production server when OTEL_EXPORTER_OTLP_ENDPOINT is set", async () => {
    const received: { path: string; body: string }[] = [];
    const collector = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        received.push({ path: req.url ?? "", body });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => collector.listen(port, "127.0.0.1", resolve));
    const traced = await startGatewayInstance({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_BLRP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "gateway-under-test" },
    });
    try {
      const { secret } = await newWorkspace("5");
      const openai = new OpenAI({ apiKey: secret, baseURL: `${traced.url}/v1`, maxRetries: 0 });
      const { response } = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "export me" }] }).withResponse();
      const requestId = response.headers.get("x-request-id")!;
      // Spans go out in batches as they end: the request's, and its children, maybe in separate posts.
      const expected = [requestId, "gateway-under-test", "POST /v1/chat/completions", "authenticate", "usage write", "gen_ai.usage.output_tokens", '"kind":3'];
      const all = () => received.map((r) => r.body).join("\n");
      for (let i = 0; i < 100 && !expected.every((t) => all().includes(t)); i++) await new Promise((r) => setTimeout(r, 100));
      for (const text of expected) expect(all()).toContain(text);
      // The request log's row goes out too, as a log record with the request's id.
      const logs = () => received.filter((r) => r.path === "/v1/logs").map((r) => r.body).join("\n");
      for (let i = 0; i < 100 && !logs().includes(requestId); i++) await new Promise((r) => setTimeout(r, 100));
      expect(new Set(received.map((r) => r.path))).toEqual(new Set(["/v1/traces", "/v1/logs"]));
      expect(logs()).toContain(requestId);
      expect(logs()).toContain("POST /v1/chat/completions 200");
    } finally {
      await traced.stop();
      collector.close();
    }
  });
});
