import { equalBytes, wireHashOf } from "../../proto/bytes.ts";
import { type HeadObject, rangeBounds, rangeIndexOf } from "../../proto/range/index.ts";
import type { RawSpool } from "../history/raw-spool.ts";
import type { BlockTip, ChainSource } from "../node/ports.ts";
import { fetchBlocks } from "./fetch-pipeline.ts";
import { findForkPoint } from "./fork.ts";
import type { Sealer } from "./sealer.ts";
import type { IndexedBlock, Tail } from "./tail.ts";
import type { TailLog } from "./tail-log.ts";

/** Extension point: keep derived state (e.g. tree frontiers, origin/trees) in step with the tail. */
export interface IndexHooks {
  /** Blocks appended to the tail, in order. */
  onAppend?(blocks: readonly IndexedBlock[]): void;
  /** Every block above `height` was rolled back (reorg). */
  onRollback?(height: number): void;
  /** More immutable objects of a range being sealed (tree states), written before its head. */
  rangeObjects?(index: number, blocks: IndexedBlock[]): Promise<{ key: string; bytes: Uint8Array }[]>;
}

/** Everything one poll step reads and changes (owned by the indexer). */
export interface FollowState {
  chain: ChainSource;
  tail: Tail;
  log: TailLog;
  sealer: Sealer;
  rangeSize: number;
  sealDepth: number;
  concurrency: number;
  chunkSize: number;
  /** Raw block bytes in flight (fetch-budget.ts); undefined: the pipeline's default. */
  fetchBudgetBytes?: number;
  /** Keep fetched blocks' raw bytes and history (node-free history seals them). */
  history?: boolean;
  /** Where appended blocks' raw bytes go until their range seals (history on): out of memory. */
  rawSpool?: RawSpool;
  floor: number;
  /** Highest height ever declared final (node tip − seal depth): blocks at or below never move. */
  finalized: number;
  /** Lowest height whose block is in the tail log (Infinity when none). */
  loggedFrom: number;
  alarm: string | undefined;
  hooks: IndexHooks;
  signal: AbortSignal;
  onAppended(blocks: readonly IndexedBlock[]): void;
  onReorg(info: { fork: number; depth: number; deep: boolean }): void;
  /**
   * Throws a configuration error when the node is not on the configured network: called before
   * a reorg is acted on (another node behind the same URL looks like one) and with the genesis
   * block when height 0 is fetched.
   */
  checkNode(genesis?: IndexedBlock): Promise<void> | void;
}

export type StepOutcome = "idle" | "progress" | "alarm";

/** One poll: compare with the node's best block, fetch and append what is new, handle reorgs, seal. */
export async function followStep(s: FollowState, best: BlockTip): Promise<StepOutcome> {
  if (s.alarm) return "alarm";
  // The node's new tip makes more blocks final only once our chain is known to be its chain (our
  // tip is its tip, or its next block chains to ours); a reorg is judged against the old value.
  const final = best.height - s.sealDepth;
  const top = topOf(s);
  if (top && top.height === best.height && equalBytes(top.wireHash, wireHashOf(best.displayHash))) {
    s.finalized = Math.max(s.finalized, final);
    await s.sealer.sealReady(s.tail, s.finalized);
    return "idle";
  }
  if (top && best.height <= top.height) return rollBack(s, best);
  const from = top ? top.height + 1 : s.floor;
  const options = {
    concurrency: s.concurrency,
    chunkSize: s.chunkSize,
    budgetBytes: s.fetchBudgetBytes,
    signal: s.signal,
    history: s.history,
    previous: s.tail.last(),
  };
  for await (const chunk of fetchBlocks(s.chain, from, best.height, options)) {
    const appended: IndexedBlock[] = [];
    for (const block of chunk) {
      if (block.height === 0) await s.checkNode(block);
      const last = topOf(s);
      if (last && !equalBytes(block.wirePrevHash, last.wireHash)) {
        commit(s, appended);
        return rollBack(s, best);
      }
      s.tail.append(block);
      appended.push(block);
      s.finalized = Math.max(s.finalized, final);
    }
    commit(s, appended);
    await s.sealer.sealReady(s.tail, s.finalized);
    if (s.signal.aborted) break;
  }
  return "progress";
}

