import type { IncomingHttpHeaders } from "node:http";
import {
  MAX_DEADLINE_MS,
  parseTimeoutMs,
  timeoutHeaderOf,
  timeoutHeaderValue,
} from "../../proto/wire/protocol.ts";

/**
 * Rewrites a well-formed `grpc-timeout` / `connect-timeout-ms` above MAX_DEADLINE_MS down to it,
 * in place, before connect-node (whose deadline is a plain setTimeout: above 2³¹ − 1 ms it fires
 * at once) or the fast path read it. Malformed values are left for the request checks to refuse
 * (InvalidArgument, strict-requests.ts).
 */
export function clampDeadlineHeaders(headers: IncomingHttpHeaders): void {
  for (const protocol of ["grpc-web", "connect-unary"] as const) {
    const name = timeoutHeaderOf(protocol);
    const value = headers[name];
    if (typeof value !== "string") continue;
    let ms: number | undefined;
    try {
      ms = parseTimeoutMs(protocol, value);
    } catch {
      continue;
    }
    if (ms === MAX_DEADLINE_MS) headers[name] = timeoutHeaderValue(protocol, ms);
  }
}
