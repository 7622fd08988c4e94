import { equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  assertHeadMatchesRange,
  bundleEnds,
  bundleKey,
  bundleStored,
  decodeHead,
  decodeRangeEnds,
  encodeHashLevel,
  endsOf,
  firstBundle,
  type HeadObject,
  headEndsLevels,
  headHashLevels,
  headKey,
  metaHashEntries,
  PROJECTIONS,
  type Projection,
  type RangeEnds,
  type RangeHashes,
  type RangeMeta,
  rangeEndsAt,
  rangeEndsKey,
  rangeKeys,
  sortedEntries,
  verifySection,
} from "../../proto/range/index.ts";
import type { BlobStore } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";
import { forEachLimited } from "./for-each-limited.ts";
import { createSealedReader } from "./sealed-reader.ts";

export interface AuditReport {
  head: HeadObject | null;
  /** Ranges checked (every range the head refers to). */
  ranges: number;
  /** Data bytes read and hashed (0 for a metadata audit). */
  bytes: number;
  /**
   * The block-hash index the head names, checked entry for entry, and its range-ends objects
   * (`rangeEnds`: objects checked against every range's metadata, 0 when the head names none);
   * null when the head has no index.
   */
  hashIndex: { levels: number; shards: number; entries: number; rangeEnds: number } | null;
  /** Bundle objects the head names, checked (0 when it names none). */
  bundles: number;
}

const WHERE = "store-audit";

/**
 * Reader-side invariants of a store, checked in full: the head refers only to complete ranges
 * (every data object present, with the length and SHA-256 its metadata records), the ranges chain
 * by prevHash with no gaps, the head's tip is the last range's last block, and the hash index holds
 * exactly one entry per sealed block. Throws `corrupt` on the first violation. For tests and audits.
 */
export async function auditStore(store: BlobStore, network: string, rangeSize: number): Promise<AuditReport> {
  return audit(store, network, rangeSize, { data: true, concurrency: 1 });
}

/**
 * The same checks without reading data objects: every range's metadata (its own SHA-256 trailer,
 * its parent hash against the previous range's last hash, the head's tip against the last range)
 * and the hash index, `concurrency` reads at once. What a reader adopting a bucket can afford at
 * full height (3,500 metadata objects, no per-block reads).
 */
export async function auditMetadata(
  store: BlobStore,
  network: string,
  rangeSize: number,
  concurrency = 32,
): Promise<AuditReport> {
  return audit(store, network, rangeSize, { data: false, concurrency });
}

interface Ends {
  range: RangeEnds;
  entries: RangeHashes;
}

async function audit(
  store: BlobStore,
  network: string,
  rangeSize: number,
  o: { data: boolean; concurrency: number },
): Promise<AuditReport> {
  const bytes = await store.get(headKey(network));
  if (bytes === null) return { head: null, ranges: 0, bytes: 0, hashIndex: null, bundles: 0 };
  const head = decodeHead(bytes);
  const reader = createSealedReader(store, network, rangeSize);
  const first = head.firstHeight / rangeSize;
  const lastIndex = first + head.rangeCount - 1;
  let read = 0;
  const ends: Ends[] = new Array(head.rangeCount);
  const indexes = Array.from({ length: head.rangeCount }, (_, k) => first + k);
  await forEachLimited(indexes, o.concurrency, async (index) => {
    const meta = await reader.meta(index);
    if (o.data) read += await verifyData(store, meta);
    if (index === lastIndex) assertHeadMatchesRange(head, meta);
    ends[index - first] = { range: endsOf(meta), entries: metaHashEntries(meta) };
  });
  for (let k = 1; k < ends.length; k++) {
    if (!equalBytes(ends[k]!.range.parentWireHash, ends[k - 1]!.range.lastWireHash))
      throw new LightedgeError(
        "corrupt",
        WHERE,
        `range ${first + k} does not chain to range ${first + k - 1}`,
      );
  }
  const index = await auditHashIndex(store, head, ends, o.concurrency);
  const hashIndex = index && { ...index, rangeEnds: await auditRangeEnds(store, head, ends) };
  const bundles = await auditBundles(store, head, ends, o);
  return { head, ranges: head.rangeCount, bytes: read, hashIndex, bundles };
}

/**
 * Every bundle the head names (proto/range/bundles.ts) is there with its ranges' total size; with
 * `data`, it is byte for byte its ranges' data objects (themselves checked against the metadata).
 */
