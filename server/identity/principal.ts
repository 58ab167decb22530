import type { PaymentPayload } from "@x402/core/types";
import type { Role } from "../generated/prisma/enums";
import type { CallContext as KernelCallContext } from "../kernel/call-context";
import type { KeyGrant } from "./keys/permissions";
import type { KeyCache } from "./keys/verify-key";

/**
 * Who is calling. Every credential kind resolves to this, so services see one kind of caller:
 * a workspace API key (perhaps on a plan), a session token of an end user (the subject) under a
 * plan (minted by the gateway, or signed by an identity provider the workspace trusts), or a
 * signed-in dashboard user acting in one workspace (the playground, video pages). `keyId` is null
 * but for keys: the usage of the others is billed to the workspace without a key.
 */
export type Principal =
  | {
      kind: "api_key";
      workspaceId: string;
      keyId: string;
      /** The key's name (route conditions read it as `key.name`); absent where a key is made up (tests, tools). */
      keyName?: string;
      planId: string | null;
      /** The key's operation groups and models (keys/permissions.ts); absent or null: unrestricted. */
      grant?: KeyGrant | null;
      /** The key's own choice on capturing its calls' bodies; absent: the workspace's. */
      capture?: boolean;
      /** The key's own response cache settings; absent: its plan's and workspace's. */
      cache?: KeyCache;
    }
  | {
      kind: "session";
      workspaceId: string;
      keyId: null;
      planId: string;
      subject: string;
      /** The operation groups of the key that minted the token, carried in the token; absent: all. */
      grant?: KeyGrant | null;
      /** The gateway's session (the token's jti); null for a token of a trusted identity provider. */
      sessionId: string | null;
      /** USD the session may spend over its life. */
      spendCap: string | null;
    }
  | {
      kind: "user";
      workspaceId: string;
      keyId: null;
      userId: string;
      role: Role;
      /** A custom role's permissions (the member holds exactly these); null or absent: the role's. */
      permissions?: readonly string[] | null;
      /** The member's custom role, if any. */
      customRole?: { id: string; name: string } | null;
    }
  | {
      kind: "x402";
      /** The x402 workspace (kernel/x402-workspace.ts): where paid calls are recorded. */
      workspaceId: string;
      keyId: null;
      /** The payment the request carried (its PAYMENT-SIGNATURE header, decoded); null: none yet (a 402 asks for one). */
      payment: X402Payment | null;
      /** How the operation is paid for: a price known up front (`exact`) or metered up to a maximum (`upto`); null for reads. */
      scheme: "exact" | "upto" | null;
      /** The URL the client called, named in the payment's requirements. */
      resource: string;
    };

/** A client's x402 payment payload (x402 version 2), as decoded from its PAYMENT-SIGNATURE header. */
export type X402Payment = PaymentPayload;

/** A call as the services see it: who makes it, under which request id, and what it produced beside its answer (kernel/call-context.ts). */
export type CallContext = KernelCallContext<Principal>;
