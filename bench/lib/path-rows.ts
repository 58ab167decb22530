// The rows of the request path's benches (bench:path, bench:alloc): each a chat call's body and headers.
import { MOCK_MODEL } from "../mock-upstream";
import { UNIQUE } from "../load/fixed-rate";

const messages = [{ role: "user", content: "Say something short about latency." }];
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
};
