import type { Projection, RangeMeta } from "../../proto/range/index.ts";

/**
 * Frames of heights `lo..hi` of one sealed range as one ranged read returned them (ascending), and
 * zero-copy accessors into it and into the range's metadata. Hashes and frames are views of the
 * cached metadata and of the read: read-only for consumers.
 */
export interface SealedSpan {
  meta: RangeMeta;
  projection: Projection;
  lo: number;
  hi: number;
  bytes: Uint8Array;
  /** Offset of `bytes[0]` in the data object. */
  base: number;
}

const HASH_BYTES = 32;

/** The stored frame of `height` (lo ≤ height ≤ hi), without copying. */
export function sealedFrame(span: SealedSpan, height: number): Uint8Array {
  const offsets = span.meta.offsets[span.projection];
  const k = height - span.meta.firstHeight;
  return span.bytes.subarray(offsets[k]! - span.base, offsets[k + 1]! - span.base);
}

/** Wire hash of a block of the range (the block table's first field), without copying. */
export function sealedHash(meta: RangeMeta, height: number): Uint8Array {
  const at = (height - meta.firstHeight) * meta.entryBytes;
  return meta.table.subarray(at, at + HASH_BYTES);
}

/**
 * prevHash of a block of the range: inside a range it is the previous entry's hash (the encoder
 * refuses blocks that do not chain and the metadata's SHA-256 trailer covers the table), and the
 * header's parent hash for the first block.
 */
export function sealedPrevHash(meta: RangeMeta, height: number): Uint8Array {
  return height === meta.firstHeight ? meta.parentWireHash : sealedHash(meta, height - 1);
}
