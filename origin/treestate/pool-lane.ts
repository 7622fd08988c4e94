import { toHex } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { LegacyTree } from "../../proto/treestate/legacy-tree.ts";
import { type Frontier, SUBTREE_LEAVES, type TreePool } from "../trees/index.ts";
import type { SubtreeJobRunner } from "./backfill-workers.ts";
import { appendRoots, joinLegacy, splitLegacy } from "./split-frontier.ts";
import type { SubtreeLedger } from "./subtree-ledger.ts";

interface JobOutcome {
  lows: Map<number, LegacyTree>;
  root?: Uint8Array;
}

export interface PoolLaneOptions {
  pool: TreePool;
  /** The whole tree before the first block (undefined = empty). */
  start?: LegacyTree;
  startSize: number;
  runner: SubtreeJobRunner;
  ledger: SubtreeLedger;
  /** The node's root of subtree `index` (hex), to compare ours with; undefined = not offered. */
  nodeRoot?: (index: number) => Promise<string | undefined>;
  /** The node's root differs: ours is kept (and stored), this reports it. */
  onMismatch?: (index: number, height: number, ours: string, theirs: string) => void;
}

/**
 * One pool's backfill: leaves are gathered one 2¹⁶-leaf subtree at a time and each full subtree is
 * a job on a worker; a block's tree is its subtree job's within-subtree frontier joined with the
 * frontier over the completed subtree roots before it (split-frontier.ts).
 */
export function createPoolLane(o: PoolLaneOptions) {
  const split = o.start
    ? splitLegacy(o.pool, o.start)
    : { low: undefined, high: { size: 0, leaf: undefined, ommers: [], pending: [] } as Frontier };
  let high = split.high;
  let size = o.startSize;
  let startLow = split.low;
  // The current subtree's leaves, packed (subtree-job.ts): `count` of them so far.
  let buffer = new Uint8Array(SUBTREE_LEAVES * 32);
  let count = 0;
  let boundaries: number[] = [];
  const jobs = new Map<number, Promise<JobOutcome>>();
  const completing = new Map<number, { height: number; wireHash: Uint8Array }>();

  const dispatch = () => {
    const k = Math.floor((size - 1) / SUBTREE_LEAVES);
    const job = { pool: o.pool, startLow, leaves: buffer.subarray(0, count * 32), boundaries };
    const base = startLow;
    const baseM = size - k * SUBTREE_LEAVES - count;
    const run = o.runner.run(job).then((r) => {
      const lows = new Map<number, LegacyTree>();
      if (base) lows.set(baseM, base);
      job.boundaries.forEach((m, i) => {
        lows.set(m, r.lows[i]!);
      });
      return { lows, root: r.root };
    });
    run.catch(() => {});
    jobs.set(k, run);
    // A new buffer: the job's may have moved to its worker.
    buffer = new Uint8Array(SUBTREE_LEAVES * 32);
    count = 0;
    boundaries = [];
    startLow = undefined;
  };

  const local = (n: number) => n - Math.floor((n - 1) / SUBTREE_LEAVES) * SUBTREE_LEAVES;

  return {
    size: () => size,
    /** Appends one block's leaves; the block's tree is then `treeAt(size())`. */
    add(height: number, wireHash: Uint8Array, cms: readonly Uint8Array[]) {
      cms.forEach((cm, i) => {
        if (cm.length !== 32)
          throw new LightedgeError(
            "malformed",
            "treestate.backfill",
            `a ${o.pool} note commitment is not 32 bytes`,
          );
        buffer.set(cm, count * 32);
        count++;
        size++;
        if (size % SUBTREE_LEAVES === 0) {
          completing.set(size / SUBTREE_LEAVES - 1, { height, wireHash });
          if (i === cms.length - 1) boundaries.push(SUBTREE_LEAVES);
          dispatch();
        }
      });
      if (count > 0 && cms.length > 0) boundaries.push(local(size));
    },
    /** True when the job holding the tree of size `n` has been started. */
    ready: (n: number) => n === 0 || n === o.startSize || jobs.has(Math.floor((n - 1) / SUBTREE_LEAVES)),
    /** Starts the job of the partial subtree (end of the backfill span). */
    flush: () => (count > 0 || startLow !== undefined) && dispatch(),
    /** The whole tree after a block left it at `n` leaves (n ≥ 1; calls in ascending n). */
    async treeAt(n: number): Promise<{ tree: LegacyTree; newRoots: number[] }> {
      const newRoots: number[] = [];
      if (n === o.startSize && o.start) return { tree: o.start, newRoots };
      const k = Math.floor((n - 1) / SUBTREE_LEAVES);
      while (high.size < k) {
        const i = high.size;
        const done = await jobs.get(i)!;
        const root = done.root!;
        const expected = await o.nodeRoot?.(i);
        const c = completing.get(i)!;
        if (expected !== undefined && expected.toLowerCase() !== toHex(root))
          o.onMismatch?.(i, c.height, toHex(root), expected);
        o.ledger.add(o.pool, i, { root, completingHeight: c.height, completingWireHash: c.wireHash });
        high = appendRoots(o.pool, high, [root]);
        jobs.delete(i);
        newRoots.push(i);
      }
      const outcome = await jobs.get(k)!;
      const low = outcome.lows.get(n - k * SUBTREE_LEAVES);
      if (low === undefined)
        throw new LightedgeError("internal", "treestate.backfill", `no frontier at ${o.pool} size ${n}`);
      return { tree: joinLegacy(low, high), newRoots };
    },
  };
}

export type PoolLane = ReturnType<typeof createPoolLane>;
