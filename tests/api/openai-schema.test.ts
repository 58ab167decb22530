// Every /v1 object the gateway shares with OpenAI's API has what OpenAI's published OpenAPI
// document promises clients: the facts below are that document's required fields (and the types
// of fields it leaves optional, when the gateway gives them), restated here in our own words and
// checked on real answers of the test gateway through the official SDK.
//
// Taken from OpenAI's OpenAPI document 2.3.0 (github.com/openai/openai-openapi, main at f85dbe2,
// 2026-08-21). `node --import tsx scripts/check-openai-schema.ts <that document>` compares the
// gateway's own OpenAPI document with it, and lists the differences the gateway keeps on purpose
// (docs/API.md, "Schema conformance"); the facts of those differences are left out here.
import { toFile } from "openai";
import { describe, expect, it } from "vitest";
import { baseUrl, newWorkspace, until } from "../helpers";
import { colourFile } from "../fine-tune-examples";
import { png, wav } from "../helpers-media";
import { waitForJob, type Job } from "../helpers-video";
import { sseFrames } from "../sse-frames";

/** A JSON type, several joined with `|`, or the values an enum allows. */
type Fact = string | readonly (string | null)[];

/**
 * `required`: the path must be there (when its parent is) with that type; `optional`: checked
 * when there. `a[].b` is `b` of every element of `a`.
 */
type ObjectFacts = { required: Record<string, Fact>; optional?: Record<string, Fact> };

const FINISH_REASONS = ["stop", "length", "tool_calls", "content_filter", "function_call"];
const SERVICE_TIERS = ["auto", "default", "flex", "scale", "priority", "fast"];
const ITEM_STATUS = ["in_progress", "completed", "incomplete"];

const usageOfChat: Record<string, Fact> = {
  "usage.prompt_tokens": "integer",
  "usage.completion_tokens": "integer",
  "usage.total_tokens": "integer",
};

