import { LightedgeError } from "../../proto/errors.ts";

/** Who is asking: the edge (shared secret) or a wallet talking to the origin directly. */
export type TrafficClass = "edge" | "public";

export interface NodeGateOptions {
  /** Node requests in flight at most (all RPCs together). */
  maxInFlight: number;
  /**
   * Share of `maxInFlight` public traffic may use, so wallets hitting the origin directly cannot
   * starve the edge, which speaks for many wallets at once. Edge traffic may use every slot.
   */
  publicShare: number;
  /** How long a call may wait for a slot before it is refused as unavailable. */
  queueTimeoutMs: number;
  /** Waiting calls at most; beyond this the node counts as saturated at once. */
  maxQueued: number;
}

export const DEFAULT_NODE_GATE: NodeGateOptions = Object.freeze({
  maxInFlight: 32,
  publicShare: 0.75,
  queueTimeoutMs: 2000,
  maxQueued: 512,
});

/** Bounds concurrent node calls; a saturated node means a quick Unavailable, not a pile-up. */
export interface NodeGate {
  run<T>(traffic: TrafficClass, where: string, call: () => Promise<T>): Promise<T>;
  inFlight(): number;
}

interface Waiter {
  traffic: TrafficClass;
  admit: () => void;
}

export function createNodeGate(options: NodeGateOptions = DEFAULT_NODE_GATE): NodeGate {
  const publicMax = Math.max(1, Math.floor(options.maxInFlight * options.publicShare));
  const limit = (traffic: TrafficClass) => (traffic === "edge" ? options.maxInFlight : publicMax);
  const queue: Waiter[] = [];
  let inFlight = 0;

  const release = () => {
    inFlight--;
    const next = queue.findIndex((w) => inFlight < limit(w.traffic));
    if (next >= 0) queue.splice(next, 1)[0]!.admit();
  };

  const acquire = (traffic: TrafficClass, where: string): Promise<void> => {
    if (inFlight < limit(traffic)) {
      inFlight++;
      return Promise.resolve();
    }
    if (queue.length >= options.maxQueued) return Promise.reject(saturated(where));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        traffic,
        admit: () => {
          clearTimeout(timer);
          inFlight++;
          resolve();
        },
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(saturated(where));
      }, options.queueTimeoutMs);
      queue.push(waiter);
    });
  };

  return {
    async run(traffic, where, call) {
      await acquire(traffic, where);
      try {
        return await call();
      } finally {
        release();
      }
    },
    inFlight: () => inFlight,
  };
}

function saturated(where: string): LightedgeError {
  return new LightedgeError("unavailable", `node-gate.${where}`, "node is saturated, retry later");
}
