// Where an identity provider reaches this gateway's SCIM service: the configured public origin
// (NEXTAUTH_URL, else PUBLIC_BASE_URL) when there is one, else what the caller knows (the
// request's own origin, or the CLI's localhost), followed by /scim/v2.
import { env } from "../../infra/env";

export const SCIM_PATH = "/scim/v2";

/** The configured public origin, or null when neither variable is set. */
export function configuredOrigin(): string | null {
  const origin = env.NEXTAUTH_URL ?? env.PUBLIC_BASE_URL;
  return origin ? origin.replace(/\/+$/, "") : null;
}

export function scimBaseUrl(fallbackOrigin: string): string {
  return `${configuredOrigin() ?? fallbackOrigin.replace(/\/+$/, "")}${SCIM_PATH}`;
}
