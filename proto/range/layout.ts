import type { Projection } from "./keys.ts";

/**
 * Byte layout of a v1 range metadata object (`.meta.bin`); proto/range-format.md §Metadata is the
 * normative description. All integers are big-endian, like the frame length they sit beside.
 */

/** "LEDGMETA": identifies a range metadata object regardless of its key. */
export const META_MAGIC = new Uint8Array([0x4c, 0x45, 0x44, 0x47, 0x4d, 0x45, 0x54, 0x41]);

/** Fixed header: magic, version, projection count, network, size, index, first height, count, parent hash. */
export const HEADER_BYTES = 76;
export const H_MAGIC = 0;
export const H_VERSION = 8;
export const H_PROJECTION_COUNT = 10;
export const H_NETWORK_LENGTH = 11;
export const H_NETWORK = 12;
export const NETWORK_FIELD_BYTES = 16;
export const H_RANGE_SIZE = 28;
export const H_RANGE_INDEX = 32;
export const H_FIRST_HEIGHT = 36;
export const H_BLOCK_COUNT = 40;
export const H_PARENT_HASH = 44;

/** Per data section: u64 byte length + SHA-256 of the whole section object. */
export const SECTION_BYTES = 40;

/** Per block: wire hash, time, three tree sizes, then one u32 message length per projection. */
export const BLOCK_FIXED_BYTES = 48;
export const B_HASH = 0;
export const B_TIME = 32;
export const B_SAPLING = 36;
export const B_ORCHARD = 40;
export const B_IRONWOOD = 44;

/** SHA-256 of every byte before it: a corrupt table must not steer a reader to wrong bytes. */
export const TRAILER_BYTES = 32;

export const HASH_BYTES = 32;

/** Bytes of one block-table entry when `projectionCount` projections are stored. */
export function blockEntryBytes(projectionCount: number): number {
  return BLOCK_FIXED_BYTES + 4 * projectionCount;
}

/** Total metadata size for a range of `blockCount` blocks. */
export function metaBytes(blockCount: number, projectionCount: number): number {
  return (
    HEADER_BYTES +
    SECTION_BYTES * projectionCount +
    blockEntryBytes(projectionCount) * blockCount +
    TRAILER_BYTES
  );
}

/** Section order inside the metadata is fixed for v1. */
export const SECTION_ORDER: readonly Projection[] = Object.freeze(["shielded", "full", "nullifiers"]);
