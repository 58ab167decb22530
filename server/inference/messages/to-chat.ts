// An Anthropic Messages request as the chat completion an OpenAI-format node is asked for. What
// maps: the system prompt (and `system` turns inside `messages`), text and image blocks, tool_use
// blocks as tool calls and tool_result blocks as tool messages, tools and tool_choice, max_tokens,
// stop_sequences, temperature, top_p, metadata.user_id. What an OpenAI-format node cannot take
// is dropped (docs/PROVIDERS.md): cache_control, thinking blocks sent back, top_k, thinking,
// server tools, documents, context_management and other fields of newer clients.
import type { ContentBlockParam, CountTokens, MessageCreate, MessageParam } from "./schema";

type Json = Record<string, unknown>;
type ChatMessage = Json & { role: string };

/** OpenAI's chat API takes at most 4 stop sequences. */
const MAX_STOPS = 4;

function textOf(content: string | ContentBlockParam[] | Json[] | undefined): string {
  if (typeof content === "string") return content;
  return (content ?? [])
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

function imagePart(block: ContentBlockParam): Json | null {
  const source = block.source as { type?: string; media_type?: string; data?: string; url?: string } | undefined;
  if (source?.type === "base64") return { type: "image_url", image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  if (source?.type === "url") return { type: "image_url", image_url: { url: source.url } };
  return null;
}

/** A user turn: its tool results first (each a tool message, as OpenAI wants them right after the calls), then the rest. */
function userMessages(content: string | ContentBlockParam[]): ChatMessage[] {
  if (typeof content === "string") return [{ role: "user", content }];
  const out: ChatMessage[] = [];
  const parts: Json[] = [];
  for (const block of content) {
    if (block.type === "tool_result") {
      const result = block.content as string | Json[] | undefined;
      const text = textOf(result);
      out.push({ role: "tool", tool_call_id: block.tool_use_id, content: block.is_error ? `Error: ${text}` : text });
    } else if (block.type === "text") parts.push({ type: "text", text: block.text });
    else if (block.type === "image") {
      const part = imagePart(block);
      if (part) parts.push(part);
    }
  }
  if (parts.length) out.push({ role: "user", content: parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("\n") : parts });
  return out;
}

function assistantMessage(content: string | ContentBlockParam[]): ChatMessage {
  if (typeof content === "string") return { role: "assistant", content };
  const text = textOf(content);
  const calls = content
    .filter((b) => b.type === "tool_use")
    .map((b) => ({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
  return { role: "assistant", content: text || null, ...(calls.length && { tool_calls: calls }) };
}

function messagesOf(req: CountTokens): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = textOf(req.system as string | Json[] | undefined);
  if (system) out.push({ role: "system", content: system });
  for (const m of req.messages as MessageParam[]) {
    if (m.role === "system") out.push({ role: "system", content: textOf(m.content) });
    else if (m.role === "assistant") out.push(assistantMessage(m.content));
    else out.push(...userMessages(m.content));
  }
  return out;
}

/** Client tools (with an input schema) as functions; Anthropic's server tools have no OpenAI form. */
function toolsOf(req: CountTokens): Json[] | undefined {
  const tools = (req.tools ?? []).filter((t) => !t.type || t.type === "custom");
  if (!tools.length) return undefined;
  return tools.map((t) => ({ type: "function", function: { name: t.name, ...(t.description && { description: t.description }), parameters: t.input_schema ?? { type: "object" } } }));
}

function toolChoiceOf(req: CountTokens): Json {
  const choice = req.tool_choice;
  if (!choice) return {};
  const parallel = choice.disable_parallel_tool_use ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case "any":
      return { tool_choice: "required", ...parallel };
    case "tool":
      return { tool_choice: { type: "function", function: { name: choice.name } }, ...parallel };
    case "none":
      return { tool_choice: "none" };
    default:
      return { tool_choice: "auto", ...parallel };
  }
}

/** The prompt alone (for counting its tokens). */
export function promptOf(req: CountTokens): Json {
  const tools = toolsOf(req);
  return { model: req.model, messages: messagesOf(req), ...(tools && { tools }) };
}

/** The chat completion request for `req`, its `max_tokens` at most `maxOutputTokens` (the model's limit). */
export function toChatRequest(req: MessageCreate, maxOutputTokens: number): Json {
  const tools = toolsOf(req);
  const stops = req.stop_sequences?.slice(0, MAX_STOPS);
  return {
    model: req.model,
    messages: messagesOf(req),
    max_tokens: Math.min(req.max_tokens, maxOutputTokens),
    ...(tools && { tools, ...toolChoiceOf(req) }),
    ...(stops?.length && { stop: stops }),
    ...(req.temperature !== undefined && { temperature: req.temperature }),
    ...(req.top_p !== undefined && { top_p: req.top_p }),
    ...(req.metadata?.user_id && { user: req.metadata.user_id }),
    ...(req.stream && { stream: true }),
  };
}
