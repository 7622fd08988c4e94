import { Worker } from "node:worker_threads";
import { LightedgeError } from "../../proto/errors.ts";
import type { TreePool } from "./merkle-hasher.ts";

export interface SubtreeWorkers {
  /** Computes one subtree root on the next worker (round robin). */
  computeSubtreeRoot(pool: TreePool, leaves: Uint8Array[]): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** A small worker_threads pool for backfill; each worker builds its own hash tables once. */
export function createSubtreeWorkers(count: number): SubtreeWorkers {
  const url = new URL("./subtree-worker.ts", import.meta.url);
  const workers = Array.from({ length: count }, () => new Worker(url));
  const waiting = new Map<number, { resolve: (r: Uint8Array) => void; reject: (e: Error) => void }>();
  for (const w of workers) {
    w.on("message", (m: { id: number; root?: Uint8Array; error?: string }) => {
      const p = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.root) p?.resolve(m.root);
      else p?.reject(new LightedgeError("internal", "trees.subtree-worker", m.error ?? "worker failed"));
    });
  }
  let next = 0;
  return {
    computeSubtreeRoot(pool, leaves) {
      const id = next++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        workers[id % count]!.postMessage({ id, pool, leaves });
      });
    },
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
