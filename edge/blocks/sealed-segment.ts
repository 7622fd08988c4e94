import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { concatBytes } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import { encodeFrame, FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import type { CompactBlock } from "../../proto/index.ts";
import { CompactBlockSchema } from "../../proto/index.ts";
import {
  blockInfo,
  blockSpan,
  frameSpan,
  type Projection,
  type RangeMeta,
  rangeKeys,
} from "../../proto/range/index.ts";
import { beforeDeadline } from "../rpc/deadline.ts";
import type { ObjectReader, StoredObject } from "../store/index.ts";
import type { ResponseSink } from "../wire/sink.ts";
import type { ChainCheck } from "./chain-check.ts";
import { readAll } from "./read-all.ts";

/** How blocks of a segment are produced: a stored projection as is, or `full` re-projected. */
export type SegmentSource =
  | { kind: "stored"; projection: Projection }
  /** Costs a protobuf decode + filter + encode per block (≈ tens of µs): pool sets nobody stores. */
  | { kind: "projected"; project: (block: CompactBlock) => CompactBlock };

export interface SealedRead {
  meta: RangeMeta;
  object: StoredObject;
  from: number;
  to: number;
}

/** Starts the one ranged read a sealed segment needs (callers start the next while sending one). */
export async function startSealedRead(
  reader: ObjectReader,
  meta: RangeMeta,
  source: SegmentSource,
  from: number,
  to: number,
): Promise<SealedRead> {
  const projection = source.kind === "stored" ? source.projection : "full";
  const span = blockSpan(meta, projection, from, to);
  const key = rangeKeys(meta.network, meta.rangeSize, meta.index).data[projection];
  const object = await reader.get(key, span);
  if (object === null) throw new LightedgeError("corrupt", "edge.sealed", `range object ${key} is missing`);
  // The metadata's SHA-256 covers whole objects; a ranged read can only check the object's size.
  if (object.size !== meta.sections[projection].length) {
    await object.body.cancel();
    throw new LightedgeError(
      "corrupt",
      "edge.sealed",
      `${key} is ${object.size} bytes, its metadata says ${meta.sections[projection].length}`,
    );
  }
  return { meta, object, from, to };
}

/** Sends one sealed segment: ascending stored frames are piped natively; others are buffered. */
export async function writeSealedSegment(
  sink: ResponseSink,
  read: SealedRead,
  source: SegmentSource,
  check: ChainCheck,
  signal?: AbortSignal,
): Promise<void> {
  const { meta, from, to } = read;
  check.run(blockInfo(meta, from), blockInfo(meta, to));
  // A native pipe runs to the segment's end (see ResponseSink.pipe): the deadline is checked
  // between segments, so a stream ends at most one range object after it.
  if (source.kind === "stored" && from <= to) return sink.pipe(read.object.body);
  const projection = source.kind === "stored" ? source.projection : "full";
  const span = blockSpan(meta, projection, from, to);
  const bytes = await beforeDeadline(signal, readAll(read.object.body));
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
    const f = frameSpan(meta, projection, h);
    const frame = bytes.subarray(f.offset - span.offset, f.offset - span.offset + f.length);
    frames.push(source.kind === "stored" ? frame : reproject(frame, source.project));
  }
  // One copy into one buffer, so a descending range costs one write per range object.
  await sink.write(concatBytes(frames));
}

function reproject(frame: Uint8Array, project: (block: CompactBlock) => CompactBlock): Uint8Array {
  const block = fromBinary(CompactBlockSchema, frame.subarray(FRAME_HEADER_BYTES));
  return encodeFrame(toBinary(CompactBlockSchema, project(block)));
}
