import type { Logger } from "pino";
import { toHex } from "../../proto/bytes.ts";
import {
  parseFinalState,
  type SubtreePool,
  serializeFinalState,
  type TreeStateView,
} from "../../proto/treestate/index.ts";
import type { TreeStateSource } from "../node/ports.ts";
import type { TreeStateMetrics } from "./metrics.ts";
import { finalStateOf } from "./node-final-state.ts";

/** One value of ours to compare with the node's. */
export type TreeStateCheck =
  /** Our tree state after a height (a sealed range's last one). */
  | { kind: "state"; view: TreeStateView }
  /** The tree state after a tail height, looked up when the check runs (`ours`). */
  | { kind: "tip"; height: number }
  /** A subtree root we computed: subtree `index` of `pool`, completed by block `height`. */
  | { kind: "subtree"; pool: SubtreePool; index: number; root: Uint8Array; height: number };

export interface NodeCheckOptions {
  node: TreeStateSource;
  log: Pick<Logger, "warn" | "error">;
  metrics?: TreeStateMetrics;
  /** Our served tree state after a height (for `tip` checks); undefined = not computed yet. */
  ours?: (height: number) => Promise<TreeStateView | undefined>;
  /** Checks waiting at most; more are dropped (counted), so a slow node never piles up work. */
  limit?: number;
}

export interface NodeCheck {
  /** Queues a check; never waits for it (sealing and indexing must not). */
  add(check: TreeStateCheck): void;
  /** Resolves once every queued check has run (tests). */
  idle(): Promise<void>;
  close(): void;
}

const POOLS = ["sapling", "orchard", "ironwood"] as const;
const TREE_FIELD = { sapling: "saplingTree", orchard: "orchardTree", ironwood: "ironwoodTree" } as const;

/** One text per tree, whichever node style wrote it (zcashd minimal, zebrad padded); "" = empty. */
const canonical = (finalState: string) => serializeFinalState(parseFinalState(finalState || "000000"));

/**
 * Compares the origin's tree states and subtree roots with the node's where the node offers them
 * (z_gettreestate, z_getsubtreesbyindex), one request at a time, off the indexing and sealing
 * paths. A difference increments `lightedge_treestate_node_mismatch_total{pool}` and is logged with
 * the height, pool and both values; the origin keeps serving its own. A node that lacks a value,
 * fails, or names another block at that height (a reorg since) is no mismatch.
 */
export function createNodeCheck(o: NodeCheckOptions): NodeCheck {
  const limit = o.limit ?? 256;
  const queue: TreeStateCheck[] = [];
  let running: Promise<void> | undefined;
  let closed = false;
  const count = (kind: string, result: string) => o.metrics?.checks.inc({ kind, result });

  const mismatch = (pool: string, fields: Record<string, unknown>, what: string) => {
    o.metrics?.mismatch.inc({ pool });
    o.log.error({ pool, ...fields }, `${what} differs from the node's; serving the origin's own`);
  };

  const compareState = async (view: TreeStateView) => {
    const theirs = await o.node.treeState(view.height).catch(() => undefined);
    if (theirs === undefined || theirs.hash !== view.hash) return count("state", "absent");
    for (const pool of POOLS) {
      const node = await finalStateOf((h) => o.node.treeState(h), theirs, pool).catch(() => "");
      // zebrad omits the commitments of a pool without a tree: nothing to compare.
      if (!node) {
        count("state", "absent");
        continue;
      }
      const ours = view[TREE_FIELD[pool]];
      let equal: boolean;
      try {
        equal = canonical(ours) === canonical(node);
      } catch {
        count("state", "absent"); // the node's text does not parse: not a value to compare
        continue;
      }
      count("state", equal ? "equal" : "mismatch");
      if (!equal) mismatch(pool, { height: view.height, ours, theirs: node }, `${pool} tree state`);
    }
  };

  const compareSubtree = async (c: Extract<TreeStateCheck, { kind: "subtree" }>) => {
    const answer = await o.node.subtrees(c.pool, c.index, 1).catch(() => undefined);
    const theirs = answer?.subtrees[0];
    if (answer === undefined || answer.start_index !== c.index || theirs === undefined)
      return count("subtree", "absent");
    const ours = toHex(c.root);
    const equal = theirs.root.toLowerCase() === ours && theirs.end_height === c.height;
    count("subtree", equal ? "equal" : "mismatch");
    if (!equal)
      mismatch(
        c.pool,
        {
          height: c.height,
          index: c.index,
          ours,
          theirs: theirs.root,
          theirHeight: theirs.end_height,
        },
        `${c.pool} subtree ${c.index} root`,
      );
  };

  const run = async (c: TreeStateCheck) => {
    if (c.kind === "subtree") return compareSubtree(c);
    const view = c.kind === "state" ? c.view : await o.ours?.(c.height).catch(() => undefined);
    if (view === undefined) return count("state", "absent");
    return compareState(view);
  };

  const drain = async () => {
    while (!closed && queue.length > 0) {
      const c = queue.shift()!;
      try {
        await run(c);
      } catch (err) {
        o.log.warn({ err }, "comparing tree states with the node");
      }
    }
    running = undefined;
  };

  return {
    add(check) {
      if (closed) return;
      if (queue.length >= limit) return count(check.kind === "subtree" ? "subtree" : "state", "dropped");
      queue.push(check);
      running ??= drain();
    },
    idle: async () => {
      while (running) await running;
    },
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}
