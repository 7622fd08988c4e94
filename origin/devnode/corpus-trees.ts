import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LightedgeError } from "../../proto/errors.ts";
import { POOLS, type Pool } from "./commitments.ts";
import type { RealSubtree, RealTreeState } from "./start-frontier.ts";
import type { Network } from "./types.ts";

/**
 * The corpus's real tree data for one network (test/corpus/chain/README.md "Tree states"):
 * - `rpc/zebrad-<net>/z_gettreestate-<h>.json`: real zebrad responses (served as they are);
 * - `treestate/<net>/<h>.json`: wallet checkpoints (finalState per pool; no roots);
 * - `rpc/zebrad-<net>/z_getsubtreesbyindex*.json`: real subtree roots and end heights.
 * Files that disagree about a subtree are an error: the corpus is the ground truth here.
 */
export interface CorpusTreeData {
  /** By height; a zebrad response wins over a checkpoint at the same height. */
  states: RealTreeState[];
  subtrees: Record<Pool, Map<number, RealSubtree>>;
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

export function loadCorpusTrees(dir: string, network: Network): CorpusTreeData {
  const states = new Map<number, RealTreeState>();
  const cps = join(dir, "treestate", network);
  for (const f of list(cps)) {
    if (!/^\d+\.json$/.test(f)) continue;
    const cp = readJson(join(cps, f)) as Record<string, string | undefined>;
    const height = Number(cp.height);
    const pools: Partial<Record<Pool, string>> = {};
    if (cp.saplingTree) pools.sapling = cp.saplingTree;
    if (cp.orchardTree) pools.orchard = cp.orchardTree;
    if (cp.ironwoodTree) pools.ironwood = cp.ironwoodTree;
    states.set(height, { height, hash: cp.hash!, time: Number(cp.time), pools });
  }
  const rpc = join(dir, "rpc", `zebrad-${network}`);
  const subtrees: CorpusTreeData["subtrees"] = {
    sapling: new Map(),
    orchard: new Map(),
    ironwood: new Map(),
  };
  for (const f of list(rpc)) {
    if (/^z_gettreestate-\d+\.json$/.test(f)) {
      const r = readJson(join(rpc, f)).result as Record<string, unknown>;
      const pools: Partial<Record<Pool, string>> = {};
      for (const pool of POOLS) {
        const c = (r[pool] as { commitments?: { finalState?: string } } | undefined)?.commitments;
        if (c?.finalState) pools[pool] = c.finalState;
      }
      const height = Number(r.height);
      states.set(height, { height, hash: String(r.hash), time: Number(r.time), pools, zebrad: r });
    } else if (/^z_getsubtreesbyindex.*\.json$/.test(f)) {
      const r = readJson(join(rpc, f)).result as {
        pool: Pool;
        start_index: number;
        subtrees: { root: string; end_height: number }[];
      };
      r.subtrees.forEach((s, k) => {
        const index = r.start_index + k;
        const had = subtrees[r.pool].get(index);
        if (had && (had.root !== s.root || had.endHeight !== s.end_height))
          throw new LightedgeError(
            "corrupt",
            "devnode.corpus",
            `devnode: corpus files disagree on ${r.pool} subtree ${index}`,
          );
        subtrees[r.pool].set(index, { index, root: s.root, endHeight: s.end_height });
      });
    }
  }
  return { states: [...states.values()].sort((a, b) => a.height - b.height), subtrees };
}
