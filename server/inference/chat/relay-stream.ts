// Relays a node's chat stream to the client as it arrives. Chunks pass through as the node wrote
// them (only the model id is rewritten, as a string, when the node names it differently). The
// usage chunk the gateway always asks for is read for billing and dropped unless the client
// asked for it. Usage is committed before the stream's end ([DONE]) is sent; if the client
// left, the stream is still read to its end by the SSE writer, so the bill is what the node
// really produced. The call's reservation is held until its charge commits, and ended when the
// stream fails.
import type { Dispatcher } from "undici";
import { recordCall, release, type Metering } from "../../ledger/meter";
import { tokenCost } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { GatewayError } from "../../kernel/errors";
import { tokenUsage, type OpenAIUsage } from "./completion-shape";

type RelayInput = {
  body: Dispatcher.ResponseData["body"];
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

function midStreamFailure(message: string): GatewayError {
  return new GatewayError({ status: 502, code: "upstream_error", type: "server_error", message });
}

/**
 * Splits an SSE byte stream into the data payloads of its events. A reader that stops early (at
 * [DONE]) does not destroy the body: a destroyed body costs an AbortError with its stack trace
 * and, before the body's end arrived, the connection; the caller drains or destroys it.
 */
async function* ssePayloads(body: RelayInput["body"]): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    buffer += decoder.decode(chunk, { stream: true });
    if (buffer.includes("\r")) buffer = buffer.replace(/\r\n?/g, "\n");
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(line[5] === " " ? 6 : 5))
        .join("\n");
      if (data) yield data;
    }
  }
}

export async function* relayChatStream(input: RelayInput): AsyncGenerator<string> {
  try {
    yield* relayAndCharge(input);
  } finally {
    release(input.metering); // a no-op once the charge committed
  }
}

async function* relayAndCharge(input: RelayInput): AsyncGenerator<string> {
  const { row, metering } = input;
  // Servers differ in JSON spacing ("model":"x" or "model": "x"); match both.
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const rename = input.upstreamModel !== row.id;
  const modelField = new RegExp(`"model"\\s*:\\s*${escape(JSON.stringify(input.upstreamModel))}`);
  const renamed = `"model":${JSON.stringify(row.id)}`;
  let usage: OpenAIUsage | undefined;
  let finished = false;
  try {
    for await (const data of ssePayloads(input.body)) {
      if (data === "[DONE]") {
        finished = true;
        break;
      }
      if (data.includes('"error"')) {
        const parsed = JSON.parse(data) as { error?: { message?: string } };
        if (parsed.error) throw midStreamFailure(parsed.error.message ?? "The node failed while streaming.");
      }
      if (USAGE_OBJECT.test(data)) {
        const parsed = JSON.parse(data) as { usage?: OpenAIUsage; choices?: unknown[] };
        usage = parsed.usage;
        if (!input.includeUsage && parsed.choices?.length === 0) continue;
      }
      yield rename ? data.replace(modelField, renamed) : data;
    }
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw midStreamFailure("The node's stream broke off.");
  } finally {
    // Read to its [DONE]: what is left (the body's end) is drained, so the connection can serve
    // another call. Failed or given up: the body is closed.
    if (finished) input.body.on("error", () => undefined).resume();
    else input.body.destroy();
    input.release();
  }
  if (!finished) throw midStreamFailure("The node's stream ended without completing.");
  await input.beforeCharge?.();
  const tokens = tokenUsage(usage);
  await recordCall(metering, { modelId: row.id, nodeId: input.nodeId, started: input.started }, { ...tokens, cost: tokenCost(row, tokens) });
}
