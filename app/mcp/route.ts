// /mcp: the MCP gateway (server/transport/mcp/mcp-http.ts) answers.
import { v1Handlers } from "@/server/transport/next/v1-handler";

export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = v1Handlers;
