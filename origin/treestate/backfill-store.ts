import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import { decodeHead, type HeadObject, headKey, rangeBounds } from "../../proto/range/index.ts";
import { createTreeStateReader, treeStateKey } from "../../proto/treestate/index.ts";
import { createSealedReader } from "../index/index.ts";
import type { NodeInfoSource, TreeStateSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { type BackfillMismatch, runBackfill } from "./backfill.ts";
import { storedBlocks } from "./backfill-source.ts";
import { createSubtreeJobRunner } from "./backfill-workers.ts";
import { createSubtreeLedger } from "./subtree-ledger.ts";
import { resolveTreeStart, treeActivations } from "./tree-start.ts";

const CHAIN_NAMES: Record<string, string> = { mainnet: "main", testnet: "test", regtest: "regtest" };

export interface StoreBackfillOptions {
  store: BlobStore;
  network: string;
  node: TreeStateSource & NodeInfoSource;
  /** Where the resume point is kept (`backfill-trees-<network>-r<size>.json`). */
  dataDir: string;
  workers: number;
  /** Check every n-th range's last tree state against z_gettreestate (0 = never). */
  sampleEvery: number;
  /**
   * @deprecated No effect: the dev node's tree states are computed like a real node's now, so its
   * values are a start and are compared like any node's.
   */
  synthetic?: boolean;
  /** A value the node reports differently (ours is stored); default: a JSON line on stderr. */
  onMismatch?: (m: BackfillMismatch) => void;
  /** Stop before this range index (default: the first range the live origin already covered). */
  toIndex?: number;
  onRange?: (index: number, of: number) => void;
}

export interface StoreBackfillResult {
  fromIndex: number;
  toIndex: number;
  ranges: number;
  subtrees: number;
}

/**
 * `lightedge backfill-trees`: tree-state objects for sealed ranges that have none, read from the
 * store's own "full" projection, resumable (the data dir keeps the next range to do; the stored
 * object before it holds the frontier to restart from).
 */
export async function backfillStore(o: StoreBackfillOptions): Promise<StoreBackfillResult> {
  const head = await readHead(o.store, o.network);
  const first = head.firstHeight / head.rangeSize;
  const end = first + head.rangeCount;
  const progress = join(o.dataDir, `backfill-trees-${o.network}-r${head.rangeSize}.json`);
  const fromIndex = Math.max(first, readProgress(progress));
  const toIndex = Math.min(end, o.toIndex ?? (await coveredSuffix(o.store, o.network, head, fromIndex)));
  if (fromIndex >= toIndex) return { fromIndex, toIndex, ranges: 0, subtrees: 0 };
  const reader = createTreeStateReader({ read: (k, r) => o.store.get(k, r), network: o.network });
  const info = await o.node.info();
  const activations = treeActivations(info);
  const resolved = await resolveTreeStart({
    height: rangeBounds(fromIndex, head.rangeSize).first - 1,
    stored: (h) => reader.at(head.rangeSize, h),
    activations,
    node: o.node,
  });
  if (resolved === undefined)
    throw new LightedgeError(
      "unavailable",
      "treestate.backfill-store",
      `no frontier before range ${fromIndex}`,
    );
  const runner = createSubtreeJobRunner(o.workers);
  const sealed = createSealedReader(o.store, o.network, head.rangeSize);
  try {
    const result = await runBackfill({
      network: o.network,
      chainName: CHAIN_NAMES[o.network] ?? o.network,
      rangeSize: head.rangeSize,
      fromIndex,
      toIndex,
      start: resolved.start,
      activations,
      blocks: (from, to) => storedBlocks(sealed, from, to),
      runner,
      ledger: createSubtreeLedger(),
      write: async (objects) => {
        for (const w of objects)
          await o.store.put(w.key, w.bytes, { contentType: "application/octet-stream", immutable: true });
      },
      saveProgress: async (next) => {
        writeProgress(progress, next);
        o.onRange?.(next - 1, toIndex);
      },
      node: o.node,
      sampleEvery: o.sampleEvery,
      onMismatch:
        o.onMismatch ??
        ((m) =>
          process.stderr.write(
            `${JSON.stringify({ msg: "tree state differs from the node's; ours stored", ...m })}\n`,
          )),
    });
    return { fromIndex, toIndex, ...result };
  } finally {
    await runner.close();
  }
}

async function readHead(store: BlobStore, network: string): Promise<HeadObject> {
  const bytes = await store.get(headKey(network));
  if (bytes === null)
    throw new LightedgeError("not-found", "treestate.backfill-store", `no sealed ranges for ${network}`);
  return decodeHead(bytes);
}

/**
 * The first range of the suffix the live origin's producer already wrote (it covers every range
 * sealed after it started), found by binary search over `from..count`; the end when none.
 */
async function coveredSuffix(store: BlobStore, network: string, head: HeadObject, from: number) {
  let lo = from;
  let hi = head.firstHeight / head.rangeSize + head.rangeCount;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await store.stat(treeStateKey(network, head.rangeSize, mid))) !== null) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function readProgress(path: string): number {
  try {
    const next = (JSON.parse(readFileSync(path, "utf8")) as { next?: unknown }).next;
    return typeof next === "number" && Number.isSafeInteger(next) && next >= 0 ? next : 0;
  } catch {
    return 0;
  }
}

function writeProgress(path: string, next: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify({ next })}\n`);
  renameSync(`${path}.tmp`, path);
}
