import { Code, ConnectError } from "@connectrpc/connect";
import { Lru, sharedLoad } from "../../proto/lru.ts";

const endedByCaller = (err: unknown) =>
  err instanceof ConnectError && (err.code === Code.DeadlineExceeded || err.code === Code.Canceled);

/**
 * Node answers kept for `ttlMs`: concurrent callers for one key share one node call, a failed call
 * is forgotten at once (the next caller retries), and `maxEntries` bounds memory (proto/lru.ts).
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
  const entries = new Lru<K, Promise<V>>({
    maxEntries: options.maxEntries ?? 1000,
    ttlMs: options.ttlMs,
    now: options.now,
  });
  const get = (key: K, load: () => Promise<V>): Promise<V> => {
    const shared = entries.get(key);
    if (shared === undefined) return sharedLoad(entries, key, load);
    // A shared load runs under the first caller's deadline: when that caller's own end (deadline,
    // disconnect) cuts it short, a joiner loads again under its own instead of inheriting someone
    // else's DeadlineExceeded.
    return shared.catch((err: unknown) => {
      if (!endedByCaller(err)) throw err;
      return get(key, load);
    });
  };
  return { get, clear: () => entries.clear() };
}
