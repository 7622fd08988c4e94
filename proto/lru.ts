/**
 * The one least-recently-used cache both runtimes use (range metadata, tree-state tables, node
 * answers, rendered dev-node blocks). Pure: a Map keeps insertion order, so re-inserting on every
 * hit makes the first key the least recently used one. Entries may expire (`ttlMs`).
 */
export interface LruOptions {
  /** Most entries kept; the least recently used goes first. */
  maxEntries: number;
  /** Entries older than this are misses (and dropped when met). */
  ttlMs?: number;
  /** Clock for `ttlMs` (tests). */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  at: number;
}

export class Lru<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: LruOptions) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 1)
      throw new RangeError(`an LRU holds at least one entry, not ${options.maxEntries}`);
    this.#max = options.maxEntries;
    this.#ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, now the most recently used; undefined when absent or expired. */
  get(key: K): V | undefined {
    const entry = this.#live(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value without touching its place. */
  peek(key: K): V | undefined {
    return this.#live(key)?.value;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, { value, at: this.#now() });
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value as K);
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Drops every entry whose key passes `test`. */
  deleteWhere(test: (key: K) => boolean): void {
    for (const key of [...this.#entries.keys()]) if (test(key)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Live values, most recently used first. */
  values(): V[] {
    const out: V[] = [];
    for (const [key, entry] of this.#entries)
      if (this.#fresh(entry)) out.push(entry.value);
      else this.#entries.delete(key);
    return out.reverse();
  }

  #live(key: K): Entry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#fresh(entry)) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #fresh(entry: Entry<V>): boolean {
    return this.#ttlMs === Number.POSITIVE_INFINITY || this.#now() - entry.at < this.#ttlMs;
  }
}

/**
 * How concurrent misses of one key share work. `in-flight`: they await the first caller's load
 * (Node: one storage read per key). `settled`: only finished values are shared and each miss loads
 * for itself. Workers need `settled`: a promise one request started belongs to that request's I/O
 * context; a second request awaiting it fails with "Cannot perform I/O on behalf of a different
 * request", or hangs when the first request is cancelled (docs/workers-platform.md).
 */
export type LoadSharing = "in-flight" | "settled";

/**
 * Loaded values by key, least recently used dropped first (an Lru of values, never of promises in
 * `settled` mode). A value `keep` refuses is returned but not kept (an absent object may be written
 * later); a failed load is not kept; `deleteWhere` also discards loads still running.
 */
export class LoadCache<K, V> {
  readonly #values: Lru<K, V>;
  readonly #pending: Map<K, Promise<V>> | undefined;
  /** Bumped by deleteWhere/clear: a load started before it must not store its (stale) value. */
  #epoch = 0;

  constructor(options: LruOptions & { sharing: LoadSharing }) {
    this.#values = new Lru(options);
    this.#pending = options.sharing === "in-flight" ? new Map() : undefined;
  }

  get size(): number {
    return this.#values.size;
  }

  load(key: K, load: () => Promise<V>, keep?: (value: V) => boolean): Promise<V> {
    const hit = this.#values.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const running = this.#pending?.get(key);
    if (running !== undefined) return running;
    const epoch = this.#epoch;
    const pending = load().then(
      (value) => {
        if (this.#pending?.get(key) === pending) this.#pending.delete(key);
        if (epoch === this.#epoch && (keep === undefined || keep(value))) this.#values.set(key, value);
        return value;
      },
      (err: unknown) => {
        if (this.#pending?.get(key) === pending) this.#pending.delete(key);
        throw err;
      },
    );
    this.#pending?.set(key, pending);
    return pending;
  }

  /** The value without loading or touching its place. */
  peek(key: K): V | undefined {
    return this.#values.peek(key);
  }

  /** Loaded values, most recently used first. */
  values(): V[] {
    return this.#values.values();
  }

  deleteWhere(test: (key: K) => boolean): void {
    this.#epoch++;
    this.#values.deleteWhere(test);
    if (this.#pending) for (const key of [...this.#pending.keys()]) if (test(key)) this.#pending.delete(key);
  }

  clear(): void {
    this.deleteWhere(() => true);
  }
}

/**
 * One shared load per key: concurrent callers get the same promise; a load that fails is
 * forgotten at once (the next caller retries), and so is a value `keep` refuses (an object that
 * is absent now may be written later).
 */
export function sharedLoad<K, V>(
  cache: Lru<K, Promise<V>>,
  key: K,
  load: () => Promise<V>,
  keep?: (value: V) => boolean,
): Promise<V> {
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const pending = load();
  cache.set(key, pending);
  const forget = () => {
    if (cache.peek(key) === pending) cache.delete(key);
  };
  pending.then((value) => {
    if (keep !== undefined && !keep(value)) forget();
  }, forget);
  return pending;
}
