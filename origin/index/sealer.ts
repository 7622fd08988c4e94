import { displayHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { HeadHistory } from "../../proto/history/layout.ts";
import {
  blockHashEntries,
  DEFAULT_BUNDLE_RANGES,
  encodeHead,
  encodeSealedRange,
  endsOfEncoded,
  HashIndexBuilder,
  type HeadObject,
  headKey,
  lastRangeIndex,
  type RangeEnds,
  type RangeHashes,
  rangeBounds,
  rangeKeys,
} from "../../proto/range/index.ts";
import type { HistoryRange, HistoryWriter, SealedObject } from "../history/history-writer.ts";
import type { NodeInfoSource } from "../node/ports.ts";
import { type BlobStore, type Body, bodyLength } from "../store/index.ts";
import { BundleWriter } from "./bundle-writer.ts";
import { codecOptions } from "./codec-options.ts";
import { headLightdInfo } from "./head-info.ts";
import type { LevelSweeper } from "./level-sweeper.ts";
import { retrying } from "./retry.ts";
import type { IndexedBlock, Tail } from "./tail.ts";

export interface SealerOptions {
  store: BlobStore;
  info: NodeInfoSource;
  network: string;
  rangeSize: number;
  /** Ranges uploading at once (bounds memory during initial sync). */
  maxInFlight: number;
  /**
   * Projection bytes of the ranges uploading at once, at most (one range always goes, whatever
   * its size); default DEFAULT_UPLOAD_BUDGET_BYTES.
   */
  uploadBudgetBytes?: number;
  /** The head found in the store at start (after bootstrap checks), or null. */
  head: HeadObject | null;
  /** First height of the first range when the store has no head yet. */
  firstHeight: number;
  onUploaded(bytes: number): void;
  /** After the head points past `height`: the tail may drop those blocks. */
  onSealed(head: HeadObject): void;
  onStoreError(err: unknown): void;
  /**
   * The block-hash index of the head's ranges (from bootstrap); default: empty, for a store with no
   * head, with `hashIndexEpochRanges` ranges per epoch.
   */
  hashIndex?: HashIndexBuilder | null;
  hashIndexEpochRanges?: number;
  /** More immutable objects of a range (tree states, origin/treestate), written before its head. */
  rangeObjects?(index: number, blocks: IndexedBlock[]): Promise<{ key: string; bytes: Uint8Array }[]>;
  /**
   * Node-free history (origin/history): each range's raw blocks and transaction table, and the
   * index levels every head names. Off: heads name no history.
   */
  history?: SealerHistory;
  /** Deletes the index levels heads no longer name, after their grace (level-sweeper.ts). */
  sweeper?: LevelSweeper;
  /**
   * Ranges per bundle (proto/range/bundles.ts), default DEFAULT_BUNDLE_RANGES; 0: no bundles (heads
   * name none).
   */
  bundleRanges?: number;
}

export interface SealerHistory {
  writer: HistoryWriter;
  /**
   * The range as history seals it: its blocks' history and raw bytes (spooled, or fetched again
   * for blocks that lack them: restored from the tail log).
   */
  complete(blocks: readonly IndexedBlock[]): Promise<HistoryRange>;
}

export interface Sealer {
  head(): HeadObject | null;
  /** Starts every range that is complete in the tail and ≤ `finalHeight`; waits while too many upload. */
  sealReady(tail: Tail, finalHeight: number): Promise<void>;
  /** Resolves once every started range and its head are written. */
  flush(): Promise<void>;
  /**
   * Rewrites the head with fresh node info when it is older than `maxAgeMs` and nothing is
   * uploading, or sooner when bundles are behind its ranges (after them).
   */
  refreshHead(maxAgeMs: number): Promise<void>;
  /** Whether bundles of sealed ranges are still to be written (refreshHead writes them). */
  bundlesBehind(): boolean;
  /**
   * Whether the history index levels cover fewer ranges than the head (written while catching up;
   * the next head while following, or refreshHead, extends them).
   */
  levelsBehind(): boolean;
}

/**
 * Bundles written before one head at most: a head per range while following writes the one bundle
 * its range completes; a store adopted without bundles (3,500 ranges at mainnet: 350 bundles) gets
 * them a batch per idle refresh, so heads and sealing are never held up for long.
 */
const BUNDLES_PER_HEAD = 32;

const INFO_MAX_AGE_MS = 5_000;

/**
 * A range's blocks stay in the tail until its head is written, and its encoding doubles them while
 * it uploads, so every range in flight holds ≈ twice its projections. The mainnet-shaped ranges of
 * bench/scale (range.ts at payload scale 1) carry 2–3 MB of them in ordinary eras, and 183 MB in
 * the 2022–23 spam (≈ 640 Sapling outputs a block): 4 spam ranges in flight would hold ≈ 1.5 GB.
 * 64 MiB lets one spam range go at a time and leaves the count cap to ordinary ones.
 */
export const DEFAULT_UPLOAD_BUDGET_BYTES = 64 * 1024 * 1024;

/** The bytes a range's projections take in memory (what its upload holds twice). */
export function projectionBytes(blocks: readonly IndexedBlock[]): number {
  let n = 0;
  for (const b of blocks)
    n += b.messages.full.length + b.messages.shielded.length + b.messages.nullifiers.length;
  return n;
}

/**
 * Seals finalized ranges: encodes each once, uploads its data objects then its metadata, and only
 * then moves the head (in range order; a crash in between leaves unreferenced objects that the
 * next run rewrites identically). Several ranges may upload at once; heads are written in order,
 * each after the block-hash index objects it names (proto/range-format.md §Hash index).
 */
export function createSealer(options: SealerOptions): Sealer {
  let head = options.head;
  const firstHeight = head?.firstHeight ?? options.firstHeight;
  let nextIndex =
    (head ? head.firstHeight + head.rangeCount * options.rangeSize : firstHeight) / options.rangeSize;
  let headChain: Promise<void> = Promise.resolve();
  /** The highest height sealReady was told is final: how far the node is ahead of the heads. */
  let finalHeight = -1;
  const inFlight = new Set<Promise<void>>();
  const uploadBudget = options.uploadBudgetBytes ?? DEFAULT_UPLOAD_BUDGET_BYTES;
  let inFlightBytes = 0;
  const uploadedRanges = new Set<number>();
  let headWrittenAt = Date.now();
  let failure: { error: unknown } | undefined;
  let info: { at: number; value: HeadObject["lightdInfo"] } | undefined;
  const hashIndex =
    options.hashIndex ??
    new HashIndexBuilder({
      network: options.network,
      rangeSize: options.rangeSize,
      firstIndex: firstHeight / options.rangeSize,
      epochRanges: options.hashIndexEpochRanges,
    });

  const bundleRanges = options.bundleRanges ?? DEFAULT_BUNDLE_RANGES;
  const bundles =
    bundleRanges === 0
      ? undefined
      : new BundleWriter({
          store: options.store,
          network: options.network,
          rangeSize: options.rangeSize,
          firstIndex: firstHeight / options.rangeSize,
          ranges: bundleRanges,
          stored: head?.bundles,
          put: (key, body) => put(key, body, true),
          get: (key) => retrying(() => options.store.get(key), options.onStoreError),
        });
  /** Set when a range object to bundle is damaged: bundles stop there, sealing goes on. */
  let bundlesStopped = false;
  const writeBundles = async (end: number) => {
    if (bundles === undefined || bundlesStopped) return;
    try {
      await bundles.catchUp(end, BUNDLES_PER_HEAD);
    } catch (err) {
      if (!(err instanceof LightedgeError && err.kind === "corrupt")) throw err;
      // Bundling over a damaged range would hide it; failing would stop sealing for a copy the edge
      // can do without. Heads keep naming the bundles written so far; a restart tries again.
      bundlesStopped = true;
      options.onStoreError(err);
    }
  };
  /** Whether the history index levels cover fewer ranges than `h` (written while catching up). */
  const levelsLag = (h: HeadObject) =>
    options.history !== undefined && options.history.writer.coveredRanges < h.rangeCount;
  /** Range index past the head's last range. */
  const headEnd = (h: HeadObject) => lastRangeIndex(h) + 1;

  const lightdInfo = async () => {
    if (!info || Date.now() - info.at > INFO_MAX_AGE_MS) {
      info = {
        at: Date.now(),
        value: headLightdInfo(await retrying(() => options.info.info(), options.onStoreError)),
      };
    }
    return info.value;
  };

  const put = async (key: string, body: Body, immutable: boolean) => {
    const opts = { contentType: "application/octet-stream", immutable };
    await retrying(
      () => options.store.put(key, body, immutable ? opts : { contentType: "application/json" }),
      options.onStoreError,
    );
    options.onUploaded(bodyLength(body));
  };

  /** Puts a range's objects; resolves to its ends (for the range-ends object of its level). */
  const upload = async (
    index: number,
    blocks: IndexedBlock[],
    historyObjects: readonly SealedObject[],
  ): Promise<RangeEnds> => {
    const input = { network: options.network, rangeSize: options.rangeSize, index, blocks };
    const encoded = encodeSealedRange(input, codecOptions);
    const ends = endsOfEncoded(input, encoded);
    const keys = rangeKeys(options.network, options.rangeSize, index);
    await Promise.all(
      Object.entries(encoded.data).map(([p, bytes]) =>
        put(keys.data[p as keyof typeof keys.data], bytes, true),
      ),
    );
    await Promise.all(historyObjects.map((o) => put(o.key, o.body, true)));
    await put(keys.meta, encoded.meta, true);
    const extra = (await options.rangeObjects?.(index, blocks)) ?? [];
    await Promise.all(extra.map((o) => put(o.key, o.bytes, true)));
    return ends;
  };

  const advanceHead = async (index: number, last: IndexedBlock, entries: RangeHashes, ends: RangeEnds) => {
    uploadedRanges.delete(index);
    hashIndex.add(index, entries, ends);
    if (uploadedRanges.has(index + 1)) return; // the next range's head write supersedes this one
    const indexObjects = hashIndex.objects(codecOptions);
    await Promise.all(indexObjects.map((o) => put(o.key, o.bytes, true)));
    hashIndex.baseStored();
    const rangeCount = index + 1 - firstHeight / options.rangeSize;
    const writer = options.history?.writer;
    // A whole range past this head is final already: a sync, not following (level-schedule.ts).
    const catchingUp = finalHeight >= last.height + options.rangeSize;
    const history =
      writer === undefined
        ? undefined
        : writer.levelsDue(rangeCount, catchingUp)
          ? await writeLevels(writer, rangeCount)
          : writer.storedField;
    await writeBundles(index + 1);
    const next: HeadObject = {
      format: "lightedge-head",
      version: 1,
      network: options.network,
      rangeSize: options.rangeSize,
      firstHeight,
      rangeCount,
      tip: { height: last.height, displayHash: displayHex(last.wireHash), time: last.time },
      updatedAt: new Date().toISOString(),
      lightdInfo: await lightdInfo(),
      hashIndex: hashIndex.headField,
      ...(history ? { history } : {}),
      ...(bundles ? { bundles: bundles.field } : {}),
    };
    await writeHead(next);
    writer?.stored(next);
    options.onSealed(next);
    // In the head chain: no index object of a later head is being written while it deletes.
    await options.sweeper?.afterHead(next);
  };

  /**
   * The index levels covering `rangeCount` ranges, put — streamed out of the history database a
   * shard at a time, each put before the next is built — and the `history` field naming them.
   */
  const writeLevels = async (writer: HistoryWriter, rangeCount: number): Promise<HeadHistory> => {
    for (const o of writer.levelObjects(rangeCount)) await put(o.key, o.bytes, true);
    return writer.headField(rangeCount);
  };

  const writeHead = async (next: HeadObject) => {
    await put(headKey(options.network), encodeHead(next), false);
    head = next;
    headWrittenAt = Date.now();
  };

  const start = (index: number, blocks: IndexedBlock[], history: HistoryRange | undefined, bytes: number) => {
    const entries = blockHashEntries(blocks);
    // Applied to the history database here, synchronously and in range order (uploads overlap).
    const historyObjects = history ? options.history!.writer.sealRange(index, history) : [];
    // The raw-block object (the spool's file, or parts holding the bytes until they are uploaded)
    // has what it needs: the tail keeps the blocks until the head is written, but not raw bytes
    // (≈ 80 KB a block on mainnet-sized chains, ≈ 600 KB in the 2022–23 spam), which nothing reads
    // again.
    if (history) for (const block of blocks) block.raw = undefined;
    const uploaded = upload(index, blocks, historyObjects);
    uploaded.then(
      () => uploadedRanges.add(index),
      () => {},
    );
    headChain = headChain
      .then(() => uploaded)
      .then((ends) => advanceHead(index, blocks[blocks.length - 1]!, entries, ends));
    const task = headChain;
    inFlight.add(task);
    inFlightBytes += bytes;
    task.then(
      () => {
        inFlight.delete(task);
        inFlightBytes -= bytes;
      },
      (error: unknown) => {
        inFlight.delete(task);
        inFlightBytes -= bytes;
        failure ??= { error };
      },
    );
  };

  return {
    head: () => head,
    async sealReady(tail, final) {
      finalHeight = Math.max(finalHeight, final);
      for (;;) {
        const { first, last } = rangeBounds(nextIndex, options.rangeSize);
        if (
          last > finalHeight ||
          (tail.first()?.height ?? Infinity) > first ||
          (tail.last()?.height ?? -1) < last
        )
          break;
        const blocks = tail.slice(first, last);
        const bytes = projectionBytes(blocks);
        while (
          inFlight.size >= options.maxInFlight ||
          (inFlight.size > 0 && inFlightBytes + bytes > uploadBudget)
        )
          await Promise.race(inFlight).catch(() => {});
        if (failure) throw failure.error;
        const history = options.history ? await options.history.complete(blocks) : undefined;
        start(nextIndex, blocks, history, bytes);
        nextIndex++;
      }
      if (failure) throw failure.error;
    },
    async refreshHead(maxAgeMs) {
      if (head === null || inFlight.size > 0) return;
      const current = head;
      const behind = !bundlesStopped && bundles?.behind(headEnd(current)) === true;
      const writer = options.history?.writer;
      const levelsBehind = levelsLag(current);
      if (!behind && !levelsBehind && Date.now() - headWrittenAt < maxAgeMs) return;
      headChain = headChain.then(async () => {
        if (behind) await writeBundles(headEnd(current));
        // Levels a sync left behind the head (it stopped, or its last head was written before
        // the node's tip was reached): nothing else would extend them until the next range.
        const history = levelsBehind ? await writeLevels(writer!, current.rangeCount) : current.history;
        await writeHead({
          ...current,
          updatedAt: new Date().toISOString(),
          lightdInfo: await lightdInfo(),
          ...(history ? { history } : {}),
          ...(bundles ? { bundles: bundles.field } : {}),
        });
        if (levelsBehind) writer!.stored(head!);
        // A store following the tip writes a head per range (≈ a day on mainnet): the idle
        // refresh is when most levels' grace runs out.
        await options.sweeper?.afterHead(head!);
      });
      await headChain;
    },
    bundlesBehind: () => !bundlesStopped && head !== null && bundles?.behind(headEnd(head)) === true,
    levelsBehind: () => head !== null && levelsLag(head),
    async flush() {
      await headChain.catch(() => {});
      if (failure) throw failure.error;
    },
  };
}
