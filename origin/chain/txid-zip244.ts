import { blake2b256, personal } from "./hashes.ts";
import type { ActionBundle, ParsedTx, SaplingBundle } from "./types.ts";

// ZIP 244 (v5) and ZIP 229 (v6) transaction digests. Every node is BLAKE2b-256 with a 16-byte
// personalization; ironwood.md lists where v6 differs (anchors leave the txid, new tags).

const EMPTY: readonly Uint8Array[] = [];

function u32le(v: number): Uint8Array {
  return Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
}

function headerDigest(tx: ParsedTx): Uint8Array {
  const h = tx.raw.subarray(0, 4);
  const fields = [h, u32le(tx.versionGroupId), u32le(tx.consensusBranchId), u32le(tx.lockTime)];
  return blake2b256(personal("ZTxIdHeadersHash"), [...fields, u32le(tx.expiryHeight)]);
}

function transparentDigest(tx: ParsedTx): Uint8Array {
  const tag = personal("ZTxIdTranspaHash");
  if (tx.vin.length === 0 && tx.vout.length === 0) return blake2b256(tag, EMPTY);
  const prevouts: Uint8Array[] = [];
  const sequences: Uint8Array[] = [];
  for (const input of tx.vin) {
    prevouts.push(input.wirePrevoutTxid, u32le(input.prevoutIndex));
    sequences.push(u32le(input.sequence));
  }
  const outputs: Uint8Array[] = [];
  for (const out of tx.vout) {
    // value (8) || CompactSize script length || script: the serialized txout, contiguous in raw.
    const script = out.scriptPubKey;
    const end = script.byteOffset + script.length;
    const start = script.byteOffset - (script.length < 0xfd ? 1 : script.length <= 0xffff ? 3 : 5) - 8;
    outputs.push(new Uint8Array(script.buffer, start, end - start));
  }
  return blake2b256(tag, [
    blake2b256(personal("ZTxIdPrevoutHash"), prevouts),
    blake2b256(personal("ZTxIdSequencHash"), sequences),
    blake2b256(personal("ZTxIdOutputsHash"), outputs),
  ]);
}

function saplingSpendsDigest(s: SaplingBundle, v6: boolean): Uint8Array {
  const tag = personal("ZTxIdSSpendsHash");
  if (s.spends.length === 0) return blake2b256(tag, EMPTY);
  const compact: Uint8Array[] = [];
  const noncompact: Uint8Array[] = [];
  for (const sp of s.spends) {
    compact.push(sp.nf);
    // v6 drops the anchor from the txid (ZIP 229); v5 has cv || anchor || rk.
    if (v6) noncompact.push(sp.cv, sp.rk);
    else noncompact.push(sp.cv, s.anchor!, sp.rk);
  }
  return blake2b256(tag, [
    blake2b256(personal("ZTxIdSSpendCHash"), compact),
    blake2b256(personal(v6 ? "ZTxIdSSpendNH_v6" : "ZTxIdSSpendNHash"), noncompact),
  ]);
}

function saplingOutputsDigest(s: SaplingBundle): Uint8Array {
  const tag = personal("ZTxIdSOutputHash");
  if (s.outputs.length === 0) return blake2b256(tag, EMPTY);
  const compact: Uint8Array[] = [];
  const memos: Uint8Array[] = [];
  const noncompact: Uint8Array[] = [];
  for (const o of s.outputs) {
    compact.push(o.cmu, o.ephemeralKey, o.encCiphertext.subarray(0, 52));
    memos.push(o.encCiphertext.subarray(52, 564));
    noncompact.push(o.cv, o.encCiphertext.subarray(564), o.outCiphertext);
  }
  return blake2b256(tag, [
    blake2b256(personal("ZTxIdSOutC__Hash"), compact),
    blake2b256(personal("ZTxIdSOutM__Hash"), memos),
    blake2b256(personal("ZTxIdSOutN__Hash"), noncompact),
  ]);
}

function saplingDigest(s: SaplingBundle, v6: boolean): Uint8Array {
  const tag = personal("ZTxIdSaplingHash");
  if (s.spends.length + s.outputs.length === 0) return blake2b256(tag, EMPTY);
  return blake2b256(tag, [saplingSpendsDigest(s, v6), saplingOutputsDigest(s), s.valueBalance!]);
}

interface ActionTags {
  bundle: string;
  compact: string;
  memos: string;
  noncompact: string;
}

const orchardV5: ActionTags = {
  bundle: "ZTxIdOrchardHash",
  compact: "ZTxIdOrcActCHash",
  memos: "ZTxIdOrcActMHash",
  noncompact: "ZTxIdOrcActNHash",
};
const orchardV6: ActionTags = { ...orchardV5, bundle: "ZTxIdOrchardH_v6" };
const ironwoodV6: ActionTags = {
  bundle: "ZTxIdIronwd_H_v6",
  compact: "ZTxIdIrnActCH_v6",
  memos: "ZTxIdIrnActMH_v6",
  noncompact: "ZTxIdIrnActNH_v6",
};

/** Orchard-shaped bundle digest; `withAnchor` is v5 (v6 moves the anchor to the auth digest). */
function actionDigest(b: ActionBundle | null, tags: ActionTags, withAnchor: boolean): Uint8Array {
  const tag = personal(tags.bundle);
  if (b === null) return blake2b256(tag, EMPTY);
  const compact: Uint8Array[] = [];
  const memos: Uint8Array[] = [];
  const noncompact: Uint8Array[] = [];
  for (const a of b.actions) {
    compact.push(a.nullifier, a.cmx, a.ephemeralKey, a.encCiphertext.subarray(0, 52));
    memos.push(a.encCiphertext.subarray(52, 564));
    noncompact.push(a.cv, a.rk, a.encCiphertext.subarray(564), a.outCiphertext);
  }
  const parts = [
    blake2b256(personal(tags.compact), compact),
    blake2b256(personal(tags.memos), memos),
    blake2b256(personal(tags.noncompact), noncompact),
    Uint8Array.of(b.flags),
    b.valueBalance,
  ];
  if (withAnchor) parts.push(b.anchor);
  return blake2b256(tag, parts);
}

/** The v5 (ZIP 244) or v6 (ZIP 229) txid, internal byte order. */
export function zip244Txid(tx: ParsedTx): Uint8Array {
  const v6 = tx.version === 6;
  const branch = new Uint8Array(16);
  branch.set(personal("ZcashTxHash_\0\0\0\0").subarray(0, 12));
  branch.set(u32le(tx.consensusBranchId), 12);
  const parts = [
    headerDigest(tx),
    transparentDigest(tx),
    saplingDigest(tx.sapling, v6),
    actionDigest(tx.orchard, v6 ? orchardV6 : orchardV5, !v6),
  ];
  if (v6) parts.push(actionDigest(tx.ironwood, ironwoodV6, false));
  return blake2b256(branch, parts);
}
