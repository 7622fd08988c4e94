import { Code, ConnectError } from "@connectrpc/connect";

const endedByCaller = (err: unknown) =>
  err instanceof ConnectError && (err.code === Code.DeadlineExceeded || err.code === Code.Canceled);

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
      if (hit !== undefined && now() - hit.at < options.ttlMs) {
        // A shared load runs under the first caller's deadline: when that caller's own end
        // (deadline, disconnect) cuts it short, a joiner loads again under its own instead of
        // inheriting someone else's DeadlineExceeded.
        return hit.value.catch((err: unknown) => {
          if (!endedByCaller(err)) throw err;
          return this.get(key, load);
        });
      }
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