const FACTS = {
  /** CreateChatCompletionResponse */
  "chat.completion": {
    required: {
      id: "string",
      object: ["chat.completion"],
      created: "integer",
      model: "string",
      choices: "array",
      "choices[].index": "integer",
      "choices[].finish_reason": FINISH_REASONS,
      "choices[].message": "object",
      "choices[].message.role": ["assistant"],
      "choices[].message.content": "string|null",
      "choices[].message.refusal": "string|null",
      "choices[].logprobs": "object|null",
      "choices[].logprobs.content": "array|null",
      "choices[].logprobs.refusal": "array|null",
      ...usageOfChat,
    },
    optional: {
      usage: "object",
      service_tier: [...SERVICE_TIERS, null],
      system_fingerprint: "string",
      "usage.prompt_tokens_details": "object",
      "usage.prompt_tokens_details.cached_tokens": "integer",
      "usage.prompt_tokens_details.audio_tokens": "integer",
      "usage.completion_tokens_details": "object",
      "usage.completion_tokens_details.reasoning_tokens": "integer",
      "usage.completion_tokens_details.audio_tokens": "integer",
      "usage.completion_tokens_details.accepted_prediction_tokens": "integer",
      "usage.completion_tokens_details.rejected_prediction_tokens": "integer",
    },
  },
  /** CreateChatCompletionStreamResponse */
  "chat.completion.chunk": {
    required: {
      id: "string",
      object: ["chat.completion.chunk"],
      created: "integer",
      model: "string",
      choices: "array",
      "choices[].delta": "object",
      "choices[].index": "integer",
      "choices[].finish_reason": [...FINISH_REASONS, null],
      ...usageOfChat,
    },
    optional: { usage: "object|null", "choices[].delta.content": "string|null", "choices[].delta.role": ["developer", "system", "user", "assistant", "tool"], system_fingerprint: "string", service_tier: [...SERVICE_TIERS, null] },
  },
  /** Response (ModelResponseProperties, ResponseProperties and its own), with a message output. */
  response: {
    required: {
      id: "string",
      object: ["response"],
      created_at: "number",
      error: "object|null",
      incomplete_details: "object|null",
      instructions: "string|array|null",
      model: "string",
      tools: "array",
      output: "array",
      parallel_tool_calls: "boolean",
      metadata: "object|null",
      tool_choice: "string|object",
      temperature: "number|null",
      top_p: "number|null",
      // ResponseUsage: every field, and both breakdowns, when there is usage.
      "usage.input_tokens": "integer",
      "usage.input_tokens_details": "object",
      "usage.input_tokens_details.cached_tokens": "integer",
      "usage.input_tokens_details.cache_write_tokens": "integer",
      "usage.output_tokens": "integer",
      "usage.output_tokens_details": "object",
      "usage.output_tokens_details.reasoning_tokens": "integer",
      "usage.total_tokens": "integer",
      // OutputMessage and OutputTextContent
      "output[].id": "string",
      "output[].type": ["message"],
      "output[].role": ["assistant"],
      "output[].content": "array",
      "output[].status": ITEM_STATUS,
      "output[].content[].type": ["output_text"],
      "output[].content[].text": "string",
      "output[].content[].annotations": "array",
      "output[].content[].logprobs": "array",
      "error.code": "string",
      "error.message": "string",
    },
    optional: {
      status: ["completed", "failed", "in_progress", "cancelled", "queued", "incomplete"],
      completed_at: "number|null",
      usage: "object",
      user: "string",
      background: "boolean|null",
      max_output_tokens: "integer|null",
      max_tool_calls: "integer|null",
      previous_response_id: "string|null",
      reasoning: "object|null",
      "reasoning.effort": ["none", "minimal", "low", "medium", "high", "xhigh", "max", null],
      "reasoning.summary": ["auto", "concise", "detailed", null],
      service_tier: [...SERVICE_TIERS, "ultrafast", null],
      text: "object",
      top_logprobs: "integer|null",
      truncation: ["auto", "disabled", null],
      "incomplete_details.reason": ["max_output_tokens", "content_filter"],
    },
  },
  /** ResponseItemList of InputMessageResource items (a non-empty list). */
  "response input items": {
    required: {
      object: ["list"],
      data: "array",
      has_more: "boolean",
      first_id: "string",
      last_id: "string",
      "data[].id": "string",
      "data[].type": ["message"],
      "data[].role": ["user", "system", "developer"],
      "data[].content": "array",
      "data[].content[].type": ["input_text"],
      "data[].content[].text": "string",
    },
    optional: { "data[].status": ITEM_STATUS },
  },
  /** CreateEmbeddingResponse and Embedding */
  embeddings: {
    required: {
      object: ["list"],
      model: "string",
      data: "array",
      usage: "object",
      "usage.prompt_tokens": "integer",
      "usage.total_tokens": "integer",
      "data[].index": "integer",
      "data[].object": ["embedding"],
      "data[].embedding": "array",
      "data[].embedding[]": "number",
    },
  },
  /** ImagesResponse and Image */
  images: {
    required: { created: "integer" },
    optional: { data: "array", "data[].b64_json": "string", "data[].url": "string", "data[].revised_prompt": "string" },
  },
  /** CreateTranscriptionResponseVerboseJson and TranscriptionSegment */
  "transcription (verbose_json)": {
    required: {
      language: "string",
      duration: "number",
      text: "string",
      "segments[].id": "integer",
      "segments[].seek": "integer",
      "segments[].start": "number",
      "segments[].end": "number",
      "segments[].text": "string",
      "segments[].tokens": "array",
      "segments[].tokens[]": "integer",
      "segments[].temperature": "number",
      "segments[].avg_logprob": "number",
      "segments[].compression_ratio": "number",
      "segments[].no_speech_prob": "number",
    },
    optional: { segments: "array" },
  },
  /** CreateTranscriptionResponseJson, CreateTranslationResponseJson */
  "transcription (json)": { required: { text: "string" } },
  /** ListModelsResponse */
  models: { required: { object: ["list"], data: "array" } },
  /** Model */
  model: { required: { id: "string", object: ["model"], created: "integer", owned_by: "string" }, optional: { shutdown_date: "string|null" } },
  /**
   * VideoResource, less what the API reference defines otherwise: `object`
   * (`video.generation.job`), `seconds` (an integer), `size` (the model's sizes), `error` (only
   * when failed), `remixed_from_video_id`, `progress` (a number).
   */
  video: {
    required: {
      id: "string",
      model: "string",
      status: ["queued", "in_progress", "completed", "failed"],
      progress: "number",
      created_at: "integer",
      completed_at: "integer|null",
      expires_at: "integer|null",
      prompt: "string|null",
      size: "string",
    },
  },
  /** VideoListResource */
  "video list": { required: { object: ["list"], data: "array", first_id: "string|null", last_id: "string|null", has_more: "boolean" } },
  /** DeletedVideoResource */
  "video deleted": { required: { object: ["video.deleted"], deleted: "boolean", id: "string" } },
  /** FineTuningJob, less `status`'s enum (the gateway adds `paused`, which OpenAI's pause route answers). */
  "fine_tuning.job": {
    required: {
      id: "string",
      object: ["fine_tuning.job"],
      created_at: "integer",
      error: "object|null",
      finished_at: "integer|null",
      fine_tuned_model: "string|null",
      hyperparameters: "object",
      model: "string",
      organization_id: "string",
      result_files: "array",
      "result_files[]": "string",
      status: "string",
      trained_tokens: "integer|null",
      training_file: "string",
      validation_file: "string|null",
      seed: "integer",
      "error.code": "string",
      "error.message": "string",
      "error.param": "string|null",
    },
    optional: {
      "hyperparameters.batch_size": "integer|string|null",
      "hyperparameters.learning_rate_multiplier": "number|string",
      "hyperparameters.n_epochs": "integer|string",
      estimated_finish: "integer|null",
      method: "object",
      "method.type": ["supervised", "dpo", "reinforcement"],
      metadata: "object|null",
      integrations: "array|null",
    },
  },
  /** ListPaginatedFineTuningJobsResponse, ListFineTuningJobEventsResponse */
  "fine-tuning list": { required: { object: ["list"], data: "array", has_more: "boolean" } },
  /** ListFineTuningJobCheckpointsResponse */
  "checkpoint list": { required: { object: ["list"], data: "array", has_more: "boolean" }, optional: { first_id: "string|null", last_id: "string|null" } },
  /** FineTuningJobEvent */
  "fine_tuning.job.event": {
    required: { id: "string", object: ["fine_tuning.job.event"], created_at: "integer", level: ["info", "warn", "error"], message: "string" },
    optional: { type: ["message", "metrics"], data: "object" },
  },
  /** FineTuningJobCheckpoint */
  "fine_tuning.job.checkpoint": {
    required: {
      id: "string",
      object: ["fine_tuning.job.checkpoint"],
      created_at: "integer",
      fine_tuned_model_checkpoint: "string",
      fine_tuning_job_id: "string",
      metrics: "object",
      step_number: "integer",
    },
    optional: Object.fromEntries(["step", "train_loss", "train_mean_token_accuracy", "valid_loss", "valid_mean_token_accuracy", "full_valid_loss", "full_valid_mean_token_accuracy"].map((k) => [`metrics.${k}`, "number"])),
  },
} satisfies Record<string, ObjectFacts>;

