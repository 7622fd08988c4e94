import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import type { RangeSource } from "../../proto/pools.ts";
import type { ChainCheck } from "../../proto/range/chain-link.ts";
import { blockInfo, frameSpan } from "../../proto/range/index.ts";
import type { RangeReader, SpanRead } from "../../proto/range/reader.ts";
import { beforeDeadline } from "../../proto/wire/deadline.ts";
import { readAll } from "../store/read-all.ts";
import type { ResponseSink } from "../wire/sink.ts";

/** A sealed segment's one ranged read, its body the storage's native stream. */
export type SealedRead = SpanRead<ReadableStream<Uint8Array>>;

/** Starts the one ranged read of `from..to` (either order, one range); callers start the next while sending one. */
export function startSealedRead(
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  source: RangeSource,
  from: number,
  to: number,
): Promise<SealedRead> {
  return ranges.read(source.projection, Math.min(from, to), Math.max(from, to));
}

/**
 * Sends one sealed segment `from..to` in sending order. Ascending stored frames are piped
 * natively (edge-streaming.md); descending or re-projected ones are buffered, one range at most.
 * Continuity is checked from the metadata before a byte is sent.
 */
export async function writeSealedSegment(
  sink: ResponseSink,
  read: SealedRead,
  from: number,
  to: number,
  source: RangeSource,
  check: ChainCheck,
  signal?: AbortSignal,
): Promise<void> {
  checkSealedRun(check, read, from, to);
  // A native pipe runs to the segment's end (see ResponseSink.pipe): the deadline is checked
  // between segments, so a stream ends at most one range object after it.
  if (source.project === undefined && from <= to) return sink.pipe(read.body);
  // One copy into one buffer, so a descending range costs one write per range object.
  await sink.write(concatBytes(await sealedFrames(read, from, to, source, signal)));
}

/** Continuity of a sealed run `from..to` (sending order) with what was sent before, from its metadata. */
export function checkSealedRun(check: ChainCheck, read: SealedRead, from: number, to: number): void {
  check.run(blockInfo(read.meta, from), blockInfo(read.meta, to));
}

/**
 * The frames of a read in sending order, each re-projected when the source says so. JavaScript
 * touches every byte here: descending ranges, pool sets nobody stores, JSON clients.
 */
export async function sealedFrames(
  read: SealedRead,
  from: number,
  to: number,
  source: RangeSource,
  signal?: AbortSignal,
): Promise<Uint8Array[]> {
  const { meta, span } = read;
  const bytes = await beforeDeadline(signal, readAll(read.body));
  if (bytes.length !== span.length) {
    throw new LightedgeError(
      "corrupt",
      "edge.sealed",
      `range ${meta.index}: short read (${bytes.length} of ${span.length} bytes)`,
    );
  }
  const frames: Uint8Array[] = [];
  const step = from <= to ? 1 : -1;
  for (let h = from; h !== to + step; h += step) {
    const f = frameSpan(meta, source.projection, h);
    const frame = bytes.subarray(f.offset - span.offset, f.offset - span.offset + f.length);
    frames.push(source.project === undefined ? frame : reproject(frame, source.project));
  }
  return frames;
}

function reproject(frame: Uint8Array, project: (block: CompactBlock) => CompactBlock): Uint8Array {
  const block = fromBinary(CompactBlockSchema, frame.subarray(FRAME_HEADER_BYTES));
  return encodeFrame(toBinary(CompactBlockSchema, project(block)));
}
