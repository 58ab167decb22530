// A read-through cache whose entries are never older than a bound: an entry is refreshed in the
// background once `refreshMs` old and not used once `maxAgeMs` old, and a NOTIFY on its channel
// evicts it at once on every instance (payload: the key, or "*"). A load that started before an
// eviction cannot put its stale value back. Concurrent misses of one key share one load.
import type { LRUCache } from "lru-cache";
import { boundedLru } from "./bounded-lru";
import { Channel, listen, type ChannelName } from "../db/notify";
import { logFor } from "../telemetry/log";

const log = logFor("cache");

export type FreshCacheOptions<V> = {
  name: string;
  load: (key: string) => Promise<V>;
  /** Evicts on NOTIFY of this channel (payload: a key, or "*"). */
  channel?: ChannelName;
  maxAgeMs: number;
  refreshMs: number;
  max?: number;
};

type Entry<V> = { value: V; loadedAt: number };

export class FreshCache<V> {
  private readonly cache: LRUCache<string, Entry<V>>;
  private readonly loading = new Map<string, Promise<V>>();
  private readonly generation = new Map<string, number>();
  private subscribed: Promise<void> | undefined;
  /** How often the database was asked (for tests and metrics). */
  readonly stats = { loads: 0 };

  constructor(private readonly options: FreshCacheOptions<V>) {
    this.cache = boundedLru(options.max ?? 100_000);
  }

  async get(key: string): Promise<V> {
    this.subscribe();
    const entry = this.cache.get(key);
    const age = entry ? Date.now() - entry.loadedAt : Infinity;
    if (!entry || age >= this.options.maxAgeMs) return this.load(key);
    if (age >= this.options.refreshMs) this.load(key).catch(() => undefined);
    return entry.value;
  }

  /** The cached value, fresh or not, without loading. */
  peek(key: string): V | undefined {
    return this.cache.get(key)?.value;
  }

  /** Replaces a cached value (keeping its age), e.g. with a figure this instance just committed. */
  update(key: string, change: (value: V) => V): void {
    const entry = this.cache.get(key);
    if (entry) this.cache.set(key, { value: change(entry.value), loadedAt: entry.loadedAt });
  }

  evict(key: string): void {
    if (key === "*") {
      for (const k of new Set([...this.cache.keys(), ...this.loading.keys()])) this.evict(k);
      return;
    }
    this.generation.set(key, (this.generation.get(key) ?? 0) + 1);
    this.cache.delete(key);
    this.loading.delete(key);
  }

  private load(key: string): Promise<V> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    this.stats.loads++;
    const startedAt = Date.now(); // the age counts from before the query
    const gen = this.generation.get(key) ?? 0;
    const mine = this.options
      .load(key)
      .then((value) => {
        if ((this.generation.get(key) ?? 0) === gen) this.cache.set(key, { value, loadedAt: startedAt });
        return value;
      })
      .finally(() => {
        if (this.loading.get(key) === mine) this.loading.delete(key);
      });
    this.loading.set(key, mine);
    return mine;
  }

  private subscribe(): void {
    const channel = this.options.channel;
    if (!channel || this.subscribed) return;
    this.subscribed = listen(channel, (payload) => this.evict(payload)).catch((err) => {
      this.subscribed = undefined; // the max age still bounds staleness; try again on the next call
      log.error({ err }, `${this.options.name} cache: LISTEN failed`);
    });
  }
}

export { Channel };
