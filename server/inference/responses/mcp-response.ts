// POST /v1/responses with `mcp` tools (or answering an approval request): everything that can
// refuse the request is decided before it is admitted (400s cost nothing): the servers, the
// approval answers, the tools listed, so that the first turn's reservation covers what it sends.
// The run (mcp-run.ts) then goes on to its end whether or not a streaming client stays: the tools
// it called are billed, so its model turns are too. The response is stored before it runs and
// settled before it is charged, as every response.
import { ModelCall } from "../../admission/admit";
import type { CallContext } from "../../identity/principal";
import { errors } from "../../kernel/errors";
import type { EventStream } from "../../kernel/event-stream";
import { maxChatBounds } from "../../routing/catalog/pricing";
import type { ModelRow } from "../../routing/catalog/model-row";
import { assertChatCapable } from "../chat/create-completion";
import type { ChatCompletionRequest } from "../chat/schema";
import type { Item } from "./items";
import type { McpApprovalResponseItem } from "./mcp-items";
import { offeredTools, turnRequest } from "./mcp-run";
import { listServers, resolveServers } from "./mcp-servers";
import { runResponse, type McpResponseInput } from "./mcp-stream";
import type { ResponseCreate } from "./schema";


/** What the loop cannot do: say so before anything runs. */
function assertRunnable(ctx: CallContext, req: ResponseCreate, row: ModelRow, conversationId: string | null): void {
  const at = "tools";
  // A payment covers one model call; the loop makes several.
  if (ctx.principal.kind === "x402") throw errors.invalidRequest("A call paid with x402 cannot use `mcp` tools (each model turn and tool call is billed on its own); use an API key.", at);
  if (ctx.batchLine) throw errors.invalidRequest("Batches cannot use `mcp` tools.", at);
  if (req.background) throw errors.invalidRequest("`mcp` tools do not run in the background; leave `background` unset (stream the response to follow it).", "background");
  if (conversationId) throw errors.invalidRequest("`mcp` tools cannot be combined with `conversation` yet; continue with `previous_response_id`.", "conversation");
  if (!row.capTools) throw errors.invalidRequest(`\`${row.id}\` does not support tools.`, at, "unsupported_parameter");
}

/** The approval answers of the input, each answering a request of the conversation not answered yet; a 400 naming the item otherwise. */
function approvalAnswers(input: Item[], context: Item[]): McpApprovalResponseItem[] {
  const answers: McpApprovalResponseItem[] = [];
  input.forEach((item, i) => {
    if (item.type !== "mcp_approval_response") return;
    const param = `input[${i}].approval_request_id`;
    const id = item.approval_request_id;
    if (!context.some((c) => c.type === "mcp_approval_request" && c.id === id)) {
      throw errors.invalidRequest(`No approval request \`${id}\` in this conversation (continue the response that asked with \`previous_response_id\`, or send its items back).`, param, "mcp_approval_request_not_found");
    }
    const answered = context.some((c) => (c.type === "mcp_call" && c.approval_request_id === id) || (c.type === "mcp_approval_response" && c !== item && c.approval_request_id === id));
    if (answered) throw errors.invalidRequest(`The approval request \`${id}\` was already answered.`, param);
    answers.push(item);
  });
  return answers;
}

type Prepared = { req: ResponseCreate; row: ModelRow; past: Item[]; inputItems: Item[]; id: string; conversationId: string | null };

export async function mcpModelCall(ctx: CallContext, p: Prepared): Promise<ModelCall<Record<string, unknown> | EventStream>> {
  const { req, row } = p;
  assertRunnable(ctx, req, row, p.conversationId);
  const context = [...p.past, ...p.inputItems];
  const approvals = approvalAnswers(p.inputItems, context);
  const servers = await listServers(ctx.principal, await resolveServers(ctx.principal, req), context);
  const first = turnRequest(req, context, offeredTools(servers), req.max_tool_calls === 0);
  assertChatCapable(row, { ...first, stream: req.stream } as ChatCompletionRequest);
  const spec = { endpoint: "/v1/responses", model: row.id, ...maxChatBounds(row, first), eventId: p.id };
  const input: Omit<McpResponseInput, "metering"> = { ctx, req, row, spec, context, inputItems: p.inputItems, servers, approvals };
  return new ModelCall(spec, (metering) => runResponse({ ...input, metering }));
}
