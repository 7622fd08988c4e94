import { toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { rangeBounds } from "../../proto/range/index.ts";
import {
  encodeTreeStateRange,
  legacyTreeSize,
  parseFinalState,
  serializeFinalState,
  type TreeStateBlock,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import type { TreeStateSource } from "../node/ports.ts";
import type { TreePool } from "../trees/index.ts";
import type { BackfillBlock } from "./backfill-source.ts";
import type { SubtreeJobRunner } from "./backfill-workers.ts";
import { finalStateOf } from "./node-final-state.ts";
import { createPoolLane, type PoolLane } from "./pool-lane.ts";
import type { StoredObjectWrite, SubtreeLedger } from "./subtree-ledger.ts";

export interface BackfillOptions {
  network: string;
  chainName: string;
  rangeSize: number;
  /** Ranges fromIndex..toIndex − 1 are produced. */
  fromIndex: number;
  toIndex: number;
  /** finalState strings after the height before range fromIndex ("" = pool not active). */
  start: { sapling: string; orchard: string; ironwood?: string };
  activations: { sapling?: number; orchard?: number; ironwood?: number };
  blocks(from: number, to: number): AsyncIterable<BackfillBlock>;
  runner: SubtreeJobRunner;
  ledger: SubtreeLedger;
  /** Writes a range's objects (before progress is saved). */
  write(objects: StoredObjectWrite[]): Promise<void>;
  /** Records that every range below `nextIndex` is stored (resume point). */
  saveProgress(nextIndex: number): Promise<void>;
  /**
   * Compares every subtree root, and the last height of every `sampleEvery`-th range, with the node;
   * a difference goes to `onMismatch` and our value is stored (the node lacking one is no mismatch).
   */
  node?: TreeStateSource;
  sampleEvery?: number;
  onMismatch?: (m: BackfillMismatch) => void;
}

export interface BackfillMismatch {
  pool: TreePool;
  height: number;
  /** Set for a subtree root. */
  index?: number;
  ours: string;
  theirs: string;
}

/** Ironwood is hashed as Orchard (origin/trees/README.md). */
const POOLS: readonly TreePool[] = ["sapling", "orchard", "ironwood"];

/**
 * A block waiting for its range to be written: its identity and tree sizes only. Its leaves are
 * in the pool lanes; a range waits until the subtree jobs its blocks end in have started, which
 * for a pool with few leaves is many ranges later, so a row must not hold them (or its block).
 */
interface Row {
  height: number;
  wireHash: Uint8Array;
  time: number;
  sizes: Record<TreePool, number>;
}

/**
 * Backfills tree-state objects for sealed ranges: reads the blocks in order, runs one job per
 * 2¹⁶-leaf subtree on worker threads, and writes each range once the subtrees its blocks end in
 * are computed. Resumable at any range boundary (the caller passes the stored frontier there).
 */
export async function runBackfill(o: BackfillOptions): Promise<{ ranges: number; subtrees: number }> {
  const lanes = Object.fromEntries(POOLS.map((pool) => [pool, laneFor(o, pool)])) as Record<
    TreePool,
    PoolLane
  >;
  const first = rangeBounds(o.fromIndex, o.rangeSize).first;
  const last = rangeBounds(o.toIndex - 1, o.rangeSize).last;
  let rows: Row[] = [];
  let next = o.fromIndex;
  let subtrees = 0;
  const emitReady = async (all: boolean) => {
    for (;;) {
      const { last: end } = rangeBounds(next, o.rangeSize);
      const upto = rows.findIndex((r) => r.height === end);
      if (upto < 0) return;
      const part = rows.slice(0, upto + 1);
      if (!all && !part.every((r) => POOLS.every((p) => lanes[p].ready(r.sizes[p])))) return;
      subtrees += await emitRange(o, lanes, next, part);
      rows = rows.slice(upto + 1);
      next++;
    }
  };
  for await (const block of o.blocks(first, last)) {
    const leaves = {
      sapling: block.saplingCmus,
      orchard: block.orchardCmxs,
      ironwood: block.ironwoodCmxs ?? [],
    };
    for (const pool of POOLS) lanes[pool].add(block.height, block.wireHash, leaves[pool]);
    rows.push({
      height: block.height,
      wireHash: block.wireHash,
      time: block.time,
      sizes: {
        sapling: lanes.sapling.size(),
        orchard: lanes.orchard.size(),
        ironwood: lanes.ironwood.size(),
      },
    });
    // At every range end, not only the end of range `next`: a range not ready at its own end (a
    // pool's subtree job not started) becomes ready at a later one, and checking only `next`'s end
    // would leave every later range, with its subtree jobs' frontiers, held to the end of the run
    // (memory growing with the chain: 1.97 GB at 200,000 dev blocks).
    if ((block.height + 1) % o.rangeSize === 0) await emitReady(false);
  }
  for (const pool of POOLS) lanes[pool].flush();
  await emitReady(true);
  if (next !== o.toIndex)
    throw new LightedgeError("internal", "treestate.backfill", `stopped at range ${next} of ${o.toIndex}`);
  return { ranges: o.toIndex - o.fromIndex, subtrees };
}

function laneFor(o: BackfillOptions, pool: TreePool): PoolLane {
  const hex = o.start[pool] ?? "";
  const start = hex ? parseFinalState(hex) : undefined;
  const node = o.node;
  return createPoolLane({
    pool,
    start: start && legacyTreeSize(start) > 0 ? start : undefined,
    startSize: start ? legacyTreeSize(start) : 0,
    runner: o.runner,
    ledger: o.ledger,
    nodeRoot: node
      ? async (i) => {
          const answer = await node.subtrees(pool, i, 1).catch(() => undefined);
          return answer?.start_index === i ? answer.subtrees[0]?.root : undefined;
        }
      : undefined,
    onMismatch: (index, height, ours, theirs) => o.onMismatch?.({ pool, height, index, ours, theirs }),
  });
}

async function emitRange(
  o: BackfillOptions,
  lanes: Record<TreePool, PoolLane>,
  index: number,
  rows: Row[],
): Promise<number> {
  const blocks: TreeStateBlock[] = [];
  const newRoots: Record<TreePool, number[]> = { sapling: [], orchard: [], ironwood: [] };
  for (const r of rows) {
    const b: TreeStateBlock = { height: r.height, wireHash: r.wireHash, time: r.time };
    for (const pool of POOLS) {
      const n = r.sizes[pool];
      const activation = o.activations[pool];
      if (n > 0) {
        const { tree, newRoots: roots } = await lanes[pool].treeAt(n);
        b[pool] = tree;
        newRoots[pool].push(...roots);
      } else if ((activation !== undefined && r.height >= activation) || (o.start[pool] ?? "") !== "") {
        b[pool] = { parents: [] };
      }
    }
    blocks.push(b);
  }
  await checkSample(o, index, blocks[blocks.length - 1]!);
  const objects: StoredObjectWrite[] = [
    {
      key: treeStateKey(o.network, o.rangeSize, index),
      bytes: encodeTreeStateRange({ network: o.chainName, blocks }),
    },
  ];
  for (const pool of POOLS) objects.push(...o.ledger.chunkObjects(o.network, pool, newRoots[pool]));
  await o.write(objects);
  await o.saveProgress(index + 1);
  return newRoots.sapling.length + newRoots.orchard.length + newRoots.ironwood.length;
}

/**
 * Compares our tree after a sampled height with the node's z_gettreestate (either node's style);
 * a pool the node gives no finalState for, or a node that fails, is not compared.
 */
async function checkSample(o: BackfillOptions, index: number, b: TreeStateBlock): Promise<void> {
  if (!o.node || !o.sampleEvery || index % o.sampleEvery !== 0) return;
  const node = o.node;
  const state = await node.treeState(b.height).catch(() => undefined);
  if (state === undefined || state.hash !== toHex(b.wireHash.slice().reverse())) return;
  for (const pool of POOLS) {
    const theirs = await finalStateOf((h) => node.treeState(h), state, pool).catch(() => "");
    if (!theirs) continue;
    const ours = serializeFinalState(b[pool] ?? { parents: [] });
    let same: boolean;
    try {
      same = ours === serializeFinalState(parseFinalState(theirs));
    } catch {
      continue;
    }
    if (!same) o.onMismatch?.({ pool, height: b.height, ours, theirs });
  }
}
