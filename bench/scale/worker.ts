import { parentPort, workerData } from "node:worker_threads";
import { openStore } from "../../origin/store/index.ts";
import type { RangeEnds, RangeHashes } from "../../proto/range/index.ts";
import { createRangeBuilder, type RangeOptions } from "./range.ts";

/**
 * One generator thread: builds the ranges `first + k·stride` below `end` and writes their objects
 * (data, metadata, tree states) to the store, `inFlight` ranges uploading at once. Reports each
 * range's tip, hash-index entries, ends and byte counts to the main thread, which writes the hash index
 * and then the head once all are durable.
 */
export interface WorkerJob {
  /** With the point pools computed once by the main thread (≈ 0.2 CPU-s per thread otherwise). */
  options: RangeOptions;
  store: string;
  first: number;
  end: number;
  stride: number;
  inFlight: number;
}

export type WorkerMessage =
  | {
      kind: "range";
      index: number;
      tip: { height: number; wireHash: Uint8Array; time: number };
      hashEntries: RangeHashes;
      ends: RangeEnds;
      bytes: Record<string, number>;
    }
  | { kind: "done" }
  | { kind: "error"; message: string };

async function run(job: WorkerJob): Promise<void> {
  const store = openStore(job.store);
  const build = createRangeBuilder(job.options);
  const pending = new Set<Promise<void>>();
  for (let index = job.first; index < job.end; index += job.stride) {
    while (pending.size >= job.inFlight) await Promise.race(pending);
    const range = build(index);
    const task = Promise.all(
      range.objects.map((o) =>
        store.put(o.key, o.bytes, { contentType: "application/octet-stream", immutable: true }),
      ),
    ).then(() => {
      pending.delete(task);
      const message: WorkerMessage = {
        kind: "range",
        index,
        tip: range.tip,
        hashEntries: range.hashEntries,
        ends: range.ends,
        bytes: range.bytes,
      };
      parentPort!.postMessage(message, [
        range.hashEntries.keys.buffer as ArrayBuffer,
        range.hashEntries.fullLengths.buffer as ArrayBuffer,
      ]);
    });
    pending.add(task);
    // Let finished uploads report before the next synchronous build.
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(pending);
}

run(workerData as WorkerJob).then(
  () => parentPort!.postMessage({ kind: "done" } satisfies WorkerMessage),
  (err: unknown) =>
    parentPort!.postMessage({
      kind: "error",
      message: err instanceof Error ? (err.stack ?? err.message) : String(err),
    } satisfies WorkerMessage),
);
