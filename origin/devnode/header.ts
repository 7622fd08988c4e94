import { createHash } from "node:crypto";
import { ByteWriter } from "./writer.ts";

/** Equihash (200,9) solution length: the header is 140 + 3 + 1344 = 1487 bytes like mainnet's. */
const SOLUTION_BYTES = 1344;
/** Regtest-like easy target (zebrad regtest bits). */
export const SYNTHETIC_BITS = 0x200f0f0f;
/** Serialized header size: 140 fixed bytes, CompactSize 1344 (3 bytes), the solution. */
export const HEADER_BYTES = 140 + 3 + SOLUTION_BYTES;
const dummySolution = new Uint8Array(SOLUTION_BYTES).fill(0x5a);

export interface HeaderFields {
  wirePrevHash: Uint8Array;
  wireMerkleRoot: Uint8Array;
  time: number;
  height: number;
}

/**
 * A real-layout header (version 4, block commitments zero, a dummy Equihash solution: the dev node
 * does no proof of work, and nobody here verifies it). The nonce carries the height so two branches
 * with equal contents still differ.
 */
export function buildHeader(f: HeaderFields): Uint8Array {
  const w = new ByteWriter(1487);
  w.u32(4);
  w.bytes(f.wirePrevHash);
  w.bytes(f.wireMerkleRoot);
  w.bytes(new Uint8Array(32));
  w.u32(f.time);
  w.u32(SYNTHETIC_BITS);
  const nonce = new Uint8Array(32);
  new DataView(nonce.buffer).setUint32(0, f.height, true);
  w.bytes(nonce);
  w.compactSize(SOLUTION_BYTES);
  w.bytes(dummySolution);
  return w.done();
}

/** SHA256d of the header, wire order. */
export function headerHash(header: Uint8Array): Buffer {
  return createHash("sha256").update(createHash("sha256").update(header).digest()).digest();
}

/** Header followed by the CompactSize tx count and the transactions. */
export function assembleBlock(header: Uint8Array, txs: Uint8Array[]): Buffer {
  const w = new ByteWriter(header.length + 9);
  w.bytes(header);
  w.compactSize(txs.length);
  return Buffer.concat([w.buf.subarray(0, w.pos), ...txs]);
}
