import { Worker } from "node:worker_threads";
import { LightedgeError } from "../../proto/errors.ts";
import type { TreeStateView } from "../../proto/treestate/index.ts";
import { scanLeaves } from "./leaf-scan.ts";
import type { ProducerBlock, TreeStateStart } from "./producer.ts";
import type {
  AppendedBlock,
  FromWorker,
  ProducerConfig,
  RangeChecks,
  SeededRoot,
  ToWorker,
} from "./producer-protocol.ts";
import { createStoredPrefix } from "./stored-prefix.ts";
import type { StoredObjectWrite } from "./subtree-ledger.ts";

export interface TreeStateThreadOptions {
  config: ProducerConfig;
  /** Stores a finished range's objects (immutable); retried by the caller until it succeeds. */
  write(objects: StoredObjectWrite[]): Promise<void>;
  /** A range's objects are stored: our values in it, to compare with the node's (never awaited). */
  onStored?(checks: RangeChecks): void;
  /** The worker stopped producing (bad leaves, a rollback below its snapshots, a crash) or warns. */
  onFailure?(message: string): void;
}

/**
 * The indexing thread's side of the tree-state worker: every call here only posts a message
 * (leaves scanned out of the "full" protobuf and transferred, ≈ tens of µs per block); hashing,
 * snapshots and object building happen on the worker, which may lag behind the indexer.
 */
export interface TreeStateThread {
  start(start: TreeStateStart, roots: SeededRoot[]): void;
  append(blocks: readonly ProducerBlock[]): void;
  rollback(height: number): void;
  /** A range was sealed: its objects are built when the worker reaches its last block. */
  seal(index: number, blocks: readonly ProducerBlock[]): void;
  /** Highest height the worker has hashed (−1 before the start). */
  processed(): number;
  /** True once the worker stopped (bad leaves, a rollback below its snapshots, a crash, closed). */
  failed(): boolean;
  /** Last height of the ranges stored by this thread, contiguously from its start (−1: none). */
  storedThrough(): number;
  /** The worker's snapshot after a hashed, not yet stored height; undefined when it has none. */
  tailView(height: number): Promise<TreeStateView | undefined>;
  /** Resolves once `height` is hashed and every object finished by then is stored. */
  settled(height: number): Promise<void>;
  close(): Promise<void>;
}

export function createTreeStateThread(o: TreeStateThreadOptions): TreeStateThread {
  const worker = new Worker(new URL("./producer-worker.ts", import.meta.url));
  let processed = -1;
  let stored: ReturnType<typeof createStoredPrefix> | undefined;
  let failure: Error | undefined;
  let writes: Promise<void> = Promise.resolve();
  let ids = 0;
  const replies = new Map<number, (m: FromWorker) => void>();
  let waiters: { height: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  const send = (m: ToWorker, transfer: ArrayBuffer[] = []) => {
    if (failure === undefined) worker.postMessage(m, transfer);
  };
  const ask = (m: (id: number) => ToWorker) =>
    new Promise<FromWorker | undefined>((resolve) => {
      if (failure !== undefined) return resolve(undefined);
      const id = ids++;
      replies.set(id, resolve);
      send(m(id));
    });

  const wake = () => {
    const ready = waiters.filter((w) => failure !== undefined || w.height <= processed);
    waiters = waiters.filter((w) => !ready.includes(w));
    for (const w of ready)
      if (failure) w.reject(failure);
      else w.resolve();
  };
  const die = (message: string) => {
    failure ??= new LightedgeError("internal", "treestate.producer-thread", message);
    for (const r of replies.values()) r({ type: "failed", message });
    replies.clear();
    wake();
    o.onFailure?.(message);
  };

  worker.on("message", (m: FromWorker) => {
    switch (m.type) {
      case "progress":
        processed = m.last;
        return wake();
      case "objects":
        writes = writes
          .then(async () => {
            await o.write(m.objects);
            stored?.mark(m.index);
            send({ type: "stored", index: m.index });
            o.onStored?.(m.checks);
          })
          .catch((err) => o.onFailure?.(`range ${m.index}: objects not stored: ${String(err)}`));
        return;
      case "failed":
        return die(m.message);
      case "warning":
        return o.onFailure?.(m.message);
      default: {
        const r = replies.get(m.id);
        replies.delete(m.id);
        r?.(m);
      }
    }
  });
  worker.on("error", (err) => die(`worker crashed: ${err.message}`));

  return {
    start(start, roots) {
      stored = createStoredPrefix(o.config.rangeSize, Math.floor((start.height + 1) / o.config.rangeSize));
      send({ type: "start", config: o.config, start, roots });
    },
    append(blocks) {
      const out: AppendedBlock[] = blocks.map((b) => ({
        height: b.height,
        // Copies: a view would clone its whole underlying buffer.
        wireHash: b.wireHash.slice(),
        time: b.time,
        leaves: scanLeaves(b.messages!.full),
      }));
      send(
        { type: "append", blocks: out },
        out.map((b) => b.leaves.bytes.buffer as ArrayBuffer),
      );
    },
    rollback(height) {
      processed = Math.min(processed, height);
      send({ type: "rollback", height });
    },
    seal(index, blocks) {
      const first = blocks[0]!.height;
      const last = blocks[blocks.length - 1]!;
      send({ type: "seal", index, first, last: last.height, lastWireHash: last.wireHash.slice() });
    },
    processed: () => processed,
    failed: () => failure !== undefined,
    storedThrough: () => stored?.through() ?? -1,
    async tailView(height) {
      const r = await ask((id) => ({ type: "tail", id, height }));
      return r?.type === "tail-result" ? r.state : undefined;
    },
    async settled(height) {
      if (failure) throw failure;
      if (processed < height)
        await new Promise<void>((resolve, reject) => waiters.push({ height, resolve, reject }));
      await ask((id) => ({ type: "flush", id }));
      await writes;
    },
    async close() {
      failure ??= new LightedgeError("unavailable", "treestate.producer-thread", "closed");
      wake();
      await worker.terminate();
    },
  };
}
