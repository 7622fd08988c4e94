import { Worker } from "node:worker_threads";
import { LightedgeError } from "../../proto/errors.ts";
import { runSubtreeJob, type SubtreeJob, type SubtreeJobResult } from "./subtree-job.ts";

export interface SubtreeJobRunner {
  run(job: SubtreeJob): Promise<SubtreeJobResult>;
  close(): Promise<void>;
}

/** Runs subtree jobs on `count` worker threads (least busy first); 0 runs them inline. */
export function createSubtreeJobRunner(count: number): SubtreeJobRunner {
  if (count === 0) return { run: async (job) => runSubtreeJob(job), close: async () => {} };
  const url = new URL("./backfill-worker.ts", import.meta.url);
  const workers = Array.from({ length: count }, () => ({ w: new Worker(url), busy: 0 }));
  const waiting = new Map<number, { resolve: (r: SubtreeJobResult) => void; reject: (e: Error) => void }>();
  for (const slot of workers) {
    slot.w.on("message", (m: { id: number; result?: SubtreeJobResult; error?: string }) => {
      slot.busy--;
      const p = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.result) p?.resolve(m.result);
      else p?.reject(new LightedgeError("internal", "treestate.backfill-worker", m.error ?? "worker failed"));
    });
  }
  let next = 0;
  return {
    run(job) {
      const id = next++;
      const slot = workers.reduce((a, b) => (b.busy < a.busy ? b : a));
      slot.busy++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        // A buffer the job owns whole moves to the worker (the sender keeps nothing of it);
        // a view into a larger buffer is copied, as structured clone would copy all of it.
        const { leaves } = job;
        const owned = leaves.byteOffset === 0 && leaves.byteLength === leaves.buffer.byteLength;
        slot.w.postMessage({ id, job }, owned ? [leaves.buffer as ArrayBuffer] : []);
      });
    },
    async close() {
      await Promise.all(workers.map((s) => s.w.terminate()));
    },
  };
}
