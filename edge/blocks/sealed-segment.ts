import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import type { RangeSource } from "../../proto/pools.ts";
import type { ChainCheck } from "../../proto/range/chain-link.ts";
import { blockInfo, frameSpan, type HashIndexLevel, type HeadBundles } from "../../proto/range/index.ts";
import type { RangeReader, SpanRead, WholeRead } from "../../proto/range/reader.ts";
import { beforeDeadline } from "../../proto/wire/deadline.ts";
import { readAll } from "../store/read-all.ts";
import type { ResponseSink } from "../wire/sink.ts";
import { holdBuffer } from "./buffer-budget.ts";
import type { Segment } from "./plan.ts";

/**
 * A sealed segment's one storage read, its body the storage's native stream: a span with the
 * range's metadata (to slice frames), or a whole range to pipe as it is (its ends only).
 */
export type SealedRead = SpanRead<ReadableStream<Uint8Array>> | WholeRead<ReadableStream<Uint8Array>>;

/**
 * Starts the one read of a sealed segment (`from..to` in either order, one range, or a run of
 * ranges inside one bundle); callers start the next while sending one. `pipeWhole`: a whole range sent
 * ascending as stored is read whole, which needs no metadata read when the head's range-ends
 * objects (`endsLevels`) cover the range or the range has been seen (proto/range/range-ends.ts:
 * one read per level, not one per range). A bundle segment (bundle-segments.ts), several ranges
 * of one stored bundle, is one ranged read of it.
 */
export function startSealedRead(
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  source: RangeSource,
  seg: Extract<Segment, { kind: "sealed" }>,
  pipeWhole = false,
  endsLevels: readonly HashIndexLevel[] = [],
  bundles?: HeadBundles,
): Promise<SealedRead> {
  const { from, to } = seg;
  const size = ranges.rangeSize;
  if (seg.bundle !== undefined && bundles !== undefined)
    return ranges.readBundle(source.projection, seg.bundle.index, bundles, seg.bundle.ranges, from, to);
  if (pipeWhole && source.project === undefined && from <= to && from % size === 0 && to === from + size - 1)
    return ranges.readWhole(source.projection, from / size, endsLevels);
  return ranges.read(source.projection, Math.min(from, to), Math.max(from, to));
}

function isWhole(read: SealedRead): read is WholeRead<ReadableStream<Uint8Array>> {
  return !("meta" in read);
}

/**
 * Sends one sealed segment `from..to` in sending order. Ascending stored frames are piped
 * natively (edge-streaming.md); descending or re-projected ones are buffered, one range at most,
 * under the isolate's `bufferBytes` (buffer-budget.ts). Continuity is checked from the metadata
 * before a byte is sent.
 */
export async function writeSealedSegment(
  sink: ResponseSink,
  read: SealedRead,
  from: number,
  to: number,
  source: RangeSource,
  check: ChainCheck,
  bufferBytes: number,
  signal?: AbortSignal,
): Promise<void> {
  checkSealedRun(check, read, from, to);
  // A native pipe runs to the segment's end (see ResponseSink.pipe): the deadline is checked
  // between segments, so a stream ends at most one range object after it.
  if (isWhole(read) || (source.project === undefined && from <= to)) return sink.pipe(read.body);
  // Descending or re-projected: copied out in pieces, each sent before the next is made (and its
  // frames re-projected), so the range's bytes plus one piece are in memory, not two copies of the
  // range (a 2022–23 spam-era range is ≈ 42 MB shielded; a Worker has 128 MB for every request).
  const release = await holdSpan(read, bufferBytes, signal);
  try {
    const frames = await sealedFrames(read, from, to, source, signal);
    for (const piece of piecesOf(frames, SEND_PIECE_BYTES, FRAME_ALONE_BYTES)) await sink.write(piece);
  } finally {
    release();
  }
}

/**
 * Takes a span read's bytes from the isolate's buffer allowance before they are read whole: the
 * release to call once its frames are sent. A read that gets no room is cancelled (nobody else will
 * consume it) and the call fails as holdBuffer says.
 */
