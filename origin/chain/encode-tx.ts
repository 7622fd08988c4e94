import {
  type Shape,
  varint32Size,
  varint64Size,
  writeBytesField,
  writeVarint32,
  writeVarint64,
} from "./encode-shape.ts";
import type { ActionBundle, ParsedTx } from "./types.ts";

// Hand-written CompactTx encoder (compact_formats.proto field numbers; fields in number order,
// proto3 zero values omitted, exactly as protobuf-es `toBinary` writes them: a test proves it).
const SPEND = 2 + 34; // CompactSaplingSpend{1:nf}
const OUTPUT = 2 + 122; // CompactSaplingOutput{1:cmu,2:epk,3:ct52}
const ACTION = 3 + 156; // CompactOrchardAction{1:nf,2:cmx,3:epk,4:ct52}; length 156 is a 2-byte varint
const NULLIFIER_ACTION = 2 + 34; // CompactOrchardAction{1:nullifier}

function vinSize(prevoutIndex: number): number {
  const inner = 34 + (prevoutIndex === 0 ? 0 : 1 + varint32Size(prevoutIndex));
  return 1 + varint32Size(inner) + inner;
}

function voutInner(lo: number, hi: number, scriptLength: number): number {
  const value = lo === 0 && hi === 0 ? 0 : 1 + varint64Size(lo, hi);
  return value + (scriptLength === 0 ? 0 : 1 + varint32Size(scriptLength) + scriptLength);
}

/** True when the tx keeps at least one component under `shape` (LWD `FilterTxPool`). */
export function txKept(tx: ParsedTx, shape: Shape): boolean {
  if (!shape.dropEmpty) return true;
  const p = shape.pools;
  if (p.transparent && ((tx.index !== 0 && tx.vin.length > 0) || tx.vout.length > 0)) return true;
  if (p.sapling && tx.sapling.spends.length + tx.sapling.outputs.length > 0) return true;
  if (p.orchard && tx.orchard !== null) return true;
  return p.ironwood && tx.ironwood !== null;
}

function actionsSize(b: ActionBundle | null, shape: Shape): number {
  return b === null ? 0 : b.actions.length * (shape.nullifiers ? NULLIFIER_ACTION : ACTION);
}

function transparentSize(tx: ParsedTx): number {
  let n = 0;
  if (tx.index !== 0) for (const input of tx.vin) n += vinSize(input.prevoutIndex);
  for (const o of tx.vout) {
    const inner = voutInner(o.valueLow, o.valueHigh, o.scriptPubKey.length);
    n += 1 + varint32Size(inner) + inner;
  }
  return n;
}

/** Encoded size of the CompactTx body (without its own tag and length). */
export function txBodySize(tx: ParsedTx, shape: Shape): number {
  const p = shape.pools;
  let n = (tx.index === 0 ? 0 : 1 + varint32Size(tx.index)) + 34;
  if (p.sapling)
    n += tx.sapling.spends.length * SPEND + (shape.nullifiers ? 0 : tx.sapling.outputs.length * OUTPUT);
  if (p.orchard) n += actionsSize(tx.orchard, shape);
  if (p.transparent && !shape.nullifiers) n += transparentSize(tx);
  if (p.ironwood) n += actionsSize(tx.ironwood, shape);
  return n;
}

function writeActions(out: Uint8Array, p: number, tag: number, b: ActionBundle | null, shape: Shape): number {
  if (b === null) return p;
  for (const a of b.actions) {
    out[p] = tag;
    if (shape.nullifiers) {
      out[p + 1] = 34;
      p = writeBytesField(out, p + 2, 0x0a, a.nullifier);
      continue;
    }
    out[p + 1] = 0x9c; // 156 as a varint
    out[p + 2] = 0x01;
    p = writeBytesField(out, p + 3, 0x0a, a.nullifier);
    p = writeBytesField(out, p, 0x12, a.cmx);
    p = writeBytesField(out, p, 0x1a, a.ephemeralKey);
    p = writeBytesField(out, p, 0x22, a.encCiphertext.subarray(0, 52));
  }
  return p;
}

function writeSapling(out: Uint8Array, p: number, tx: ParsedTx, shape: Shape): number {
  for (const s of tx.sapling.spends) {
    out[p] = 0x22;
    out[p + 1] = 34;
    p = writeBytesField(out, p + 2, 0x0a, s.nf);
  }
  if (shape.nullifiers) return p;
  for (const o of tx.sapling.outputs) {
    out[p] = 0x2a;
    out[p + 1] = 122;
    p = writeBytesField(out, p + 2, 0x0a, o.cmu);
    p = writeBytesField(out, p, 0x12, o.ephemeralKey);
    p = writeBytesField(out, p, 0x1a, o.encCiphertext.subarray(0, 52));
  }
  return p;
}

function writeTransparent(out: Uint8Array, p: number, tx: ParsedTx): number {
  if (tx.index !== 0) {
    for (const input of tx.vin) {
      out[p++] = 0x3a;
      const idx = input.prevoutIndex;
      p = writeVarint32(out, p, 34 + (idx === 0 ? 0 : 1 + varint32Size(idx)));
      p = writeBytesField(out, p, 0x0a, input.wirePrevoutTxid);
      if (idx !== 0) {
        out[p] = 0x10;
        p = writeVarint32(out, p + 1, idx);
      }
    }
  }
  for (const o of tx.vout) {
    out[p++] = 0x42;
    const script = o.scriptPubKey;
    p = writeVarint32(out, p, voutInner(o.valueLow, o.valueHigh, script.length));
    if (o.valueLow !== 0 || o.valueHigh !== 0) {
      out[p] = 0x08;
      p = writeVarint64(out, p + 1, o.valueLow, o.valueHigh);
    }
    if (script.length > 0) {
      out[p] = 0x12;
      p = writeVarint32(out, p + 1, script.length);
      out.set(script, p);
      p += script.length;
    }
  }
  return p;
}

/** Writes the CompactTx body (fields 1–9) at p; returns the end. */
export function writeTxBody(
  out: Uint8Array,
  p: number,
  tx: ParsedTx,
  shape: Shape,
  txid: Uint8Array,
): number {
  const pools = shape.pools;
  if (tx.index !== 0) {
    out[p] = 0x08;
    p = writeVarint32(out, p + 1, tx.index);
  }
  p = writeBytesField(out, p, 0x12, txid);
  if (pools.sapling) p = writeSapling(out, p, tx, shape);
  if (pools.orchard) p = writeActions(out, p, 0x32, tx.orchard, shape);
  if (pools.transparent && !shape.nullifiers) p = writeTransparent(out, p, tx);
  if (pools.ironwood) p = writeActions(out, p, 0x4a, tx.ironwood, shape);
  return p;
}
