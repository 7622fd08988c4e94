import { LightedgeError } from "../../proto/errors.ts";
import { rangeBounds } from "../../proto/range/index.ts";
import {
  encodeTreeStateRange,
  type LegacyTree,
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
  start: { sapling: string; orchard: string };
  activations: { sapling?: number; orchard?: number };
  blocks(from: number, to: number): AsyncIterable<BackfillBlock>;
  runner: SubtreeJobRunner;
  ledger: SubtreeLedger;
  /** Writes a range's objects (before progress is saved). */
  write(objects: StoredObjectWrite[]): Promise<void>;
  /** Records that every range below `nextIndex` is stored (resume point). */
  saveProgress(nextIndex: number): Promise<void>;
  /** Checks every subtree root, and the last height of every `sampleEvery`-th range, against the node. */
  node?: TreeStateSource;
  sampleEvery?: number;
  ironwood?: (height: number) => Promise<string>;
}

const POOLS: readonly TreePool[] = ["sapling", "orchard"];

interface Row {
  block: BackfillBlock;
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
      const upto = rows.findIndex((r) => r.block.height === end);
      if (upto < 0) return;
      const part = rows.slice(0, upto + 1);
      if (!all && !part.every((r) => POOLS.every((p) => lanes[p].ready(r.sizes[p])))) return;
      subtrees += await emitRange(o, lanes, next, part);
      rows = rows.slice(upto + 1);
      next++;
    }
  };
  for await (const block of o.blocks(first, last)) {
    for (const pool of POOLS)
      lanes[pool].add(
        block.height,
        block.wireHash,
        pool === "sapling" ? block.saplingCmus : block.orchardCmxs,
      );
    rows.push({ block, sizes: { sapling: lanes.sapling.size(), orchard: lanes.orchard.size() } });
    if (block.height === rangeBounds(next, o.rangeSize).last) await emitReady(false);
  }
  for (const pool of POOLS) lanes[pool].flush();
  await emitReady(true);
  if (next !== o.toIndex)
    throw new LightedgeError("internal", "treestate.backfill", `stopped at range ${next} of ${o.toIndex}`);
  return { ranges: o.toIndex - o.fromIndex, subtrees };
}

function laneFor(o: BackfillOptions, pool: TreePool): PoolLane {
  const hex = o.start[pool];
  const start = hex ? parseFinalState(hex) : undefined;
  const node = o.node;
  return createPoolLane({
    pool,
    start: start && legacyTreeSize(start) > 0 ? start : undefined,
    startSize: start ? legacyTreeSize(start) : 0,
    runner: o.runner,
    ledger: o.ledger,
    nodeRoot: node
      ? async (i) => (await node.subtrees(pool, i, 1)).subtrees.find((_, j) => j === 0)?.root
      : undefined,
  });
}

async function emitRange(
  o: BackfillOptions,
  lanes: Record<TreePool, PoolLane>,
  index: number,
  rows: Row[],
): Promise<number> {
  const blocks: TreeStateBlock[] = [];
  const newRoots: Record<TreePool, number[]> = { sapling: [], orchard: [] };
  let ironwood = { size: -1, tree: undefined as LegacyTree | undefined };
  for (const r of rows) {
    const b: TreeStateBlock = { height: r.block.height, wireHash: r.block.wireHash, time: r.block.time };
    for (const pool of POOLS) {
      const n = r.sizes[pool];
      const activation = o.activations[pool];
      if (n > 0) {
        const { tree, newRoots: roots } = await lanes[pool].treeAt(n);
        b[pool] = tree;
        newRoots[pool].push(...roots);
      } else if ((activation !== undefined && r.block.height >= activation) || o.start[pool] !== "") {
        b[pool] = { parents: [] };
      }
    }
    // Ironwood is node-sourced: asked at the range start and wherever its tree size changes.
    if (o.ironwood && r.block.ironwoodSize !== ironwood.size) {
      const hex = await o.ironwood(r.block.height);
      ironwood = { size: r.block.ironwoodSize ?? 0, tree: hex ? parseFinalState(hex) : undefined };
    }
    b.ironwood = ironwood.tree;
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
  return newRoots.sapling.length + newRoots.orchard.length;
}

/** Compares our tree after a sampled height with the node's z_gettreestate (either node's style). */
async function checkSample(o: BackfillOptions, index: number, b: TreeStateBlock): Promise<void> {
  if (!o.node || !o.sampleEvery || index % o.sampleEvery !== 0) return;
  const state = await o.node.treeState(b.height);
  for (const pool of POOLS) {
    const theirs = state[pool].commitments.finalState;
    if (theirs === undefined) continue;
    const ours = b[pool] ? serializeFinalState(b[pool]) : "";
    if (ours !== serializeFinalState(parseFinalState(theirs)))
      throw new LightedgeError(
        "corrupt",
        "treestate.backfill",
        `${pool} tree after ${b.height} differs from the node's`,
      );
  }
}
