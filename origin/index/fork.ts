import { equalBytes, wireHashOf } from "../../proto/bytes.ts";
import type { ChainSource } from "../node/ports.ts";
import type { Tail } from "./tail.ts";

/** Hashes compared per round trip while walking back (a depth-100 reorg costs 7 rounds). */
const PROBE = 16;

/**
 * Walks back from `top` to the highest height where our chain and the node's agree (LWD drops one
 * block at a time; we probe in parallel batches). Heights at or below the sealed tip are compared
 * through `wireHashView`; returns -1 when even the lowest compared height differs (nothing in common
 * at or above `floor`).
 */
export async function findForkPoint(
  chain: ChainSource,
  tail: Tail,
  top: number,
  sealed: { height: number; wireHash: Uint8Array } | undefined,
  floor: number,
): Promise<number> {
  const ours = (h: number): Uint8Array | undefined =>
    h === sealed?.height ? sealed.wireHash : tail.get(h)?.wireHash;
  const lowest = sealed?.height ?? tail.first()?.height ?? floor;
  for (let high = top; high >= lowest; high -= PROBE) {
    const heights = Array.from({ length: Math.min(PROBE, high - lowest + 1) }, (_, k) => high - k);
    const theirs = await Promise.all(heights.map((h) => chain.blockHash(h)));
    for (let k = 0; k < heights.length; k++) {
      const mine = ours(heights[k]!);
      if (mine && equalBytes(mine, wireHashOf(theirs[k]!))) return heights[k]!;
    }
  }
  return lowest - 1;
}
