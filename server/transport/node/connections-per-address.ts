// The open connections of each client address on one gateway instance (MAX_CONNECTIONS_PER_IP),
// kept by its first process, which accepts them all (process-group.ts). Each connection is
// counted against the process holding it, so that when a process exits, the connections it held
// (closed with it, without word to the first) are given back at once.

export class ConnectionsPerAddress<Holder> {
  private readonly total = new Map<string, number>();
  private readonly held = new Map<Holder, Map<string, number>>();

  constructor(readonly max: number) {}

  /** Whether `address` holds `max` connections already: one more is refused. */
  full(address: string): boolean {
    return (this.total.get(address) ?? 0) >= this.max;
  }

  add(address: string, holder: Holder): void {
    this.total.set(address, (this.total.get(address) ?? 0) + 1);
    let mine = this.held.get(holder);
    if (!mine) this.held.set(holder, (mine = new Map()));
    mine.set(address, (mine.get(address) ?? 0) + 1);
  }

  /** A connection of `address` that `holder` held closed (a report for one it never held is ignored). */
  remove(address: string, holder: Holder): void {
    const mine = this.held.get(holder);
    const n = mine?.get(address);
    if (!mine || !n) return;
    if (n > 1) mine.set(address, n - 1);
    else mine.delete(address);
    this.drop(address, 1);
  }

  /** `holder` is gone, and every connection it held with it. */
  removeAll(holder: Holder): void {
    const mine = this.held.get(holder);
    if (!mine) return;
    this.held.delete(holder);
    for (const [address, n] of mine) this.drop(address, n);
  }

  private drop(address: string, n: number): void {
    const left = (this.total.get(address) ?? 0) - n;
    if (left > 0) this.total.set(address, left);
    else this.total.delete(address);
  }
}

/**
 * What a client address is counted as: an IPv4 address as it is (an IPv4-mapped IPv6 one as its
 * IPv4 address), an IPv6 address by its /64 prefix, since one client (one home, one server) gets a
 * whole /64 and could otherwise take a fresh address for every connection.
 */
export function addressKey(address: string): string {
  if (!address.includes(":")) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = address.split("%")[0]!.toLowerCase().split("::");
  const front = head ? head.split(":") : [];
  const back = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
