// The streamed chat completion: server-sent events, one `data: <chunk>` frame per token delta,
// each written as soon as it is produced.
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import type { ChatPlan, PlannedChoice } from "./chat-plan";
import type { Envelope } from "./chat";
import { sleep } from "./http";
import { tokenPieces } from "./tokenizer";

export type StreamOptions = { tokenDelayMs: number; includeUsage: boolean; failMidStream: boolean; gone: AbortSignal };

/** Token deltas sent before [sim:fail-mid-stream] breaks the connection. */
export const DELTAS_BEFORE_BREAK = 3;

function firstDelta(c: PlannedChoice): Record<string, unknown> {
  if (!c.toolCall) return { role: "assistant", content: "", refusal: null };
  const { id, type, function: fn } = c.toolCall;
  return { role: "assistant", content: null, refusal: null, tool_calls: [{ index: 0, id, type, function: { name: fn.name, arguments: "" } }] };
}

function pieceDelta(c: PlannedChoice, piece: string): Record<string, unknown> {
  return c.toolCall ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece };
}

export async function streamChat(res: ServerResponse, env: Envelope, plan: ChatPlan, opts: StreamOptions): Promise<void> {
  const base = { id: env.id, object: "chat.completion.chunk", created: env.created, model: env.model, service_tier: env.service_tier, system_fingerprint: env.system_fingerprint };
  const usageField = opts.includeUsage ? { usage: null } : {};
  const chunk = (index: number, delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    ...usageField,
  });

  let flushed: Promise<void> = Promise.resolve();
  /** Writes one frame; waits for the socket to drain when its buffer is full. False once the client is gone. */
  const write = async (frame: unknown): Promise<boolean> => {
    if (opts.gone.aborted || res.destroyed) return false;
    const text = frame === "[DONE]" ? "data: [DONE]\n\n" : `data: ${JSON.stringify(frame)}\n\n`;
    let full = false;
    flushed = new Promise<void>((resolve) => {
      full = !res.write(text, () => resolve());
    });
    if (full) await Promise.race([once(res, "drain"), once(res, "close")]);
    return !opts.gone.aborted && !res.destroyed;
  };
  /** [sim:fail-mid-stream]: let what was written reach the socket, then cut the connection. */
  const breakStream = async () => {
    await Promise.race([flushed, once(res, "close")]);
    res.destroy();
  };

  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" });
  res.flushHeaders();
  for (const c of plan.choices) if (!(await write(chunk(c.index, firstDelta(c))))) return;

  // The text of each token, decoded one by one; together they make the whole content.
  const pieces = plan.choices.map((c) => tokenPieces(c.ids));
  const steps = Math.max(0, ...pieces.map((p) => p.length));
  for (let step = 0; step < steps; step++) {
    if (opts.failMidStream && step === DELTAS_BEFORE_BREAK) return breakStream();
    if (step > 0 && !(await sleep(opts.tokenDelayMs, opts.gone))) return;
    for (const c of plan.choices) {
      const piece = pieces[c.index]![step];
      if (piece !== undefined && !(await write(chunk(c.index, pieceDelta(c, piece))))) return;
    }
  }
  if (opts.failMidStream) return breakStream();

  for (const c of plan.choices) if (!(await write(chunk(c.index, {}, c.finishReason)))) return;
  if (opts.includeUsage && !(await write({ ...base, choices: [], usage: plan.usage }))) return;
  if (await write("[DONE]")) res.end();
}
