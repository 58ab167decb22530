// An LRU bounded by its number of entries that takes memory only for the entries it holds.
// lru-cache given `max` allocates its lists for `max` entries up front (about 2.8 MB for 100,000,
// 4.4 MB with a TTL), in every process, for caches that mostly hold a handful; bounded by a size of
// one per entry instead, its lists grow with what it holds, up to the same bound.
import { LRUCache } from "lru-cache";

type Options<K extends {}, V extends {}> = Omit<LRUCache.Options<K, V, unknown>, "max" | "maxSize" | "sizeCalculation">;

export function boundedLru<K extends {}, V extends {}>(entries: number, options: Options<K, V> = {}): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: entries, sizeCalculation: () => 1 } as LRUCache.Options<K, V, unknown>);
}
