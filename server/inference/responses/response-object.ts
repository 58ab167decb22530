// The Response object (part 2.4; every field OpenAI's Response object has) built from what is stored.
import { conversationIdOf } from "./conversation-turn";
import { wireItem, type Item } from "./items";
import { mcpToolObject } from "./mcp-policy";
import type { ResponseCreate } from "./schema";
import type { ResponsesUsage } from "./translate";

export type ResponseStatus = "queued" | "in_progress" | "completed" | "incomplete" | "failed" | "cancelled";

export type ResponseState = {
  id: string;
  modelId: string;
  status: ResponseStatus;
  background: boolean;
  store: boolean;
  previousResponseId: string | null;
  request: ResponseCreate;
  output: Item[];
  usage: ResponsesUsage | null;
  error: { code: string; message: string } | null;
  incompleteDetails: { reason: string } | null;
  metadata: Record<string, string>;
  createdAt: Date;
  completedAt: Date | null;
};

/** A response as it opens: in progress, nothing answered yet. */
export function openState(id: string, modelId: string, req: ResponseCreate): ResponseState {
  return {
    id,
    modelId,
    status: "in_progress",
    background: req.background === true,
    store: req.store !== false,
    previousResponseId: req.previous_response_id ?? null,
    request: req,
    output: [],
    usage: null,
    error: null,
    incompleteDetails: null,
    metadata: req.metadata ?? {},
    createdAt: new Date(),
    completedAt: null,
  };
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** Usage with every field OpenAI's has (usage stored before a field existed gets it as 0). */
function usageObject(u: ResponsesUsage): ResponsesUsage {
  return { ...u, input_tokens_details: { cached_tokens: u.input_tokens_details.cached_tokens, cache_write_tokens: u.input_tokens_details.cache_write_tokens ?? 0 } };
}

export function toResponseObject(s: ResponseState): Record<string, unknown> {
  const r = s.request;
  const format = r.text?.format ?? { type: "text" };
  const conversationId = conversationIdOf(r.conversation);
  return {
    id: s.id,
    object: "response",
    created_at: seconds(s.createdAt),
    completed_at: s.completedAt ? seconds(s.completedAt) : null,
    status: s.status,
    background: s.background,
    error: s.error,
    incomplete_details: s.incompleteDetails,
    instructions: r.instructions ?? null,
    max_output_tokens: r.max_output_tokens ?? null,
    max_tool_calls: r.max_tool_calls ?? null,
    model: s.modelId,
    output: s.output.map(wireItem),
    parallel_tool_calls: r.parallel_tool_calls ?? true,
    previous_response_id: s.previousResponseId,
    reasoning: { effort: null, summary: null },
    service_tier: "default",
    store: s.store,
    system_fingerprint: null,
    temperature: r.temperature ?? 1,
    text: { format },
    tool_choice: r.tool_choice ?? "auto",
    tools: (r.tools ?? []).map((t) =>
      t.type === "mcp" ? mcpToolObject(t) : { type: "function", name: t.name, description: t.description ?? null, parameters: t.parameters ?? null, strict: t.strict ?? true },
    ),
    top_logprobs: 0,
    top_p: r.top_p ?? 1,
    truncation: r.truncation ?? "disabled",
    // Fields OpenAI's document never gives as null are left out until they have a value.
    ...(s.usage && { usage: usageObject(s.usage) }),
    ...(r.user != null && { user: r.user }),
    ...(conversationId && { conversation: { id: conversationId } }),
    metadata: s.metadata,
  };
}
