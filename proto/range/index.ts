// The sealed-range storage format (spec: proto/range-format.md). Pure: no I/O, no node: imports,
// bundled into the edge Worker as well as the origin.
export { decodeRangeMeta } from "./decode-meta.ts";
export { type CodecOptions, encodeSealedRange } from "./encode.ts";
export {
  assertHeadMatchesRange,
  decodeHead,
  encodeHead,
  type HeadLightdInfo,
  type HeadObject,
  lastRangeIndex,
} from "./head.ts";
export {
  assertNetworkName,
  assertRangeSize,
  DEFAULT_RANGE_SIZE,
  FORMAT_VERSION,
  headKey,
  PROJECTIONS,
  type Projection,
  type RangeKeys,
  rangeBounds,
  rangeFolder,
  rangeIndexOf,
  rangeKeys,
} from "./keys.ts";
export { metaBytes } from "./layout.ts";
export {
  assertMetaIdentity,
  blockInfo,
  blockSpan,
  frameSpan,
  heightOfWireHash,
  lastWireHash,
  verifySection,
  wireHashView,
  wirePrevHashView,
} from "./meta-query.ts";
export { frameOf, RangeReader, type RangeStore, type SpanBody, type SpanRead } from "./reader.ts";
export type {
  BlockInfo,
  EncodedRange,
  RangeMeta,
  SealedBlockInput,
  SealedRangeInput,
  SectionInfo,
  Span,
  TreeSizes,
} from "./types.ts";
