// The broad mix of `npm run bench:mix-memory`: every family of routes, with the official SDKs
// (openai, @anthropic-ai/sdk) where they apply, as phases run one after the other so the memory
// each adds can be told apart. The batch comes last but for the dashboard, so the batch process
// (which ends once idle for BATCH_PROCESS_IDLE_SECONDS) is still up when the mix ends. Each call's outcome is counted by kind; a kind with no success
// makes the mix fail (a route that answers only errors would hold no memory, and prove nothing).
import Anthropic from "@anthropic-ai/sdk";
import OpenAI, { toFile } from "openai";
import { signIn } from "../../tests/instances";

export type MixKeys = {
  /** The bench workspace's key (plain calls, files, the batch, conversations, media). */
  live: string;
  /** A workspace with the response cache on by default. */
  cached: string;
  /** A workspace whose calls keep their bodies (capture). */
  captured: string;
};
export type MixModels = { chat: string; embed: string; anthropic: string; local: string; localEmbed: string };
export type Dashboard = { email: string; password: string; workspaceId: string };
export type Tally = Map<string, { ok: number; failed: number; lastError?: string }>;

/** `ROUNDS` scales every phase (a round: a few calls of each kind of the phase). */
export type MixOptions = { baseUrl: string; keys: MixKeys; models: MixModels; dashboard: Dashboard; rounds: number; batchLines: number; concurrency: number; log: (line: string) => void };

/** Runs `n` tasks, `width` at a time. */
async function pool(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => {
    while (next < n) await task(next++);
  }));
}

