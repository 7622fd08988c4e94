import type { BufferPool } from "../../store/index.ts";

/** The part of a Node response (HTTP/1.1 or HTTP/2 compatibility API) the fast path writes to. */
export interface FastResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  /** `done` runs once the chunk has been handed to the socket (or the write failed): see BufferPool. */
  write(chunk: Uint8Array, done?: (err?: Error | null) => void): boolean;
  end(chunk?: Uint8Array): unknown;
  addTrailers(trailers: Record<string, string>): void;
  once(event: "drain" | "close", listener: () => void): unknown;
  off(event: "drain" | "close", listener: () => void): unknown;
}

/**
 * Frames gathered before one write: big enough to amortise the write (HTTP/2 framing, HTTP/1
 * chunks), small enough to stream. The batch references the range read already held; no copy.
 */
export const FLUSH_BYTES = 1024 * 1024;

/** Writes frames in batches and waits whenever the response's buffer is full. */
export interface FrameOutput {
  /** Queues a frame; the promise (when one is returned) resolves once the peer can take more. */
  push(frame: Uint8Array): Promise<void> | undefined;
  /** Writes what is queued. */
  flush(): Promise<void> | undefined;
}

/**
 * Batches stored frames into few writes without copying: sealed frames arrive as consecutive
 * slices of one range read, so a frame that starts where the last one ended just widens it.
 * A batch is written at FLUSH_BYTES, or as soon as the producer waits for I/O (a setImmediate
 * runs only then: frames read from memory arrive in microtasks), so a stalled source never holds
 * frames back. Honours backpressure (`write()` false → wait for 'drain'); `signal` (client gone,
 * deadline) ends a wait early and stops writing — the caller checks it after each push.
 * `pool`: a frame in a buffer it lent goes back to it once written (or at once when dropped unwritten).
 */
export function createFrameOutput(res: FastResponse, signal: AbortSignal, pool?: BufferPool): FrameOutput {
  let pieces: Uint8Array[] = [];
  let queued = 0;
  let idle: NodeJS.Immediate | undefined;
  let waiting: Promise<void> | undefined;
  const write = (): Promise<void> | undefined => {
    clearImmediate(idle);
    idle = undefined;
    const batch = pieces;
    pieces = [];
    queued = 0;
    if (signal.aborted) {
      // Never written: nothing else holds these.
      for (const piece of batch) pool?.give(piece.buffer);
      return undefined;
    }
    let full = false;
    // No cork()/uncork() around the writes: on an HTTP/1 response that loses the 'drain' event.
    for (const piece of batch) {
      // A pooled buffer is one run, pushed once and whole (BlockFramesOptions.into), so it is one
      // piece: it goes back to the pool when the socket is done with it, not before.
      const pooled = pool?.lent(piece.buffer) === true;
      const ok = pooled ? res.write(piece, () => pool!.give(piece.buffer)) : res.write(piece);
      full = !ok || full;
    }
    return full ? drained(res, signal) : undefined;
  };
  const takeWaiting = () => {
    const w = waiting;
    waiting = undefined;
    return w;
  };
  return {
    push(frame) {
      const last = pieces.at(-1);
      if (
        last !== undefined &&
        last.buffer === frame.buffer &&
        last.byteOffset + last.length === frame.byteOffset
      ) {
        pieces[pieces.length - 1] = new Uint8Array(last.buffer, last.byteOffset, last.length + frame.length);
      } else {
        pieces.push(frame);
      }
      queued += frame.length;
      if (queued >= FLUSH_BYTES) return write() ?? takeWaiting();
      idle ??= setImmediate(() => {
        waiting = write();
      });
      return takeWaiting();
    },
    flush: () => write() ?? takeWaiting(),
  };
}

function drained(res: FastResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.once("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
