/**
 * A small time-bounded cache of promises: concurrent callers for one key share one node call, a
 * failed call is forgotten at once (the next caller retries), and entries expire after `ttlMs`.
 * `maxEntries` bounds memory; the oldest entry goes first.
 */
export interface TtlCache<K, V> {
  get(key: K, load: () => Promise<V>): Promise<V>;
  clear(): void;
}

export function createTtlCache<K, V>(options: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): TtlCache<K, V> {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;
  const entries = new Map<K, { at: number; value: Promise<V> }>();
  return {
    get(key, load) {
      const hit = entries.get(key);
      if (hit !== undefined && now() - hit.at < options.ttlMs) return hit.value;
      entries.delete(key);
      const value = load();
      const entry = { at: now(), value };
      entries.set(key, entry);
      value.catch(() => {
        if (entries.get(key) === entry) entries.delete(key);
      });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as K);
      return value;
    },
    clear() {
      entries.clear();
    },
  };
}
