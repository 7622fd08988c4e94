import { LightedgeError } from "../errors.ts";

/**
 * Stored tree-state range (one object per sealed range):
 *
 *   header  80 bytes   magic "LETS", version, start height, count, network, data offset/length,
 *                      SHA-256 of every byte after the header
 *   table   48 bytes per height: block hash (wire order), time, absolute record offset and length,
 *                      first 4 bytes of SHA-256(record)
 *   records one per distinct consecutive frontier set: for Sapling, Orchard, Ironwood a tag byte
 *                      (0 = pool not active, 1 = compact frontier follows) and the compact frontier
 *
 * Entry i sits at HEADER_BYTES + i × ENTRY_BYTES, so a reader that knows the range start needs one
 * 48-byte read (or one cached read of header + table) and one ranged read of the record.
 */
export const TREESTATE_MAGIC = "LETS";
export const TREESTATE_VERSION = 1;
export const TREESTATE_HEADER_BYTES = 80;
export const TREESTATE_ENTRY_BYTES = 48;
export const NETWORK_FIELD_BYTES = 16;
export const DIGEST_PREFIX_BYTES = 4;
export const WHERE = "treestate.range";

export interface TreeStateHeader {
  version: number;
  startHeight: number;
  count: number;
  network: string;
  dataOffset: number;
  dataLength: number;
  sha256: Uint8Array;
}

export interface TreeStateEntry {
  /** 32 bytes, wire (internal) order. */
  wireHash: Uint8Array;
  time: number;
  recordOffset: number;
  recordLength: number;
  digestPrefix: Uint8Array;
}

export function corrupt(message: string): never {
  throw new LightedgeError("corrupt", WHERE, `${WHERE}: ${message}`);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function writeHeader(out: Uint8Array, h: TreeStateHeader): void {
  const v = view(out);
  out.set(new TextEncoder().encode(TREESTATE_MAGIC), 0);
  out[4] = h.version;
  v.setUint32(8, h.startHeight, true);
  v.setUint32(12, h.count, true);
  const net = new TextEncoder().encode(h.network);
  if (net.length > NETWORK_FIELD_BYTES)
    throw new LightedgeError("bad-request", WHERE, "network name too long");
  out.set(net, 16);
  v.setUint32(32, h.dataOffset, true);
  v.setUint32(36, h.dataLength, true);
  out.set(h.sha256, 48);
}

export function readHeader(bytes: Uint8Array): TreeStateHeader {
  if (bytes.length < TREESTATE_HEADER_BYTES) corrupt("truncated header");
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== TREESTATE_MAGIC) corrupt("bad magic");
  if (bytes[4] !== TREESTATE_VERSION) corrupt(`unsupported version ${bytes[4]}`);
  const v = view(bytes);
  const netBytes = bytes.subarray(16, 16 + NETWORK_FIELD_BYTES);
  const netEnd = netBytes.indexOf(0);
  const header: TreeStateHeader = {
    version: bytes[4]!,
    startHeight: v.getUint32(8, true),
    count: v.getUint32(12, true),
    network: new TextDecoder().decode(netEnd < 0 ? netBytes : netBytes.subarray(0, netEnd)),
    dataOffset: v.getUint32(32, true),
    dataLength: v.getUint32(36, true),
    sha256: bytes.slice(48, 80),
  };
  if (header.dataOffset !== TREESTATE_HEADER_BYTES + header.count * TREESTATE_ENTRY_BYTES) {
    corrupt("data offset disagrees with count");
  }
  return header;
}

/** `v`: a view of `out`, when the caller writes many entries (one view, not one per entry). */
export function writeEntry(out: Uint8Array, index: number, e: TreeStateEntry, v = view(out)): void {
  const at = TREESTATE_HEADER_BYTES + index * TREESTATE_ENTRY_BYTES;
  out.set(e.wireHash, at);
  v.setUint32(at + 32, e.time, true);
  v.setUint32(at + 36, e.recordOffset, true);
  v.setUint32(at + 40, e.recordLength, true);
  out.set(e.digestPrefix, at + 44);
}

/** Decodes one 48-byte table entry (as read alone, or inside the whole object at `at`). */
export function decodeTreeStateEntry(bytes: Uint8Array, at = 0): TreeStateEntry {
  if (at + TREESTATE_ENTRY_BYTES > bytes.length) corrupt("truncated table entry");
  const v = view(bytes);
  return {
    wireHash: bytes.slice(at, at + 32),
    time: v.getUint32(at + 32, true),
    recordOffset: v.getUint32(at + 36, true),
    recordLength: v.getUint32(at + 40, true),
    digestPrefix: bytes.slice(at + 44, at + 48),
  };
}

/** Byte range of the table entry for `height` in a range starting at `startHeight`. */
export function entryByteRange(startHeight: number, height: number): { offset: number; length: number } {
  return {
    offset: TREESTATE_HEADER_BYTES + (height - startHeight) * TREESTATE_ENTRY_BYTES,
    length: TREESTATE_ENTRY_BYTES,
  };
}
