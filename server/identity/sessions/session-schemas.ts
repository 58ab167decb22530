// What POST /v1/sessions takes and answers, and the custom claims of a session token: kept apart
// from the signing code, so that declaring the route does not load the JWT library.
import { z } from "zod";
import { ZCreditAmount } from "../../kernel/money";

export const ZMintSessionInput = z.object({
  /** A plan id of the workspace (or its name). */
  plan: z.string().min(1).max(200),
  /** The app's id for its end user: what usage, limits and caps are counted by. */
  subject: z.string().min(1).max(256),
  /** Seconds until the token expires; at most the plan's `max_ttl_seconds` (its default). */
  expires_in: z.number().int().positive().optional(),
  /** USD the session may spend over its life, beside the plan's daily and monthly caps. */
  spend_cap: ZCreditAmount.optional(),
});
export type MintSessionInput = z.infer<typeof ZMintSessionInput>;

export const ZMintedSession = z.object({
  object: z.literal("session"),
  id: z.string(),
  token: z.string(),
  subject: z.string(),
  plan: z.string(),
  expires_at: z.number().int(),
  spend_cap: z.string().nullable(),
});
export type MintedSession = z.infer<typeof ZMintedSession>;

/** Custom claims of a session token beside the registered ones (`gw_permissions` only when its minting key was restricted). */
export const CLAIMS = { workspace: "gw_workspace", plan: "gw_plan", permissions: "gw_permissions" } as const;

