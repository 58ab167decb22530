import { cookies } from "next/headers";
import { callbackPath } from "../../callback-path";
import { CompleteSso } from "./complete-sso";

export const dynamic = "force-dynamic";

/**
 * The last step of a single sign-on: the ticket our callback or ACS left in an httpOnly cookie
 * (never in a URL) is handed to next-auth's "sso" provider, which writes the session cookie.
 */
export default async function CompleteSsoPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  const ticket = (await cookies()).get("gw_sso_ticket")?.value ?? "";
  return <CompleteSso ticket={ticket} callbackUrl={callbackPath(callbackUrl)} />;
}
