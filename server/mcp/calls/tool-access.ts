// Which tools a caller may use: its key's tool list (keys/tool-patterns.ts) within its plan's, for
// a caller whose key (or the key that minted its session token) may use the `mcp` group. Decided
// from the caches the call already reads (the key's record, the workspace's rules).
import { accessOf } from "../../admission/admit";
import { mayUseTool } from "../../identity/keys/tool-patterns";
import type { Principal } from "../../identity/principal";
import { GatewayError } from "../../kernel/errors";

export type ToolFilter = (qualifiedName: string) => boolean;

async function toolListsOf(p: Principal): Promise<{ grantTools: readonly string[] | null; planTools: readonly string[] | null }> {
  const grantTools = p.kind === "api_key" || p.kind === "session" ? (p.grant?.tools ?? null) : null;
  const planTools = (await accessOf(p)).plan?.tools;
  return { grantTools: grantTools?.length ? grantTools : null, planTools: planTools?.length ? planTools : null };
}

/** Whether `p` may use each tool, by its qualified name. */
export async function toolFilterFor(p: Principal): Promise<ToolFilter> {
  const { grantTools, planTools } = await toolListsOf(p);
  if (!grantTools && !planTools) return () => true;
  return (name) => mayUseTool(grantTools, planTools, name);
}

/**
 * Whether `p`'s key or plan limits it to some tools. Such a caller may use registered servers
 * only: a server named by URL could take any label, and with it the names its list allows.
 */
export async function toolsRestricted(p: Principal): Promise<boolean> {
  const { grantTools, planTools } = await toolListsOf(p);
  return grantTools !== null || planTools !== null;
}

export const toolNotAllowed = (name: string) =>
  new GatewayError({
    status: 403,
    code: "tool_not_allowed",
    message: `This credential may not call the tool \`${name}\`: its key's or plan's tool list does not include it.`,
  });

export const unknownTool = (name: string) =>
  new GatewayError({ status: 404, code: "tool_not_found", message: `No tool \`${name}\`: tools are named <server>__<tool> after a server this workspace has (tools/list lists them).` });

export const unknownResource = (uri: string) =>
  new GatewayError({ status: 404, code: "resource_not_found", message: `No resource \`${uri}\` among the servers this caller may use (resources/list lists them).` });
