// A stand-in OpenAI-compatible node for audio and images (the wire format of OpenAI's API), for
// tests that need exact, known answers or a node that fails on cue.
import { createServer, type IncomingMessage, type Server } from "node:http";
import sharp from "sharp";
import { freePort } from "../../server/infra/net/free-port";

export type MediaFake = { url: string; calls: number; mode: "ok" | "fail" | "break"; last: { path: string; body: Buffer } | null; close: () => Promise<void> };

/** The audio bytes the fake "synthesizes": 40 chunks of 1 KiB. */
export const FAKE_AUDIO = Buffer.alloc(40 * 1024, 7);
const SEGMENT = { id: 0, seek: 0, start: 0, end: 2.5, text: " hello world", tokens: [1, 2], temperature: 0, avg_logprob: -0.2, compression_ratio: 1, no_speech_prob: 0.01 };

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const formField = (body: Buffer, name: string) => new RegExp(`name="${name.replace(/[[\]]/g, "\\$&")}"\\r\\n\\r\\n([^\\r]*)`).exec(body.toString("latin1"))?.[1];

export async function startMediaFake(models: string[]): Promise<MediaFake> {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#3366ff" } }).png().toBuffer();
  const fake: MediaFake = { url: "", calls: 0, mode: "ok", last: null, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? "";
    if (path === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ object: "list", data: models.map((id) => ({ id, object: "model" })) }));
    }
    const body = await readBody(req);
    fake.calls += 1;
    fake.last = { path, body };
    if (fake.mode === "fail") {
      res.writeHead(500, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: { message: "boom", type: "server_error", code: null, param: null } }));
    }
    if (path === "/v1/audio/speech") {
      res.writeHead(200, { "content-type": "audio/mpeg" });
      for (let i = 0; i < 40; i++) {
        if (fake.mode === "break" && i === 10) return void res.destroy();
        res.write(FAKE_AUDIO.subarray(i * 1024, (i + 1) * 1024));
        await new Promise((r) => setImmediate(r));
      }
      return void res.end();
    }
    if (path === "/v1/audio/transcriptions" || path === "/v1/audio/translations") {
      const format = formField(body, "response_format") ?? "json";
      if (format === "text") return void res.writeHead(200, { "content-type": "text/plain" }).end("hello world");
      if (format === "srt") return void res.writeHead(200, { "content-type": "text/plain" }).end("1\n00:00:00,000 --> 00:00:02,500\nhello world\n");
      if (format === "vtt") return void res.writeHead(200, { "content-type": "text/plain" }).end("WEBVTT\n\n00:00:00.000 --> 00:00:02.500\nhello world\n");
      const verbose = { task: path.endsWith("translations") ? "translate" : "transcribe", language: "english", duration: 2.5, text: "hello world", segments: [SEGMENT] };
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify(format === "verbose_json" ? verbose : { text: "hello world", model: "upstream-name" }));
    }
    if (path.startsWith("/v1/images/")) {
      const n = Number(path.endsWith("generations") ? (JSON.parse(body.toString()) as { n?: number }).n ?? 1 : formField(body, "n") ?? 1);
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify({ created: 1700000000, data: Array.from({ length: n }, () => ({ b64_json: png.toString("base64"), revised_prompt: "a blue square" })) }));
    }
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found", type: "invalid_request_error", code: null, param: null } }));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  fake.url = `http://127.0.0.1:${port}/v1`;
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
