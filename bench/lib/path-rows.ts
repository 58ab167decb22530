// The rows of the request path's benches (bench:path, bench:alloc): each a chat call's body and headers.
import { MOCK_MODEL } from "../mock-upstream";
import { UNIQUE } from "../load/fixed-rate";

const messages = [{ role: "user", content: "Say something short about latency." }];

/**
 * A coding agent's call: a long system prompt, a conversation of a dozen turns with a file in it, and
 * tools with JSON schemas (about 40 KB of JSON), for the work of a call that grows with its body.
 */
function agentBody(tail: string): string {
  const line = (i: number) => `  const value${i} = compute(input.items[${i}], { retries: ${i % 5}, label: "item-${i}" }); // step ${i}\n`;
  const file = Array.from({ length: 120 }, (_, i) => line(i)).join("");
  const system = "You are a careful coding assistant. Follow the repository's style, explain each change, and never invent APIs. ".repeat(60);
  const turns = Array.from({ length: 12 }, (_, i) =>
    i % 2 ? { role: "assistant", content: `Here is the change for step ${i}:\n\n${file.slice(0, 1500)}` } : { role: "user", content: `Look at this file (part ${i}) and tell me what it does:\n\n${file.slice(0, 2500)}` },
  );
  const tool = (name: string) => ({
    type: "function",
    function: { name, description: `The ${name} tool of the agent: reads or changes the workspace.`, parameters: { type: "object", properties: { path: { type: "string", description: "A path in the workspace" }, start: { type: "integer", minimum: 1 }, end: { type: "integer", minimum: 1 }, text: { type: "string" } }, required: ["path"] } },
  });
  const tools = ["read_file", "write_file", "search", "run_tests", "list_dir"].map(tool);
  return JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "system", content: system }, ...turns, { role: "user", content: `Now finish it. ${tail}` }], tools, max_tokens: 256 });
}
export const BODIES: Record<string, { body: string; headers?: Record<string, string>; unique?: boolean }> = {
  plain: { body: JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 }) },
  stream: { body: JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16, stream: true, stream_options: { include_usage: true } }) },
  hit: { body: JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 }), headers: { "x-gateway-cache": "use" } },
  miss: { body: JSON.stringify({ model: MOCK_MODEL, messages: [{ role: "user", content: `Say something. ${UNIQUE}` }], max_tokens: 16 }), headers: { "x-gateway-cache": "use" }, unique: true },
  // routed: the same call named by a gateway-wide route (one target: the mock model), against plain.
  routed: { body: JSON.stringify({ model: "bench-route", messages, max_tokens: 16 }) },
  // failover: a route whose first target always answers 429 (no Retry-After), its second the mock model.
  failover: { body: JSON.stringify({ model: "bench-failover", messages, max_tokens: 16 }) },
  // capture: a workspace of its own keeps request and answer bodies (32 KiB each, one redaction pattern).
  capture: { body: JSON.stringify({ model: MOCK_MODEL, messages, max_tokens: 16 }) },
  // large, large-hit, large-miss: the coding agent's call (agentBody), plain, answered by the cache, and a new one each time through it.
  large: { body: agentBody("") },
  "large-hit": { body: agentBody(""), headers: { "x-gateway-cache": "use" } },
  "large-miss": { body: agentBody(UNIQUE), headers: { "x-gateway-cache": "use" }, unique: true },
};
