// Where the hosts reach /mcp: its handler (mcp-http.ts, with the MCP SDK, its schemas and a JSON
// Schema validator) is loaded by the first /mcp request a process serves, so that a process that
// serves none loads none of it.
import type { IncomingCall, Reply } from "../call";

let handler: Promise<typeof import("./mcp-http")> | undefined;

export async function serveMcp(call: IncomingCall): Promise<Reply> {
  return (await (handler ??= import("./mcp-http"))).serveMcp(call);
}
