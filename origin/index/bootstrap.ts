import { displayHex, equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import {
  blockInfo,
  decodeHead,
  encodeHead,
  type HeadObject,
  headKey,
  lastWireHash,
  type RangeMeta,
} from "../../proto/range/index.ts";
import type { ChainSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { IndexerConfigError } from "./config-error.ts";
import type { SealedReader } from "./sealed-reader.ts";

export interface BootstrapOptions {
  store: BlobStore;
  chain: ChainSource;
  sealed: SealedReader;
  network: string;
  rangeSize: number;
  /** Range checks in flight. */
  concurrency: number;
  log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export interface BootstrapResult {
  /** The head to resume from (cut back before the first bad range, and rewritten so, if any). */
  head: HeadObject | null;
  /** Ranges whose last hash disagrees with the node (or that are missing/corrupt/unchained). */
  mismatches: number[];
}

/**
 * Adopts whatever the store already holds (our own earlier run or another origin's): each sealed
 * range's last block hash is checked against this node (one getblockhash per range) and its parent
 * hash against the previous range. The head is cut back before the first range that fails, so
 * readers stop using it at once, and the indexer rebuilds from there.
 */
export async function bootstrapFromStore(options: BootstrapOptions): Promise<BootstrapResult> {
  const bytes = await options.store.get(headKey(options.network));
  if (bytes === null) return { head: null, mismatches: [] };
  const head = decodeHead(bytes);
  if (head.rangeSize !== options.rangeSize) {
    throw new IndexerConfigError(
      "index.bootstrap",
      `the store's head uses range size ${head.rangeSize}; run with --range-size ${head.rangeSize}`,
    );
  }
  const firstIndex = head.firstHeight / head.rangeSize;
  const metas = new Map<number, RangeMeta>();
  const mismatches: number[] = [];
  const indexes = Array.from({ length: head.rangeCount }, (_, k) => firstIndex + k);
  await forEachLimited(indexes, options.concurrency, async (index) => {
    const meta = await options.sealed.meta(index).catch((err: unknown) => {
      if (err instanceof LightedgeError && (err.kind === "not-found" || err.kind === "corrupt"))
        return undefined;
      throw err;
    });
    const nodeHash = meta ? await options.chain.blockHash(meta.lastHeight) : undefined;
    if (meta === undefined || nodeHash !== displayHex(lastWireHash(meta))) mismatches.push(index);
    else metas.set(index, meta);
  });
  for (const index of indexes.slice(1)) {
    const meta = metas.get(index);
    const previous = metas.get(index - 1);
    if (meta && previous && !equalBytes(meta.parentWireHash, lastWireHash(previous))) mismatches.push(index);
  }
  mismatches.sort((a, b) => a - b);
  if (mismatches.length === 0) {
    options.log.info(
      { ranges: head.rangeCount, sealedTip: head.tip?.height },
      "store ranges verified against the node",
    );
    return { head, mismatches };
  }
  options.log.error(
    { mismatches, firstBad: mismatches[0] },
    "sealed ranges disagree with the node; rebuilding from the first bad range",
  );
  return { head: await cutHead(options, head, mismatches[0]!, metas), mismatches };
}

async function cutHead(
  options: BootstrapOptions,
  head: HeadObject,
  badIndex: number,
  metas: Map<number, RangeMeta>,
): Promise<HeadObject> {
  const rangeCount = badIndex - head.firstHeight / head.rangeSize;
  const last = metas.get(badIndex - 1);
  const tip =
    rangeCount > 0 && last
      ? { height: last.lastHeight, displayHash: displayHex(lastWireHash(last)), time: lastTime(last) }
      : null;
  const cut: HeadObject = {
    ...head,
    rangeCount: tip ? rangeCount : 0,
    tip,
    updatedAt: new Date().toISOString(),
  };
  await options.store.put(headKey(options.network), encodeHead(cut), { contentType: "application/json" });
  options.sealed.forget(badIndex);
  return cut;
}

function lastTime(meta: RangeMeta): number {
  return blockInfo(meta, meta.lastHeight).time;
}

async function forEachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
