import { displayHex, equalBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";

export interface Link {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
}

/**
 * Continuity of what one response sends, checked run by run from the metadata (sealed ranges) and
 * block by block for the origin's tail: each run's first block must follow the previous run's last
 * (protocol.md: a prevHash discontinuity → ABORTED, LWD 0.5.3). Inside a sealed range the encoder
 * already refused blocks that do not chain.
 */
export interface ChainCheck {
  /** A run sent in order: `first` is the first block sent, `last` the last. */
  run(first: Link, last: Link): void;
}

export function createChainCheck(ascending: boolean): ChainCheck {
  let previous: Link | undefined;
  return {
    run(first, last) {
      if (previous !== undefined) {
        // Ascending: first.prevHash = previous.hash. Descending: previous.prevHash = first.hash.
        const [lower, upper] = ascending ? [previous, first] : [first, previous];
        if (upper.height !== lower.height + 1 || !equalBytes(upper.wirePrevHash, lower.wireHash)) {
          throw new LightedgeError(
            "chain-break",
            "edge.chain-check",
            `block ${upper.height} does not follow block ${lower.height} (${displayHex(lower.wireHash)}); the chain changed, retry`,
          );
        }
      }
      previous = last;
    },
  };
}
