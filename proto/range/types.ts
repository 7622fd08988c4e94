import type { Projection } from "./keys.ts";

/** Note commitment tree sizes after a block (ChainMetadata in the compact block). */
export interface TreeSizes {
  sapling: number;
  orchard: number;
  ironwood: number;
}

/** One block handed to the encoder: identity plus each projection's unframed protobuf bytes. */
export interface SealedBlockInput {
  height: number;
  /** 32 bytes, wire (internal) byte order. */
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
  /** Block header time, seconds since the epoch (u32). */
  time: number;
  treeSizes: TreeSizes;
  /** `toBinary(CompactBlockSchema, …)` of each projection; the codec adds the frame header. */
  messages: Record<Projection, Uint8Array>;
}

export interface SealedRangeInput {
  network: string;
  rangeSize: number;
  index: number;
  blocks: SealedBlockInput[];
}

/** The encoded objects of one range: store `meta` under `rangeKeys().meta`, each data under its key. */
export interface EncodedRange {
  meta: Uint8Array;
  data: Record<Projection, Uint8Array>;
}

export interface SectionInfo {
  /** Bytes of the section object (all frames). */
  length: number;
  sha256: Uint8Array;
}

/** A decoded, validated metadata object. Query it with the functions in meta-query.ts. */
export interface RangeMeta {
  version: number;
  network: string;
  rangeSize: number;
  index: number;
  firstHeight: number;
  /** Inclusive. */
  lastHeight: number;
  blockCount: number;
  /** prevHash of the first block (wire order): what the previous range must end with. */
  parentWireHash: Uint8Array;
  sections: Record<Projection, SectionInfo>;
  /** Frame start offsets per projection, blockCount + 1 entries (the last is the section length). */
  offsets: Record<Projection, Float64Array>;
  /** The raw block table (read by the query functions). */
  table: Uint8Array;
  entryBytes: number;
}

/** Identity and chain data of one sealed block, from the metadata alone. */
export interface BlockInfo {
  height: number;
  wireHash: Uint8Array;
  wirePrevHash: Uint8Array;
  time: number;
  treeSizes: TreeSizes;
}

/** A byte span inside one section object. */
export interface Span {
  offset: number;
  length: number;
}
