// POST /v1/chat/completions: the simulated chat model. Deterministic text, real token counts,
// tools, JSON mode, streaming, and the simulator triggers.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { parseChatRequest, type ChatRequest } from "./chat-request";
import { planChat, type ChatPlan } from "./chat-plan";
import { planTuned } from "./chat-tuned";
import type { LoadedModel } from "./fine-tune/model";
import { streamChat } from "./chat-stream";
import { ApiError, clientGone, readJson, send, sleep } from "./http";
import { requireModel } from "./models";
import { base62, seededRng } from "./random";
import { findTriggers, SLOW_MS } from "./triggers";

export type Timing = { tokenDelayMs: number; latencyMs: number };
/** The fine-tuned model called `name`, when there is one. */
export type TunedModels = (name: string) => LoadedModel | undefined;

/** What every chat.completion and chat.completion.chunk carries. */
export type Envelope = { id: string; created: number; model: string; system_fingerprint: string; service_tier: "default" };

function envelope(req: ChatRequest): Envelope {
  return {
    id: `chatcmpl-${base62(seededRng(randomUUID()), 29)}`,
    created: Math.floor(Date.now() / 1000),
    model: req.model,
    system_fingerprint: "fp_local_sim",
    service_tier: "default",
  };
}

function completion(env: Envelope, plan: ChatPlan) {
  return {
    id: env.id,
    object: "chat.completion",
    created: env.created,
    model: env.model,
    choices: plan.choices.map((c) => ({
      index: c.index,
      message: {
        role: "assistant",
        content: c.content,
        refusal: null,
        annotations: [],
        ...(c.toolCall ? { tool_calls: [c.toolCall] } : {}),
      },
      logprobs: null,
      finish_reason: c.finishReason,
    })),
    usage: plan.usage,
    service_tier: env.service_tier,
    system_fingerprint: env.system_fingerprint,
  };
}

export async function chatCompletions(req: IncomingMessage, res: ServerResponse, timing: Timing, tuned: TunedModels = () => undefined): Promise<void> {
  const body = await readJson(req);
  const tunedModel = typeof body.model === "string" ? tuned(body.model) : undefined;
  if (!tunedModel) requireModel(body, "chat", "v1/chat/completions");
  const request = parseChatRequest(body);
  const triggers = findTriggers(request);
  const gone = clientGone(res);
  if (!(await sleep(timing.latencyMs + (triggers.slow ? SLOW_MS : 0), gone))) return;
  if (triggers.rateLimited) {
    throw new ApiError(429, "rate_limit_exceeded", "Simulated rate limit ([sim:429]). Please retry after 1s.", null, "rate_limit_error");
  }
  if (triggers.fail || (triggers.failMidStream && !request.stream)) {
    throw new ApiError(500, "simulated_failure", "Simulated failure of the local node ([sim:fail]).", null, "server_error");
  }
  const plan = tunedModel ? planTuned(request, tunedModel) : planChat(request);
  if (request.stream) {
    const includeUsage = request.stream_options?.include_usage === true;
    await streamChat(res, envelope(request), plan, { tokenDelayMs: timing.tokenDelayMs, includeUsage, failMidStream: triggers.failMidStream, gone });
  } else {
    send(res, 200, completion(envelope(request), plan));
  }
}
