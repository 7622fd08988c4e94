// The sealed-range storage format (spec: proto/range-format.md). Pure: no I/O, no node: imports,
// bundled into the edge Worker as well as the origin.
export {
  bundleEnds,
  bundleKey,
  bundleOf,
  bundleStored,
  bundlesWithin,
  DEFAULT_BUNDLE_MAX_BYTES,
  DEFAULT_BUNDLE_RANGES,
  firstBundle,
  type HeadBundles,
  isHeadBundles,
} from "./bundles.ts";
export { decodeRangeMeta } from "./decode-meta.ts";
export { type CodecOptions, encodeSealedRange } from "./encode.ts";
export { HashIndexBuilder, type HashIndexBuilderOptions } from "./hash-index-builder.ts";
export {
  blockHashEntries,
  decodeHashShard,
  encodeHashLevel,
  type HashCandidate,
  type HashEntries,
  type HashShard,
  hashEntry,
  metaHashEntries,
  type RangeHashes,
  shardCandidates,
  sortedEntries,
} from "./hash-index-codec.ts";
export {
  DEFAULT_EPOCH_RANGES,
  HASH_INDEX_VERSION,
  type HashIndexLevel,
  type HeadHashIndex,
  hashIndexLevel,
  hashKey32,
  hashShardKey,
  headHashLevels,
  headLevelSpans,
  shardBitsFor,
  shardOf,
} from "./hash-index-layout.ts";
export {
  type HashIndexSource,
  hashIndexCandidates,
  type IndexObjectSource,
  type LevelShardObject,
  loadIndexObject,
  loadLevelShards,
  lookupSealedHash,
  type ReadObject,
  type SealedHashLookup,
} from "./hash-index-lookup.ts";
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
  assertRangeIndex,
  assertRangeSize,
  DEFAULT_RANGE_SIZE,
  FORMAT_VERSION,
  headKey,
  type LevelSpan,
  levelObjectKey,
  PROJECTIONS,
  type Projection,
  type RangeKeys,
  rangeBounds,
  rangeFolder,
  rangeIndexOf,
  rangeKeys,
  shardName,
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
export {
  decodeRangeEnds,
  encodeRangeEnds,
  endsLevelOf,
  endsOf,
  endsOfEncoded,
  headEndsLevels,
  RANGE_ENDS_VERSION,
  type RangeEnds,
  type RangeEndsTable,
  rangeEndsAt,
  rangeEndsKey,
} from "./range-ends.ts";
export {
  frameOf,
  RangeReader,
  type RangeStore,
  type SpanBody,
  type SpanRead,
  type SpanReadOptions,
  type WholeRead,
} from "./reader.ts";
export { DEFAULT_SPAN_READ_BYTES, type Run, spanRuns } from "./span-runs.ts";
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
