import { LightedgeError } from "../../proto/errors.ts";
import { createGate, type Gate } from "../../proto/gate.ts";
import { heldUntilCancelled, requestCancelled } from "../request-scope.ts";

/**
 * Bytes of stored range spans the isolate's block-range calls may buffer at once
 * (MAX_BUFFERED_BYTES unless set). Ascending stored frames are piped natively and never held; a
 * descending, re-projected or JSON read holds its span while it is sent, one run of at most
 * SPAN_READ_BYTES at a time (sealed-segment.ts), unless its request had no subrequests to spare for
 * runs. A Worker has 128 MB for every request it is running at once: 48 MiB lets twelve such reads
 * hold a full run at once, or one whole spam-era range, beside the history calls' own allowance
 * (≈ 39 MB, edge/history/budget.ts).
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 48 * 1024 * 1024;

/**
 * Longest a read waits for room before the call ends Unavailable (when its own deadline is later
 * or unset; wallets mostly set none): long enough for another call to send a spam-era range to a
 * slow wallet, short enough that a client retrying is not left hanging behind a stalled reader.
 */
export const BUFFER_WAIT_MS = 10_000;

/** The isolate's gates, by capacity (one per configuration; module state lives as the isolate). */
const gates = new Map<number, Gate>();

function gateOf(capacity: number): Gate {
  let gate = gates.get(capacity);
  if (gate === undefined) {
    gate = createGate(capacity);
    gates.set(capacity, gate);
  }
  return gate;
}

/** Bytes held in the isolate under `capacity` now (GET /stats, tests). */
export function bufferedBytes(capacity: number): number {
  return gateOf(capacity).held;
}

/** Reads waiting for room under `capacity` now (GET /stats, tests). */
export function bufferWaiters(capacity: number): number {
  return gateOf(capacity).waiting;
}

/**
 * Takes `bytes` of the isolate's `capacity` for one buffered span, waiting in arrival order for
 * other calls to give theirs back: the release to call once the bytes are no longer referenced
 * (idempotent; the request's cancellation releases too, request-scope.ts). A span larger than the
 * capacity runs alone. Fails with the signal's reason when it or the request's cancellation comes
 * first, and Unavailable after `waitMs`.
 */
export async function holdBuffer(
  bytes: number,
  capacity: number,
  signal: AbortSignal | undefined,
  waitMs = BUFFER_WAIT_MS,
): Promise<() => void> {
  const gate = gateOf(capacity);
  // One signal for every end of the wait (the call's signal, its client going away, the time
  // allowed); its timer and listeners go when the wait does.
  const wait = new AbortController();
  const timedOut = new Error("buffer wait timed out");
  const timer = setTimeout(() => wait.abort(timedOut), waitMs);
  const ends = [signal, requestCancelled()].filter((s) => s !== undefined);
  const onEnd = (e: Event) => wait.abort((e.target as AbortSignal).reason);
  for (const end of ends) {
    if (end.aborted) wait.abort(end.reason);
    else end.addEventListener("abort", onEnd, { once: true });
  }
  try {
    await gate.enter(wait.signal, bytes);
  } catch (err) {
    // Nobody reads the answer of a cancelled request: typed, so it is not logged as a fault.
    if (requestCancelled()?.aborted)
      throw new LightedgeError("unavailable", "edge.buffer", "the client went away", { cause: err });
    if (err !== timedOut) throw err;
    throw new LightedgeError(
      "unavailable",
      "edge.buffer",
      `buffered range reads (descending, re-projected or JSON) kept the edge's ${mib(capacity)} buffer full for ${waitMs / 1000} s; retry`,
    );
  } finally {
    clearTimeout(timer);
    for (const end of ends) end.removeEventListener("abort", onEnd);
  }
  return heldUntilCancelled(() => gate.leave(bytes));
}

function mib(bytes: number): string {
  return bytes >= 2 ** 20 ? `${Math.round(bytes / 2 ** 20)} MiB` : `${bytes}-byte`;
}
