import { LightedgeError } from "../../proto/errors.ts";
import {
  assertMetaIdentity,
  bundleEnds,
  bundleKey,
  bundleStored,
  DEFAULT_BUNDLE_MAX_BYTES,
  decodeRangeMeta,
  endsOf,
  firstBundle,
  type HeadBundles,
  PROJECTIONS,
  type RangeMeta,
  rangeKeys,
  verifySection,
} from "../../proto/range/index.ts";
import type { BlobStore, Body } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";
import { forEachLimited } from "./for-each-limited.ts";

export interface BundleWriterOptions {
  store: BlobStore;
  network: string;
  rangeSize: number;
  /** The store's first range (bundles start at the first aligned one). */
  firstIndex: number;
  /** Ranges per bundle (≥ 2). */
  ranges: number;
  /** A projection's bundle is written only up to this size (default DEFAULT_BUNDLE_MAX_BYTES). */
  maxBytes?: number;
  /** What the head says is written already (kept only when its shape is this writer's). */
  stored?: HeadBundles;
  /** Writes one immutable object (the caller's retries and upload counters). */
  put(key: string, body: Body): Promise<void>;
  /** Reads one object back (the caller's retries); default: the store's `get`. */
  get?(key: string): Promise<Uint8Array | null>;
}

/**
 * Writes range bundles (proto/range/bundles.ts) of ranges already in the store, in order, and says
 * how far they go (the head's `bundles`, written after them). Each bundle is read back from the
 * store — its ranges' metadata, then each projection's data objects, checked whole against the
 * metadata — so the same code serves a sealer that has just written the last of its ranges and one
 * adopting a store sealed before bundles existed. One projection's bundle is held in memory at a
 * time, at most `maxBytes`.
 */
export class BundleWriter {
  readonly #o: BundleWriterOptions;
  readonly #maxBytes: number;
  #to: number;

  constructor(options: BundleWriterOptions) {
    if (!Number.isSafeInteger(options.ranges) || options.ranges < 2)
      throw new LightedgeError("internal", "bundle-writer", `bundles of ${options.ranges} ranges`);
    this.#o = options;
    this.#maxBytes = options.maxBytes ?? DEFAULT_BUNDLE_MAX_BYTES;
    // Below the first range, aligned down: within the head's ranges before any bundle is written.
    const floor = Math.floor(options.firstIndex / options.ranges) * options.ranges;
    const s = options.stored;
    const same = s !== undefined && s.ranges === options.ranges && s.maxBytes === this.#maxBytes;
    this.#to = same ? Math.max(s.to, floor) : floor;
  }

  /** The first range of the next bundle to write (a store's first bundle may start past its first range). */
  get #next(): number {
    return Math.max(this.#to, firstBundle(this.#o.firstIndex, this.#o.ranges) * this.#o.ranges);
  }

  /** The head's field: every bundle below `to` is written. */
  get field(): HeadBundles {
    return { ranges: this.#o.ranges, maxBytes: this.#maxBytes, to: this.#to };
  }

  /** Whether a whole bundle below range index `end` (exclusive: the head's ranges) is not written yet. */
  behind(end: number): boolean {
    return this.#next + this.#o.ranges <= end;
  }

  /**
   * Writes up to `limit` bundles lying below range index `end`, `concurrency` at once (each holds
   * up to `maxBytes` while it is written); `field` moves past each once it and every bundle before
   * it are written, so a failure keeps what was written before it. Resolves to how many.
   */
  async catchUp(end: number, limit: number, concurrency = 1): Promise<number> {
    const ranges = this.#o.ranges;
    const next = this.#next;
    const count = Math.max(0, Math.min(limit, Math.floor((end - next) / ranges)));
    const first = next / ranges;
    const bundles = Array.from({ length: count }, (_, k) => first + k);
    const written = new Set<number>();
    await forEachLimited(bundles, concurrency, async (bundle) => {
      await this.#write(bundle);
      written.add(bundle);
      for (let b = Math.max(this.#to, next) / ranges; written.has(b); b++) this.#to = (b + 1) * ranges;
    });
    return count;
  }

  async #write(bundle: number): Promise<void> {
    const o = this.#o;
    const metas: RangeMeta[] = [];
    for (let k = 0; k < o.ranges; k++) metas.push(await this.#meta(bundle * o.ranges + k));
    // Ranges that do not chain are never bundled (nor served): the bundle would hide the break.
    const ends = bundleEnds(metas.map(endsOf));
    for (const projection of PROJECTIONS) {
      if (!bundleStored(this.field, ends.lengths[projection])) continue;
      const parts: Uint8Array[] = [];
      for (const meta of metas) {
        const key = rangeKeys(o.network, o.rangeSize, meta.index).data[projection];
        const bytes = await this.#get(key);
        if (bytes === null)
          throw new LightedgeError("corrupt", "bundle-writer", `range object ${key} is missing`);
        verifySection(meta, projection, bytes, codecOptions);
        parts.push(bytes);
      }
      await o.put(bundleKey(o.network, o.rangeSize, o.ranges, bundle, projection), parts);
    }
  }

  #get(key: string): Promise<Uint8Array | null> {
    return this.#o.get ? this.#o.get(key) : this.#o.store.get(key);
  }

  async #meta(index: number): Promise<RangeMeta> {
    const o = this.#o;
    const key = rangeKeys(o.network, o.rangeSize, index).meta;
    const bytes = await this.#get(key);
    if (bytes === null)
      throw new LightedgeError("corrupt", "bundle-writer", `range metadata ${key} is missing`);
    const meta = decodeRangeMeta(bytes, codecOptions);
    assertMetaIdentity(meta, { network: o.network, rangeSize: o.rangeSize, index });
    return meta;
  }
}
