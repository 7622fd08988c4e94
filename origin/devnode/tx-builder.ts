import { sha256d } from "../chain/hashes.ts";
import { jubjubKeys, pallasKeys, pointIndex } from "./points.ts";
import type { BlockRandom } from "./prng.ts";
import { TEMPLATE_COUNT, type TxTemplate, templates } from "./tx-templates.ts";
import { type ActionPieces, fastTxid, type SaplingPieces, type V5Pieces } from "./txid-fast.ts";
import { ByteWriter } from "./writer.ts";

/**
 * Synthetic v4/v5/v6 transactions in the exact wire layouts (ZIP 225 v5, ZIP 229 v6, protocol
 * spec §7.1 v4). Compact parts (nullifiers, cmu/cmx, epk, the first 52 ciphertext bytes) are
 * keystream bytes; everything a light client never sees comes from tx-templates.ts. Every compact
 * field decodes as a wallet decodes it (zcash_client_backend rejects a block with
 * `ScanError::EncodingInvalid` otherwise):
 * - Sapling `cmu`, Orchard/Ironwood `cmx` and `nf`, and anchors get their top two bits cleared:
 *   < 2^254 is a canonical element of both the Jubjub base field (BLS12-381's r ≈ 2^254.86) and
 *   the Pallas base field (p > 2^254), so tree code can hash them too;
 * - Sapling spend nullifiers are 32 free bytes (a PRF output, not a field element);
 * - ephemeral keys are valid compressed points from a precomputed table (points.ts), picked by
 *   two keystream bytes, so nothing costs per output.
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
  /** v5/v6 consensus branch id (the block height's; default NU6.3's). */
  branchId?: number;
}

/** Top two bits cleared: a canonical field element (see above). */
function canonical(b: Uint8Array, at: number): void {
  b[at + 31]! &= 0x3f;
}

function fieldElement(rand: BlockRandom): Uint8Array {
  const b = rand.bytes(32);
  canonical(b, 0);
  return b;
}

/** Serialized prevouts, sequences and txouts (the ZIP 244 transparent inputs; also the wire parts). */
function transparentParts(shape: TxShape) {
  const prevouts = new ByteWriter(36 * shape.vin.length + 1);
  const sequences = new ByteWriter(4 * shape.vin.length + 1);
  for (const i of shape.vin) {
    prevouts.bytes(i.wirePrevTxid);
    prevouts.u32(i.index);
    sequences.u32(0xffffffff);
  }
  const outputs = new ByteWriter(64);
  for (const o of shape.vout) {
    outputs.i64(o.value);
    outputs.compactSize(o.script.length);
    outputs.bytes(o.script);
  }
  return { prevouts: prevouts.done(), sequences: sequences.done(), outputs: outputs.done() };
}

function writeTransparent(w: ByteWriter, shape: TxShape, outputs: Uint8Array): void {
  w.compactSize(shape.vin.length);
  for (const i of shape.vin) {
    w.bytes(i.wirePrevTxid);
    w.u32(i.index);
    w.compactSize(i.script.length);
    w.bytes(i.script);
    w.u32(0xffffffff);
  }
  w.compactSize(shape.vout.length);
  w.bytes(outputs);
}

/** Compact parts of m outputs: cmu‖epk‖enc[..52] (116 bytes) each; cmu canonical, epk a Jubjub point. */
function outputCompacts(rand: BlockRandom, m: number): Uint8Array {
  const c = rand.bytes(116 * m);
  const keys = m > 0 ? jubjubKeys() : undefined;
  for (let i = 0; i < m; i++) {
    const at = 116 * i;
    canonical(c, at);
    const k = pointIndex(c, at + 32);
    c.set(keys!.subarray(32 * k, 32 * k + 32), at + 32);
  }
  return c;
}

/** One Sapling output's cv‖cmu‖epk‖enc‖out (v4 and v5 share the layout). */
function writeOutput(w: ByteWriter, t: TxTemplate, compact: Uint8Array, i: number): void {
  w.bytes(t.cv);
  w.bytes(compact.subarray(116 * i, 116 * i + 116));
  w.bytes(t.memo);
  w.bytes(t.encTail);
  w.bytes(t.outCiphertext);
}

/** v4 (Sapling): per-spend cv, anchor, nf, rk, proof, sig; per-output cv, cmu, epk, enc, out, proof. */
function writeV4(w: ByteWriter, shape: TxShape, rand: BlockRandom): void {
  const k = rand.int(TEMPLATE_COUNT);
  const t = templates[k]!;
  w.u32(V4.header);
  w.u32(V4.group);
  writeTransparent(w, shape, transparentParts(shape).outputs);
  w.u32(shape.lockTime);
  w.u32(shape.expiryHeight);
  w.i64(0);
  w.compactSize(shape.saplingSpends);
  for (let i = 0; i < shape.saplingSpends; i++) {
    w.bytes(t.cv);
    w.bytes(fieldElement(rand)); // anchor
    w.bytes(rand.bytes(32)); // nullifier
    w.bytes(t.rk);
    w.tile(templates[k]!.filler, 192 + 64);
  }
  const m = shape.saplingOutputs;
  const compact = outputCompacts(rand, m);
  w.compactSize(m);
  for (let i = 0; i < m; i++) {
    writeOutput(w, t, compact, i);
    w.tile(templates[k]!.filler, 192);
  }
  w.compactSize(0); // no JoinSplits
  if (shape.saplingSpends + m > 0) w.tile(templates[k]!.filler, 64);
}

