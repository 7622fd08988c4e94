import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import { type CompactBlock, CompactBlockSchema } from "../../proto/index.ts";
import type { RangeSource } from "../../proto/pools.ts";
import type { ChainCheck } from "../../proto/range/chain-link.ts";
import {
  blockInfo,
  frameSpan,
  type HashIndexLevel,
  type HeadBundles,
  type Run,
  spanRuns,
} from "../../proto/range/index.ts";
import type { RangeReader, SpanRead, WholeRead } from "../../proto/range/reader.ts";
import { beforeDeadline } from "../../proto/wire/deadline.ts";
import { readAll } from "../store/read-all.ts";
import type { ResponseSink } from "../wire/sink.ts";
import { holdBuffer } from "./buffer-budget.ts";
import { extraCallsOf, type Segment } from "./plan.ts";

/**
 * A sealed segment's storage read, its body the storage's native stream: a span with the range's
 * metadata (to slice frames), or a whole range to pipe as it is (its ends only). A buffered span
 * larger than `SpanReads.maxBytes` is read in runs: `runs` says how to read the ones after the
 * first, whose bytes `body` holds.
 */
export type SealedRead = BufferedRead | WholeRead<ReadableStream<Uint8Array>>;

export type BufferedRead = SpanRead<ReadableStream<Uint8Array>> & { runs?: LaterRuns };

/** A span read run by run (proto/range/span-runs.ts): the first run (the read's own body), then the rest. */
export interface LaterRuns {
  first: Run;
  rest: readonly Run[];
  read(run: Run): Promise<SpanRead<ReadableStream<Uint8Array>>>;
}

/**
 * How a request's buffered segments read their spans: in runs of at most `maxBytes`
 * (SPAN_READ_BYTES), while the storage calls its plan left unused last (`spareCalls`, spent as
 * runs are planned; plan.ts spareCallsFor). Past them a span is read whole, as one read.
 */
export interface SpanReads {
  maxBytes: number;
  spareCalls: number;
}

/**
 * Starts the read of a sealed segment (`from..to` in either order, one range, or a run of ranges
 * inside one bundle); callers start the next while sending one. `piped`: the caller pipes stored
 * bytes (binary protocols), so a segment sent ascending as stored is never buffered, and a whole
 * range is read whole, which needs no metadata read when the head's range-ends objects
 * (`endsLevels`) cover the range or the range has been seen (proto/range/range-ends.ts: one read
 * per level, not one per range). A bundle segment (bundle-segments.ts), several ranges of one
 * stored bundle, is one ranged read of it. A buffered segment's span larger than
 * `spanReads.maxBytes` is read in runs, only the first started here.
 */
export async function startSealedRead(
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  source: RangeSource,
  seg: Extract<Segment, { kind: "sealed" }>,
  piped = false,
  endsLevels: readonly HashIndexLevel[] = [],
  bundles?: HeadBundles,
  spanReads?: SpanReads,
): Promise<SealedRead> {
  const { from, to } = seg;
  const size = ranges.rangeSize;
  if (seg.bundle !== undefined && bundles !== undefined)
    return ranges.readBundle(source.projection, seg.bundle.index, bundles, seg.bundle.ranges, from, to);
  const buffered = !piped || source.project !== undefined || from > to;
  if (!buffered && from % size === 0 && to === from + size - 1)
    return ranges.readWhole(source.projection, from / size, endsLevels);
  const readRun = (run: Run) =>
    ranges.read(source.projection, Math.min(run.from, run.to), Math.max(run.from, run.to));
  if (!buffered || spanReads === undefined) return readRun(seg);
  const meta = await ranges.meta(Math.floor(Math.min(from, to) / size));
  const runs = spanRuns(meta.offsets[source.projection], meta.firstHeight, from, to, spanReads.maxBytes);
  const extra = extraCallsOf(runs.length);
  if (runs.length === 1 || extra > spanReads.spareCalls) return readRun(seg);
  spanReads.spareCalls -= extra;
  const [first, ...rest] = runs as [Run, ...Run[]];
  return { ...(await readRun(first)), runs: { first, rest, read: readRun } };
}

