import type { BlockRandom } from "./prng.ts";
import { ByteWriter } from "./writer.ts";

/**
 * Synthetic v4/v5/v6 transactions in the exact wire layouts (ZIP 225 v5, ZIP 229 v6, protocol
 * spec §7.1 v4). Contents are keystream bytes; commitments (cmu, cmx) get their top two bits
 * cleared so they are canonical field elements (< 2^254 is below both the Jubjub base field and
 * the Pallas base field moduli), which tree code can hash.
 */

const V4 = { header: 0x80000004, group: 0x892f2085 };
const V5 = { header: 0x80000005, group: 0x26a7270a };
const V6 = { header: 0x80000006, group: 0xd884b698 };
/** NU6.3 branch id (v5 stays valid after NU6.3 and carries this id; ironwood.md). */
export const NU63_BRANCH_ID = 0x37a5165b;

export interface TxOutSpec {
  value: number;
  script: Uint8Array;
}

export interface TxInSpec {
  wirePrevTxid: Uint8Array;
  index: number;
  script: Uint8Array;
}

export interface TxShape {
  version: 4 | 5 | 6;
  vin: TxInSpec[];
  vout: TxOutSpec[];
  saplingSpends: number;
  saplingOutputs: number;
  orchardActions: number;
  ironwoodActions: number;
  lockTime: number;
  expiryHeight: number;
}

function fieldElement(rand: BlockRandom): Uint8Array {
  const b = rand.bytes(32);
  b[31]! &= 0x3f;
  return b;
}

function writeTransparent(w: ByteWriter, shape: TxShape): void {
  w.compactSize(shape.vin.length);
  for (const i of shape.vin) {
    w.bytes(i.wirePrevTxid);
    w.u32(i.index);
    w.compactSize(i.script.length);
    w.bytes(i.script);
    w.u32(0xffffffff);
  }
  w.compactSize(shape.vout.length);
  for (const o of shape.vout) {
    w.i64(o.value);
    w.compactSize(o.script.length);
    w.bytes(o.script);
  }
}

/** v4 (Sapling): per-spend cv, anchor, nf, rk, proof, sig; per-output cv, cmu, epk, enc, out, proof. */
function writeV4(w: ByteWriter, shape: TxShape, rand: BlockRandom): void {
  w.u32(V4.header);
  w.u32(V4.group);
  writeTransparent(w, shape);
  w.u32(shape.lockTime);
  w.u32(shape.expiryHeight);
  w.i64(0);
  w.compactSize(shape.saplingSpends);
  for (let i = 0; i < shape.saplingSpends; i++) w.bytes(rand.bytes(32 * 4 + 192 + 64));
  w.compactSize(shape.saplingOutputs);
  for (let i = 0; i < shape.saplingOutputs; i++) {
    w.bytes(rand.bytes(32));
    w.bytes(fieldElement(rand));
    w.bytes(rand.bytes(32 + 580 + 80 + 192));
  }
  w.compactSize(0); // no JoinSplits
  if (shape.saplingSpends + shape.saplingOutputs > 0) w.bytes(rand.bytes(64));
}

function writeSaplingV5(w: ByteWriter, shape: TxShape, rand: BlockRandom): void {
  const { saplingSpends: n, saplingOutputs: m } = shape;
  w.compactSize(n);
  for (let i = 0; i < n; i++) w.bytes(rand.bytes(96)); // cv, nf, rk
  w.compactSize(m);
  for (let i = 0; i < m; i++) {
    w.bytes(rand.bytes(32));
    w.bytes(fieldElement(rand));
    w.bytes(rand.bytes(32 + 580 + 80));
  }
  if (n + m > 0) w.i64(0);
  if (n > 0) w.bytes(fieldElement(rand)); // anchor
  w.bytes(rand.bytes(n * (192 + 64) + m * 192));
  if (n + m > 0) w.bytes(rand.bytes(64));
}

/** An Orchard-shaped bundle (Orchard and Ironwood share it: ZIP 225 / ZIP 229). */
function writeActions(w: ByteWriter, count: number, rand: BlockRandom, flags: number): void {
  w.compactSize(count);
  if (count === 0) return;
  for (let i = 0; i < count; i++) {
    w.bytes(rand.bytes(96)); // cv, nullifier, rk
    w.bytes(fieldElement(rand)); // cmx
    w.bytes(rand.bytes(32 + 580 + 80)); // epk, enc, out
  }
  w.u8(flags);
  w.i64(0);
  w.bytes(fieldElement(rand)); // anchor
  const proofSize = 2720 + 2272 * count;
  w.compactSize(proofSize);
  w.bytes(rand.bytes(proofSize + 64 * count + 64));
}

function writeV5V6(w: ByteWriter, shape: TxShape, rand: BlockRandom): void {
  const v = shape.version === 6 ? V6 : V5;
  w.u32(v.header);
  w.u32(v.group);
  w.u32(NU63_BRANCH_ID);
  w.u32(shape.lockTime);
  w.u32(shape.expiryHeight);
  writeTransparent(w, shape);
  writeSaplingV5(w, shape, rand);
  // flags: enableSpends|enableOutputs; cross-address (bit 2) stays 0 for Orchard from NU6.3.
  writeActions(w, shape.orchardActions, rand, 0x03);
  if (shape.version === 6) writeActions(w, shape.ironwoodActions, rand, 0x03);
}

export function buildTx(shape: TxShape, rand: BlockRandom): Uint8Array {
  const w = new ByteWriter(1024);
  if (shape.version === 4) writeV4(w, shape, rand);
  else writeV5V6(w, shape, rand);
  return w.done();
}

/** BIP34 height push (CScript() << nHeight): OP_0, OP_1..OP_16, or a minimal LE number. */
export function bip34Height(height: number): Uint8Array {
  if (height === 0) return Uint8Array.of(0x00);
  if (height <= 16) return Uint8Array.of(0x50 + height);
  const bytes: number[] = [];
  for (let h = height; h > 0; h = Math.floor(h / 256)) bytes.push(h & 0xff);
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(0);
  return Uint8Array.of(bytes.length, ...bytes);
}
