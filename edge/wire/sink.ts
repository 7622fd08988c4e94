/**
 * A response body composed of native streams (edge-streaming.md): stored bodies are piped into an
 * IdentityTransformStream with `preventClose`, one after another, so workerd moves their bytes
 * without JavaScript touching each chunk; the few bytes of our own (trailers, reordered frames)
 * are written with a writer between pipes.
 */
export interface ResponseSink {
  readonly readable: ReadableStream<Uint8Array>;
  /**
   * Pipes a native body into the response; resolves when it is fully sent. No abort signal: in
   * workerd, aborting a native pipe cancels the writer too (even with preventAbort), which would
   * leave no way to send the end-of-stream status, so callers stop between pipes instead.
   */
  pipe(body: ReadableStream<Uint8Array>): Promise<void>;
  write(bytes: Uint8Array): Promise<void>;
  close(): Promise<void>;
  /** Ends the response with an error (the client sees a truncated stream). */
  abort(reason: unknown): Promise<void>;
}

/** `length` known up front → a FixedLengthStream, so the response carries Content-Length. */
export function createResponseSink(length?: number): ResponseSink {
  const stream = length === undefined ? new IdentityTransformStream() : new FixedLengthStream(length);
  const writable = stream.writable;
  return {
    readable: stream.readable,
    pipe: (body) => body.pipeTo(writable, { preventClose: true }),
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
