import { DEFAULT_SUBREQUEST_BUDGET } from "../blocks/plan.ts";

/**
 * How many storage reads one history call may make (GetTaddress*, GetAddressUtxos*): directory
 * shards not yet in the isolate, address records, raw-block spans. A call that needs more — a long
 * address list spread over many shards, an address with transactions in thousands of ranges — is
 * proxied whole to the origin instead, before anything is read or sent, rather than failing on the
 * Workers subrequest limit halfway.
 */

/** Subrequests kept for the head, the origin's tip and tail, and retries. */
const RESERVED_SUBREQUESTS = 16;

/**
 * Subrequests one storage read may cost: through the Cache API layer a miss is a match, the read
 * and a put (edge/store/cached-reader.ts); as a block range's CALLS_PER_RANGE (edge/blocks/plan.ts).
 */
const CALLS_PER_READ = 3;

/** Most storage reads one history call may make within `budget` subrequests per request. */
export function maxHistoryReadsFor(budget: number): number {
  return Math.max(1, Math.floor((budget - RESERVED_SUBREQUESTS) / CALLS_PER_READ));
}

/**
 * The cap under the default budget (10,000 subrequests): 3,328 reads. wrangler.toml raises the
 * budget to 50,000 (16,661 reads, SUBREQUEST_BUDGET): 10,000 addresses spread over every shard of a
 * mainnet level still fit their directory reads; their records may not (one read per address and
 * level), and then the origin answers.
 */
export const MAX_HISTORY_READS_PER_REQUEST = maxHistoryReadsFor(DEFAULT_SUBREQUEST_BUDGET);
