// What every SCIM resource module shares: who is calling (the workspace its token provisions),
// reading a body with zod into a SCIM 400, and the booleans identity providers send as strings.
import { z } from "zod";
import { GatewayError } from "../../kernel/errors";
import { scimErrors } from "./scim-error";

/** The caller of a SCIM request: the token's workspace, the token (the audit actor), and the base URL resources' locations start with. */
export type ScimContext = { workspaceId: string; tokenId: string; baseUrl: string };

/** A boolean, also as Entra's "True"/"False" strings. */
export const ZScimBool = z.preprocess((v) => (typeof v === "string" && /^(true|false)$/i.test(v) ? v.toLowerCase() === "true" : v), z.boolean());

/** Parses `body` with `schema`, answering a 400 invalidValue that names the first bad attribute. */
export function readBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `\`${issue.path.join(".")}\`: ` : "";
  throw scimErrors.invalidValue(`${where}${issue.message}`);
}

/** A unique index refused the write (Prisma P2002), or a service said 409. */
export function isConflict(err: unknown): boolean {
  if (err instanceof GatewayError) return err.status === 409;
  return (err as { code?: string } | null)?.code === "P2002";
}
