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
