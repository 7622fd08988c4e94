/**
 * Tree states as stored and served: the legacy `finalState` codec (both node styles), the compact
 * frontier, and the per-range stored object. Pure code shared by the origin and the edge.
 */
export {
  compactFrontierLength,
  decodeCompactFrontier,
  encodeCompactFrontier,
  slotsForSize,
} from "./compact-frontier.ts";
export { SUBTREE_CHUNK, subtreeChunkKey, treeStateKey } from "./keys.ts";
export {
  type FinalStateStyle,
  type LegacyTree,
  legacyTreeSize,
  MAX_PARENTS,
  parseFinalState,
  serializeFinalState,
  trimParents,
} from "./legacy-tree.ts";
export {
  decodeTreeStateRange,
  encodeTreeStateRange,
  type TreeStateBlock,
  type TreeStateCodecOptions,
  type TreeStateRange,
  type TreeStateRangeInput,
  type TreeStateView,
  treeStateAt,
  treeStateFromParts,
} from "./range-codec.ts";
export {
  decodeTreeStateEntry,
  entryByteRange,
  readHeader as decodeTreeStateHeader,
  TREESTATE_ENTRY_BYTES,
  TREESTATE_HEADER_BYTES,
  type TreeStateEntry,
  type TreeStateHeader,
} from "./range-layout.ts";
export { decodeRecord, type PoolTrees } from "./range-record.ts";
export {
  createTreeStateReader,
  type ReadBytes,
  type TreeStateReader,
  type TreeStateReaderOptions,
} from "./reader.ts";
export {
  readSubtreeChunk,
  readSubtreeRoots,
  SUBTREE_LEAF_COUNT,
  type SubtreeQuery,
  subtreeQueryEnd,
} from "./subtree-reader.ts";
export {
  decodeSubtreeRoots,
  encodeSubtreeRoots,
  type StoredSubtreeRoot,
  type SubtreePool,
  type SubtreeRootsChunk,
} from "./subtree-roots.ts";
