import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { FRAME_HEADER_BYTES } from "../frame.ts";
import type { CodecOptions } from "./encode.ts";
import { FORMAT_VERSION, type Projection } from "./keys.ts";
import * as L from "./layout.ts";
import type { RangeMeta, SectionInfo } from "./types.ts";

const WHERE = "range-codec.meta";

function corrupt(message: string): LightedgeError {
  return new LightedgeError("corrupt", WHERE, `range metadata: ${message}`);
}

/**
 * Decodes and validates a metadata object: magic, version, exact size, trailer SHA-256, and that
 * the block table's frame lengths add up to each section's length. Anything else is "corrupt":
 * a reader must never slice data with an unchecked table.
 */
export function decodeRangeMeta(bytes: Uint8Array, options: CodecOptions = {}): RangeMeta {
  if (bytes.length < L.HEADER_BYTES + L.TRAILER_BYTES) throw corrupt(`truncated (${bytes.length} bytes)`);
  if (!equalBytes(bytes.subarray(0, 8), L.META_MAGIC))
    throw corrupt("bad magic (not a range metadata object)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(L.H_VERSION, false);
  if (version !== FORMAT_VERSION) throw corrupt(`unsupported format version ${version}`);
  const projectionCount = bytes[L.H_PROJECTION_COUNT]!;
  if (projectionCount !== L.SECTION_ORDER.length)
    throw corrupt(`v1 stores 3 projections, header says ${projectionCount}`);
  const blockCount = view.getUint32(L.H_BLOCK_COUNT, false);
  if (bytes.length !== L.metaBytes(blockCount, projectionCount)) {
    throw corrupt(`size ${bytes.length} does not match ${blockCount} blocks (truncated or padded)`);
  }
  const trailerAt = bytes.length - L.TRAILER_BYTES;
  if (!equalBytes((options.sha256 ?? sha256)(bytes.subarray(0, trailerAt)), bytes.subarray(trailerAt)))
    throw corrupt("SHA-256 mismatch");
  return buildMeta(bytes, view, blockCount);
}

function buildMeta(bytes: Uint8Array, view: DataView, blockCount: number): RangeMeta {
  const rangeSize = view.getUint32(L.H_RANGE_SIZE, false);
  const index = view.getUint32(L.H_RANGE_INDEX, false);
  const firstHeight = view.getUint32(L.H_FIRST_HEIGHT, false);
  if (rangeSize === 0 || blockCount !== rangeSize || firstHeight !== index * rangeSize) {
    throw corrupt(
      `inconsistent bounds: size ${rangeSize}, index ${index}, first ${firstHeight}, count ${blockCount}`,
    );
  }
  const entryBytes = L.blockEntryBytes(L.SECTION_ORDER.length);
  const tableStart = L.HEADER_BYTES + L.SECTION_ORDER.length * L.SECTION_BYTES;
  const table = bytes.subarray(tableStart, tableStart + blockCount * entryBytes);
  const sections = {} as Record<Projection, SectionInfo>;
  const offsets = {} as Record<Projection, Float64Array>;
  L.SECTION_ORDER.forEach((projection, s) => {
    sections[projection] = readSection(bytes, view, L.HEADER_BYTES + s * L.SECTION_BYTES);
    offsets[projection] = prefixSums(table, entryBytes, blockCount, L.BLOCK_FIXED_BYTES + 4 * s);
    if (offsets[projection][blockCount] !== sections[projection].length) {
      throw corrupt(`${projection}: block lengths do not add up to the section length`);
    }
  });
  return {
    version: FORMAT_VERSION,
    network: readNetwork(bytes),
    rangeSize,
    index,
    firstHeight,
    lastHeight: firstHeight + blockCount - 1,
    blockCount,
    parentWireHash: bytes.slice(L.H_PARENT_HASH, L.H_PARENT_HASH + L.HASH_BYTES),
    sections,
    offsets,
    table,
    entryBytes,
  };
}

function readNetwork(bytes: Uint8Array): string {
  const length = bytes[L.H_NETWORK_LENGTH]!;
  if (length < 1 || length > L.NETWORK_FIELD_BYTES) throw corrupt(`bad network name length ${length}`);
  const name = new TextDecoder().decode(bytes.subarray(L.H_NETWORK, L.H_NETWORK + length));
  if (!/^[a-z0-9-]+$/.test(name)) throw corrupt("bad network name");
  return name;
}

function readSection(bytes: Uint8Array, view: DataView, at: number): SectionInfo {
  const length = view.getBigUint64(at, false);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt("section length out of range");
  return { length: Number(length), sha256: bytes.slice(at + 8, at + 8 + L.HASH_BYTES) };
}

/** Offsets of each block's frame: cumulative (frame header + message length). */
function prefixSums(table: Uint8Array, entryBytes: number, count: number, field: number): Float64Array {
  const view = new DataView(table.buffer, table.byteOffset, table.byteLength);
  const out = new Float64Array(count + 1);
  for (let k = 0; k < count; k++) {
    out[k + 1] = out[k]! + FRAME_HEADER_BYTES + view.getUint32(k * entryBytes + field, false);
  }
  return out;
}
