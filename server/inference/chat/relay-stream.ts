// Relays a node's chat stream to the client as it arrives. Chunks pass through as the node wrote
// them (only the model id is rewritten, as a string, when the node names it differently). The
// usage chunk the gateway always asks for is read for billing and dropped unless the client
// asked for it. Usage is committed before the stream's end ([DONE]) is sent; if the client
// left, the stream is still read to its end by the SSE writer, so the bill is what the node
// really produced. The call's reservation is held until its charge commits, and ended when the
// stream fails. A node of another wire format comes with a translator (providers/adapter.ts)
// that turns its events into the same chunk payloads. A node that reported no usage is billed
// from the gateway's own count of the prompt and of what it streamed (marked as estimated).
import type { Dispatcher } from "undici";
import type { StreamTranslator } from "../../providers/adapter";
import { SseData } from "../../providers/sse-data";
import { recordCall, release, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { GatewayError } from "../../kernel/errors";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";
import { answerText, estimateUsage } from "./count-prompt";

type RelayInput = {
  body: Dispatcher.ResponseData["body"];
  /** For a node that does not speak OpenAI's format: its events -> chunk payloads. */
  translator?: StreamTranslator;
  /** The request (its messages and tools): counted when the node reports no usage. */
  request: { messages?: unknown; tools?: unknown };
  release: () => void;
  row: ModelRow;
  metering: Metering;
  nodeId: string;
  upstreamModel: string;
  includeUsage: boolean;
  started: number;
  /** Runs after the node's last chunk and before the charge; throwing fails the stream uncharged. */
  beforeCharge?: () => Promise<void>;
};

const USAGE_OBJECT = /"usage"\s*:\s*\{/;

/**
 * How much of a stream is kept in case its node reports no usage (which most report last): past
 * it, chunks are only counted, and the count of what was kept is scaled by them.
 */
const ESTIMATE_BUDGET = 1 << 20;
const scale = (kept: number, uncounted: number) => (kept ? (kept + uncounted) / kept : 1);

function midStreamFailure(message: string): GatewayError {
  return new GatewayError({ status: 502, code: "upstream_error", type: "server_error", message });
}

/**
 * One generator from the node's bytes to the client's payloads (not one per stage: each stage
 * would cost every event its own round of promises). A reader that stops early (at [DONE]) does
 * not destroy the body: a destroyed body costs an AbortError with its stack trace and, before
 * the body's end arrived, the connection; it is drained instead.
 */
export async function* relayChatStream(input: RelayInput): AsyncGenerator<string> {
  const { row, metering, body, translator } = input;
  const rename = input.upstreamModel !== row.id;
  let modelField: RegExp | undefined;
  const renamed = `"model":${JSON.stringify(row.id)}`;
  let usage: OpenAIUsage | undefined;
  let finished = false;
  /** The chunks relayed until usage arrives (up to a budget, the rest only counted): what is counted if it never does. */
  let relayed: string[] | undefined = [];
  let relayedBytes = 0;
  let uncounted = 0;
  /** A chunk payload -> what the client gets (undefined: nothing), noting the usage it carries. */
  const take = (data: string): string | undefined => {
    if (data.includes('"error"')) {
      const parsed = JSON.parse(data) as { error?: { message?: string } };
      if (parsed.error) throw midStreamFailure(parsed.error.message ?? "The node failed while streaming.");
    }
    if (USAGE_OBJECT.test(data)) {
      const parsed = JSON.parse(data) as { usage?: OpenAIUsage | null; choices?: unknown[] };
      if (parsed.usage) {
        usage = parsed.usage;
        relayed = undefined;
      }
      if (!input.includeUsage && parsed.choices?.length === 0) return undefined;
    }
    if (relayed) {
      if (relayedBytes < ESTIMATE_BUDGET) {
        relayed.push(data);
        relayedBytes += data.length;
      } else uncounted++;
    }
    if (!rename) return data;
    return data.replace((modelField ??= modelPattern(input.upstreamModel)), renamed);
  };
  try {
    try {
      const sse = new SseData();
      reading: for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        for (const data of sse.push(chunk)) {
          if (translator) {
            for (const payload of translator.push(data)) {
              const out = take(payload);
              if (out !== undefined) yield out;
            }
            if (!translator.done) continue;
            finished = true;
            break reading;
          }
          if (data === "[DONE]") {
            finished = true;
            break reading;
          }
          const out = take(data);
          if (out !== undefined) yield out;
        }
      }
      if (translator && !finished) {
        // The body ended: what the format sends last (Gemini has no end event of its own).
        const rest = sse.rest();
        for (const payload of [...(rest ? translator.push(rest) : []), ...translator.end()]) {
          const out = take(payload);
          if (out !== undefined) yield out;
        }
        finished = translator.done;
      }
    } catch (err) {
      if (err instanceof GatewayError) throw err;
      throw midStreamFailure("The node's stream broke off.");
    } finally {
      // Read to its end: what is left (the body's end) is drained, so the connection can serve
      // another call. Failed or given up: the body is closed.
      if (finished) body.on("error", () => undefined).resume();
      else body.on("error", () => undefined).destroy(); // (destroying an unfinished body emits an error)
      input.release();
    }
    if (!finished) throw midStreamFailure("The node's stream ended without completing.");
    await input.beforeCharge?.();
    const tokens = usage ? tokenUsage(usage) : await estimateUsage(input.request, streamedText(relayed ?? []), scale(relayed?.length ?? 0, uncounted));
    await recordCall(metering, { modelId: row.id, nodeId: input.nodeId, started: input.started }, { ...tokens, cost: tokenCost(row, tokens) });
  } finally {
    release(metering); // a no-op once the charge committed
  }
}

/** What a stream's chunks said (content, reasoning, tool calls), for a node that reported no usage. */
function streamedText(payloads: string[]): string {
  let text = "";
  for (const payload of payloads) {
    try {
      const chunk = JSON.parse(payload) as { choices?: { delta?: Record<string, unknown> }[] };
      for (const choice of chunk.choices ?? []) text += answerText(choice.delta ?? {});
    } catch {
      // not JSON: nothing to count
    }
  }
  return text;
}

/** The node's model id in a chunk; servers differ in JSON spacing ("model":"x" or "model": "x"). */
function modelPattern(upstreamModel: string): RegExp {
  const escaped = JSON.stringify(upstreamModel).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`"model"\\s*:\\s*${escaped}`);
}
