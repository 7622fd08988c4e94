import type { IncomingHttpHeaders } from "node:http";

/**
 * The longest delay Node's timers take: anything above 2^31−1 ms fires at once (with a
 * TimeoutOverflowWarning), so a 30-day grpc-timeout would expire immediately. Clients send such
 * deadlines (grpcio with a month-long timeout; grpc-timeout allows 99,999,999 hours).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer delay Node honours: at most MAX_TIMER_MS (~24.8 days, as good as no deadline). */
export function clampTimerMs(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}

/** grpc-timeout units in ms (gRPC over HTTP/2 spec, "Timeout"). */
const GRPC_UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/** The clamp as a grpc-timeout value (at most 8 digits): 2,147,483 s ≤ MAX_TIMER_MS. */
const GRPC_MAX = `${Math.floor(MAX_TIMER_MS / 1000)}S`;

/**
 * Rewrites a well-formed `grpc-timeout` / `connect-timeout-ms` above MAX_TIMER_MS down to it, in
 * place, before connect-node (whose deadline is a plain setTimeout) or the fast path read it.
 * Malformed values are left for them to refuse (InvalidArgument).
 */
export function clampDeadlineHeaders(headers: IncomingHttpHeaders): void {
  const grpc = headers["grpc-timeout"];
  if (typeof grpc === "string") {
    const m = /^(\d{1,8})([HMSmun])$/.exec(grpc);
    if (m && Number(m[1]) * GRPC_UNIT_MS[m[2]!]! > MAX_TIMER_MS) headers["grpc-timeout"] = GRPC_MAX;
  }
  const connect = headers["connect-timeout-ms"];
  if (typeof connect === "string" && /^\d{1,10}$/.test(connect) && Number(connect) > MAX_TIMER_MS)
    headers["connect-timeout-ms"] = String(MAX_TIMER_MS);
}
