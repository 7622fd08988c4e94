import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes, slabAllocator, toHex } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import { type FinalStateStyle, serializeFinalState } from "./legacy-tree.ts";
import {
  corrupt,
  decodeTreeStateEntry,
  readHeader,
  TREESTATE_ENTRY_BYTES,
  TREESTATE_HEADER_BYTES,
  TREESTATE_VERSION,
  type TreeStateEntry,
  type TreeStateHeader,
  WHERE,
  writeEntry,
  writeHeader,
} from "./range-layout.ts";
import {
  decodeRecord,
  encodeRecord,
  type PoolTrees,
  recordDigestPrefix,
  type Sha256,
} from "./range-record.ts";

/** One block's tree states, as the origin hands them to the encoder. */
export interface TreeStateBlock extends PoolTrees {
  height: number;
  /** 32 bytes, wire (internal) order. */
  wireHash: Uint8Array;
  time: number;
}

export interface TreeStateRangeInput {
  /** Chain name as TreeState.network gives it ("main", "test", "regtest"). */
  network: string;
  blocks: TreeStateBlock[];
}

export interface TreeStateRange {
  header: TreeStateHeader;
  bytes: Uint8Array;
}

/** The GetTreeState answer: finalState strings as z_gettreestate gives them ("" = pool inactive). */
export interface TreeStateView {
  network: string;
  height: number;
  /** Display order (byte-reversed) hex, as RPC shows block hashes. */
  hash: string;
  time: number;
  saplingTree: string;
  orchardTree: string;
  ironwoodTree: string;
}

/** Options of the tree-state encoder. */
export interface TreeStateCodecOptions {
  /** A faster SHA-256 where one exists (the origin's node:crypto one); the pure @noble one otherwise. */
  sha256?: Sha256;
}

/** Encodes consecutive blocks; consecutive identical records are stored once. */
export function encodeTreeStateRange(
  input: TreeStateRangeInput,
  options: TreeStateCodecOptions = {},
): Uint8Array {
  const { blocks } = input;
  const hash = options.sha256 ?? sha256;
  if (blocks.length === 0) throw new LightedgeError("bad-request", WHERE, "empty tree-state range");
  blocks.forEach((b, i) => {
    if (b.height !== blocks[0]!.height + i)
      throw new LightedgeError("bad-request", WHERE, "heights not consecutive");
  });
  const dataOffset = TREESTATE_HEADER_BYTES + blocks.length * TREESTATE_ENTRY_BYTES;
  const records: Uint8Array[] = [];
  const entries: TreeStateEntry[] = [];
  let pos = dataOffset;
  let prev: { record: Uint8Array; offset: number; digest: Uint8Array; trees: PoolTrees } | undefined;
  // Records are copied into `out` below and dropped: slab views, not a buffer each.
  const alloc = slabAllocator(64 * 1024);
  for (const b of blocks) {
    // The very tree objects of the block before encode to the very same record: a caller that
    // shares them across blocks without new leaves (the scale generator) skips encoding and
    // comparing; new objects are encoded and compared.
    const same =
      prev !== undefined &&
      b.sapling === prev.trees.sapling &&
      b.orchard === prev.trees.orchard &&
      b.ironwood === prev.trees.ironwood;
    const record = same ? prev!.record : encodeRecord(b, alloc);
    if (!prev || !(same || equalBytes(prev.record, record))) {
      prev = { record, offset: pos, digest: recordDigestPrefix(record, hash), trees: b };
      records.push(record);
      pos += record.length;
    } else prev.trees = b;
    entries.push({
      wireHash: b.wireHash,
      time: b.time,
      recordOffset: prev.offset,
      recordLength: record.length,
      digestPrefix: prev.digest,
    });
  }
  const out = new Uint8Array(pos);
  const view = new DataView(out.buffer);
  entries.forEach((e, i) => {
    writeEntry(out, i, e, view);
  });
  let at = dataOffset;
  for (const r of records) {
    out.set(r, at);
    at += r.length;
  }
  const header = {
    version: TREESTATE_VERSION,
    startHeight: blocks[0]!.height,
    count: blocks.length,
    network: input.network,
    dataOffset,
    dataLength: pos - dataOffset,
    sha256: hash(out.subarray(TREESTATE_HEADER_BYTES)),
  };
  writeHeader(out, header);
  return out;
}

/** Checks the header, length and SHA-256 of a whole object. */
export function decodeTreeStateRange(bytes: Uint8Array): TreeStateRange {
  const header = readHeader(bytes);
  if (bytes.length !== header.dataOffset + header.dataLength) corrupt("object length disagrees with header");
  if (!equalBytes(sha256(bytes.subarray(TREESTATE_HEADER_BYTES)), header.sha256)) corrupt("sha256 mismatch");
  return { header, bytes };
}

/** Builds the answer from an entry and its record (both as read from storage). */
export function treeStateFromParts(
  network: string,
  height: number,
  entry: TreeStateEntry,
  record: Uint8Array,
  style: FinalStateStyle = "zebrad",
): TreeStateView {
  const trees = decodeRecord(record, entry);
  const str = (t: PoolTrees[keyof PoolTrees]) => (t ? serializeFinalState(t, style) : "");
  return {
    network,
    height,
    hash: toHex(entry.wireHash.slice().reverse()),
    time: entry.time,
    saplingTree: str(trees.sapling),
    orchardTree: str(trees.orchard),
    ironwoodTree: str(trees.ironwood),
  };
}

/** The tree state after block `height` of a decoded range; outside the range → not-found. */
export function treeStateAt(
  range: TreeStateRange,
  height: number,
  style: FinalStateStyle = "zebrad",
): TreeStateView {
  const { header, bytes } = range;
  const i = height - header.startHeight;
  if (!Number.isInteger(i) || i < 0 || i >= header.count) {
    throw new LightedgeError("not-found", WHERE, `height ${height} is not in this tree-state range`);
  }
  const entry = decodeTreeStateEntry(bytes, TREESTATE_HEADER_BYTES + i * TREESTATE_ENTRY_BYTES);
  const end = entry.recordOffset + entry.recordLength;
  if (entry.recordOffset < header.dataOffset || end > bytes.length) corrupt("record outside the object");
  return treeStateFromParts(header.network, height, entry, bytes.subarray(entry.recordOffset, end), style);
}
