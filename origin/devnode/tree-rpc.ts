import { SUBTREE_LEAF_COUNT as SUBTREE_LEAVES } from "../../proto/treestate/subtree-reader.ts";
import { POOLS, type Pool } from "./commitments.ts";
import type { NodeState } from "./node-state.ts";
import { faults } from "./rpc-error.ts";
import type { PoolTree } from "./tree-engine.ts";
import { poolActivations } from "./upgrades.ts";

/**
 * z_gettreestate / z_getsubtreesbyindex in zebrad's shapes, from the trees the dev node computes
 * (tree-engine.ts on the tree worker) and, in corpus mode, the corpus's real zebrad values:
 *
 * - a pool before its activation is `{"commitments":{}}`; from it on, `finalRoot` (Sapling
 *   byte-reversed, Orchard and Ironwood as stored — zebrad's display order) and `finalState`
 *   (zebrad's style, parents padded to 31); `ironwood` is present from NU6.3 on;
 * - corpus mode also answers below the run: `from − 1` (the start frontier, so a wallet birthday at
 *   the run's first block works) and any height with a real zebrad response (served as is); inside
 *   the run the computed trees are served;
 * - subtrees completed before the run are the corpus's real ones, in index order, and the list
 *   ends at the first the corpus lacks; later ones are computed (README.md here).
 */

const VALID_POOLS = 'invalid pool name, must be one of: "sapling", "orchard", "ironwood"';

/** A height to answer for: in the chain, or (corpus mode) just below it. */
function resolveTreeHeight(state: NodeState, id: unknown): number {
  const { chain } = state;
  const tip = state.tip();
  const corpus = state.corpus;
  if (typeof id === "number" || (typeof id === "string" && /^\d{1,10}$/.test(id))) {
    const h = Number(id);
    if (Number.isSafeInteger(h) && h >= chain.base && h <= tip) return h;
    if (corpus && (h === chain.base - 1 || corpus.zebrad.has(h))) return h;
    throw faults.blockNotFound();
  }
  if (typeof id !== "string") throw faults.invalidParams("invalid block hash or height");
  const hash = id.toLowerCase();
  const h = chain.heightOf(hash);
  if (h !== undefined && h <= tip) return h;
  if (corpus) {
    if (hash === corpus.startHash) return chain.base - 1;
    for (const [height, z] of corpus.zebrad) if (z.hash === hash) return height;
  }
  throw faults.blockNotFound();
}

export async function treeState(state: NodeState, id: unknown): Promise<Record<string, unknown>> {
  const height = resolveTreeHeight(state, id);
  const { chain } = state;
  // Below the run a real response is the answer; inside it the computed trees are (they extend
  // the start frontier, so they equal the real ones wherever the start is real: corpus.test.ts).
  const real = state.corpus?.zebrad.get(height);
  if (real && height < chain.base) return real;
  const trees = await state.trees.stateAt(height);
  const active = poolActivations(chain.network, chain.synthetic);
  const pool = (p: Pool, t: PoolTree) =>
    height < active[p]
      ? { commitments: {} }
      : { commitments: { finalRoot: displayRoot(p, t.root), finalState: t.finalState } };
  const below = height < chain.base;
  const out: Record<string, unknown> = {
    hash: below ? state.corpus!.startHash : chain.hashAt(height),
    height,
    time: below ? state.corpus!.startTime : state.blocks.get(chain, height).time,
    sapling: pool("sapling", trees.sapling),
    orchard: pool("orchard", trees.orchard),
  };
  if (height >= active.ironwood) out.ironwood = pool("ironwood", trees.ironwood);
  return out;
}

/** zebrad shows the Sapling root byte-reversed and Orchard-hash roots as stored (origin/trees/real-chain.test.ts). */
function displayRoot(pool: Pool, leHex: string): string {
  return pool === "sapling" ? Buffer.from(leHex, "hex").reverse().toString("hex") : leHex;
}

export async function subtrees(
  state: NodeState,
  pool: unknown,
  start: unknown,
  limit: unknown,
): Promise<Record<string, unknown>> {
  if (typeof pool !== "string" || !(POOLS as readonly string[]).includes(pool))
    throw faults.invalidParams(VALID_POOLS);
  const p = pool as Pool;
  if (typeof start !== "number" || !Number.isSafeInteger(start) || start < 0)
    throw faults.invalidParams("invalid start index");
  const max =
    typeof limit === "number" && Number.isSafeInteger(limit) && limit > 0 ? limit : Number.POSITIVE_INFINITY;
  const tip = state.tip();
  const corpus = state.corpus;
  // Subtrees complete before the run: real ones only (the start frontier agrees with them), and
  // only when the corpus has every one of them. A wallet stores subtree roots as one contiguous
  // range and later writes the subtree its birthday frontier is in: roots 0..10 followed by its own
  // 17 fail (shardtree SubtreeDiscontinuity), so a partial list is worse than none.
  const before = corpus ? Math.floor(corpus.startSizes[p] / SUBTREE_LEAVES) : 0;
  const allKnown = corpus === undefined || range(before).every((i) => corpus.subtrees[p].has(i));
  if (!allKnown && start < before) return { pool: p, start_index: start, subtrees: [] };
  const computed = new Map((await state.trees.subtrees(p, tip)).map((s) => [s.index, s]));
  const list: { root: string; end_height: number }[] = [];
  for (let i = start; list.length < max; i++) {
    const s = i < before ? corpus!.subtrees[p].get(i) : computed.get(i);
    if (s === undefined) break;
    list.push({ root: s.root, end_height: s.endHeight });
  }
  return { pool: p, start_index: start, subtrees: list };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
