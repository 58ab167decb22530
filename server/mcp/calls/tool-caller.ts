// Who calls a tool, and where the server connections it opens are held.
import type { Principal } from "../../identity/principal";
import type { SessionStore } from "../upstream/upstream-pool";

/** Who calls, and where the server sessions it opens are kept. */
export type ToolCaller = {
  principal: Principal;
  /** Refuses (402) a key at its spend limit, before a priced call (the host checks its credential again). */
  checkSpend?: () => Promise<void>;
  /** The holder of its server connections: the /mcp session's id, or a response's run. */
  holder: string;
  store: SessionStore | null;
  via: "mcp" | "responses";
  clientIp?: string | null;
  userAgent?: string | null;
};
