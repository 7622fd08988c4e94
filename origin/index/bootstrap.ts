import { displayHex, equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { historyCoveredRanges } from "../../proto/history/layout.ts";
import {
  blockInfo,
  bundlesWithin,
  decodeHead,
  encodeHead,
  endsOf,
  HASH_INDEX_VERSION,
  HashIndexBuilder,
  type HeadObject,
  headKey,
  lastWireHash,
  metaHashEntries,
  RANGE_ENDS_VERSION,
  type RangeEnds,
  type RangeHashes,
} from "../../proto/range/index.ts";
import type { ChainSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { codecOptions } from "./codec-options.ts";
import { IndexerConfigError } from "./config-error.ts";
import { forEachLimited } from "./for-each-limited.ts";
import type { SealedReader } from "./sealed-reader.ts";

export interface BootstrapOptions {
  store: BlobStore;
  chain: ChainSource;
  sealed: SealedReader;
  network: string;
  rangeSize: number;
  /** Range checks in flight. */
  concurrency: number;
  /** Ranges per hash-index epoch for a store whose head has no index yet (default: the format's). */
  hashIndexEpochRanges?: number;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface BootstrapResult {
  /** The head to resume from (cut back before the first bad range, and rewritten so, if any). */
  head: HeadObject | null;
  /** Ranges whose last hash disagrees with the node (or that are missing/corrupt/unchained). */
  mismatches: number[];
  /** The hash index of the head's ranges, for the sealer to extend (null without a head). */
  hashIndex: HashIndexBuilder | null;
}

/**
 * Ranges checked at once, at least: each is one metadata read (≈ 60 KB, latency-bound on S3/R2) and
 * one getblockhash, so 3,500 ranges at mainnet's height take seconds, not minutes.
 */
const MIN_RANGES_IN_FLIGHT = 64;

/** What bootstrap keeps of each range: its ends and its hash-index entries, not the whole table. */
interface RangeSummary {
  ends: RangeEnds;
  lastTime: number;
  entries: RangeHashes;
}

/**
 * Adopts whatever the store already holds (our own earlier run or another origin's): each sealed
 * range's metadata is read (in parallel, `concurrency` at once) and its last block hash checked
 * against this node (one getblockhash per range) and its parent hash against the previous range;
 * no data object is read. The head is cut back before the first range that fails, so readers stop
 * using it at once, and the indexer rebuilds from there. A head without a block-hash index (or a
 * cut one) gets the index of its ranges, written before the head that names it.
 */
export async function bootstrapFromStore(options: BootstrapOptions): Promise<BootstrapResult> {
  const bytes = await options.store.get(headKey(options.network));
  if (bytes === null) return { head: null, mismatches: [], hashIndex: null };
  const head = decodeHead(bytes);
  if (head.rangeSize !== options.rangeSize) {
    throw new IndexerConfigError(
      "index.bootstrap",
      `the store's head uses range size ${head.rangeSize}; run with --range-size ${head.rangeSize}`,
    );
  }
  const firstIndex = head.firstHeight / head.rangeSize;
  const ranges = new Map<number, RangeSummary>();
  const mismatches: number[] = [];
  const indexes = Array.from({ length: head.rangeCount }, (_, k) => firstIndex + k);
  await forEachLimited(indexes, Math.max(options.concurrency, MIN_RANGES_IN_FLIGHT), async (index) => {
    const meta = await options.sealed.meta(index).catch((err: unknown) => {
      if (err instanceof LightedgeError && (err.kind === "not-found" || err.kind === "corrupt"))
        return undefined;
      throw err;
    });
    const nodeHash = meta ? await options.chain.blockHash(meta.lastHeight) : undefined;
    if (meta === undefined || nodeHash !== displayHex(lastWireHash(meta))) mismatches.push(index);
    else
      ranges.set(index, {
        ends: endsOf(meta),
        lastTime: blockInfo(meta, meta.lastHeight).time,
        entries: metaHashEntries(meta),
      });
  });
  for (const index of indexes.slice(1)) {
    const range = ranges.get(index);
    const previous = ranges.get(index - 1);
    if (range && previous && !equalBytes(range.ends.parentWireHash, previous.ends.lastWireHash))
      mismatches.push(index);
  }
  mismatches.sort((a, b) => a - b);
  const kept = mismatches.length === 0 ? head.rangeCount : mismatches[0]! - firstIndex;
  const hashIndex = new HashIndexBuilder({
    network: head.network,
    rangeSize: head.rangeSize,
    firstIndex,
    epochRanges: head.hashIndex?.epochRanges ?? options.hashIndexEpochRanges,
  });
  for (let k = 0; k < kept; k++) {
    const range = ranges.get(firstIndex + k)!;
    hashIndex.add(firstIndex + k, range.entries, range.ends);
  }
  if (mismatches.length === 0) {
    options.log.info(
      { ranges: head.rangeCount, sealedTip: head.tip?.height },
      "store ranges verified against the node",
    );
    const endsStored = head.hashIndex?.rangeEnds === RANGE_ENDS_VERSION;
    // An index of an older version (v1 shards, confirmed by metadata) is rebuilt under v2's keys.
    const current = head.hashIndex?.version === HASH_INDEX_VERSION;
    if (current) {
      // The shards the head names are there; its range-ends objects too when it names them.
      hashIndex.baseStored(endsStored);
      if (endsStored) return { head, mismatches, hashIndex };
    }
    const indexed = { ...head, hashIndex: hashIndex.headField, updatedAt: new Date().toISOString() };
    await writeHead(options, indexed, hashIndex);
    options.log.info(
      { ranges: head.rangeCount },
      !current
        ? "block-hash index and range ends written for the adopted ranges"
        : "range ends written for the adopted ranges",
    );
    return { head: indexed, mismatches, hashIndex };
  }
  options.log.error(
    { mismatches, firstBad: mismatches[0] },
    "sealed ranges disagree with the node; rebuilding from the first bad range",
  );
  const last = ranges.get(mismatches[0]! - 1);
  const tip =
    kept > 0 && last
      ? { height: last.ends.lastHeight, displayHash: displayHex(last.ends.lastWireHash), time: last.lastTime }
      : null;
  const { history, ...rest } = head;
  const covered = historyCoveredRanges(head);
  const cut: HeadObject = {
    ...rest,
    // History levels of ranges the cut drops name what is no longer sealed: without them the
    // history catch-up writes levels of the kept ranges (origin/history/catch-up.ts).
    ...(history !== undefined && (covered === undefined || covered <= kept) ? { history } : {}),
    rangeCount: tip ? kept : 0,
    tip,
    updatedAt: new Date().toISOString(),
    hashIndex: hashIndex.headField,
    // Bundles holding a cut range are written again once it is sealed again.
    ...(head.bundles ? { bundles: bundlesWithin(head.bundles, firstIndex + (tip ? kept : 0)) } : {}),
  };
  await writeHead(options, cut, hashIndex);
  options.sealed.forget(mismatches[0]!);
  return { head: cut, mismatches, hashIndex };
}

/** The index objects the head names (the store may lack them), then the head. */
async function writeHead(options: BootstrapOptions, head: HeadObject, hashIndex: HashIndexBuilder) {
  const objects = hashIndex.objects(codecOptions);
  await forEachLimited(objects, options.concurrency, (o) =>
    options.store.put(o.key, o.bytes, { contentType: "application/octet-stream", immutable: true }),
  );
  hashIndex.baseStored();
  await options.store.put(headKey(options.network), encodeHead(head), { contentType: "application/json" });
}
