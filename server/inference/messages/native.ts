// POST /v1/messages on an `anthropic` node: passed through (providers/messages-passthrough.ts), so
// prompt-cache breakpoints, thinking and betas reach Anthropic as the client sent them. Metered
// from Anthropic's own usage: cache reads and writes priced apart (cache_read_per_1m,
// cache_write_per_1m). A stream's events are relayed as they arrive, only the model renamed; the
// charge commits at message_stop, before the stream ends.
import type { UpstreamResponse } from "../../providers/http";
import { recordCall, release, type Metering } from "../../ledger/meter";
import { tokenCost, type TokenUsage } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { GatewayError } from "../../kernel/errors";
import { UpstreamFailure } from "../../providers/upstream-failure";
import { SseData } from "../../providers/sse-data";
import type { MessageCreate } from "./schema";

type Json = Record<string, unknown>;
type AnthropicUsage = { input_tokens?: number | null; output_tokens?: number | null; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null };

/**
 * The request as the node gets it: its model name, `max_tokens` at most the model's limit,
 * nothing of the gateway's own. Anthropic's server tools (web search, code execution, ...) and MCP
 * servers are left out: Anthropic bills them per use, apart from tokens, to the node's account,
 * and the gateway prices tokens only, so a caller could otherwise spend what it is never charged.
 */
export function nativeBody(req: MessageCreate, upstreamModel: string, maxOutputTokens: number): Json {
  const { anthropic_beta: _beta, mcp_servers: _mcp, ...rest } = req as Json;
  const tools = req.tools?.filter((t) => !t.type || t.type === "custom");
  return { ...rest, ...(req.tools && { tools }), model: upstreamModel, max_tokens: Math.min(req.max_tokens, maxOutputTokens) };
}

/** Anthropic's usage in the ledger's terms: its input_tokens leave cache reads and writes out; OpenAI's count them in. */
export function messageTokens(u: AnthropicUsage | undefined): TokenUsage {
  const read = u?.cache_read_input_tokens ?? 0;
  const written = u?.cache_creation_input_tokens ?? 0;
  return { inputTokens: (u?.input_tokens ?? 0) + read + written, cachedTokens: read, cacheWriteTokens: written, outputTokens: u?.output_tokens ?? 0, reasoningTokens: 0 };
}

type Charge = { m: Metering; row: ModelRow; nodeId: string; started: number };

const charge = (c: Charge, usage: AnthropicUsage | undefined) => {
  const tokens = messageTokens(usage);
  return recordCall(c.m, { modelId: c.row.id, nodeId: c.nodeId, started: c.started }, { ...tokens, cost: tokenCost(c.row, tokens) });
};

/** A non-streamed message, read while another node may still be tried (an unreadable one fails over). */
export async function readMessage(res: UpstreamResponse): Promise<Json> {
  let message: Json;
  try {
    message = (await res.body.json()) as Json;
  } catch {
    throw new UpstreamFailure("protocol", "the node sent an unreadable message", 502);
  }
  if (message.type !== "message") throw new UpstreamFailure("protocol", "the node sent something that is not a message", 502);
  return message;
}

/** A node's message, charged and answered under the gateway's model id. */
export async function chargedMessage(message: Json, c: Charge): Promise<Json> {
  await charge(c, message.usage as AnthropicUsage | undefined);
  return { ...message, model: c.row.id };
}

function midStream(message: string): GatewayError {
  return new GatewayError({ status: 502, code: "upstream_error", type: "server_error", message });
}

/** A stream's events, relayed as they come (the model renamed); charged at message_stop from the usage its events carried. */
export async function* nativeEvents(res: UpstreamResponse, done: () => void, c: Charge): AsyncGenerator<string> {
  const usage: AnthropicUsage = {};
  let finished = false;
  try {
    try {
      const sse = new SseData();
      reading: for await (const chunk of res.body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        for (const data of sse.push(chunk)) {
          const event = JSON.parse(data) as Json & { type?: string };
          if (event.type === "error") {
            const error = (event.error ?? {}) as { type?: string; message?: string };
            throw midStream(error.message ?? "The node failed while streaming.");
          }
          if (event.type === "message_start") {
            const message = (event.message ?? {}) as Json;
            Object.assign(usage, message.usage);
            yield JSON.stringify({ ...event, message: { ...message, model: c.row.id } });
            continue;
          }
          // message_delta's usage is cumulative: its counts replace the start's.
          if (event.type === "message_delta" && event.usage) for (const [k, v] of Object.entries(event.usage as Json)) if (v != null) (usage as Json)[k] = v;
          if (event.type === "message_stop") {
            await charge(c, usage);
            finished = true;
            yield data.startsWith('{"type":') ? data : JSON.stringify(event);
            break reading;
          }
          yield data.startsWith('{"type":') ? data : JSON.stringify(event);
        }
      }
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      throw midStream("The node's stream broke off.");
    } finally {
      if (finished) res.body.on("error", () => undefined).resume();
      else res.body.on("error", () => undefined).destroy(); // (destroying an unfinished body emits an error)
      done();
    }
    if (!finished) throw midStream("The node's stream ended without completing.");
  } finally {
    release(c.m); // a no-op once the charge committed
  }
}
