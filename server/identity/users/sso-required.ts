// Which e-mail domains must sign in with single sign-on: the verified domains of the connections
// that require it. Read on every dashboard request (a session opened another way, before the
// switch, ends) and at password, GitHub and sign-up time; one small map per process, reloaded at
// once on every instance when a connection or domain changes (Channel.ssoChanged).
import { db } from "../../infra/db/client";
import { FreshCache } from "../../infra/cache/fresh-cache";
import { Channel, listen } from "../../infra/db/notify";

/** The domain of an e-mail address, lower case ("" when it has none). */
export function domainOf(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? "" : email.slice(at + 1).trim().toLowerCase().replace(/\.$/, "");
}

const required = new FreshCache<ReadonlyMap<string, string>>({
  name: "sso-required-domains",
  maxAgeMs: 60_000,
  refreshMs: 15_000,
  max: 1,
  load: async () => {
    const rows = await db.ssoDomain.findMany({ where: { verifiedAt: { not: null }, connection: { requireSso: true } }, select: { domain: true, connectionId: true } });
    return new Map(rows.map((r) => [r.domain, r.connectionId]));
  },
});

let listening: Promise<void> | undefined;
function subscribe(): void {
  listening ??= listen(Channel.ssoChanged, () => required.evict("*")).catch(() => {
    listening = undefined;
  });
}

/** The connection `email` must sign in through, or null when it may sign in any way. */
export async function ssoRequiredFor(email: string): Promise<{ connectionId: string } | null> {
  subscribe();
  const connectionId = (await required.get("all")).get(domainOf(email));
  return connectionId ? { connectionId } : null;
}
