/**
 * A response body composed of native streams (edge-streaming.md): stored bodies are piped into an
 * IdentityTransformStream with `preventClose`, one after another, so workerd moves their bytes
 * without JavaScript touching each chunk; the few bytes of our own (trailers, reordered frames)
 * are written with a writer between pipes.
 */
export interface ResponseSink {
  readonly readable: ReadableStream<Uint8Array>;
  /**
   * Pipes a native body into the response; resolves when it is fully sent. `signal` stops the pipe
   * (cancelling the body) but leaves the response open for the end-of-stream bytes.
   */
  pipe(body: ReadableStream<Uint8Array>, signal?: AbortSignal): Promise<void>;
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
    pipe: (body, signal) =>
      body.pipeTo(
        writable,
        signal === undefined ? { preventClose: true } : { preventClose: true, preventAbort: true, signal },
      ),
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
