import { toConnectError } from "../../proto/errors.ts";
import type { RangeSource } from "../../proto/pools.ts";
import { ChainCheck } from "../../proto/range/chain-link.ts";
import type { HashIndexLevel, HeadBundles } from "../../proto/range/index.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../../proto/wire/deadline.ts";
import { endOfStream } from "../../proto/wire/end-stream.ts";
import type { WireProtocol } from "../../proto/wire/protocol.ts";
import type { OpenedOriginSegment } from "../tail/origin-segment.ts";
import { writeOriginSegment } from "../tail/origin-segment.ts";
import type { ResponseSink } from "../wire/sink.ts";
import type { Segment } from "./plan.ts";
import { type SealedRead, type SpanReads, startSealedRead, writeSealedSegment } from "./sealed-segment.ts";

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
  /** The head's bundles, when segments may be bundle reads (bundle-segments.ts). */
  bundles?: HeadBundles;
  /** The first range whose reads may fill the Cache API (EdgeServices.hotFrom); undefined: none. */
  hotFrom?: number;
  /** The client's deadline: checked between segments. */
  deadline: Deadline;
  /** Bytes the isolate may buffer for descending, re-projected and JSON reads (MAX_BUFFERED_BYTES). */
  bufferBytes: number;
  /** How those reads read a large span: in runs, while the plan's spare storage calls last. */
  spanReads: SpanReads;
  /** An error to end with after every segment is sent (a range past the tip: OutOfRange). */
  endError?: unknown;
}

/** One segment ready to send: a sealed read started, or an origin stream opened. */
export type Piece =
  | { kind: "sealed"; read: SealedRead; from: number; to: number }
  | { kind: "origin"; segment: OpenedOriginSegment };

/**
 * Connections the sealed reads of one stream hold at once: the read being sent and those started
 * after it. A storage read's first byte takes a round trip (tens of milliseconds to R2 from a data
 * center) while sending an ordinary mainnet range object takes a few, so with one read ahead a
 * wallet download waits out most round trips one by one. Workers allow 6 simultaneous connections
 * per invocation, and on a deadlock cancel the least recently used (docs/workers-platform.md): a
 * read holds one, a read of a hot range that misses the Cache API holds two while it fills (its
 * read streams into the cache's put, edge/store/cached-reader.ts), and the origin's tail stream
 * and a metadata or range-ends read need the rest. So 4 reads of older ranges, 2 of hot ones.
 */
export const SEALED_READ_CONNECTIONS = 4;

/** The connections a sealed read of range `index` may hold (`hotFrom`: see RangeStream). */
export function readConnections(index: number, hotFrom: number | undefined): number {
  return hotFrom !== undefined && index >= hotFrom ? 2 : 1;
}

/**
 * The segments of a stream in order, ready to send. The next sealed reads are started while the
 * current one is sent, as many as SEALED_READ_CONNECTIONS allows (always the next one), so storage
 * latency overlaps with sending. A started read is a stream not yet consumed: a buffered segment
 * (descending, re-projected, JSON; `piped` false: JSON) still reads one run of its range at a time.
 * The deadline is checked between segments. Reads and origin streams left open by an error or an
 * early return are released. Ends with `endError` if set.
 */
export async function* segmentPieces(stream: RangeStream, piped = false): AsyncGenerator<Piece> {
  const { segments, opened, source, ranges } = stream;
  const signal = stream.deadline.signal;
  /** Reads started and not yet sent, by segment index, with the connections each may hold. */
  const started = new Map<number, { read: Promise<SealedRead>; connections: number }>();
  let prepared = -1;
  /** Starts the reads after `current` that fit beside the open ones (at least the next one). */
  const prepareFrom = (current: number) => {
    let open = 0;
    for (const r of started.values()) open += r.connections;
    while (prepared + 1 < segments.length) {
      const seg = segments[prepared + 1]!;
      if (seg.kind !== "sealed") {
        prepared++;
        continue;
      }
      const connections = readConnections(seg.index, stream.hotFrom);
      if (prepared + 1 > current + 1 && open + connections > SEALED_READ_CONNECTIONS) return;
      prepared++;
      const read = startSealedRead(
        ranges,
        source,
        seg,
        piped,
        stream.endsLevels,
        stream.bundles,
        stream.spanReads,
      );
      read.catch(() => {});
      started.set(prepared, { read, connections });
      open += connections;
    }
  };
  let done = false;
  /** The last segment handed to the sender: its body is the sender's to consume or cancel. */
  let handed = -1;
  try {
    for (let i = 0; i < segments.length; i++) {
      // Between segments (a native pipe cannot be stopped and still end the stream with a status).
      signal.throwIfAborted();
      // The read sent before this one is done: its connections are free.
      started.delete(i - 1);
      prepareFrom(i);
      const current = started.get(i)?.read;
      const seg = segments[i]!;
      // The deadline may fire while this read is awaited: then it was never handed over, and the
      // finally below cancels it with the ones ahead.
      const piece: Piece =
        current !== undefined
          ? { kind: "sealed", read: await beforeDeadline(signal, current), from: seg.from, to: seg.to }
          : { kind: "origin", segment: opened.get(i)! };
      handed = i;
      yield piece;
    }
    done = true;
  } finally {
    if (!done) {
      // The one handed to the sender is its sender's to cancel; the ones after it are ours.
      for (const [index, { read }] of started)
        if (index > handed) void read.then((r) => r.body.cancel()).catch(() => {});
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
        await writeSealedSegment(
          sink,
          piece.read,
          piece.from,
          piece.to,
          stream.source,
          check,
          stream.bufferBytes,
          signal,
        );
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