/** ResponseStreamEvent variants: what each event of a text response's stream carries. */
const EVENT_FACTS: Record<string, Record<string, Fact>> = {
  "response.created": { type: "string", response: "object", sequence_number: "integer" },
  "response.in_progress": { type: "string", response: "object", sequence_number: "integer" },
  "response.output_item.added": { type: "string", output_index: "integer", item: "object", sequence_number: "integer" },
  "response.content_part.added": { type: "string", item_id: "string", output_index: "integer", content_index: "integer", part: "object", sequence_number: "integer" },
  "response.output_text.delta": { type: "string", item_id: "string", output_index: "integer", content_index: "integer", delta: "string", sequence_number: "integer", logprobs: "array" },
  "response.output_text.done": { type: "string", item_id: "string", output_index: "integer", content_index: "integer", text: "string", sequence_number: "integer", logprobs: "array" },
  "response.content_part.done": { type: "string", item_id: "string", output_index: "integer", content_index: "integer", part: "object", sequence_number: "integer" },
  "response.output_item.done": { type: "string", output_index: "integer", item: "object", sequence_number: "integer" },
  "response.completed": { type: "string", response: "object", sequence_number: "integer" },
};

type Json = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function fits(value: unknown, fact: Fact): boolean {
  if (typeof fact !== "string") return fact.includes(value as string | null);
  const type = typeOf(value);
  const allowed = fact.split("|");
  return allowed.includes(type) || (type === "integer" && allowed.includes("number"));
}

