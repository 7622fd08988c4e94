/**
 * Values read per key and kept `ttlMs` in the isolate (the head, the origin's tip). Past the TTL a
 * value that has settled still answers — while exactly one refresh runs — for up to another TTL
 * (stale-while-revalidate, RFC 5861 §3): under steady traffic no request waits on storage or the
 * origin for a refresh, and nothing served is older than 2 × TTL plus one read. In-flight reads are
 * shared, so a burst costs one read per key per TTL. A failed read is dropped (the next call reads
 * again); a failed refresh keeps the settled value until it is too old.
 */
export interface RefreshingCache<T> {
  get(key: string): Promise<T>;
}

interface Entry<T> {
  /** When the value (or its read) was started. */
  at: number;
  value: Promise<T>;
  settled: boolean;
  refreshing: boolean;
}

export function createRefreshingCache<T>(
  read: (key: string) => Promise<T>,
  ttlMs: number,
  now: () => number = Date.now,
): RefreshingCache<T> {
  const entries = new Map<string, Entry<T>>();
  const start = (key: string): Entry<T> => {
    const entry: Entry<T> = { at: now(), value: read(key), settled: false, refreshing: false };
    entry.value.then(
      () => {
        entry.settled = true;
      },
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return entry;
  };
  return {
    get(key) {
      const hit = entries.get(key);
      const age = hit === undefined ? Number.POSITIVE_INFINITY : now() - hit.at;
      if (hit !== undefined && age < ttlMs) return hit.value;
      if (hit?.settled && age < 2 * ttlMs) {
        if (!hit.refreshing) {
          hit.refreshing = true;
          const next = start(key);
          next.value.then(
            () => entries.set(key, next),
            () => {
              hit.refreshing = false;
            },
          );
        }
        return hit.value;
      }
      const entry = start(key);
      entries.set(key, entry);
      return entry.value;
    },
  };
}
