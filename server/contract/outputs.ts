// Schemas of the JSON answers of /v1, as the API reference (part 2) and what the services build
// give them. They document the contract (the OpenAPI document, openapi/index.ts) and the API tests
// validate every answer against that document.
//
// Convention: `z.object` / `z.strictObject` is an object the gateway builds itself, with exactly
// these fields (the document says `additionalProperties: false`); `z.looseObject` is one that
// carries a node's fields through, so fields beyond those named may appear.
import { z } from "zod";
import { SERVICE_TIERS } from "../inference/chat/completion-shape";
import { ZModelObject } from "../routing/catalog/model-card";

const unix = z.number().int().describe("Unix seconds");
const nullableUnix = unix.nullable();
const serviceTier = z.enum(SERVICE_TIERS);

// ---- Errors (part 2.1) ----

export const ZErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string().describe("Machine-readable code, e.g. `invalid_api_key`, `model_not_found`, `not_implemented`"),
    message: z.string().describe("Human-readable text"),
    param: z.string().nullable().describe("The offending parameter, null when none"),
    type: z.string().describe("Error type, e.g. `invalid_request_error`, `server_error`, `not_implemented`"),
  }),
});

export const ZDeleted = (object: string) => z.strictObject({ id: z.string(), object: z.literal(object), deleted: z.boolean() });
export const ZResponseDeleted = ZDeleted("response.deleted");
export const ZVideoDeleted = ZDeleted("video.deleted");
export const ZModelDeleted = ZDeleted("model");

export const ZHealth = z.strictObject({ ok: z.boolean(), uptimeMs: z.number().describe("Milliseconds since this gateway process started") });

// ---- Chat completions (part 2.3) ----

const ZToolCall = z.looseObject({
  id: z.string(),
  type: z.literal("function"),
  function: z.looseObject({ name: z.string(), arguments: z.string().describe("JSON text of the arguments, as the model wrote it") }),
});

const ZAssistantMessage = z.looseObject({
  role: z.literal("assistant"),
  content: z.string().nullable(),
  refusal: z.string().nullable(),
  name: z.string().optional(),
  reasoning_content: z.string().nullable().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z.array(ZToolCall).optional(),
});

const tokenLogprob = { token: z.string(), logprob: z.number(), bytes: z.array(z.number().int()).nullable() };
const ZTokenLogprob = z.looseObject({ ...tokenLogprob, top_logprobs: z.array(z.looseObject(tokenLogprob)) });

/** Log probabilities of a choice, as the node gives them: each list null when it has none. */
const ZChoiceLogprobs = z.looseObject({ content: z.array(ZTokenLogprob).nullable(), refusal: z.array(ZTokenLogprob).nullable() });

const ZChoice = z.looseObject({
  index: z.number().int(),
  finish_reason: z.enum(["stop", "length", "tool_calls", "content_filter"]),
  message: ZAssistantMessage,
  logprobs: ZChoiceLogprobs.nullable(),
});

export const ZChatUsage = z.looseObject({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int(), audio_tokens: z.number().int() }),
  completion_tokens_details: z.looseObject({
    reasoning_tokens: z.number().int(),
    audio_tokens: z.number().int(),
    accepted_prediction_tokens: z.number().int(),
    rejected_prediction_tokens: z.number().int(),
  }),
});

/** The node's completion, with the gateway's model id and every field of part 2.3 present. */
export const ZChatCompletion = z.looseObject({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: unix,
  model: z.string().describe("The gateway's model id (whatever the node calls it)"),
  service_tier: serviceTier.describe("The node's when it is one of these, else `default`"),
  system_fingerprint: z.string().describe("The node's, or one the gateway derives from the model when the node sends none"),
  choices: z.array(ZChoice),
  usage: ZChatUsage,
});

// ---- Responses (part 2.4) ----

const ZOutputText = z.strictObject({ type: z.literal("output_text"), text: z.string(), annotations: z.array(z.unknown()), logprobs: z.array(z.unknown()) });

