// /mcp's two per-call checks (server/mcp/rpc-shapes.ts) against the SDK's zod schemas they stand
// for: the same verdict for messages and results of every kind, and the same parsed result.
import { CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { callToolResultOf, isJsonRpcMessage } from "../../server/mcp/rpc-shapes";

const MESSAGES: unknown[] = [
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "kit__echo", arguments: { text: "hi" } } },
  { jsonrpc: "2.0", id: "a-1", method: "tools/list" },
  { jsonrpc: "2.0", id: 0, method: "ping", params: {} },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3, reason: "x" } },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", _meta: { progressToken: 7 } } },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "t", _meta: { progressToken: { bad: true } } } },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { _meta: "nope" } },
  { jsonrpc: "2.0", id: 1.5, method: "tools/call" },
  { jsonrpc: "2.0", id: 2 ** 53, method: "tools/call" },
  { jsonrpc: "2.0", id: null, method: "tools/call" },
  { jsonrpc: "2.0", id: true, method: "tools/call" },
  { jsonrpc: "1.0", id: 1, method: "tools/call" },
  { id: 1, method: "tools/call" },
  { jsonrpc: "2.0", id: 1, method: 5 },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: [1, 2] },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: null },
  { jsonrpc: "2.0", id: 1, method: "tools/call", params: "x" },
  { jsonrpc: "2.0", id: 1, method: "tools/call", extra: 1 },
  { jsonrpc: "2.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, result: { content: [] } },
  { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } },
  { jsonrpc: "2.0", error: { code: -32700, message: "parse" } },
  { jsonrpc: "2.0", id: 1, error: { code: "x", message: "no" } },
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"x":1}}'),
  null,
  [],
  "2.0",
  42,
];

const RESULTS: unknown[] = [
  { content: [{ type: "text", text: "hello" }] },
  { content: [{ type: "text", text: "" }], isError: true },
  { content: [] },
  { content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], isError: false },
  { content: [{ type: "text", text: "a", annotations: { priority: 0.5 } }] },
  { content: [{ type: "text", text: "a", extra: 1 }] },
  { content: [{ type: "image", data: "aGk=", mimeType: "image/png" }] },
  { content: [{ type: "text", text: 5 }] },
  { content: [{ type: "text" }] },
  { content: [null] },
  { content: "text" },
  { content: [{ type: "text", text: "a" }], isError: "yes" },
  { content: [{ type: "text", text: "a" }], structuredContent: { n: 1 } },
  { content: [{ type: "text", text: "a" }], _meta: { x: 1 } },
  { content: [{ type: "text", text: "a" }], other: "kept?" },
  { structuredContent: { n: 1 } },
  {},
  null,
  [],
  "result",
];

describe("/mcp's JSON-RPC message check", () => {
  it("says what JSONRPCMessageSchema says, for messages of every kind", () => {
    for (const m of MESSAGES) expect(isJsonRpcMessage(m), JSON.stringify(m)).toBe(JSONRPCMessageSchema.safeParse(m).success);
  });
});

describe("a tool server's result check", () => {
  it("accepts what CallToolResultSchema accepts, as it parses it, and refuses the rest", () => {
    for (const r of RESULTS) {
      const zod = CallToolResultSchema.safeParse(r);
      const ours = callToolResultOf(r);
      expect(ours.ok, JSON.stringify(r)).toBe(zod.success);
      if (ours.ok && zod.success) expect(ours.result, JSON.stringify(r)).toEqual(zod.data);
    }
  });
});
