import { Code, ConnectError } from "@connectrpc/connect";
import { parseTimeout as parseConnectTimeout } from "@connectrpc/connect/protocol-connect";
import { parseTimeout as parseGrpcTimeout } from "@connectrpc/connect/protocol-grpc";
import { quoteInput } from "../../proto/quote.ts";
import type { WireProtocol } from "../wire/protocol.ts";

/**
 * Longest deadline honoured: 2³¹ − 1 ms (≈ 24.8 days), the largest delay a timer takes. Longer
 * ones (`grpc-timeout: 597H`, grpcio's 30-day default) are clamped to it rather than overflowing
 * into an immediate DeadlineExceeded, as a timer given more than 2³¹ − 1 would fire at once.
 */
export const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** A request's deadline: its signal aborts with DeadlineExceeded when the client's time is up. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left (≥ 0), or undefined when the client set no deadline. */
  remainingMs(): number | undefined;
  /** Stops the timer (the response is complete). */
  dispose(): void;
}

/** The deadline header of a protocol: gRPC-web's `grpc-timeout`, Connect's `connect-timeout-ms`. */
export function timeoutHeaderOf(protocol: WireProtocol): "grpc-timeout" | "connect-timeout-ms" {
  return protocol === "grpc-web" ? "grpc-timeout" : "connect-timeout-ms";
}

/**
 * The client's timeout in ms, clamped to MAX_DEADLINE_MS; undefined without one. A malformed value
 * throws the ConnectError connect-es handlers answer (InvalidArgument, "protocol error: invalid …
 * timeout value"): grpc-timeout is 1–8 digits and a unit (gRPC over HTTP/2 spec),
 * connect-timeout-ms 1–10 digits (Connect protocol spec).
 */
export function parseDeadlineMs(protocol: WireProtocol, headers: Headers): number | undefined {
  const name = timeoutHeaderOf(protocol);
  const value = headers.get(name);
  const parsed =
    name === "grpc-timeout"
      ? parseGrpcTimeout(value, Number.POSITIVE_INFINITY)
      : parseConnectTimeout(value, Number.POSITIVE_INFINITY);
  if (parsed.error !== undefined) {
    // connect-es echoes the whole value; quote a bounded prefix (it may be 30 KB of header).
    throw new ConnectError(
      `protocol error: invalid ${name} value: ${quoteInput(value ?? "")}`,
      Code.InvalidArgument,
    );
  }
  return parsed.timeoutMs === undefined ? undefined : Math.min(parsed.timeoutMs, MAX_DEADLINE_MS);
}

/** The error a call past its deadline ends with (connect-es: "the operation timed out"). */
export function deadlineExceeded(rpc: string): ConnectError {
  return new ConnectError(`${rpc}: the operation timed out`, Code.DeadlineExceeded);
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
  else timer = setTimeout(() => controller.abort(deadlineExceeded(rpc)), timeoutMs);
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
