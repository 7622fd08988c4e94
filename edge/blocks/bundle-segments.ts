import type { HashIndexLevel, HeadBundles } from "../../proto/range/index.ts";
import { bundleOf } from "../../proto/range/index.ts";
import type { Projection } from "../../proto/range/keys.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import type { Segment } from "./plan.ts";

type Sealed = Extract<Segment, { kind: "sealed" }>;

/**
 * An ascending stream's runs of two or more ranges inside one stored bundle
 * (proto/range/bundles.ts) become one segment, read with one storage call: a wallet download of
 * 3,000 ranges makes ≈ 300 subrequests instead of 3,000, a 1,000-block request across two ranges
 * one instead of two (the edge's cost is per object, bench/README.md). A run may start and end
 * inside a range (those ranges' metadata gives the offsets, as for a single range). A bundle is
 * used only when its ranges' ends are known without metadata reads (the head's range-ends objects,
 * read once per isolate), and not for the newest ranges (`hotFrom`: the Cache API holds those one
 * by one, edge/store/cached-reader.ts). Segments come in sending order; only stored bytes sent as
 * they are (ascending, no re-projection) may be bundled.
 */
export async function withBundles(
  segments: readonly Segment[],
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  projection: Projection,
  field: HeadBundles,
  firstIndex: number,
  endsLevels: readonly HashIndexLevel[],
  hotFrom?: number,
): Promise<Segment[]> {
  const size = ranges.rangeSize;
  /** `next` continues `prev` into the next range of the same bundle. */
  const continues = (prev: Sealed, next: Segment | undefined): next is Sealed =>
    next?.kind === "sealed" &&
    next.index === prev.index + 1 &&
    Math.floor(next.index / field.ranges) === Math.floor(prev.index / field.ranges) &&
    prev.to === (prev.index + 1) * size - 1 &&
    next.from === next.index * size;
  const out: Segment[] = [];
  for (let i = 0; i < segments.length; ) {
    const seg = segments[i]!;
    const bundle = seg.kind === "sealed" ? bundleOf(field, firstIndex, seg.index) : undefined;
    if (seg.kind === "sealed" && bundle !== undefined) {
      let last = seg;
      let n = 1;
      for (let next = segments[i + 1]; continues(last, next); next = segments[i + n]) {
        last = next;
        n++;
      }
      const cold = hotFrom === undefined || last.index < hotFrom;
      const members =
        n >= 2 && cold ? await ranges.bundleRanges(projection, bundle, field, endsLevels) : undefined;
      if (members !== undefined) {
        out.push({ ...seg, to: last.to, bundle: { index: bundle, ranges: members } });
        i += n;
        continue;
      }
    }
    out.push(seg);
    i++;
  }
  return out;
}
