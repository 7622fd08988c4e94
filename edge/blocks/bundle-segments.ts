import type { HashIndexLevel, HeadBundles } from "../../proto/range/index.ts";
import { bundleOf } from "../../proto/range/index.ts";
import type { Projection } from "../../proto/range/keys.ts";
import type { RangeReader } from "../../proto/range/reader.ts";
import type { Segment } from "./plan.ts";

/**
 * An ascending stream's runs of whole ranges that make up a stored bundle (proto/range/bundles.ts)
 * become one segment read with one storage call: a wallet download of 3,000 ranges makes ≈ 300
 * subrequests instead of 3,000 (the edge's cost is per object, bench/README.md). A bundle is used
 * only when its ranges' ends are known without metadata reads (the head's range-ends objects, read
 * once per isolate): anything else is read range by range, as before. Segments come in sending
 * order; only stored bytes sent as they are (ascending, no re-projection) may be bundled.
 */
export async function withBundles(
  segments: readonly Segment[],
  ranges: RangeReader<ReadableStream<Uint8Array>>,
  projection: Projection,
  field: HeadBundles,
  firstIndex: number,
  endsLevels: readonly HashIndexLevel[],
): Promise<Segment[]> {
  const size = ranges.rangeSize;
  const isWhole = (seg: Segment | undefined, index: number): boolean =>
    seg?.kind === "sealed" &&
    seg.index === index &&
    seg.from === index * size &&
    seg.to === seg.from + size - 1;
  const out: Segment[] = [];
  for (let i = 0; i < segments.length; ) {
    const seg = segments[i]!;
    const bundle = seg.kind === "sealed" ? bundleOf(field, firstIndex, seg.index) : undefined;
    if (seg.kind === "sealed" && bundle !== undefined && seg.index === bundle * field.ranges) {
      let whole = true;
      for (let k = 0; k < field.ranges && whole; k++) whole = isWhole(segments[i + k], seg.index + k);
      const ends = whole ? await ranges.bundleEnds(projection, bundle, field, endsLevels) : undefined;
      if (ends !== undefined) {
        const last = segments[i + field.ranges - 1]!;
        out.push({
          kind: "sealed",
          index: seg.index,
          from: seg.from,
          to: last.to,
          bundle: { index: bundle, ends },
        });
        i += field.ranges;
        continue;
      }
    }
    out.push(seg);
    i++;
  }
  return out;
}
