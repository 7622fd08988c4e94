import { Code, ConnectError } from "@connectrpc/connect";
import { LightedgeError } from "../../proto/errors.ts";
import { clampTimerMs } from "../../proto/wire/protocol.ts";

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
  /**
   * How long one call may hold a slot, whatever the client's deadline (or without one): a stalled
   * node frees its slots after this and the caller gets Unavailable, so it never starves the gate.
   */
  maxHoldMs: number;
}

export const DEFAULT_NODE_GATE: NodeGateOptions = Object.freeze({
  maxInFlight: 32,
  publicShare: 0.75,
  queueTimeoutMs: 2000,
  maxQueued: 512,
  maxHoldMs: 30_000,
});

/**
 * Bounds concurrent node calls; a saturated node means a quick Unavailable, not a pile-up. A call
 * runs under its caller's signal (connect's HandlerContext.signal: the client's deadline from
 * grpc-timeout / connect-timeout-ms, or its disconnect): when it fires the call stops waiting for a
 * slot, or gives its slot back at once, and fails with the signal's reason (DeadlineExceeded,
 * Canceled). The call gets a signal of its own that fires then, or when it held its slot for
 * `maxHoldMs`: passed on to the node client, it aborts the node request and its retries, so a
 * stalled node is not kept working for callers that are gone.
 */
export interface NodeGate {
  run<T>(
    traffic: TrafficClass,
    where: string,
    call: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T>;
  inFlight(): number;
}

interface Waiter {
  traffic: TrafficClass;
  admit: () => void;
}

export function createNodeGate(options: Partial<NodeGateOptions> = {}): NodeGate {
  const o = { ...DEFAULT_NODE_GATE, ...options };
  const publicMax = Math.max(1, Math.floor(o.maxInFlight * o.publicShare));
  const limit = (traffic: TrafficClass) => (traffic === "edge" ? o.maxInFlight : publicMax);
  const queue: Waiter[] = [];
  let inFlight = 0;

  const release = () => {
    inFlight--;
    const next = queue.findIndex((w) => inFlight < limit(w.traffic));
    if (next >= 0) queue.splice(next, 1)[0]!.admit();
  };

  const acquire = (traffic: TrafficClass, where: string, signal?: AbortSignal): Promise<void> => {
    if (inFlight < limit(traffic)) {
      inFlight++;
      return Promise.resolve();
    }
    if (queue.length >= o.maxQueued) return Promise.reject(saturated(where));
    return new Promise((resolve, reject) => {
      const leave = (err: unknown) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(err);
      };
      const onAbort = () => leave(callerGone(where, signal!));
      const waiter: Waiter = {
        traffic,
        admit: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          inFlight++;
          resolve();
        },
      };
      const timer = setTimeout(() => leave(saturated(where)), clampTimerMs(o.queueTimeoutMs));
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(waiter);
    });
  };

  return {
    async run(traffic, where, call, signal) {
      if (signal?.aborted) throw callerGone(where, signal);
      await acquire(traffic, where, signal);
      let released = false;
      const releaseOnce = () => {
        if (!released) {
          released = true;
          release();
        }
      };
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const node = new AbortController();
      try {
        let cutOff!: (err: Error) => void;
        const cut = new Promise<never>((_, reject) => {
          cutOff = (err) => {
            reject(err);
            node.abort(err);
          };
        });
        timer = setTimeout(() => cutOff(stalled(where, o.maxHoldMs)), clampTimerMs(o.maxHoldMs));
        onAbort = () => cutOff(callerGone(where, signal!));
        signal?.addEventListener("abort", onAbort, { once: true });
        const running = call(node.signal);
        // The call may settle after it was cut off: its rejection is nobody's to handle.
        running.catch(() => {});
        return await Promise.race([running, cut]);
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        releaseOnce();
      }
    },
    inFlight: () => inFlight,
  };
}

/** The caller's own end: its deadline (connect's DeadlineExceeded) or its disconnect (Canceled). */
function callerGone(where: string, signal: AbortSignal): ConnectError {
  const reason: unknown = signal.reason;
  if (reason instanceof ConnectError) return reason;
  return new ConnectError(
    `node-gate.${where}: the call was canceled`,
    Code.Canceled,
    undefined,
    undefined,
    reason,
  );
}

function saturated(where: string): LightedgeError {
  return new LightedgeError("unavailable", `node-gate.${where}`, "node is saturated, retry later");
}

function stalled(where: string, ms: number): LightedgeError {
  return new LightedgeError(
    "unavailable",
    `node-gate.${where}`,
    `node did not answer within ${ms / 1000} s, retry later`,
  );
}
