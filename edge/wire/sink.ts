import { LightedgeError } from "../../proto/errors.ts";

/**
 * A response body composed of native streams (edge-streaming.md): stored bodies are piped into an
 * IdentityTransformStream with `preventClose`, one after another, so workerd moves their bytes
 * without JavaScript touching each chunk; the few bytes of our own (trailers, reordered frames)
 * are written with a writer between pipes.
 */
export interface ResponseSink {
  readonly readable: ReadableStream<Uint8Array>;
  /**
   * Pipes a native body of `length` bytes into the response; resolves when it is fully sent. No
   * deadline signal: in workerd, aborting a native pipe cancels the writer too (even with
   * preventAbort), which would leave no way to send the end-of-stream status, so callers stop
   * between pipes instead. One bound only, for a pipe that stops moving (pipeBoundMs): then the
   * response is cut (the client sees a truncated stream) and this fails Unavailable.
   */
  pipe(body: ReadableStream<Uint8Array>, length: number): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** Ends the response with an error (the client sees a truncated stream). */
  abort(reason: unknown): Promise<void>;
}

/**
 * Longest a native pipe of `length` stored bytes may take: 10 s, then at least 8 KB/s (64 kbit/s,
 * far below any wallet's link; a 6 MB range: 12.5 min). Only a pipe that has stopped moving
 * reaches it: a storage read stalled mid-body, or a client that stopped reading without closing.
 * Nothing else ends such a request: the deadline is checked between pipes, and workerd does not see
 * a client leave while nothing is written to it (test/robustness/edge-stall.test.ts).
 */
export function pipeBoundMs(length: number): number {
  return 10_000 + length / 8;
}

/** `length` known up front → a FixedLengthStream, so the response carries Content-Length. */
export function createResponseSink(length?: number): ResponseSink {
  const stream = length === undefined ? new IdentityTransformStream() : new FixedLengthStream(length);
  const writable = stream.writable;
  return {
    readable: stream.readable,
    async pipe(body, length) {
      const ms = pipeBoundMs(length);
      // The bound's error is the pipe's abort reason: workerd ends the response (and logs) with it.
      const bound = new AbortController();
      const timer = setTimeout(
        () =>
          bound.abort(
            new LightedgeError(
              "unavailable",
              "edge.sink",
              `${length} stored bytes did not go through within ${Math.round(ms / 1000)} s (a stalled store, or a client that stopped reading)`,
            ),
          ),
        ms,
      );
      try {
        await body.pipeTo(writable, { preventClose: true, signal: bound.signal });
      } catch (err) {
        // workerd hands the reason back through the native pipe as a copy, not the typed error.
        throw bound.signal.aborted ? bound.signal.reason : err;
      } finally {
        clearTimeout(timer);
      }
    },
    async write(bytes) {
      const writer = writable.getWriter();
      try {
        await writer.write(bytes);
      } finally {
        writer.releaseLock();
      }
    },
    close: () => writable.close(),
    abort: (reason) => writable.abort(reason),
  };
}