const ZRefusal = z.strictObject({ type: z.literal("refusal"), refusal: z.string() });

/** Content parts of a stored user, system or developer message. */
const ZInputPart = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("input_text"), text: z.string() }),
  z.strictObject({
    type: z.literal("input_image"),
    image_url: z.string().nullable(),
    file_id: z.string().nullable(),
    detail: z.enum(["low", "high", "auto", "original"]).describe("`auto` unless the client chose"),
  }),
]);

const itemStatus = z.enum(["in_progress", "completed", "incomplete"]);

const ZFunctionCallItem = z.strictObject({
  id: z.string(),
  type: z.literal("function_call"),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
  status: itemStatus,
});

const ZFunctionCallOutputItem = z.strictObject({
  id: z.string(),
  type: z.literal("function_call_output"),
  call_id: z.string(),
  output: z.string(),
  status: itemStatus,
});

/** An output item of a response: the assistant's message, or a tool call. */
export const ZOutputItem = z.discriminatedUnion("type", [
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), status: itemStatus, content: z.array(ZOutputText) }),
  ZFunctionCallItem,
]);

/**
 * An input item as stored and listed: typed, with an id; string content made into parts. An
 * assistant message is listed the way it is answered (output_text and refusal parts).
 */
export const ZInputItem = z.union([
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.enum(["user", "system", "developer"]), status: itemStatus, content: z.array(ZInputPart) }),
  z.strictObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), status: itemStatus, content: z.array(z.union([ZOutputText, ZRefusal])) }),
  ZFunctionCallItem,
  ZFunctionCallOutputItem,
]);

export const ZResponsesUsage = z.strictObject({
  input_tokens: z.number().int(),
  input_tokens_details: z.strictObject({ cached_tokens: z.number().int(), cache_write_tokens: z.number().int() }),
  output_tokens: z.number().int(),
  output_tokens_details: z.strictObject({ reasoning_tokens: z.number().int() }),
  total_tokens: z.number().int(),
});

const functionName = z.string();

