import { parentPort } from "node:worker_threads";
import type { TreePool } from "./merkle-hasher.ts";
import { computeSubtreeRoot } from "./subtree.ts";

/** Worker entry: receives { id, pool, leaves } and posts back { id, root } or { id, error }. */
parentPort?.on("message", (msg: { id: number; pool: TreePool; leaves: Uint8Array[] }) => {
  try {
    parentPort!.postMessage({ id: msg.id, root: computeSubtreeRoot(msg.pool, msg.leaves) });
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: String(err) });
  }
});
