/**
 * When a head rewrites the history index levels (proto/range-format.md §Node-free history, Which
 * exist). Pure.
 *
 * Every head names levels of the ranges they cover, and a level is rewritten whole: the recent one
 * (up to an epoch of ranges) with every head, the base one (every whole epoch from the first range)
 * with every epoch. Following the node that is one head a range, and cheap. A sync from genesis
 * would pay it for every head too: at mainnet height about 1.9 G base rows and as many recent ones
 * (origin/history/README.md, "Cost of the levels while catching up"), as much CPU as indexing the
 * blocks. So while the node is far ahead, a head keeps naming the levels it had until the ranges
 * they lack reach max(an epoch, the ranges they cover): the rows rewritten over the whole sync then
 * stay within about twice the final levels' (each rewrite at most doubles the coverage), and the
 * origin answers for the heights above them (History/TailAddresses, GetTransaction), as it does
 * for its unsealed tail.
 */
export interface LevelScheduleInput {
  /** Ranges the levels in the store cover (named by the newest head). */
  covered: number;
  /** Ranges the head about to be written names. */
  rangeCount: number;
  /** Ranges per epoch of the levels. */
  epochRanges: number;
  /** The node is at least a whole range ahead of this head's last block (a sync, not following). */
  catchingUp: boolean;
}

/** Whether the head about to be written rewrites the levels to cover all its ranges. */
export function levelsDue(o: LevelScheduleInput): boolean {
  if (o.rangeCount <= o.covered) return false;
  if (!o.catchingUp) return true;
  return o.rangeCount - o.covered >= Math.max(o.epochRanges, o.covered);
}