/** The values at a path under present parents, each with where it is (`choices[0].message`); absent ones as undefined. */
function valuesAt(root: unknown, path: string): { where: string; value: unknown }[] {
  let found = [{ where: "", value: root as unknown }];
  for (const step of path.match(/[^.[\]]+|\[\]/g)!) {
    const next: typeof found = [];
    for (const f of found) {
      if (f.value === undefined || f.value === null) continue;
      if (step === "[]") {
        if (Array.isArray(f.value)) f.value.forEach((v, i) => next.push({ where: `${f.where}[${i}]`, value: v as unknown }));
      } else if (typeof f.value === "object" && !Array.isArray(f.value)) {
        next.push({ where: f.where ? `${f.where}.${step}` : step, value: (f.value as Json)[step] });
      }
    }
    found = next;
  }
  return found;
}

/** What breaks the facts: a required path absent (under a present parent) or a type that does not fit. */
function breaches(value: unknown, facts: ObjectFacts): string[] {
  const out: string[] = [];
  for (const [path, fact] of Object.entries(facts.required)) {
    for (const v of valuesAt(value, path)) {
      if (v.value === undefined) out.push(`${v.where}: required, absent`);
      else if (!fits(v.value, fact)) out.push(`${v.where}: ${JSON.stringify(v.value)} is not ${String(fact)}`);
    }
  }
  for (const [path, fact] of Object.entries(facts.optional ?? {})) {
    for (const v of valuesAt(value, path)) if (v.value !== undefined && !fits(v.value, fact)) out.push(`${v.where}: ${JSON.stringify(v.value)} is not ${String(fact)}`);
  }
  return out;
}

function expectFacts(value: unknown, name: keyof typeof FACTS): void {
  expect(breaches(value, FACTS[name]), `${name}: ${JSON.stringify(value).slice(0, 600)}`).toEqual([]);
}

