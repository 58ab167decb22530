import type { Role } from "../generated/prisma/enums";

/**
 * Who is calling. Every credential kind resolves to this, so services see one kind of caller:
 * a workspace API key (the /v1 API), or a signed-in dashboard user acting in one workspace
 * (the playground, video pages). `keyId` is null for users: their usage is billed to the
 * workspace without a key.
 */
export type Principal =
  | { kind: "api_key"; workspaceId: string; keyId: string }
  | { kind: "user"; workspaceId: string; keyId: null; userId: string; role: Role };

/** A call as the services see it: who makes it, and the request id it is answered under. */
export type CallContext = { principal: Principal; requestId: string };
