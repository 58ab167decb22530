// A response with `mcp` tools from admission to its end, streamed or not: stored (in progress)
// first, then the loop (mcp-run.ts) with its events, then settled and charged. The loop runs
// detached from the client's connection: a streaming client that leaves does not stop tool calls
// half-way, and the turns that ran are charged. A turn that failed ends the response as failed;
// the turns that ran before it are charged (tools were called on what they said). Without a turn
// that ran, a plain request fails as any response does (an HTTP error, nothing kept or charged).
import type { CallSpec } from "../../admission/admit";
import type { CallContext } from "../../identity/principal";
import { logFor } from "../../infra/telemetry/log";
import { GatewayError } from "../../kernel/errors";
import { EventStream } from "../../kernel/event-stream";
import type { Metering } from "../../ledger/meter";
import type { ToolCaller } from "../../mcp/calls/tool-caller";
import { releaseHolder } from "../../mcp/upstream/upstream-pool";
import type { ModelRow } from "../../routing/catalog/model-row";
import { EventCounter, lifecycle, terminal, type ResponseEvent } from "./events";
import type { Item } from "./items";
import type { McpApprovalResponseItem } from "./mcp-items";
import { withoutMcpSecrets } from "./mcp-policy";
import { runMcp } from "./mcp-run";
import type { ListedServer } from "./mcp-servers";
import { TurnMeters } from "./mcp-turns";
import { openState, toResponseObject, type ResponseState } from "./response-object";
import type { ResponseCreate } from "./schema";
import { deleteStoredResponse, insertResponse, OPEN, settleResponse } from "./store";

const log = logFor("responses");

export type McpResponseInput = {
  ctx: CallContext;
  req: ResponseCreate;
  row: ModelRow;
  spec: CallSpec;
  context: Item[];
  inputItems: Item[];
  servers: ListedServer[];
  approvals: McpApprovalResponseItem[];
  metering: Metering;
};

function errorOf(err: unknown): { code: string; message: string } {
  if (err instanceof GatewayError) return { code: err.code, message: err.message };
  log.error({ err }, "a response with MCP tools failed");
  return { code: "server_error", message: "The gateway failed while running this response." };
}

/** Events handed from the run to a streaming client as they come, whether it reads them or not. */
class EventQueue {
  private readonly payloads: string[] = [];
  private readonly counter = new EventCounter();
  private wake: (() => void) | null = null;
  private closed = false;

  push(event: ResponseEvent): void {
    this.payloads.push(this.counter.payload(event));
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *read(): AsyncGenerator<string> {
    for (;;) {
      const next = this.payloads.shift();
      if (next !== undefined) yield next;
      else if (this.closed) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

export async function runResponse(p: McpResponseInput): Promise<Record<string, unknown> | EventStream> {
  const { ctx, req, metering } = p;
  // Stored without the `mcp` tools' headers and tokens.
  const state = openState(metering.eventId, p.row.id, withoutMcpSecrets(req));
  // Stored before anything runs: a failed write ends the call here, uncharged (the pipeline releases it).
  if (state.store) await insertResponse(ctx.principal.workspaceId, ctx.principal.keyId, state, p.inputItems);
  const queue = req.stream ? new EventQueue() : null;
  const turns = new TurnMeters(metering, ctx, p.row, p.spec);
  const done = run(p, state, turns, (e) => queue?.push(e)).finally(() => queue?.close());
  if (queue) {
    done.catch((err) => log.error({ err }, "a streamed response with MCP tools failed"));
    return new EventStream(queue.read(), { named: true, done: false });
  }
  const failure = await done;
  if (failure && !turns.count) {
    if (state.store) await deleteStoredResponse(state.id).catch((err) => log.error({ err }, "could not remove an uncharged response"));
    throw failure;
  }
  return toResponseObject(state);
}

/** Runs the loop, settles and charges; returns what failed it (null: nothing). */
async function run(p: McpResponseInput, state: ResponseState, turns: TurnMeters, emit: (e: ResponseEvent) => void): Promise<unknown> {
  const holder = `response:${state.id}`;
  const caller: ToolCaller = { principal: p.ctx.principal, holder, store: null, via: "responses" };
  emit(lifecycle("response.created", state));
  emit(lifecycle("response.in_progress", state));
  let failure: unknown = null;
  try {
    for await (const event of runMcp({ req: p.req, state, context: p.context, servers: p.servers, approvals: p.approvals, turns, caller })) emit(event);
  } catch (err) {
    failure = err;
  } finally {
    await releaseHolder(holder).catch(() => undefined);
  }
  Object.assign(state, { usage: turns.usage, completedAt: new Date() });
  if (failure) Object.assign(state, { status: "failed", error: errorOf(failure) });
  try {
    if (state.store) await settleResponse(state.id, state);
    await turns.chargeAll();
  } catch (err) {
    // Not stored as finished, or its first turn's charge did not commit: nothing is charged.
    failure ??= err;
    Object.assign(state, { status: "failed", error: errorOf(err) });
    if (state.store) await settleResponse(state.id, state, [...OPEN, "completed", "incomplete"]).catch((e) => log.error({ err: e }, "could not store a failed response"));
  } finally {
    turns.releaseAll();
  }
  const last = terminal(state);
  if (last) emit(last);
  return failure;
}
