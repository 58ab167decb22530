// A stand-in OpenAI-compatible node for tests that need a node to misbehave on cue.
import { createServer, type Server } from "node:http";
import { freePort } from "../../server/infra/net/free-port";

/** `no-usage`: answers as some OpenAI-compatible servers do, with no usage at all (not even in streams). */
export type FakeMode = "ok" | "fail" | "overloaded" | "rate-limited" | "hang" | "slow-stream" | "break-stream" | "no-usage";

export type FakeUpstream = {
  url: string;
  calls: number;
  mode: FakeMode;
  healthy: boolean;
  /** Waits this long before answering (ms). */
  delayMs: number;
  /** The Retry-After a `rate-limited` answer carries (seconds). */
  retryAfter: string;
  /** Refuses a prompt longer than this many characters with 400 context_length_exceeded (0: any length). */
  contextChars: number;
  /** The body of every chat call it was sent, oldest first. */
  bodies: string[];
  /** What it answers (streamed in pieces of `pieceChars` characters); unset: "fake answer", or 20 pieces "w0 " .. "w19 " streamed. */
  answer?: string;
  pieceChars: number;
  close: () => Promise<void>;
};

const USAGE = { prompt_tokens: 11, completion_tokens: 20, total_tokens: 31, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };

export async function startFakeUpstream(model: string): Promise<FakeUpstream> {
  const fake: FakeUpstream = { url: "", calls: 0, mode: "ok", healthy: true, delayMs: 0, retryAfter: "1", contextChars: 0, bodies: [], pieceChars: 4, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    if (req.url === "/v1/models") {
      res.writeHead(fake.healthy ? 200 : 500, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: model, object: "model" }] }));
      return;
    }
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      fake.calls += 1;
      fake.bodies.push(body);
      if (fake.mode === "hang") return; // never answers: the gateway's first-byte timeout decides
      if (fake.delayMs) await new Promise((r) => setTimeout(r, fake.delayMs));
      if (fake.contextChars && JSON.stringify((JSON.parse(body) as { messages?: unknown }).messages ?? "").length > fake.contextChars) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "This model's maximum context length was exceeded.", type: "invalid_request_error", code: "context_length_exceeded", param: "messages" } }));
        return;
      }
      if (fake.mode === "rate-limited") {
        res.writeHead(429, { "content-type": "application/json", "retry-after": fake.retryAfter });
        res.end(JSON.stringify({ error: { message: "slow down", type: "rate_limit_error", code: null, param: null } }));
        return;
      }
      if (fake.mode === "overloaded") {
        res.writeHead(503, { "content-type": "application/json", "retry-after": "2" });
        res.end(JSON.stringify({ error: { message: "overloaded", type: "server_error", code: null, param: null } }));
        return;
      }
      if (fake.mode === "fail") {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "boom", type: "server_error", code: null, param: null } }));
        return;
      }
      const request = JSON.parse(body) as { stream?: boolean };
      const usage = fake.mode === "no-usage" ? {} : { usage: USAGE };
      const base = { id: "chatcmpl-fake", created: 1, model, system_fingerprint: "fp_fake" };
      if (!request.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ ...base, object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: fake.answer ?? "fake answer" }, finish_reason: "stop" }], ...usage }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.write(chunk({ role: "assistant", content: "" }));
      const answer = fake.answer;
      const pieces = answer === undefined ? Array.from({ length: 20 }, (_, i) => `w${i} `) : Array.from({ length: Math.ceil(answer.length / fake.pieceChars) }, (_, i) => answer.slice(i * fake.pieceChars, (i + 1) * fake.pieceChars));
      for (let i = 0; i < pieces.length; i++) {
        if (fake.mode === "break-stream" && i === 3) {
          await new Promise((r) => setTimeout(r, 30)); // let what was written reach the gateway
          return void res.destroy();
        }
        if (fake.mode === "slow-stream") await new Promise((r) => setTimeout(r, 40));
        res.write(chunk({ content: pieces[i] }));
      }
      res.write(chunk({}, "stop"));
      if (fake.mode !== "no-usage") res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage: USAGE })}\n\n`);
      res.end("data: [DONE]\n\n");
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}

export const FAKE_USAGE = USAGE;
