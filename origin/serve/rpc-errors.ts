import { Code, ConnectError } from "@connectrpc/connect";
import { toConnectError } from "../../proto/errors.ts";
import type { RpcObserver } from "./serve-metrics.ts";

/** Log sink for errors whose detail stays server-side. */
export type ErrorLog = (rpc: string, err: unknown) => void;

/**
 * Maps any failure to the client-visible error (through `toConnectError`, the one mapping) and
 * adds `grpc-retry-pushback-ms` to every Unavailable, so gRPC clients with retry policies back
 * off instead of hammering a node that is down or saturated (gRPC A6 retry design).
 */
export function rpcError(rpc: string, err: unknown, pushbackMs: number, log?: ErrorLog): ConnectError {
  let mapped = toConnectError(rpc, err, log === undefined ? undefined : (e) => log(rpc, e));
  // A message quoting client input may hold a lone surrogate, which connect's grpc-message
  // encoding (encodeURIComponent) cannot write: the call would end with no status at all.
  const wellFormed = wellFormedText(mapped.rawMessage);
  if (wellFormed !== mapped.rawMessage) {
    mapped = new ConnectError(wellFormed, mapped.code, mapped.metadata, undefined, mapped.cause);
  }
  if (mapped.code === Code.Unavailable && !mapped.metadata.has("grpc-retry-pushback-ms")) {
    mapped.metadata.set("grpc-retry-pushback-ms", String(pushbackMs));
  }
  return mapped;
}

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed, ES2024). */
function wellFormedText(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** How a guarded handler reports: pushback for Unavailable, a log for hidden errors, metrics. */
export interface Guard {
  pushbackMs: number;
  log?: ErrorLog;
  observer?: RpcObserver;
}

const codeName = (err: ConnectError | undefined) => (err === undefined ? "ok" : Code[err.code].toLowerCase());

/** Wraps a unary (or client-streaming) handler so every error goes through `rpcError`. */
export function guardUnary<I, O, C>(
  rpc: string,
  g: Guard,
  handler: (req: I, ctx: C) => Promise<O>,
): (req: I, ctx: C) => Promise<O> {
  return async (req, ctx) => {
    const started = performance.now();
    let failed: ConnectError | undefined;
    try {
      return await handler(req, ctx);
    } catch (err) {
      failed = rpcError(rpc, err, g.pushbackMs, g.log);
      throw failed;
    } finally {
      g.observer?.observe(rpc, codeName(failed), (performance.now() - started) / 1000);
    }
  };
}

/** Wraps a server-streaming handler; errors after the first message end the stream with a status. */
export function guardStream<I, O, C>(
  rpc: string,
  g: Guard,
  handler: (req: I, ctx: C) => AsyncIterable<O>,
): (req: I, ctx: C) => AsyncIterable<O> {
  return async function* (req, ctx) {
    const started = performance.now();
    let failed: ConnectError | undefined;
    try {
      yield* handler(req, ctx);
    } catch (err) {
      failed = rpcError(rpc, err, g.pushbackMs, g.log);
      throw failed;
    } finally {
      g.observer?.observe(rpc, codeName(failed), (performance.now() - started) / 1000);
    }
  };
}
