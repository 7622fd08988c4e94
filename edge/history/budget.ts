import { maxRangesFor } from "../blocks/plan.ts";
import { heldUntilCancelled } from "../request-scope.ts";

/**
 * How many storage reads one history call may make (GetTaddress*, GetAddressUtxos*): directory
 * shards not yet in the isolate, address records, raw-block spans. A call that needs more — a long
 * address list spread over many shards, an address with transactions in thousands of ranges — is
 * proxied whole to the origin instead, before anything is read or sent, rather than failing on the
 * Workers subrequest limit halfway.
 *
 * A history read costs what a block range's read does (through the Cache API layer a miss is a
 * match, the read and a put: edge/store/cached-reader.ts), with the same subrequests kept for the
 * head, the origin and retries: the block-range cap (edge/blocks/plan.ts) is this cap. Under the
 * default budget (10,000 subrequests) 3,328 reads; wrangler.toml raises the budget to 50,000
 * (16,661 reads, SUBREQUEST_BUDGET): 10,000 addresses spread over every shard of a mainnet level
 * still fit their directory reads; their records may not (one read per address and level), and
 * then the origin answers.
 */
export function maxHistoryReadsFor(budget: number): number {
  return maxRangesFor(budget);
}

/**
 * Address records the isolate's history calls may hold at once (MAX_HISTORY_RECORDS unless set):
 * each call's stored records (counted from their directory entries before any is read) plus the
 * origin's above the levels (History/TailAddresses is asked for at most this many per call). A
 * call that would take the isolate past it is proxied whole to the origin, whose node answers it.
 * Why a count: a record decoded in the isolate weighs ≈ 670 bytes of heap beside its 104 stored
 * bytes (measured: 200,000 decoded under V8, 2026-12-07), and a Worker has 128 MB for every
 * request it is running at once — the busiest mainnet addresses (pool payouts, exchanges) have
 * millions of records, and three calls for addresses just under a per-call bound would end the
 * isolate, every request in it with them. 50,000 is ≈ 39 MB at most in all.
 */
export const DEFAULT_MAX_HISTORY_RECORDS = 50_000;

/** Records held by this isolate's history calls now: module state lives as long as the isolate. */
let heldRecords = 0;

/** Records the isolate's history calls hold now (GET /stats). */
export function heldHistoryRecords(): number {
  return heldRecords;
}

/**
 * Takes `count` records of the isolate's `limit` for one call: the release to call once they are
 * no longer referenced (idempotent; the request's cancellation releases too, request-scope.ts), or
 * undefined when they do not fit beside the other calls'.
 */
export function holdRecords(count: number, limit: number): (() => void) | undefined {
  if (count > 0 && heldRecords + count > limit) return undefined;
  heldRecords += count;
  return heldUntilCancelled(() => {
    heldRecords -= count;
  });
}