function writeSaplingV5(w: ByteWriter, shape: TxShape, rand: BlockRandom): SaplingPieces {
  const { saplingSpends: n, saplingOutputs: m } = shape;
  const template = rand.int(TEMPLATE_COUNT);
  const t = templates[template]!;
  const nullifiers = rand.bytes(32 * n);
  const compact = outputCompacts(rand, m);
  w.compactSize(n);
  for (let i = 0; i < n; i++) {
    w.bytes(t.cv);
    w.bytes(nullifiers.subarray(32 * i, 32 * i + 32));
    w.bytes(t.rk);
  }
  w.compactSize(m);
  for (let i = 0; i < m; i++) writeOutput(w, t, compact, i);
  const valueBalance = new Uint8Array(8);
  if (n + m > 0) w.bytes(valueBalance);
  if (n > 0) w.bytes(t.anchor);
  w.tile(templates[template]!.filler, n * (192 + 64) + m * 192);
  if (n + m > 0) w.tile(templates[template]!.filler, 64);
  return { spends: n, outputs: m, template, nullifiers, compact, valueBalance };
}

/** An Orchard-shaped bundle (Orchard and Ironwood share it: ZIP 225 / ZIP 229). */
function writeActions(w: ByteWriter, count: number, rand: BlockRandom, flags: number): ActionPieces {
  const template = count === 0 ? 0 : rand.int(TEMPLATE_COUNT);
  const t = templates[template]!;
  // Per action nf‖cmx‖epk‖enc[..52]: the ZIP 244 compact part; nf and cmx canonical Pallas base
  // field elements, epk a Pallas point.
  const compact = rand.bytes(148 * count);
  const keys = count > 0 ? pallasKeys() : undefined;
  for (let i = 0; i < count; i++) {
    const at = 148 * i;
    canonical(compact, at);
    canonical(compact, at + 32);
    const k = pointIndex(compact, at + 64);
    compact.set(keys!.subarray(32 * k, 32 * k + 32), at + 64);
  }
  const valueBalance = new Uint8Array(8);
  const anchor = count === 0 ? valueBalance : fieldElement(rand);
  w.compactSize(count);
  if (count > 0) {
    for (let i = 0; i < count; i++) {
      const c = 148 * i;
      w.bytes(t.cv);
      w.bytes(compact.subarray(c, c + 32));
      w.bytes(t.rk);
      w.bytes(compact.subarray(c + 32, c + 148));
      w.bytes(t.memo);
      w.bytes(t.encTail);
      w.bytes(t.outCiphertext);
    }
    w.u8(flags);
    w.bytes(valueBalance);
    w.bytes(anchor);
    const proofSize = 2720 + 2272 * count;
    w.compactSize(proofSize);
    w.tile(templates[template]!.filler, proofSize + 64 * count + 64);
  }
  return { count, template, compact, flags, valueBalance, anchor };
}

const noActions: ActionPieces = {
  count: 0,
  template: 0,
  compact: new Uint8Array(0),
  flags: 0,
  valueBalance: new Uint8Array(8),
  anchor: new Uint8Array(32),
};

/** Appends a v5/v6 transaction to `w`; returns the pieces its txid is computed from (txid-fast.ts). */
export function writeV5V6(w: ByteWriter, shape: TxShape, rand: BlockRandom): V5Pieces {
  const v = shape.version === 6 ? V6 : V5;
  const start = w.pos;
  w.u32(v.header);
  w.u32(v.group);
  const branchId = shape.branchId ?? NU63_BRANCH_ID;
  w.u32(branchId);
  w.u32(shape.lockTime);
  w.u32(shape.expiryHeight);
  const header = w.buf.slice(start, w.pos);
  const tp = transparentParts(shape);
  writeTransparent(w, shape, tp.outputs);
  const sapling = writeSaplingV5(w, shape, rand);
  // flags: enableSpends|enableOutputs; cross-address (bit 2) stays 0 for Orchard from NU6.3.
  const orchard = writeActions(w, shape.orchardActions, rand, 0x03);
  const ironwood = shape.version === 6 ? writeActions(w, shape.ironwoodActions, rand, 0x03) : noActions;
  return {
    version: shape.version === 6 ? 6 : 5,
    header,
    branchId,
    ...tp,
    hasTransparent: shape.vin.length + shape.vout.length > 0,
    sapling,
    orchard,
    ironwood,
  };
}

export function buildTx(shape: TxShape, rand: BlockRandom): Uint8Array {
  return buildTxWithId(shape, rand).raw;
}

/**
 * A synthetic transaction and its txid (wire order): v4 by SHA256d of the bytes, v5/v6 from the
 * drawn pieces (txid-fast.ts) — the same value origin/chain's computeTxid gives, without a parse.
 */
export function buildTxWithId(shape: TxShape, rand: BlockRandom): { raw: Uint8Array; wireTxid: Uint8Array } {
  const w = new ByteWriter(1024);
  const wireTxid = writeTx(w, shape, rand);
  return { raw: w.done(), wireTxid };
}

/** Appends the transaction to `w` (a block being built) and returns its txid (wire order). */
export function writeTx(w: ByteWriter, shape: TxShape, rand: BlockRandom): Uint8Array {
  const start = w.pos;
  if (shape.version !== 4) return fastTxid(writeV5V6(w, shape, rand));
  writeV4(w, shape, rand);
  return sha256d(w.buf.subarray(start, w.pos));
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
