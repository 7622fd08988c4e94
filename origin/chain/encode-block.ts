import { type Shape, varint32Size, writeBytesField, writeVarint32 } from "./encode-shape.ts";
import { txBodySize, txKept, writeTxBody } from "./encode-tx.ts";
import type { ParsedBlock, TreeSizes } from "./types.ts";

const ZERO_TXID = new Uint8Array(32);

function metadataInner(sizes: TreeSizes | undefined): number {
  if (sizes === undefined) return 0;
  let n = 0;
  for (const v of [sizes.sapling, sizes.orchard, sizes.ironwood]) if (v !== 0) n += 1 + varint32Size(v);
  return n;
}

function writeMetadata(out: Uint8Array, p: number, sizes: TreeSizes | undefined): number {
  out[p] = 0x42;
  out[p + 1] = metadataInner(sizes); // at most 18: a one-byte length
  p += 2;
  if (sizes === undefined) return p;
  const values = [sizes.sapling, sizes.orchard, sizes.ironwood];
  for (let f = 0; f < 3; f++) {
    const v = values[f]!;
    if (v === 0) continue;
    out[p] = (f + 1) << 3;
    p = writeVarint32(out, p + 1, v);
  }
  return p;
}

/**
 * Where an encoded message's bytes live: `length` bytes, each of which the encoder overwrites. By
 * default a fresh buffer per message; a caller that copies messages out soon after (the scale
 * generator, into a range's frames) may hand out views of a larger slab instead — a fresh buffer
 * per message of more than 64 bytes is an off-heap allocation that costs more than encoding it.
 */
export type Alloc = (length: number) => Uint8Array;

const freshBytes: Alloc = (length) => new Uint8Array(length);

/**
 * Encodes a CompactBlock projection straight from the parsed block: one sizing pass, one write
 * pass, no intermediate messages. Byte-identical to protobuf-es `toBinary` (proved by a test).
 */
export function encodeBlock(
  block: ParsedBlock,
  shape: Shape,
  sizes: TreeSizes | undefined,
  zeroTxids = false,
  alloc: Alloc = freshBytes,
): Uint8Array {
  const txs = block.txs;
  const bodies = new Int32Array(txs.length);
  let total = (block.height === 0 ? 0 : 1 + varint32Size(block.height)) + 34 + 34;
  if (block.header.time !== 0) total += 1 + varint32Size(block.header.time);
  for (let i = 0; i < txs.length; i++) {
    if (!txKept(txs[i]!, shape)) {
      bodies[i] = -1;
      continue;
    }
    const body = txBodySize(txs[i]!, shape);
    bodies[i] = body;
    total += 1 + varint32Size(body) + body;
  }
  const metaSizes = shape.nullifiers ? undefined : sizes;
  total += 2 + metadataInner(metaSizes);
  const out = alloc(total);
  let p = 0;
  if (block.height !== 0) {
    out[p] = 0x10;
    p = writeVarint32(out, p + 1, block.height);
  }
  p = writeBytesField(out, p, 0x1a, block.wireHash);
  p = writeBytesField(out, p, 0x22, block.header.wirePrevHash);
  if (block.header.time !== 0) {
    out[p] = 0x28;
    p = writeVarint32(out, p + 1, block.header.time);
  }
  for (let i = 0; i < txs.length; i++) {
    const body = bodies[i]!;
    if (body < 0) continue;
    out[p] = 0x3a;
    p = writeVarint32(out, p + 1, body);
    const tx = txs[i]!;
    p = writeTxBody(out, p, tx, shape, zeroTxids ? ZERO_TXID : tx.wireTxid);
  }
  p = writeMetadata(out, p, metaSizes);
  if (p !== total) throw new Error(`encodeBlock wrote ${p} of ${total} bytes`);
  return out;
}