function isWhole(read: SealedRead): read is WholeRead<ReadableStream<Uint8Array>> {
  return !("meta" in read);
}

/**
 * Sends one sealed segment `from..to` in sending order. Ascending stored frames are piped
 * natively (edge-streaming.md); descending or re-projected ones are buffered, one run of the
 * range at a time (bufferedFrames). Continuity is checked from the metadata before a byte is sent.
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
  // A native pipe runs to the segment's end, or its stall bound (ResponseSink.pipe): the deadline
  // is checked between segments, so a stream ends at most one range object after it.
  if (isWhole(read)) return sink.pipe(read.body, read.length);
  if (source.project === undefined && from <= to) return sink.pipe(read.body, read.span.length);
  // Descending or re-projected: copied out in pieces, each sent before the next is made (and its
  // frames re-projected), so one run's bytes plus one piece are in memory, not two copies of it.
  for await (const frames of bufferedFrames(read, from, to, source, bufferBytes, signal))
    for (const piece of piecesOf(frames, SEND_PIECE_BYTES, FRAME_ALONE_BYTES)) await sink.write(piece);
}

/**
 * The frames of a buffered read `from..to`, in sending order, one run at a time: each run's span
 * is taken from the isolate's buffer allowance (holdSpan) and read whole, its frames yielded, and
 * given back when the caller asks for the next run (or stops). The next run's read is started
 * while the caller sends this one's frames; its body is read only after this run is given back, so
 * a request holds one run's bytes at a time. A read the caller leaves unsent is cancelled.
 */
export async function* bufferedFrames(
  read: SealedRead,
  from: number,
  to: number,
  source: RangeSource,
  bufferBytes: number,
  signal?: AbortSignal,
): AsyncGenerator<Iterable<Uint8Array>> {
  if (isWhole(read))
    throw new LightedgeError("internal", "edge.sealed", "a whole-range read is piped, never buffered");
  const runs = read.runs?.rest ?? [];
  let current: SpanRead<ReadableStream<Uint8Array>> | undefined = read;
  let next: Promise<SpanRead<ReadableStream<Uint8Array>>> | undefined;
  try {
    for (let k = 0; k <= runs.length; k++) {
      const run = k === 0 ? (read.runs?.first ?? { from, to }) : runs[k - 1]!;
      if (current === undefined) {
        current = await beforeDeadline(signal, next!);
        next = undefined;
      }
      const release = await holdSpan(current, bufferBytes, signal);
      try {
        const frames = await sealedFrames(current, run.from, run.to, source, signal);
        current = undefined;
        if (k < runs.length) {
          next = read.runs!.read(runs[k]!);
          next.catch(() => {});
        }
        yield frames;
      } finally {
        release();
      }
    }
  } finally {
    // Left early (an error, the deadline, the caller stopping): nobody reads these bodies.
    if (current !== undefined) void current.body.cancel().catch(() => {});
    if (next !== undefined) void next.then((r) => r.body.cancel()).catch(() => {});
  }
}

/**
 * Takes a span read's bytes from the isolate's buffer allowance before they are read whole: the
 * release to call once its frames are sent. A read that gets no room is cancelled (nobody else will
 * consume it) and the call fails as holdBuffer says.
 */
async function holdSpan(
  read: SpanRead<ReadableStream<Uint8Array>>,
  bufferBytes: number,
  signal?: AbortSignal,
): Promise<() => void> {
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
 * The frames `from..to` of a span read in sending order, each re-projected when the source says
 * so, made as they are iterated (a re-projected run is megabytes). JavaScript touches every byte
 * here: descending ranges, pool sets nobody stores, JSON clients. The span is read whole: callers
 * hold its bytes first (holdSpan).
 */
async function sealedFrames(
  read: SpanRead<ReadableStream<Uint8Array>>,
  from: number,
  to: number,
  source: RangeSource,
  signal?: AbortSignal,
): Promise<Iterable<Uint8Array>> {
  const { meta, span } = read;
  const bytes = await readAll(read.body, span.length, `range ${meta.index}`, signal);
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
