import { LightedgeError } from "../../proto/errors.ts";
import type { BlockNoteCommitments } from "../trees/index.ts";

/**
 * A block's note commitments packed for a postMessage transfer: Sapling cmu, Orchard cmx, then
 * Ironwood cmx, 32 bytes each, in one buffer the receiver splits by the counts.
 */
export interface PackedLeaves {
  sapling: number;
  orchard: number;
  ironwood: number;
  bytes: Uint8Array;
}

/**
 * CompactBlock.vtx = 7; CompactTx.outputs = 5, actions = 6, ironwoodActions = 9 (an Orchard-shaped
 * CompactOrchardAction, docs/ironwood.md); cmu = 1, cmx = 2 (compact_formats.proto).
 */
const VTX = 7;
const OUTPUTS = 5;
const ACTIONS = 6;
const IRONWOOD_ACTIONS = 9;
const CMU = 1;
const CMX = 2;

const malformed = (what: string) => new LightedgeError("malformed", "treestate.leaf-scan", what);

function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (let i = at; i < b.length && i < at + 10; i++) {
    v += (b[i]! & 0x7f) * mul;
    if ((b[i]! & 0x80) === 0) return [v, i + 1];
    mul *= 128;
  }
  throw malformed("truncated varint");
}

/** Calls `each(field, start, end)` for every length-delimited field of a message in b[from, to). */
function fields(
  b: Uint8Array,
  from: number,
  to: number,
  each: (field: number, s: number, e: number) => void,
) {
  let at = from;
  while (at < to) {
    const [tag, next] = varint(b, at);
    at = next;
    const wire = tag & 7;
    if (wire === 0) at = varint(b, at)[1];
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const [len, body] = varint(b, at);
      if (body + len > to) throw malformed("field overruns its message");
      each(Math.floor(tag / 8), body, body + len);
      at = body + len;
    } else throw malformed(`unsupported wire type ${wire}`);
  }
  if (at !== to) throw malformed("message overruns its bytes");
}

/**
 * Sapling cmu, Orchard cmx and Ironwood cmx of a "full" CompactBlock protobuf in tree order (ZIP 225: a block's
 * commitments are appended in transaction order), without decoding the rest: this runs on the
 * indexing thread for every block, where a full decode would cost more than all else we do there.
 */
export function scanLeaves(full: Uint8Array): PackedLeaves {
  const spans: { sapling: number[]; orchard: number[]; ironwood: number[] } = {
    sapling: [],
    orchard: [],
    ironwood: [],
  };
  // Exactly one 32-byte commitment per output or action: a tree leaf is never skipped.
  const leaf = (field: number, into: number[]) => (b: Uint8Array, s: number, e: number) => {
    const before = into.length;
    fields(b, s, e, (f, fs, fe) => {
      if (f !== field) return;
      if (fe - fs !== 32) throw malformed("a note commitment has 32 bytes");
      into.push(fs);
    });
    if (into.length !== before + 1) throw malformed("an output or action without one commitment");
  };
  const output = leaf(CMU, spans.sapling);
  const action = leaf(CMX, spans.orchard);
  const ironwoodAction = leaf(CMX, spans.ironwood);
  fields(full, 0, full.length, (f, s, e) => {
    if (f !== VTX) return;
    fields(full, s, e, (tf, ts, te) => {
      if (tf === OUTPUTS) output(full, ts, te);
      else if (tf === ACTIONS) action(full, ts, te);
      else if (tf === IRONWOOD_ACTIONS) ironwoodAction(full, ts, te);
    });
  });
  const all = [...spans.sapling, ...spans.orchard, ...spans.ironwood];
  const bytes = new Uint8Array(all.length * 32);
  all.forEach((at, i) => {
    bytes.set(full.subarray(at, at + 32), i * 32);
  });
  return {
    sapling: spans.sapling.length,
    orchard: spans.orchard.length,
    ironwood: spans.ironwood.length,
    bytes,
  };
}

/** The receiver's side: the packed buffer as the three pools' commitment lists (views, no copies). */
export function unpackLeaves(p: PackedLeaves): BlockNoteCommitments & { ironwoodCmxs: Uint8Array[] } {
  const at = (i: number) => p.bytes.subarray(i * 32, i * 32 + 32);
  return {
    saplingCmus: Array.from({ length: p.sapling }, (_, i) => at(i)),
    orchardCmxs: Array.from({ length: p.orchard }, (_, i) => at(p.sapling + i)),
    ironwoodCmxs: Array.from({ length: p.ironwood }, (_, i) => at(p.sapling + p.orchard + i)),
  };
}
