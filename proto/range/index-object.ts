import { sha256 } from "@noble/hashes/sha2.js";
import { equalBytes } from "../bytes.ts";
import { LightedgeError } from "../errors.ts";
import type { CodecOptions } from "./encode.ts";
import type { HashIndexLevel } from "./hash-index-layout.ts";
import { assertNetworkName } from "./keys.ts";
import * as L from "./layout.ts";

/**
 * What the sealed-format objects other than the metadata share (proto/range-format.md): a magic,
 * a version, the network name at bytes 11–27, a SHA-256 trailer of every preceding byte; and the
 * index shard objects — the hash index's (§Hash index, Shard object), the transaction index's and
 * the address directories (§Node-free history) — one 48-byte header: magic, version, shard bits,
 * network, range size, the level's first and last range, shard number, entry count; then `count`
 * fixed-size entries and the trailer. One implementation, so every index checks the same way.
 */

export const SHARD_HEADER_BYTES = 48;
export const TRAILER_BYTES = L.TRAILER_BYTES;
const NETWORK_LENGTH_AT = 11;
const NETWORK_AT = 12;

/** Writes a (checked) network name: its length at byte 11, the name from byte 12, zero padded. */
export function writeNetworkName(out: Uint8Array, network: string): void {
  assertNetworkName(network);
  out[NETWORK_LENGTH_AT] = network.length;
  out.set(new TextEncoder().encode(network), NETWORK_AT);
}

/** The network name at bytes 11–27, or undefined when it is not a valid one. */
export function readNetworkName(bytes: Uint8Array): string | undefined {
  const length = Math.min(bytes[NETWORK_LENGTH_AT]!, L.NETWORK_FIELD_BYTES);
  const network = new TextDecoder().decode(bytes.subarray(NETWORK_AT, NETWORK_AT + length));
  try {
    assertNetworkName(network);
    return network;
  } catch {
    return undefined;
  }
}

/** Writes the trailer: SHA-256 of every byte before it. */
export function writeTrailer(out: Uint8Array, options: CodecOptions = {}): void {
  const at = out.length - TRAILER_BYTES;
  out.set((options.sha256 ?? sha256)(out.subarray(0, at)), at);
}

/**
 * Checks what every object opens and ends with: at least `minimum` bytes, the magic, the version,
 * exactly `size(view)` bytes (the size its header implies) and the trailer. Throws `corrupt(...)`.
 */
export function openObject(
  bytes: Uint8Array,
  format: { magic: Uint8Array; version: number; minimum: number; size: (view: DataView) => number },
  corrupt: (message: string) => LightedgeError,
  options: CodecOptions = {},
): DataView {
  if (bytes.length < format.minimum) throw corrupt(`truncated (${bytes.length} bytes)`);
  if (!equalBytes(bytes.subarray(0, format.magic.length), format.magic)) throw corrupt("bad magic");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, false);
  if (version !== format.version) throw corrupt(`unsupported version ${version}`);
  const size = format.size(view);
  if (bytes.length !== size) throw corrupt(`size ${bytes.length}, header says ${size}`);
  const trailerAt = bytes.length - TRAILER_BYTES;
  if (!equalBytes((options.sha256 ?? sha256)(bytes.subarray(0, trailerAt)), bytes.subarray(trailerAt)))
    throw corrupt("SHA-256 mismatch");
  return view;
}

/** One kind of index shard object. */
export interface ShardFormat {
  magic: Uint8Array;
  version: number;
  entryBytes: number;
  /** What it is, for messages: "hash index shard". */
  what: string;
  where: string;
  keyOf(level: HashIndexLevel, shard: number): string;
}

/** A shard object of `count` entries with its header written: fill the entries, then `writeTrailer`. */
export function newShardObject(
  format: ShardFormat,
  level: HashIndexLevel,
  shard: number,
  count: number,
): { bytes: Uint8Array; view: DataView } {
  const bytes = new Uint8Array(SHARD_HEADER_BYTES + count * format.entryBytes + TRAILER_BYTES);
  const view = new DataView(bytes.buffer);
  bytes.set(format.magic, 0);
  view.setUint16(8, format.version, false);
  bytes[10] = level.bits;
  writeNetworkName(bytes, level.network);
  view.setUint32(28, level.rangeSize, false);
  view.setUint32(32, level.firstIndex, false);
  view.setUint32(36, level.lastIndex, false);
  view.setUint32(40, shard, false);
  view.setUint32(44, count, false);
  return { bytes, view };
}

/**
 * Checks a shard object read under the key of (`level`, `shard`) — size, magic, version, trailer,
 * and that its header describes that key (network, range size, level, shard bits, shard) — and
 * returns its entry count and entries. Checking the entries themselves is the caller's.
 */
export function openShardObject(
  bytes: Uint8Array,
  format: ShardFormat,
  level: HashIndexLevel,
  shard: number,
  options: CodecOptions = {},
): { count: number; entries: DataView } {
  const corrupt = (message: string) =>
    new LightedgeError("corrupt", format.where, `${format.what}: ${message}`);
  const view = openObject(
    bytes,
    {
      magic: format.magic,
      version: format.version,
      minimum: SHARD_HEADER_BYTES + TRAILER_BYTES,
      size: (v) => SHARD_HEADER_BYTES + v.getUint32(44, false) * format.entryBytes + TRAILER_BYTES,
    },
    corrupt,
    options,
  );
  const network = readNetworkName(bytes);
  if (network === undefined) throw corrupt("bad network name");
  const rangeSize = view.getUint32(28, false);
  const firstIndex = view.getUint32(32, false);
  const lastIndex = view.getUint32(36, false);
  const bits = bytes[10]!;
  const stored = view.getUint32(40, false);
  if (
    network !== level.network ||
    rangeSize !== level.rangeSize ||
    firstIndex !== level.firstIndex ||
    lastIndex !== level.lastIndex ||
    bits !== level.bits ||
    stored !== shard
  )
    throw corrupt(
      `object for ${format.keyOf(level, shard)} describes ${network} r${rangeSize} ${firstIndex}-${lastIndex} shard ${stored}/${2 ** bits}`,
    );
  const count = view.getUint32(44, false);
  return {
    count,
    entries: new DataView(bytes.buffer, bytes.byteOffset + SHARD_HEADER_BYTES, count * format.entryBytes),
  };
}
