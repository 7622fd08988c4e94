/**
 * Values read per key and kept `ttlMs` in the isolate (the head, the origin's tip). Past the TTL a
 * settled value still answers — while one refresh runs — for up to another TTL
 * (stale-while-revalidate, RFC 5861 §3): under steady traffic no request waits on storage or the
 * origin for a refresh, and nothing served is older than 2 × TTL plus one read.
 *
 * Only settled values are shared between requests, never a read in flight: a promise belongs to
 * the request whose I/O started it, and another request awaiting it fails ("Cannot perform I/O on
 * behalf of a different request") or hangs once the first is cancelled (proto/lru.ts,
 * docs/workers-platform.md). So a cold burst reads once per request, and a refresh whose request
 * ended before it settled is given up after a TTL and started again. A failed read is not kept; a
 * failed refresh keeps the settled value until it is too old.
 */
export interface RefreshingCache<T> {
  get(key: string): Promise<T>;
  /** The settled value, if any, however old (no read). */
  peek(key: string): T | undefined;
}

interface Entry<T> {
  /** When the read that produced `value` was started. */
  at: number;
  value: T;
  /** When the running refresh started (undefined: none). */
  refreshSince?: number;
}

export function createRefreshingCache<T>(
  read: (key: string) => Promise<T>,
  ttlMs: number,
  now: () => number = Date.now,
): RefreshingCache<T> {
  const entries = new Map<string, Entry<T>>();
  const readAndKeep = async (key: string): Promise<T> => {
    const at = now();
    const value = await read(key);
    const current = entries.get(key);
    if (current === undefined || current.at <= at) entries.set(key, { at, value });
    return value;
  };
  return {
    async get(key) {
      const hit = entries.get(key);
      const age = hit === undefined ? Number.POSITIVE_INFINITY : now() - hit.at;
      if (hit !== undefined && age < ttlMs) return hit.value;
      if (hit !== undefined && age < 2 * ttlMs) {
        const refreshing = hit.refreshSince !== undefined && now() - hit.refreshSince < ttlMs;
        if (!refreshing) {
          hit.refreshSince = now();
          readAndKeep(key).catch(() => {
            hit.refreshSince = undefined;
          });
        }
        return hit.value;
      }
      return readAndKeep(key);
    },
    peek: (key) => entries.get(key)?.value,
  };
}
