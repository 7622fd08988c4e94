import { toConnectError } from "../../proto/errors.ts";
import type { RangeSource } from "../../proto/pools.ts";
import { ChainCheck } from "../../proto/range/chain-link.ts";
import type { HashIndexLevel } from "../../proto/range/index.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../../proto/wire/deadline.ts";
import { endOfStream } from "../../proto/wire/end-stream.ts";
import type { WireProtocol } from "../../proto/wire/protocol.ts";
import type { OpenedOriginSegment } from "../tail/origin-segment.ts";
import { writeOriginSegment } from "../tail/origin-segment.ts";
import type { ResponseSink } from "../wire/sink.ts";
import type { Segment } from "./plan.ts";
import { type SealedRead, startSealedRead, writeSealedSegment } from "./sealed-segment.ts";

/** A planned range stream: its segments in sending order, the origin's already open. */
export interface RangeStream {
  rpc: string;
  segments: Segment[];
  opened: Map<number, OpenedOriginSegment>;
  source: RangeSource;
  ranges: RangeReader<ReadableStream<Uint8Array>>;
  ascending: boolean;
  /** The head's range-ends levels: whole ranges they cover are read without metadata. */
  endsLevels: readonly HashIndexLevel[];
  /** The client's deadline: checked between segments. */
  deadline: Deadline;
  /** An error to end with after every segment is sent (a range past the tip: OutOfRange). */
  endError?: unknown;
}

/** One segment ready to send: a sealed read started, or an origin stream opened. */
export type Piece =
  | { kind: "sealed"; read: SealedRead; from: number; to: number }
  | { kind: "origin"; segment: OpenedOriginSegment };

/**
 * The segments of a stream in order, ready to send. The next sealed read is started while the
 * current one is sent, so storage latency overlaps with sending (2 open reads at most, within the
 * 6 connections a Worker may hold). The deadline is checked between segments. Reads and origin
 * streams left open by an error or an early return are released. Ends with `endError` if set.
 */
export async function* segmentPieces(stream: RangeStream, pipeWhole = false): AsyncGenerator<Piece> {
  const { segments, opened, source, ranges } = stream;
  const signal = stream.deadline.signal;
  const prepare = (i: number): Promise<SealedRead> | undefined => {
    const seg = segments[i];
    if (seg?.kind !== "sealed") return undefined;
    const read = startSealedRead(ranges, source, seg.from, seg.to, pipeWhole, stream.endsLevels);
    read.catch(() => {});
    return read;
  };
  let next = prepare(0);
  let done = false;
  try {
    for (let i = 0; i < segments.length; i++) {
      // Between segments (a native pipe cannot be stopped and still end the stream with a status).
      signal.throwIfAborted();
      const current = next;
      next = prepare(i + 1);
      const seg = segments[i]!;
      if (current !== undefined)
        yield { kind: "sealed", read: await beforeDeadline(signal, current), from: seg.from, to: seg.to };
      else yield { kind: "origin", segment: opened.get(i)! };
    }
    done = true;
  } finally {
    if (!done) {
      void next?.then((r) => r.body.cancel()).catch(() => {});
      for (const o of opened.values()) void o.rest.return(undefined);
    }
  }
  if (stream.endError !== undefined) throw stream.endError;
}

/**
 * Sends a stream into a native response sink: sealed bytes piped, the origin's frames written,
 * then the protocol's end-of-stream bytes — with the error in them when one ends it mid-stream.
 */
export async function sendSegments(
  stream: RangeStream,
  sink: ResponseSink,
  protocol: WireProtocol,
  log: (err: unknown) => void,
): Promise<void> {
  const check = new ChainCheck(stream.ascending);
  const signal = stream.deadline.signal;
  try {
    // Sealed bytes are piped as stored: whole ranges may be read without their frame tables.
    for await (const piece of segmentPieces(stream, true)) {
      if (piece.kind === "sealed")
        await writeSealedSegment(sink, piece.read, piece.from, piece.to, stream.source, check, signal);
      else await beforeDeadline(signal, writeOriginSegment(sink, piece.segment, check));
    }
    await sink.write(endOfStream(protocol));
    await sink.close();
  } catch (err) {
    // Past the deadline, whatever failed failed because of it (an aborted read or pipe).
    const error = orDeadline(signal, err);
    try {
      await sink.write(endOfStream(protocol, toConnectError(stream.rpc, error, log)));
      await sink.close();
    } catch {
      await sink.abort(error).catch(() => {});
    }
  } finally {
    stream.deadline.dispose();
  }
}
