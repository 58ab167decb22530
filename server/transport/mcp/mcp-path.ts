/** The path of the MCP gateway's endpoint (docs/MCP.md). */
export const MCP_PATH = "/mcp";
