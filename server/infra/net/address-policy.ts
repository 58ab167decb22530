// Which IP addresses an outbound request to a tenant- or caller-chosen URL may reach. Everything
// that is not a public unicast address is refused: a URL a tenant chooses must not become a way
// into the gateway's own host (loopback), its private network, or a cloud metadata endpoint
// (169.254.169.254, link-local). Classification uses node's BlockList, which also matches an
// IPv4-mapped IPv6 address (::ffff:127.0.0.1) against the IPv4 ranges.
import { BlockList, isIP } from "node:net";

export type AddressKind = "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "broadcast" | "shared" | "reserved";

/** First match wins (broadcast before the reserved 240/4, ::1 before the IPv4-compatible ::/96). */
const REFUSED: readonly (readonly [AddressKind, string])[] = [
  // 0.0.0.0 reaches the local host on Linux.
  ["unspecified", "0.0.0.0/8"],
  ["private", "10.0.0.0/8"],
  // Carrier-grade NAT: the provider's network, not the internet.
  ["shared", "100.64.0.0/10"],
  ["loopback", "127.0.0.0/8"],
  ["link-local", "169.254.0.0/16"],
  ["private", "172.16.0.0/12"],
  ["reserved", "192.0.0.0/24"],
  ["reserved", "192.0.2.0/24"],
  ["private", "192.168.0.0/16"],
  // The 6to4 relay anycast (deprecated): a tunnel, not a destination.
  ["reserved", "192.88.99.0/24"],
  ["reserved", "198.18.0.0/15"],
  ["reserved", "198.51.100.0/24"],
  ["reserved", "203.0.113.0/24"],
  ["multicast", "224.0.0.0/4"],
  ["broadcast", "255.255.255.255/32"],
  ["reserved", "240.0.0.0/4"],
  ["unspecified", "::/128"],
  ["loopback", "::1/128"],
  // IPv4-compatible addresses (deprecated), 6to4 and Teredo: tunnels to an IPv4 address of their own.
  ["reserved", "::/96"],
  ["reserved", "2002::/16"],
  ["reserved", "2001::/32"],
  ["reserved", "100::/64"],
  // Local-use NAT64 (RFC 8215): translated to IPv4 addresses of the operator's own network.
  ["private", "64:ff9b:1::/48"],
  ["reserved", "2001:db8::/32"],
  ["private", "fc00::/7"],
  ["link-local", "fe80::/10"],
  // Site-local (deprecated): private in practice.
  ["private", "fec0::/10"],
  ["multicast", "ff00::/8"],
];

function subnet(cidr: string): BlockList {
  const [address, prefix] = cidr.split("/") as [string, string];
  const list = new BlockList();
  list.addSubnet(address, Number(prefix), isIP(address) === 6 ? "ipv6" : "ipv4");
  return list;
}

const RANGES = REFUSED.map(([kind, cidr]) => [kind, subnet(cidr)] as const);
// NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits; that address decides.
const NAT64 = subnet("64:ff9b::/96");

/** The last 32 bits of an IPv6 address in 64:ff9b::/96, as an IPv4 address. */
function embeddedIPv4(v6: string): string {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (dotted) return dotted[1]!;
  // Within the /96 the middle groups are zero, so the last two tokens are the IPv4 halves (or empty after "::").
  const groups = v6.split(":");
  const hi = parseInt(groups.at(-2) || "0", 16);
  const lo = parseInt(groups.at(-1) || "0", 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

/** What kind of non-public address this is, or null for a public unicast address. Not an IP address at all: "reserved". */
export function refusedKind(address: string): AddressKind | null {
  const family = isIP(address);
  if (family === 0) return "reserved";
  const type = family === 6 ? "ipv6" : "ipv4";
  if (type === "ipv6" && NAT64.check(address, "ipv6")) return refusedKind(embeddedIPv4(address));
  for (const [kind, list] of RANGES) if (list.check(address, type)) return kind;
  return null;
}

const PHRASES: Record<AddressKind, string> = {
  loopback: "a loopback address",
  private: "a private-network address",
  "link-local": "a link-local address (where cloud metadata endpoints live)",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  shared: "a shared (carrier-grade NAT) address",
  reserved: "a reserved address",
};

export function describeKind(kind: AddressKind): string {
  return PHRASES[kind];
}

/** The operator's exceptions (OUTBOUND_ALLOW): host names (exact, any case) and addresses or CIDRs. */
export type AllowList = { hosts: ReadonlySet<string>; addresses: BlockList };

/** A host name as compared: lower case, without the brackets of an IPv6 literal or a final dot. */
export function normalHost(host: string): string {
  return host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** Parses `idp.internal, 10.0.0.0/8, 192.168.1.5, fd00::/8`; a malformed entry throws, naming it. */
export function parseAllowList(text: string): AllowList {
  const hosts = new Set<string>();
  const addresses = new BlockList();
  for (const raw of text.split(",")) {
    const entry = normalHost(raw.trim());
    if (!entry) continue;
    const [address, prefix, extra] = entry.split("/");
    const family = isIP(address!);
    if (prefix !== undefined) {
      const bits = Number(prefix);
      const max = family === 6 ? 128 : 32;
      if (!family || extra !== undefined || !/^\d+$/.test(prefix) || bits > max) throw new Error(`"${raw.trim()}" is not a valid CIDR.`);
      addresses.addSubnet(address!, bits, family === 6 ? "ipv6" : "ipv4");
    } else if (family) {
      addresses.addAddress(address!, family === 6 ? "ipv6" : "ipv4");
    } else if (/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(entry)) {
      hosts.add(entry);
    } else {
      throw new Error(`"${raw.trim()}" is neither a host name nor an IP address or CIDR.`);
    }
  }
  return { hosts, addresses };
}

export function isAllowedAddress(address: string, allow: AllowList): boolean {
  const family = isIP(address);
  return family !== 0 && allow.addresses.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** Why an address may not be reached (its kind), or null when it may: public, or allowed by the operator. */
export function addressRefusal(address: string, allow: AllowList): AddressKind | null {
  return isAllowedAddress(address, allow) ? null : refusedKind(address);
}