export function mixer(o: MixOptions) {
  const tally: Tally = new Map();
  const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${o.baseUrl}/v1`, maxRetries: 0 });
  const anthropic = (key: string) => new Anthropic({ apiKey: key, baseURL: o.baseUrl, maxRetries: 0 });
  const live = openai(o.keys.live);
  const cached = openai(o.keys.cached);
  const captured = openai(o.keys.captured);
  const { chat, embed, local, localEmbed } = o.models;

  async function count(kind: string, call: () => Promise<unknown>): Promise<void> {
    const t = tally.get(kind) ?? { ok: 0, failed: 0 };
    tally.set(kind, t);
    try {
      await call();
      t.ok++;
    } catch (err) {
      t.failed++;
      t.lastError = (err as Error).message.slice(0, 300);
    }
  }
  const drain = async (stream: AsyncIterable<unknown>) => {
    for await (const _ of stream);
  };
  const rounds = (width: number, body: (i: number) => Promise<void>) => pool(o.rounds, width, body);

  const phases: [string, () => Promise<void>][] = [
    ["chat and streams", () => rounds(o.concurrency, async (i) => {
      await count("chat", () => live.chat.completions.create({ model: chat, messages: [{ role: "user", content: `Mix call ${i}: say something short.` }], max_tokens: 16 }));
      await count("chat stream", async () => drain(await live.chat.completions.create({ model: chat, messages: [{ role: "user", content: `Mix stream ${i}.` }], max_tokens: 16, stream: true, stream_options: { include_usage: true } })));
      await count("chat (built-in node)", () => live.chat.completions.create({ model: local, messages: [{ role: "user", content: `Local call ${i}.` }], max_tokens: 16 }));
      await count("chat stream (built-in node)", async () => drain(await live.chat.completions.create({ model: local, messages: [{ role: "user", content: `Local stream ${i}.` }], max_tokens: 16, stream: true })));
      await count("chat with tools", () =>
        live.chat.completions.create({ model: local, messages: [{ role: "user", content: `What is the weather in city ${i}?` }], max_tokens: 32, tools: [{ type: "function", function: { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }] }),
      );
    })],
    ["embeddings", () => rounds(o.concurrency, async (i) => {
      await count("embeddings", () => live.embeddings.create({ model: embed, input: [`mix text ${i}`, `more text ${i}`] }));
      await count("embeddings (built-in node)", () => live.embeddings.create({ model: localEmbed, input: `mix text ${i}` }));
    })],
    ["responses", () => rounds(o.concurrency, async (i) => {
      await count("responses", () => live.responses.create({ model: local, input: `Mix response ${i}`, instructions: "Be brief", max_output_tokens: 32 }));
      await count("responses stream", async () => drain(await live.responses.create({ model: local, input: `Mix streamed response ${i}`, max_output_tokens: 32, stream: true })));
      await count("responses (mock)", () => live.responses.create({ model: chat, input: `Mix response ${i}`, max_output_tokens: 16 }));
      await count("response chain", async () => {
        const first = await live.responses.create({ model: local, input: `Remember the number ${i}`, max_output_tokens: 16 });
        await live.responses.create({ model: local, input: "Which number?", previous_response_id: first.id, max_output_tokens: 16 });
        await live.responses.retrieve(first.id);
      });
    })],
    ["files", () => rounds(Math.min(4, o.concurrency), async (i) => {
      await count("files upload, list, content, delete", async () => {
        const text = `line ${i}\n`.repeat(200 + (i % 50) * 40);
        const f = await live.files.create({ file: await toFile(Buffer.from(text), `notes-${i}.txt`), purpose: "user_data" });
        await live.files.retrieve(f.id);
        const content = await (await live.files.content(f.id)).text();
        if (content !== text) throw new Error(`file ${f.id} came back different`);
        for await (const _ of live.files.list({ limit: 20 })) break;
        if (i % 2) await live.files.delete(f.id);
      });
    })],
    ["conversations", () => rounds(Math.min(4, o.concurrency), async (i) => {
      await count("conversation with responses", async () => {
        const c = await live.conversations.create({ metadata: { round: String(i) }, items: [{ type: "message", role: "system", content: "You are terse." }] });
        await live.responses.create({ model: local, input: `Remember the word ostrich ${i}`, conversation: c.id, max_output_tokens: 16 });
        await live.responses.create({ model: local, input: "Which word?", conversation: c.id, max_output_tokens: 16 });
        await live.conversations.items.create(c.id, { items: [{ type: "message", role: "user", content: [{ type: "input_text", text: "one more" }] }] });
        for await (const _ of live.conversations.items.list(c.id, { limit: 50 }));
        await live.conversations.retrieve(c.id);
        if (i % 3 === 0) await live.conversations.delete(c.id);
      });
    })],
    ["response cache", () => rounds(o.concurrency, async (i) => {
      const ask = (content: string) => ({ model: chat, messages: [{ role: "user" as const, content }], temperature: 0, max_tokens: 16 });
      await count("cache hit or first miss", () => cached.chat.completions.create(ask(`Cached question ${i % 20}.`)));
      await count("cache miss", () => cached.chat.completions.create(ask(`Uncached question ${i}.`)));
      await count("cache stream", async () => drain(await cached.chat.completions.create({ ...ask(`Cached stream ${i % 10}.`), stream: true })));
      await count("cache embeddings", () => cached.embeddings.create({ model: embed, input: `cached text ${i % 10}` }));
      await count("cache responses", () => cached.responses.create({ model: local, input: `Cached response ${i % 10}`, temperature: 0, max_output_tokens: 16 }));
    })],
    ["capture", () => rounds(o.concurrency, async (i) => {
      await count("captured chat", () => captured.chat.completions.create({ model: chat, messages: [{ role: "user", content: `Captured call ${i} for acct-${String(100000 + i)}: ${"x".repeat(i % 4000)}` }], max_tokens: 16 }));
      await count("captured stream", async () => drain(await captured.chat.completions.create({ model: chat, messages: [{ role: "user", content: `Captured stream ${i}.` }], max_tokens: 16, stream: true })));
      await count("captured embeddings", () => captured.embeddings.create({ model: embed, input: `captured text ${i}` }));
    })],
    ["Anthropic Messages", () => rounds(o.concurrency, async (i) => {
      const a = anthropic(o.keys.live);
      await count("messages (translated)", () => a.messages.create({ model: chat, max_tokens: 16, messages: [{ role: "user", content: `Message ${i}` }] }));
      await count("messages stream (translated)", async () => drain(await a.messages.create({ model: chat, max_tokens: 16, messages: [{ role: "user", content: `Message stream ${i}` }], stream: true })));
      await count("messages (pass-through)", () => a.messages.create({ model: o.models.anthropic, max_tokens: 16, messages: [{ role: "user", content: `Message ${i}` }] }));
      await count("messages stream (pass-through)", async () => drain(await a.messages.create({ model: o.models.anthropic, max_tokens: 16, messages: [{ role: "user", content: `Message stream ${i}` }], stream: true })));
    })],
    ["Anthropic count_tokens", () => rounds(o.concurrency, async (i) => {
      await count("messages count tokens", () => anthropic(o.keys.live).messages.countTokens({ model: local, messages: [{ role: "user", content: `Count ${i}` }] }));
    })],
    ["images, audio, moderations, video", async () => {
      const n = Math.max(2, Math.round(o.rounds / 10));
      await pool(n, 2, async (i) => {
        await count("images", () => live.images.generate({ model: "local-image", prompt: `a lighthouse ${i}`, size: "256x256" }));
        let wav: Buffer | undefined;
        await count("speech", async () => {
          wav = Buffer.from(await (await live.audio.speech.create({ model: "local-tts", input: `Hello from call ${i}.`, voice: "alloy", response_format: "wav" })).arrayBuffer());
        });
        if (wav) await count("transcription", async () => live.audio.transcriptions.create({ model: "local-stt", file: await toFile(wav!, "hello.wav", { type: "audio/wav" }) }));
        await count("moderations", () => live.moderations.create({ model: "local-moderation", input: `a friendly sentence ${i}` }));
      });
      await count("video", async () => {
        const res = await fetch(`${o.baseUrl}/v1/videos`, { method: "POST", headers: { authorization: `Bearer ${o.keys.live}`, "content-type": "application/json" }, body: JSON.stringify({ model: "local-video", prompt: "a red fox", seconds: 1, size: "640x360" }) });
        const created = (await res.json()) as { id: string };
        if (!res.ok) throw new Error(`video: ${res.status} ${JSON.stringify(created)}`);
        const deadline = Date.now() + 5 * 60_000;
        for (;;) {
          const got = (await (await fetch(`${o.baseUrl}/v1/videos/${created.id}`, { headers: { authorization: `Bearer ${o.keys.live}` } })).json()) as { status: string };
          if (got.status === "completed") break;
          if (got.status === "failed" || Date.now() > deadline) throw new Error(`video ${created.id} ended ${got.status}`);
          await new Promise((r) => setTimeout(r, 500));
        }
        const content = await fetch(`${o.baseUrl}/v1/videos/${created.id}/content`, { headers: { authorization: `Bearer ${o.keys.live}` } });
        if (!content.ok) throw new Error(`video content: ${content.status}`);
        await content.arrayBuffer();
      });
    }],
    ["models and errors", () => rounds(o.concurrency, async (i) => {
      await count("models list", async () => {
        for await (const _ of live.models.list());
      });
      await count("refusals (bad key, bad input)", async () => {
        const bad = await fetch(`${o.baseUrl}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer sk-gw-${"0".repeat(40)}`, "content-type": "application/json" }, body: JSON.stringify({ model: chat, messages: [] }) });
        const input = await fetch(`${o.baseUrl}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${o.keys.live}`, "content-type": "application/json" }, body: JSON.stringify({ model: chat, messages: `not a list ${i}` }) });
        await bad.text();
        await input.text();
        if (bad.status !== 401 || input.status !== 400) throw new Error(`refusals answered ${bad.status} and ${input.status}`);
      });
    })],
    ["batch", async () => {
      await count("batch run to completion", async () => {
        const lines = Array.from({ length: o.batchLines }, (_, i) =>
          JSON.stringify({ custom_id: `line-${i}`, method: "POST", url: i % 5 === 4 ? "/v1/embeddings" : "/v1/chat/completions", body: i % 5 === 4 ? { model: localEmbed, input: `batch text ${i}` } : { model: local, messages: [{ role: "user", content: `Batch line ${i}: say something.` }], max_tokens: 16 } }),
        );
        const chatLines = lines.filter((l) => l.includes("/v1/chat/completions"));
        const embedLines = lines.filter((l) => l.includes("/v1/embeddings"));
        const ids: string[] = [];
        for (const [name, part, endpoint] of [["chat", chatLines, "/v1/chat/completions"], ["embed", embedLines, "/v1/embeddings"]] as const) {
          const file = await live.files.create({ file: await toFile(Buffer.from(part.join("\n") + "\n"), `mix-${name}.jsonl`), purpose: "batch" });
          const batch = await live.batches.create({ input_file_id: file.id, endpoint, completion_window: "24h" });
          ids.push(batch.id);
        }
        const deadline = Date.now() + 10 * 60_000;
        for (const id of ids) {
          for (;;) {
            const b = await live.batches.retrieve(id);
            if (b.status === "completed") {
              if (b.request_counts?.failed) throw new Error(`batch ${id}: ${b.request_counts.failed} lines failed`);
              const out = await (await live.files.content(b.output_file_id!)).text();
              if (out.trim().split("\n").length !== b.request_counts?.total) throw new Error(`batch ${id}: output lines differ`);
              break;
            }
            if (["failed", "expired", "cancelled"].includes(b.status) || Date.now() > deadline) throw new Error(`batch ${id} ended ${b.status}`);
            await new Promise((r) => setTimeout(r, 500));
          }
        }
        for await (const _ of live.batches.list({ limit: 10 })) break;
      });
    }],
    ["dashboard sign-in and pages", async () => {
      const d = o.dashboard;
      const pages = ["/dashboard", `/w/${d.workspaceId}`, `/w/${d.workspaceId}/logs`, `/w/${d.workspaceId}/usage`, `/w/${d.workspaceId}/keys`, `/w/${d.workspaceId}/batches`, `/w/${d.workspaceId}/files`, `/w/${d.workspaceId}/models`, `/w/${d.workspaceId}/settings`, `/w/${d.workspaceId}/billing`];
      let cookie = "";
      await count("dashboard sign-in", async () => {
        cookie = await signIn(o.baseUrl, d.email, d.password);
      });
      // A browser opens several connections: pages fetched 4 at a time reach each serving process.
      await pool(pages.length * 3, 4, async (i) => {
        await count("dashboard page", async () => {
          const res = await fetch(`${o.baseUrl}${pages[i % pages.length]}`, { headers: { cookie }, redirect: "manual" });
          const html = await res.text();
          // /dashboard sends the signed-in user on to a workspace's page.
          const ok = res.status === 200 ? html.includes("<html") : res.status === 307 && pages[i % pages.length] === "/dashboard";
          if (!ok) throw new Error(`${pages[i % pages.length]}: ${res.status}`);
        });
        await count("dashboard tRPC", async () => {
          const procedure = i % 2 ? "workspaces.current" : "workspaces.members";
          const res = await fetch(`${o.baseUrl}/api/trpc/${procedure}`, { headers: { cookie, "x-workspace-id": d.workspaceId } });
          await res.text();
          if (res.status !== 200) throw new Error(`tRPC ${procedure}: ${res.status}`);
        });
      });
    }],
  ];
  return { tally, phases };
}