async function auditBundles(
  store: BlobStore,
  head: HeadObject,
  ends: Ends[],
  o: { data: boolean; concurrency: number },
): Promise<number> {
  const field = head.bundles;
  if (field === undefined) return 0;
  const first = head.firstHeight / head.rangeSize;
  const checks: { key: string; members: number[]; length: number; projection: Projection }[] = [];
  for (let b = firstBundle(first, field.ranges); (b + 1) * field.ranges <= field.to; b++) {
    const members = Array.from({ length: field.ranges }, (_, k) => b * field.ranges + k);
    const combined = bundleEnds(members.map((index) => ends[index - first]!.range));
    for (const projection of PROJECTIONS)
      if (bundleStored(field, combined.lengths[projection]))
        checks.push({
          key: bundleKey(head.network, head.rangeSize, field.ranges, b, projection),
          members,
          length: combined.lengths[projection],
          projection,
        });
  }
  await forEachLimited(checks, o.concurrency, async ({ key, members, length, projection }) => {
    const info = await store.stat(key);
    if (info === null) throw new LightedgeError("corrupt", WHERE, `bundle ${key} is missing`);
    if (info.size !== length)
      throw new LightedgeError("corrupt", WHERE, `bundle ${key} is ${info.size} bytes, its ranges ${length}`);
    if (!o.data) return;
    const bytes = (await store.get(key))!;
    let at = 0;
    for (const index of members) {
      const part = (await store.get(rangeKeys(head.network, head.rangeSize, index).data[projection]))!;
      if (!equalBytes(bytes.subarray(at, at + part.length), part))
        throw new LightedgeError("corrupt", WHERE, `bundle ${key} does not hold range ${index} as stored`);
      at += part.length;
    }
  });
  return checks.length;
}

async function verifyData(store: BlobStore, meta: RangeMeta): Promise<number> {
  let read = 0;
  for (const projection of PROJECTIONS) {
    const key = rangeKeys(meta.network, meta.rangeSize, meta.index).data[projection];
    const data = await store.get(key);
    if (data === null) throw new LightedgeError("corrupt", WHERE, `${key} is missing`);
    verifySection(meta, projection, data, codecOptions);
    read += data.length;
  }
  return read;
}

/**
 * Every shard of every level the head names is, byte for byte, what the writer encodes from the
 * level's ranges' metadata: exactly their blocks, each pointing at its frame in `.full.bin`.
 */
async function auditHashIndex(store: BlobStore, head: HeadObject, ends: Ends[], concurrency: number) {
  const levels = headHashLevels(head);
  if (levels === undefined) return null;
  let shards = 0;
  let entries = 0;
  const first = head.firstHeight / head.rangeSize;
  for (const level of levels) {
    const ranges = ends.slice(level.firstIndex - first, level.lastIndex - first + 1).map((e) => e.entries);
    const keys = sortedEntries(ranges.map((r) => r.keys));
    const want = encodeHashLevel(
      level,
      keys,
      ranges.map((r) => r.fullLengths),
      codecOptions,
    );
    await forEachLimited(want, concurrency, async ({ key, bytes }) => {
      const stored = await store.get(key);
      if (stored === null) throw new LightedgeError("corrupt", WHERE, `hash index object ${key} is missing`);
      if (!equalBytes(stored, bytes))
        throw new LightedgeError(
          "corrupt",
          WHERE,
          `hash index object ${key} does not hold exactly its level's blocks and frames`,
        );
    });
    shards += want.length;
    entries += keys.length;
  }
  return { levels: levels.length, shards, entries };
}

/** Every range-ends object the head names says exactly what its ranges' metadata does. */
async function auditRangeEnds(store: BlobStore, head: HeadObject, ends: Ends[]): Promise<number> {
  const levels = headEndsLevels(head);
  const first = head.firstHeight / head.rangeSize;
  for (const level of levels) {
    const key = rangeEndsKey(level);
    const bytes = await store.get(key);
    if (bytes === null) throw new LightedgeError("corrupt", WHERE, `range-ends object ${key} is missing`);
    const table = decodeRangeEnds(bytes, level, codecOptions);
    for (let index = level.firstIndex; index <= level.lastIndex; index++) {
      const want = ends[index - first]!.range;
      const got = rangeEndsAt(table, index);
      const same =
        equalBytes(got.parentWireHash, want.parentWireHash) &&
        equalBytes(got.lastWireHash, want.lastWireHash) &&
        PROJECTIONS.every((p) => got.lengths[p] === want.lengths[p]);
      if (!same)
        throw new LightedgeError(
          "corrupt",
          WHERE,
          `range-ends object ${key} disagrees with range ${index}'s metadata`,
        );
    }
  }
  return levels.length;
}
