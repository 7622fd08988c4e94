import type { Logger } from "pino";
import { equalBytes } from "../../proto/bytes.ts";
import type { Tail } from "./tail.ts";
import type { TailLog } from "./tail-log.ts";

export interface RestoreInput {
  log: TailLog;
  tail: Tail;
  /** The store's sealed tip (after bootstrap checks), or undefined when nothing is sealed. */
  sealedTip: { height: number; wireHash: Uint8Array } | undefined;
  /** First height to index when nothing is sealed. */
  floor: number;
  logger: Pick<Logger, "info">;
}

/**
 * Refills the in-memory tail from the data dir after a restart. The log is used only when it
 * continues the sealed tip exactly (next height, matching prevHash); anything else (a gap left by
 * a crash during initial sync, a head cut back by bootstrap) is discarded and refetched.
 * Returns the lowest logged height (Infinity when the log was discarded or empty).
 */
export function restoreTail({ log, tail, sealedTip, floor, logger }: RestoreInput): number {
  const blocks = log.load().filter((b) => b.height > (sealedTip?.height ?? -1));
  const first = blocks[0];
  const expected = sealedTip ? sealedTip.height + 1 : floor;
  const continues =
    first !== undefined &&
    first.height === expected &&
    (sealedTip === undefined || equalBytes(first.wirePrevHash, sealedTip.wireHash));
  if (!continues) {
    if (first)
      logger.info(
        { logFrom: first.height, expected },
        "tail log does not continue the sealed tip; discarding it",
      );
    log.rewrite([]);
    return Infinity;
  }
  for (const block of blocks) tail.append(block);
  logger.info(
    { from: first.height, to: blocks[blocks.length - 1]!.height },
    "tail restored from the data dir",
  );
  return first.height;
}
