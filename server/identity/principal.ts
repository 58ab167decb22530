import type { Role } from "../generated/prisma/enums";
import type { Access } from "./access";

/**
 * Who is calling. Every credential kind resolves to this, so services see one kind of caller:
 * a workspace API key (perhaps on a plan), a session token of an end user (the subject) under a
 * plan (minted by the gateway, or signed by an identity provider the workspace trusts), or a
 * signed-in dashboard user acting in one workspace (the playground, video pages). `keyId` is null
 * but for keys: the usage of the others is billed to the workspace without a key.
 */
export type Principal =
  | { kind: "api_key"; workspaceId: string; keyId: string; planId: string | null }
  | {
      kind: "session";
      workspaceId: string;
      keyId: null;
      planId: string;
      subject: string;
      /** The gateway's session (the token's jti); null for a token of a trusted identity provider. */
      sessionId: string | null;
      /** USD the session may spend over its life. */
      spendCap: string | null;
    }
  | { kind: "user"; workspaceId: string; keyId: null; userId: string; role: Role };

/**
 * A call as the services see it: who makes it, the request id it is answered under, headers the
 * answer carries whatever its outcome (rate limits, filled in by admission), and what the caller
 * may do (access.ts), resolved once per request by the dispatcher.
 */
export type CallContext = { principal: Principal; requestId: string; answerHeaders?: Record<string, string>; access?: Promise<Access> };