/** The newest block we serve: the tail tip, else the sealed tip. */
function topOf(s: FollowState): { height: number; wireHash: Uint8Array } | undefined {
  const last = s.tail.last();
  if (last) return last;
  const tip = s.sealer.head()?.tip;
  return tip ? { height: tip.height, wireHash: wireHashOf(tip.displayHash) } : undefined;
}

/** Persists (unless about to be sealed anyway), tells the hooks and the indexer. */
function commit(s: FollowState, blocks: IndexedBlock[]): void {
  if (blocks.length === 0) return;
  // Blocks of a range that seals right away are not logged: a crash refetches them, and skipping
  // the write keeps initial sync off the local disk. The log must stay one contiguous chain.
  const keep = blocks.filter((b) => s.loggedFrom !== Infinity || rangeEnd(s, b.height) > s.finalized);
  if (keep.length > 0) {
    if (s.loggedFrom === Infinity) s.loggedFrom = keep[0]!.height;
    s.log.append(keep);
  }
  // Spooled bytes leave the block: the range's raw-block object is written from the file.
  if (s.rawSpool) for (const b of blocks) if (b.raw && s.rawSpool.append(b.height, b.raw)) b.raw = undefined;
  s.hooks.onAppend?.(blocks);
  s.onAppended(blocks);
}

function rangeEnd(s: FollowState, height: number): number {
  return rangeBounds(rangeIndexOf(height, s.rangeSize), s.rangeSize).last;
}

/**
 * The node no longer has our tip: find the fork point, drop everything above it, and let the next
 * step fetch the new branch — even when the reorg is deeper than the seal depth, as long as the
 * fork point is in the unsealed tail (nothing immutable is wrong yet; blocks above the fork are no
 * longer counted final). A fork below the sealed tip stops everything (alarm): sealed ranges can
 * not be unwritten, so the indexer withholds its tail and serves only sealed history.
 */
async function rollBack(s: FollowState, best: BlockTip): Promise<StepOutcome> {
  await s.checkNode();
  // Ranges still uploading become sealed data first: a fork below one of them reaches sealed data.
  await s.sealer.flush();
  const top = topOf(s)!;
  const head: HeadObject | null = s.sealer.head();
  const sealed = head?.tip
    ? { height: head.tip.height, wireHash: wireHashOf(head.tip.displayHash) }
    : undefined;
  const fork = await findForkPoint(s.chain, s.tail, Math.min(top.height, best.height), sealed, s.floor);
  const depth = top.height - fork;
  const deep = fork < (sealed?.height ?? -1);
  s.onReorg({ fork, depth, deep });
  if (deep) {
    s.alarm =
      `reorg of depth ${depth} at height ${fork + 1} reaches sealed ranges (sealed through ` +
      `${sealed!.height}; deeper than the seal depth ${s.sealDepth}): following stopped`;
    return "alarm";
  }
  // Heights above the fork were declared final on the abandoned branch; the new branch earns it.
  s.finalized = Math.min(s.finalized, fork);
  s.tail.truncateAbove(fork);
  s.rawSpool?.truncateAbove(fork);
  s.hooks.onRollback?.(fork);
  if (s.loggedFrom !== Infinity) {
    const first = Math.max(s.loggedFrom, s.tail.first()?.height ?? Infinity);
    const last = s.tail.last()?.height ?? -1;
    s.log.rewrite(first <= last ? s.tail.slice(first, last) : []);
    if (first > last) s.loggedFrom = Infinity;
  }
  return "progress";
}
