import type { HeadObject } from "../../proto/range/index.ts";
import type { Sealer } from "./sealer.ts";

/**
 * A sealer that seals nothing until `ready` gives the real one. Node-free history catches up at
 * start (origin/history/catch-up.ts: every sealed range's raw blocks applied to the history
 * database, from the store or — for a store sealed before history — from the node); at mainnet
 * height that is millions of blocks. Meanwhile the origin serves the store and follows the node,
 * and finalized blocks wait in the tail (≈ 1,150 a day on mainnet); sealing needs the history
 * database caught up, since each range is applied to it in order.
 */
export function deferredSealer(head: HeadObject | null, ready: Promise<Sealer>): Sealer {
  let sealer: Sealer | undefined;
  // Rejects only when the indexer stops (the catch-up retries every other failure).
  ready.then(
    (s) => {
      sealer = s;
    },
    () => {},
  );
  return {
    head: () => (sealer ? sealer.head() : head),
    sealReady: (tail, finalHeight) => (sealer ? sealer.sealReady(tail, finalHeight) : Promise.resolve()),
    flush: () => (sealer ? sealer.flush() : Promise.resolve()),
    refreshHead: (maxAgeMs) => (sealer ? sealer.refreshHead(maxAgeMs) : Promise.resolve()),
    bundlesBehind: () => sealer?.bundlesBehind() ?? false,
    levelsBehind: () => sealer?.levelsBehind() ?? false,
  };
}
