// The two checks every tool call through /mcp makes with the SDK's zod schemas: the client's
// JSON-RPC message, and the tool server's result. Each first looks for the plain shape nearly
// every call has (a request or notification without `_meta`; a result of text blocks), which zod
// would accept as it is, and asks zod only about anything else: a zod union or object check costs
// a call tens of microseconds, these a few hundred nanoseconds. The answer is zod's either way
// (tests/unit/mcp-rpc-shapes.test.ts compares them on shapes of every kind).
import { CallToolResultSchema, JSONRPCMessageSchema, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type Json = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Json => typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
const isRequestId = (v: unknown) => typeof v === "string" || Number.isSafeInteger(v);

/** A request (`id`) or notification whose fields are all of the plain kind zod's strict schemas accept as they are. */
function isPlainRequestOrNotification(m: Json): boolean {
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string") return false;
  for (const key in m) {
    if (key === "jsonrpc" || key === "method") continue;
    if (key === "id" && isRequestId(m.id)) continue;
    // params: an object (any fields but `_meta`, which has a schema of its own)
    if (key === "params" && (m.params === undefined || (isPlainObject(m.params) && !("_meta" in m.params)))) continue;
    return false;
  }
  return true;
}

/** Whether `m` is a JSON-RPC message (request, notification, result or error) as the SDK's JSONRPCMessageSchema says. */
export function isJsonRpcMessage(m: unknown): m is JSONRPCMessage {
  return (isPlainObject(m) && isPlainRequestOrNotification(m)) || JSONRPCMessageSchema.safeParse(m).success;
}

/** A result whose only fields are `content`, a list of `{type: "text", text}` blocks, and a boolean `isError`. */
function isPlainTextResult(r: Json): boolean {
  if (!Array.isArray(r.content)) return false;
  for (const key in r) if (key !== "content" && !(key === "isError" && typeof r.isError === "boolean")) return false;
  for (const block of r.content as unknown[]) {
    if (!isPlainObject(block) || block.type !== "text" || typeof block.text !== "string") return false;
    for (const key in block) if (key !== "type" && key !== "text") return false;
  }
  return true;
}

/** A tool's result as the SDK's CallToolResultSchema parses it; a message saying why not, when it is not one. */
export function callToolResultOf(result: unknown): { ok: true; result: CallToolResult } | { ok: false; why: string } {
  if (isPlainObject(result) && isPlainTextResult(result)) return { ok: true, result: result as CallToolResult };
  const checked = CallToolResultSchema.safeParse(result);
  return checked.success ? { ok: true, result: checked.data } : { ok: false, why: checked.error.message };
}
