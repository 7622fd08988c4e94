import { displayHex, equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";

/** Identity of a block as a continuity check needs it. */
export interface Link {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
}

/**
 * `chain-break` unless `next` (the block sent after `previous`) chains to it: ascending,
 * next.prevHash = previous.hash; descending, previous.prevHash = next.hash (protocol.md: a prevHash
 * discontinuity is ABORTED, lightwalletd 0.5.3). Usually a reorg mid-stream: the client retries.
 */
export function assertChained(previous: Link | undefined, next: Link, ascending: boolean): void {
  if (previous === undefined) return;
  const [lower, upper] = ascending ? [previous, next] : [next, previous];
  if (upper.height === lower.height + 1 && equalBytes(upper.wirePrevHash, lower.wireHash)) return;
  throw new LightedgeError(
    "chain-break",
    "chain-link",
    `block ${upper.height} does not follow block ${lower.height} (${displayHex(lower.wireHash)}): the chain changed mid-stream, retry`,
  );
}

/**
 * Continuity of what one response sends, run by run: each run's first block must follow the
 * previous run's last. Sealed runs are checked from their metadata (inside a range the encoder
 * already refused blocks that do not chain); blocks from a tail are runs of one.
 */
export class ChainCheck {
  readonly #ascending: boolean;
  /** The last block sent. Ascending, only its height and hash are read (`ascendingRun`). */
  #previous: Link | undefined;

  constructor(ascending: boolean) {
    this.#ascending = ascending;
  }

  /** A run sent in order: `first` is the first block sent, `last` the last. */
  run(first: Link, last: Link = first): void {
    assertChained(this.#previous, first, this.#ascending);
    this.#previous = last;
  }

  /**
   * An ascending run known by its ends alone (a whole sealed range read without its block table,
   * proto/range/range-ends.ts): its first block's parent hash and its last block's hash. Ascending,
   * that is all a check reads: the next block's prevHash against the previous block's hash.
   */
  ascendingRun(
    first: { height: number; wirePrevHash: Uint8Array },
    last: { height: number; wireHash: Uint8Array },
  ): void {
    if (!this.#ascending)
      throw new LightedgeError("internal", "chain-link", "a run known by its ends is checked ascending only");
    const unknown = new Uint8Array(0);
    assertChained(this.#previous, { ...first, wireHash: unknown }, true);
    this.#previous = { ...last, wirePrevHash: unknown };
  }
}
