import { Code, ConnectError } from "@connectrpc/connect";
import { clampTimerMs, deadlineExceeded } from "./protocol.ts";

/**
 * A call's deadline in either runtime: one clock per call whose signal every wait honours, so a
 * storage read, an origin call or a stream ends at the client's deadline with DeadlineExceeded.
 */

/** A request's deadline: its signal aborts with DeadlineExceeded when the client's time is up. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left (≥ 0), or undefined when the client set no deadline. */
  remainingMs(): number | undefined;
  /** Stops the timer (the response is complete). */
  dispose(): void;
}

/**
 * What a failed call reports: its DeadlineExceeded once the deadline passed (an aborted read or pipe
 * failed because of it), else the error itself. Other abort reasons (a router ending its context
 * after the answer was sent) do not replace the error.
 */
export function orDeadline(signal: AbortSignal, err: unknown): unknown {
  const reason: unknown = signal.aborted ? signal.reason : undefined;
  return reason instanceof ConnectError && reason.code === Code.DeadlineExceeded ? reason : err;
}

/**
 * Signals of calls without a deadline (most wallets send none): nothing aborts them, so waiting on
 * them costs a listener pair and a promise per await for nothing.
 */
const neverFires = new WeakSet<AbortSignal>();

/** Starts the deadline clock for `timeoutMs` (undefined: a signal that never fires). */
export function startDeadline(rpc: string, timeoutMs: number | undefined): Deadline {
  const controller = new AbortController();
  if (timeoutMs === undefined) {
    neverFires.add(controller.signal);
    return { signal: controller.signal, remainingMs: () => undefined, dispose: () => {} };
  }
  const at = Date.now() + timeoutMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (timeoutMs <= 0) controller.abort(deadlineExceeded(rpc));
  else timer = setTimeout(() => controller.abort(deadlineExceeded(rpc)), clampTimerMs(timeoutMs));
  return {
    signal: controller.signal,
    remainingMs: () => (controller.signal.aborted ? 0 : Math.max(0, at - Date.now())),
    dispose: () => clearTimeout(timer),
  };
}

/**
 * Waits for `work` or the signal, whichever comes first: a storage or origin read that outlives
 * the deadline is abandoned (its result ignored) and the call fails with the signal's reason.
 */
export function beforeDeadline<T>(signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
  if (signal === undefined || neverFires.has(signal)) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/**
 * `work`, or what `late()` returns (or throws) once `ms` have passed first; the timer goes with the
 * wait. `work` is abandoned, not cancelled: its owner closes it (a Worker's request ends its I/O).
 */
export async function withinMs<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<T>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}
