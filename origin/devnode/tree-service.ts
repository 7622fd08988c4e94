import { type Commitments, noCommitments, POOLS, type Pool, txsCommitments } from "./commitments.ts";
import { buildStartFrontier } from "./start-build.ts";
import type { StartPlan } from "./start-frontier.ts";
import { blockEra, syntheticBody } from "./synthetic-block.ts";
import { type ComputedSubtree, createTreeEngine, type Frontiers, type TreeStateAt } from "./tree-engine.ts";
import type { ChainEvent, Network } from "./types.ts";

/**
 * What the tree worker knows of the chain: enough to regenerate any block's commitments — the
 * seed and era rules for synthetic blocks, the corpus run's commitments, and every mine/reorg event
 * (branch numbers, staged transactions) since the chain was created.
 */
export interface TreeWorkerInit {
  network: Network;
  synthetic: boolean;
  seed: string;
  base: number;
  /** Last corpus height (base − 1 on a synthetic chain). */
  fixedTo: number;
  /** Corpus commitments, heights base..fixedTo. */
  fixed: Commitments[];
  starts: Record<Pool, StartPlan>;
  /** The tip before `events`. */
  tip: number;
  events: ChainEvent[];
}

export type ToTreeWorker =
  | { type: "init"; init: TreeWorkerInit }
  | { type: "event"; event: ChainEvent }
  | { type: "state"; id: number; height: number }
  | { type: "subtrees"; id: number; pool: Pool; tip: number };

export type FromTreeWorker =
  | { type: "warm" }
  | { type: "state"; id: number; state: TreeStateAt }
  | { type: "subtrees"; id: number; list: ComputedSubtree[] }
  | { type: "error"; id: number; message: string };

export interface TreeService {
  apply(e: ChainEvent): void;
  stateAt(height: number): TreeStateAt;
  subtrees(pool: Pool, tip: number): ComputedSubtree[];
  /**
   * Background work: moves the cursor for about `budgetMs` towards the tip, at most AHEAD blocks
   * past the highest height asked for (a 200,000-block chain is computed as far as it is used);
   * true when there, and at once before anything was asked.
   */
  work(budgetMs: number): boolean;
}

/** Blocks the background walk goes past the highest height requested. */
const AHEAD = 5_000;

/** The worker's logic (tree-worker.ts is only its thread entry); also usable in-thread by tests. */
export function createTreeService(init: TreeWorkerInit): TreeService {
  const branchOf = new Map<number, number>();
  const extras = new Map<number, Commitments>();
  let tip = init.tip;
  /** Highest height asked for; none yet: no background walk (see `work`). */
  let wanted: number | undefined;
  const commitments = (h: number): Commitments => {
    const branch = branchOf.get(h) ?? 0;
    if (h <= init.fixedTo && branch === 0) return init.fixed[h - init.base]!;
    const body = syntheticBody(init.seed, h, branch, [], blockEra(init.network, init.synthetic, h));
    const c = txsCommitments(body.txs);
    const x = extras.get(h);
    if (x) for (const pool of POOLS) c[pool].push(...x[pool]);
    return c;
  };
  const start = {} as Frontiers;
  for (const pool of POOLS) start[pool] = buildStartFrontier(init.starts[pool]);
  const engine = createTreeEngine({ base: init.base, start, commitments });
  const apply = (e: ChainEvent) => {
    if (e.kind === "mine") {
      for (const [h, raws] of e.extras) extras.set(h, txsCommitments(raws, noCommitments()));
      tip = Math.max(tip, e.to);
    } else {
      for (let h = e.from; h <= e.to; h++) {
        branchOf.set(h, e.branch);
        extras.delete(h);
      }
    }
    engine.invalidate(e.from);
  };
  for (const e of init.events) apply(e);
  return {
    apply,
    stateAt(height) {
      wanted = Math.max(wanted ?? height, height);
      return engine.stateAt(height);
    },
    subtrees(pool, upTo) {
      wanted = Math.max(wanted ?? upTo, upTo);
      engine.advance(upTo);
      return engine.subtrees(pool).filter((s) => s.endHeight <= upTo);
    },
    // Nothing asked yet, nothing walked: a node nobody asks about trees (`lightedge index`, the
    // delivery bench) used to walk its first 5,000 blocks at start-up anyway, ~25 CPU-s on a
    // synthetic chain taken from the server and the indexer sharing the machine.
    work: (budgetMs) => wanted === undefined || engine.advance(Math.min(tip, wanted + AHEAD), budgetMs),
  };
}
