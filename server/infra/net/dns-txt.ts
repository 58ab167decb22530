// TXT records of a DNS name, for proving control of a domain (single sign-on's domain
// verification). The lookup is a parameter so that tests can answer without a DNS server.
import { promises as dns } from "node:dns";

/** The TXT records of `name`, each joined from its chunks; [] when the name has none or does not exist. */
export type TxtResolver = (name: string) => Promise<string[]>;

export const resolveTxt: TxtResolver = async (name) => {
  try {
    return (await dns.resolveTxt(name)).map((chunks) => chunks.join(""));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return [];
    throw err;
  }
};
