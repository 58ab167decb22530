// What a registered server offers: its tools, prompts and resources, every page of each, listed
// over a connection of its own that is ended afterwards. Used when a server is added or
// refreshed, and by the responses API's `mcp` tool for a server it names by URL.
import { GatewayError } from "../../kernel/errors";
import type { ListedPrompt, ListedResource, ListedTool, McpServerEntry, ServerCatalog } from "../server-def";
import { connectUpstream, type Upstream } from "./connect";
import { upstreamFailure } from "./upstream-errors";

/** The most pages of one list read (a server that pages forever is cut off there). */
const MAX_PAGES = 20;

async function allPages<T>(list: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const got = await list(cursor);
    items.push(...got.items);
    if (!got.nextCursor) break;
    cursor = got.nextCursor;
  }
  return items;
}

/** Lists what a connected server offers (what its capabilities say it has). */
export async function catalogOf(upstream: Upstream): Promise<ServerCatalog> {
  const { client } = upstream;
  const caps = client.getServerCapabilities();
  const tools = await allPages<ListedTool>(async (cursor) => {
    const r = await client.listTools(cursor ? { cursor } : undefined);
    return { items: r.tools as ListedTool[], nextCursor: r.nextCursor };
  });
  const prompts = caps?.prompts
    ? await allPages<ListedPrompt>(async (cursor) => {
        const r = await client.listPrompts(cursor ? { cursor } : undefined);
        return { items: r.prompts as ListedPrompt[], nextCursor: r.nextCursor };
      })
    : [];
  const resources = caps?.resources
    ? await allPages<ListedResource>(async (cursor) => {
        const r = await client.listResources(cursor ? { cursor } : undefined);
        return { items: r.resources as ListedResource[], nextCursor: r.nextCursor };
      })
    : [];
  return { tools, prompts, resources };
}

/** Connects to `server`, lists what it offers and disconnects; throws a GatewayError (502/504) saying why when it cannot. */
export async function discoverServer(server: McpServerEntry): Promise<ServerCatalog> {
  let upstream: Upstream | undefined;
  try {
    upstream = await connectUpstream(server);
    return await catalogOf(upstream);
  } catch (err) {
    throw err instanceof GatewayError ? err : upstreamFailure(server.name, err);
  } finally {
    await upstream?.terminate().catch(() => undefined);
  }
}