export async function holdSpan(
  read: SealedRead,
  bufferBytes: number,
  signal?: AbortSignal,
): Promise<() => void> {
  if (isWhole(read))
    throw new LightedgeError("internal", "edge.sealed", "a whole-range read is piped, never buffered");
  try {
    return await holdBuffer(read.span.length, bufferBytes, signal);
  } catch (err) {
    void read.body.cancel().catch(() => {});
    throw err;
  }
}

/** Most bytes of reordered frames copied into one write (fewer writes, small copies). */
export const SEND_PIECE_BYTES = 1024 * 1024;

/**
 * Frames at least this large are written as they are, a view of the stored span, not copied into
 * a piece. Copies are garbage until V8 collects them: a descending spam-era range (≈ 89 KB blocks)
 * copied whole peaked at 1.7× its span in ArrayBuffers (150 MiB for an 89 MB range under Miniflare,
 * 90 MiB written frame by frame, 2026-12-07). A write costs ≈ 25 µs of the isolate's time, so small
 * frames still go in pieces (a 1,000-block range of ordinary blocks: 3.6 ms of CPU in pieces,
 * 27.5 ms frame by frame, same run).
 */
export const FRAME_ALONE_BYTES = 16 * 1024;

/**
 * The frames, in order, as consecutive pieces of at most `maxBytes` each: each piece made as it is
 * asked for, from frames made as they are asked for, so only the piece being sent exists beside
 * the stored bytes. A frame of `aloneBytes` or more (or over `maxBytes`) is its own piece, uncopied.
 */
export function* piecesOf(
  frames: Iterable<Uint8Array>,
  maxBytes: number,
  aloneBytes = maxBytes,
): Generator<Uint8Array> {
  let held: Uint8Array[] = [];
  let bytes = 0;
  for (const frame of frames) {
    const alone = frame.length >= aloneBytes || frame.length > maxBytes;
    if (held.length > 0 && (alone || bytes + frame.length > maxBytes)) {
      yield concatBytes(held);
      held = [];
      bytes = 0;
    }
    if (alone) {
      yield frame;
      continue;
    }
    held.push(frame);
    bytes += frame.length;
  }
  if (held.length > 0) yield concatBytes(held);
}

/** Continuity of a sealed run `from..to` (sending order) with what was sent before, from its metadata. */
export function checkSealedRun(check: ChainCheck, read: SealedRead, from: number, to: number): void {
  if (isWhole(read))
    check.ascendingRun(
      { height: read.ends.firstHeight, wirePrevHash: read.ends.parentWireHash },
      { height: read.ends.lastHeight, wireHash: read.ends.lastWireHash },
    );
  else check.run(blockInfo(read.meta, from), blockInfo(read.meta, to));
}

/**
 * The frames of a read in sending order, each re-projected when the source says so, made as they
 * are iterated (a re-projected spam-era range is tens of MB). JavaScript touches every byte here:
 * descending ranges, pool sets nobody stores, JSON clients. The span is read whole: callers hold
 * its bytes first (holdSpan).
 */
export async function sealedFrames(
  read: SealedRead,
  from: number,
  to: number,
  source: RangeSource,
  signal?: AbortSignal,
): Promise<Iterable<Uint8Array>> {
  if (isWhole(read))
    throw new LightedgeError("internal", "edge.sealed", "a whole-range read has no frame table");
  const { meta, span } = read;
  const bytes = await beforeDeadline(signal, readAll(read.body));
  if (bytes.length !== span.length) {
    throw new LightedgeError(
      "corrupt",
      "edge.sealed",
      `range ${meta.index}: short read (${bytes.length} of ${span.length} bytes)`,
    );
  }
  return (function* () {
    const step = from <= to ? 1 : -1;
    for (let h = from; h !== to + step; h += step) {
      const f = frameSpan(meta, source.projection, h);
      const frame = bytes.subarray(f.offset - span.offset, f.offset - span.offset + f.length);
      yield source.project === undefined ? frame : reproject(frame, source.project);
    }
  })();
}

function reproject(frame: Uint8Array, project: (block: CompactBlock) => CompactBlock): Uint8Array {
  const block = fromBinary(CompactBlockSchema, frame.subarray(FRAME_HEADER_BYTES));
  return encodeFrame(toBinary(CompactBlockSchema, project(block)));
}
