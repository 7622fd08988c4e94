import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { CodecOptions } from "./encode.ts";
import type { Projection } from "./keys.ts";
import * as L from "./layout.ts";
import type { BlockInfo, RangeMeta, Span } from "./types.ts";

/** O(1) queries on a decoded metadata object: spans to slice, block identity, lookup by hash. */

function checkHeight(meta: RangeMeta, height: number): number {
  if (!Number.isInteger(height) || height < meta.firstHeight || height > meta.lastHeight) {
    throw new LightedgeError(
      "internal",
      "range-codec.query",
      `height ${height} is outside range ${meta.index} (${meta.firstHeight}–${meta.lastHeight})`,
    );
  }
  return height - meta.firstHeight;
}

/**
 * Byte span of the frames of heights `from`..`to` (inclusive, either order) in a projection's
 * section: one ranged read returns them ready to send, in ascending order.
 */
export function blockSpan(meta: RangeMeta, projection: Projection, from: number, to: number): Span {
  const a = checkHeight(meta, Math.min(from, to));
  const b = checkHeight(meta, Math.max(from, to));
  const offsets = meta.offsets[projection];
  return { offset: offsets[a]!, length: offsets[b + 1]! - offsets[a]! };
}

/** Span of one block's frame (for emitting a buffered slice in descending order). */
export function frameSpan(meta: RangeMeta, projection: Projection, height: number): Span {
  return blockSpan(meta, projection, height, height);
}

/** A block's hash, prevHash, time and tree sizes, from the metadata alone. */
export function blockInfo(meta: RangeMeta, height: number): BlockInfo {
  const k = checkHeight(meta, height);
  const at = k * meta.entryBytes;
  const view = new DataView(meta.table.buffer, meta.table.byteOffset, meta.table.byteLength);
  return {
    height,
    wireHash: meta.table.slice(at + L.B_HASH, at + L.B_HASH + L.HASH_BYTES),
    // prevHash is not stored per block: inside a range it is the previous entry's hash (the
    // encoder refuses input that does not chain), and the header holds the first block's.
    wirePrevHash:
      k === 0
        ? meta.parentWireHash.slice()
        : meta.table.slice(at - meta.entryBytes, at - meta.entryBytes + 32),
    time: view.getUint32(at + L.B_TIME, false),
    treeSizes: {
      sapling: view.getUint32(at + L.B_SAPLING, false),
      orchard: view.getUint32(at + L.B_ORCHARD, false),
      ironwood: view.getUint32(at + L.B_IRONWOOD, false),
    },
  };
}

/** Wire hash of the range's last block: what the next range's parent hash must be. */
export function lastWireHash(meta: RangeMeta): Uint8Array {
  return blockInfo(meta, meta.lastHeight).wireHash;
}

/** Height of the block with this wire hash in the range, or undefined (a linear scan of ≤ 32 KB per 1,000 blocks). */
export function heightOfWireHash(meta: RangeMeta, wireHash: Uint8Array): number | undefined {
  if (wireHash.length !== L.HASH_BYTES) return undefined;
  for (let k = 0; k < meta.blockCount; k++) {
    const at = k * meta.entryBytes + L.B_HASH;
    if (equalBytes(meta.table.subarray(at, at + L.HASH_BYTES), wireHash)) return meta.firstHeight + k;
  }
  return undefined;
}

/**
 * Checks a whole section object against its length and SHA-256 in the metadata. For whole-object
 * reads (origin read-back, a second origin adopting a bucket, audits); the edge's ranged reads
 * check the object's size instead (see range-format.md §Integrity).
 */
export function verifySection(
  meta: RangeMeta,
  projection: Projection,
  bytes: Uint8Array,
  options: CodecOptions = {},
): void {
  const expected = meta.sections[projection];
  if (bytes.length !== expected.length) {
    throw new LightedgeError(
      "corrupt",
      "range-codec.verify",
      `range ${meta.index} ${projection}: ${bytes.length} bytes, metadata says ${expected.length}`,
    );
  }
  if (!equalBytes((options.sha256 ?? sha256)(bytes), expected.sha256)) {
    throw new LightedgeError(
      "corrupt",
      "range-codec.verify",
      `range ${meta.index} ${projection}: SHA-256 mismatch`,
    );
  }
}

/** The metadata read under a key must describe that key's range (a misplaced object is corrupt). */
export function assertMetaIdentity(
  meta: RangeMeta,
  expected: { network: string; rangeSize: number; index: number },
): void {
  if (
    meta.network !== expected.network ||
    meta.rangeSize !== expected.rangeSize ||
    meta.index !== expected.index
  ) {
    throw new LightedgeError(
      "corrupt",
      "range-codec.meta",
      `object for ${expected.network} r${expected.rangeSize} #${expected.index} describes ${meta.network} r${meta.rangeSize} #${meta.index}`,
    );
  }
}

/** Wire hash of a block of the range, as a view of the metadata's table (no copy: read-only). */
export function wireHashView(meta: RangeMeta, height: number): Uint8Array {
  const at = checkHeight(meta, height) * meta.entryBytes + L.B_HASH;
  return meta.table.subarray(at, at + L.HASH_BYTES);
}

/**
 * prevHash of a block of the range, as a view (no copy): inside a range it is the previous
 * entry's hash (the encoder refuses blocks that do not chain, and the metadata's SHA-256 covers
 * the table), and the header's parent hash for the first block.
 */
export function wirePrevHashView(meta: RangeMeta, height: number): Uint8Array {
  return height === meta.firstHeight ? meta.parentWireHash : wireHashView(meta, height - 1);
}
