import { Worker } from "node:worker_threads";
import { LightedgeError } from "../../proto/errors.ts";
import type { Commitments, Pool } from "./commitments.ts";
import type { StartPlan } from "./start-frontier.ts";
import type { ComputedSubtree, TreeStateAt } from "./tree-engine.ts";
import type { FromTreeWorker, ToTreeWorker, TreeWorkerInit } from "./tree-service.ts";
import type { ChainEvent, DevChain } from "./types.ts";

/**
 * The dev node's tree states, computed on a worker thread started with the node: its hash tables
 * take seconds to build, which a first z_gettreestate must not wait for behind a caller's deadline
 * (the origin gives a node call 5 s). A worker that fails is replaced at the next request.
 */
export interface TreeStates {
  /** Trees after block `height` (chain.base − 1 ≤ height ≤ tip). */
  stateAt(height: number): Promise<TreeStateAt>;
  /** Subtrees completed by the blocks the node computed, through `tip`. */
  subtrees(pool: Pool, tip: number): Promise<ComputedSubtree[]>;
  /** Resolves once the worker has built its hash tables (a first request then answers in ms). */
  warm: Promise<void>;
  close(): Promise<void>;
}

export interface TreeStatesOptions {
  chain: DevChain;
  seed: string;
  starts: Record<Pool, StartPlan>;
  /** Corpus commitments (heights chain.base..fixedTo). */
  fixed?: { to: number; commitments(height: number): Commitments };
}

export function createTreeStates(o: TreeStatesOptions): TreeStates {
  const { chain } = o;
  const tip = chain.tip();
  const events: ChainEvent[] = [];
  let worker: Worker | undefined;
  let next = 0;
  const waiting = new Map<number, { resolve: (m: FromTreeWorker) => void; reject: (e: Error) => void }>();
  chain.subscribe((e) => {
    events.push(e);
    worker?.postMessage({ type: "event", event: e } satisfies ToTreeWorker);
  });

  let warmed!: () => void;
  const warm = new Promise<void>((resolve) => {
    warmed = resolve;
  });
  const fail = (err: Error) => {
    warmed(); // a dead worker is not waited for: requests see its error, or start a new one
    worker = undefined; // the next request starts a new one from the same events
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };

  const start = (): Worker => {
    const w = new Worker(new URL("./tree-worker.ts", import.meta.url));
    w.unref(); // never keeps a process alive
    w.on("message", (m: FromTreeWorker) => {
      if (m.type === "warm") return warmed();
      const p = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.type === "error")
        p?.reject(new LightedgeError("internal", "devnode.trees", `devnode trees: ${m.message}`));
      else p?.resolve(m);
    });
    w.on("error", fail);
    w.on("exit", (code) => {
      if (worker === w)
        fail(new LightedgeError("internal", "devnode.trees", `devnode trees: worker exited (${code})`));
    });
    const fixed = o.fixed;
    const init: TreeWorkerInit = {
      network: chain.network,
      synthetic: chain.synthetic,
      seed: o.seed,
      base: chain.base,
      fixedTo: fixed ? fixed.to : chain.base - 1,
      fixed: fixed
        ? Array.from({ length: fixed.to - chain.base + 1 }, (_, i) => fixed.commitments(chain.base + i))
        : [],
      starts: o.starts,
      tip,
      events,
    };
    w.postMessage({ type: "init", init } satisfies ToTreeWorker);
    return w;
  };

  worker = start();

  const ask = (m: ToTreeWorker & { id: number }) =>
    new Promise<FromTreeWorker>((resolve, reject) => {
      worker ??= start();
      waiting.set(m.id, { resolve, reject });
      worker.postMessage(m);
    });

  return {
    warm,
    async stateAt(height) {
      const m = await ask({ type: "state", id: next++, height });
      return (m as Extract<FromTreeWorker, { type: "state" }>).state;
    },
    async subtrees(pool, upTo) {
      const m = await ask({ type: "subtrees", id: next++, pool, tip: upTo });
      return (m as Extract<FromTreeWorker, { type: "subtrees" }>).list;
    },
    async close() {
      const w = worker;
      worker = undefined;
      await w?.terminate();
    },
  };
}