/** The Response object the gateway builds from what is stored (every field of OpenAI's). */
export const ZResponseObject = z.strictObject({
  id: z.string(),
  object: z.literal("response"),
  created_at: unix,
  completed_at: nullableUnix,
  status: z.enum(["queued", "in_progress", "completed", "incomplete", "failed", "cancelled"]),
  background: z.boolean(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
  incomplete_details: z.strictObject({ reason: z.enum(["max_output_tokens", "content_filter"]) }).nullable(),
  instructions: z.string().nullable(),
  max_output_tokens: z.number().int().nullable(),
  max_tool_calls: z.number().int().nullable(),
  model: z.string(),
  output: z.array(ZOutputItem),
  parallel_tool_calls: z.boolean(),
  previous_response_id: z.string().nullable(),
  reasoning: z.strictObject({ effort: z.null(), summary: z.null() }).describe("The gateway passes no reasoning settings to nodes"),
  service_tier: serviceTier,
  store: z.boolean(),
  system_fingerprint: z.string().nullable(),
  temperature: z.number(),
  text: z.strictObject({
    format: z.discriminatedUnion("type", [
      z.strictObject({ type: z.literal("text") }),
      z.strictObject({ type: z.literal("json_object") }),
      z.looseObject({ type: z.literal("json_schema"), name: functionName, schema: z.record(z.string(), z.unknown()), strict: z.boolean().nullable().optional() }),
    ]),
  }),
  tool_choice: z.union([z.enum(["none", "auto", "required"]), z.strictObject({ type: z.literal("function"), name: functionName })]),
  tools: z.array(
    z.strictObject({
      type: z.literal("function"),
      name: functionName,
      description: z.string().nullable(),
      parameters: z.record(z.string(), z.unknown()).nullable(),
      strict: z.boolean(),
    }),
  ),
  top_logprobs: z.number().int(),
  top_p: z.number(),
  truncation: z.enum(["auto", "disabled"]),
  usage: ZResponsesUsage.optional().describe("Absent until the response has finished"),
  user: z.string().optional().describe("Present when the request named one"),
  metadata: z.record(z.string(), z.string()),
});

export const ZInputItemsList = z.strictObject({
  object: z.literal("list"),
  data: z.array(ZInputItem),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

// ---- Embeddings, audio, images (part 2.10) ----

export const ZEmbeddingsResult = z.looseObject({
  object: z.literal("list"),
  model: z.string().describe("The gateway's model id"),
  data: z.array(
    z.looseObject({
      object: z.literal("embedding"),
      index: z.number().int(),
      embedding: z.union([z.array(z.number()), z.string().describe("base64 of little-endian float32s, with `encoding_format: base64`")]),
    }),
  ),
  usage: z.strictObject({ prompt_tokens: z.number().int(), total_tokens: z.number().int() }),
});

const ZSegment = z.looseObject({
  id: z.number().int(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  seek: z.number().int(),
  tokens: z.array(z.number().int()),
  temperature: z.number(),
  avg_logprob: z.number(),
  compression_ratio: z.number(),
  no_speech_prob: z.number(),
});

/**
 * A transcript (transcriptions and translations): `response_format: verbose_json` (and no format
 * named) gives task, language, duration and segments (and the node's words); `json` the node's
 * object, at least `text`. `text`, `srt` and `vtt` are answered as text, not JSON.
 */
export const ZTranscription = z.union([
  z.looseObject({
    task: z.enum(["transcribe", "translate"]),
    language: z.string(),
    duration: z.number().describe("Seconds of audio"),
    text: z.string(),
    segments: z.array(ZSegment),
    words: z.array(z.looseObject({ word: z.string(), start: z.number(), end: z.number() })).optional(),
  }),
  z.looseObject({ text: z.string() }),
]);

const revisedPrompt = z.string().optional();

export const ZImagesResult = z.strictObject({
  created: unix,
  data: z.array(
    z.union([
      z.strictObject({ b64_json: z.string().describe("The image, base64 (`response_format: b64_json`, the default)"), revised_prompt: revisedPrompt }),
      z.strictObject({ url: z.string().describe("A signed link to the image on this gateway, valid for a limited time (`response_format: url`)"), revised_prompt: revisedPrompt }),
    ]),
  ),
});

// ---- Videos (part 2.2) ----

export const ZVideoJob = z.strictObject({
  id: z.string().describe("Starts with `video-`"),
  object: z.literal("video.generation.job"),
  created_at: unix,
  status: z.enum(["queued", "in_progress", "completed", "failed"]),
  model: z.string(),
  prompt: z.string(),
  progress: z.number().describe("0 to 100"),
  seconds: z.number().int(),
  size: z.string(),
  fps: z.number().int(),
  aspect_ratio: z.string().nullable(),
  completed_at: nullableUnix,
  expires_at: nullableUnix.describe("When the job and its video are deleted; set once it finished"),
  billed_seconds: z.number().nullable().describe("Seconds of video the node reported and the job was billed for, once completed"),
  cost: z.string().describe("What the job cost, a decimal string in USD; `0` until completed, and for ever when failed"),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional().describe("Present when failed"),
});

export const ZVideoList = z.strictObject({
  object: z.literal("list"),
  data: z.array(ZVideoJob),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

// ---- Network (part 2.10) ----

export const ZNetworkStatus = z.strictObject({
  nodesOnline: z.number().int(),
  regions: z.array(
    z.strictObject({
      city: z.string(),
      country: z.string(),
      nodes: z.number().int(),
      updatedAt: z.string().describe("ISO 8601 time of the region's latest health check"),
    }),
  ),
  modelsAvailable: z.number().int(),
  capabilities: z.record(z.string(), z.number().int()).describe("Ready models per type (chat, embedding, ...) and per capability (tools, json_mode, ...)"),
  legal: z.strictObject({ geoip: z.string().describe("`disabled`: callers are not geolocated and no region is restricted") }),
});

// ---- The document itself ----

export const ZOpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
});

export const ZModelList = z.strictObject({ object: z.literal("list"), data: z.array(ZModelObject) });