async function json(path: string, key: string, body?: unknown, method = body ? "POST" : "GET"): Promise<Json> {
  const res = await fetch(`${baseUrl()}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, path).toBe(200);
  return (await res.json()) as Json;
}

async function events(path: string, key: string, body: unknown): Promise<Json[]> {
  const res = await fetch(`${baseUrl()}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const out: Json[] = [];
  for await (const frame of sseFrames(res.body!)) if (frame.data && frame.data !== "[DONE]") out.push(JSON.parse(frame.data) as Json);
  return out;
}

const CHAT = "local-chat-sim";

describe("the /v1 objects have what OpenAI's OpenAPI document requires", () => {
  it("the facts fail an object that lacks a required field or types one otherwise", () => {
    const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
    expect(breaches({ usage }, { required: { "usage.input_tokens_details.cache_write_tokens": "integer" } })).toEqual(["usage.input_tokens_details.cache_write_tokens: required, absent"]);
    expect(breaches({ user: null }, { required: {}, optional: { user: "string" } })).toEqual(["user: null is not string"]);
    expect(breaches({ a: [{ b: 1.5 }] }, { required: { "a[].b": "integer" } })).toEqual(["a[0].b: 1.5 is not integer"]);
    expect(breaches({}, { required: { "usage.total_tokens": "integer" } })).toEqual([]);
  });

  it("chat.completion and its stream's chunks", async () => {
    const { openai, secret } = await newWorkspace("1");
    const completion = await openai.chat.completions.create({ model: CHAT, messages: [{ role: "user", content: "Say hello" }] });
    expectFacts(completion, "chat.completion");
    expect(completion.usage).toBeDefined();

    const chunks = await events("/v1/chat/completions", secret, { model: CHAT, messages: [{ role: "user", content: "Say hello" }], stream: true, stream_options: { include_usage: true } });
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expectFacts(chunk, "chat.completion.chunk");
    expect(chunks.at(-1)!.usage).toEqual(expect.objectContaining({ total_tokens: expect.any(Number) }));
  });

  it("response: created, retrieved, streamed (every event), and its input items", async () => {
    const { openai, secret } = await newWorkspace("1");
    const created = await json("/v1/responses", secret, { model: CHAT, input: "Say hello", user: "user-1234", metadata: { k: "v" } });
    expectFacts(created, "response");
    expect(created.usage, "a finished response has usage").toBeDefined();
    expect(created.user).toBe("user-1234");
    expectFacts(await json(`/v1/responses/${created.id as string}`, secret), "response");

    const plain = await openai.responses.create({ model: CHAT, input: [{ role: "user", content: "Say hello" }, { role: "assistant", content: "hi" }, { role: "user", content: "again" }] });
    const raw = await json(`/v1/responses/${plain.id}`, secret);
    expectFacts(raw, "response");
    expect(raw).not.toHaveProperty("user"); // a string when given, absent otherwise (never null)

    const streamed = await events("/v1/responses", secret, { model: CHAT, input: "Say hello", stream: true });
    expect([...new Set(streamed.map((e) => e.type))]).toEqual(Object.keys(EVENT_FACTS));
    for (const event of streamed) {
      expect(breaches(event, { required: EVENT_FACTS[event.type as string]! }), String(event.type)).toEqual([]);
      if (event.response) expectFacts(event.response, "response");
    }
    const opened = streamed[0]!.response as Json;
    expect(opened).not.toHaveProperty("usage"); // absent until it finished, never null

    const items = await json(`/v1/responses/${plain.id}/input_items?order=asc`, secret);
    const [user, assistant] = items.data as Json[];
    // The user's messages are InputMessageResource items; the assistant's is listed as an OutputMessage.
    expectFacts({ ...items, data: (items.data as Json[]).filter((i) => i.role !== "assistant") }, "response input items");
    expect(user).toMatchObject({ type: "message", role: "user", status: "completed", content: [{ type: "input_text", text: "Say hello" }] });
    expect(assistant).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi", annotations: [], logprobs: [] }] });
  });

  it("an assistant input message is text or a refusal (an image there is refused, as OpenAI does)", async () => {
    const { secret } = await newWorkspace("1");
    const res = await fetch(`${baseUrl()}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ model: CHAT, input: [{ role: "assistant", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toMatch(/^input/);
  });

  it("embeddings", async () => {
    // Over fetch: the SDK asks for base64 and decodes it, which would hide the float form.
    const { secret } = await newWorkspace("1");
    expectFacts(await json("/v1/embeddings", secret, { model: "local-embed-ngram", input: ["hello", "world"] }), "embeddings");
  });

  it("images (b64_json and url)", async () => {
    const { openai, secret } = await newWorkspace("1");
    expectFacts(await openai.images.generate({ model: "local-image", prompt: "a red square", size: "256x256" }), "images");
    // OpenAI's document lets a client give null for an option it leaves unset.
    const unset = await json("/v1/images/generations", secret, { model: "local-image", prompt: "a red square", size: "256x256", n: null, quality: null, style: null, response_format: null });
    expectFacts(unset, "images");
    expect(unset.data).toEqual([{ b64_json: expect.any(String), revised_prompt: "a red square" }]);
    expectFacts(await openai.images.createVariation({ model: "local-image", image: await toFile(await png(), "p.png"), response_format: "url" }), "images");
  });

  it("transcriptions and translations (json and verbose_json)", async () => {
    const { openai } = await newWorkspace("1");
    const file = () => toFile(wav(2), "tone.wav");
    expectFacts(await openai.audio.transcriptions.create({ model: "local-stt", file: await file(), response_format: "json" }), "transcription (json)");
    expectFacts(await openai.audio.transcriptions.create({ model: "local-stt", file: await file(), response_format: "verbose_json" }), "transcription (verbose_json)");
    expectFacts(await openai.audio.translations.create({ model: "local-stt", file: await file(), response_format: "json" }), "transcription (json)");
    expectFacts(await openai.audio.translations.create({ model: "local-stt", file: await file(), response_format: "verbose_json" }), "transcription (verbose_json)");
  });

  it("models", async () => {
    const { secret } = await newWorkspace("1");
    const list = await json("/v1/models", secret);
    expectFacts(list, "models");
    expect((list.data as Json[]).length).toBeGreaterThan(0);
    for (const model of list.data as Json[]) expectFacts(model, "model");
    expectFacts(await json(`/v1/models/${CHAT}`, secret), "model");
  });

  it("videos: a job, the list and the deletion", async () => {
    const { openai, secret } = await newWorkspace("5");
    const created = await json("/v1/videos", secret, { model: "local-video", prompt: "a red fox", seconds: 2, size: "320x180" });
    expectFacts(created, "video");
    const { job } = await waitForJob(openai, created.id as string);
    expect(job.status).toBe("completed");
    expectFacts(job satisfies Job, "video");
    expectFacts(await json("/v1/videos", secret), "video list");
    expectFacts(await json(`/v1/videos/${job.id}`, secret, undefined, "DELETE"), "video deleted");
  });

  it("fine-tuning: a job (created, trained, failed), its list, events and checkpoints", async () => {
    const { openai, secret } = await newWorkspace("1");
    const upload = async (text: string) => (await openai.files.create({ file: await toFile(Buffer.from(text), "train.jsonl"), purpose: "fine-tune" })).id;
    const created = await json("/v1/fine_tuning/jobs", secret, { model: CHAT, training_file: await upload(colourFile(12)), validation_file: await upload(colourFile(10, 50)), seed: 1 });
    expectFacts(created, "fine_tuning.job");
    const { value: done } = await until(() => json(`/v1/fine_tuning/jobs/${created.id as string}`, secret), (j) => ["succeeded", "failed", "cancelled"].includes(j.status as string), 60_000);
    expect(done.status).toBe("succeeded");
    expectFacts(done, "fine_tuning.job");
    const list = await json("/v1/fine_tuning/jobs", secret);
    expectFacts(list, "fine-tuning list");
    for (const job of list.data as Json[]) expectFacts(job, "fine_tuning.job");
    const events = await json(`/v1/fine_tuning/jobs/${done.id as string}/events?limit=100`, secret);
    expectFacts(events, "fine-tuning list");
    expect((events.data as Json[]).some((e) => e.type === "metrics")).toBe(true);
    for (const event of events.data as Json[]) expectFacts(event, "fine_tuning.job.event");
    const checkpoints = await json(`/v1/fine_tuning/jobs/${done.id as string}/checkpoints`, secret);
    expectFacts(checkpoints, "checkpoint list");
    expect((checkpoints.data as Json[]).length).toBeGreaterThan(0);
    for (const checkpoint of checkpoints.data as Json[]) expectFacts(checkpoint, "fine_tuning.job.checkpoint");

    const failed = await json("/v1/fine_tuning/jobs", secret, { model: CHAT, training_file: await upload("{}\n") });
    const { value: ended } = await until(() => json(`/v1/fine_tuning/jobs/${failed.id as string}`, secret), (j) => j.status === "failed", 30_000);
    expect(ended.error).toMatchObject({ code: "invalid_training_file" });
    expectFacts(ended, "fine_tuning.job");
  }, 120_000);
});
