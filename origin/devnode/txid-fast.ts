import { blake2b256, personal } from "../chain/hashes.ts";
import { emptyDigest, repeatedDigest } from "./tx-templates.ts";

/**
 * The v5 (ZIP 244) / v6 (ZIP 229) txid of a synthetic transaction, computed from the pieces the
 * builder drew instead of re-parsing the bytes: template-derived child digests (memos,
 * non-compact parts) come memoized from tx-templates.ts and absent parts are constants, so only
 * the header, transparent parts and the compact bytes are hashed per tx. tx-builder.test.ts
 * checks it equals origin/chain's `computeTxid` on thousands of generated transactions.
 * Kept beside origin/chain/txid-zip244.ts because parsing each generated transaction and hashing
 * all of it costs ~3.4× per transaction, a quarter to a third more dev-chain start-up
 * (bench/devnode-txid.ts); the hashing itself is the parser's (origin/chain/blake2b.ts).
 */

/** An Orchard-shaped bundle as drawn: per action nf‖cmx‖epk‖enc[..52] (148 bytes) contiguous. */
export interface ActionPieces {
  count: number;
  template: number;
  compact: Uint8Array;
  flags: number;
  valueBalance: Uint8Array;
  anchor: Uint8Array;
}

export interface SaplingPieces {
  spends: number;
  outputs: number;
  template: number;
  /** Spend nullifiers, 32 bytes each. */
  nullifiers: Uint8Array;
  /** Per output cmu‖epk‖enc[..52] (116 bytes) contiguous. */
  compact: Uint8Array;
  valueBalance: Uint8Array;
}

export interface V5Pieces {
  version: 5 | 6;
  /** header ‖ group id ‖ branch id ‖ lock_time ‖ expiry (the ZTxIdHeadersHash input). */
  header: Uint8Array;
  branchId: number;
  /** Serialized prevouts (txid ‖ index), sequences and txouts, each concatenated. */
  prevouts: Uint8Array;
  sequences: Uint8Array;
  outputs: Uint8Array;
  hasTransparent: boolean;
  sapling: SaplingPieces;
  orchard: ActionPieces;
  ironwood: ActionPieces;
}

const h = (tag: string, parts: Uint8Array[]) => blake2b256(personal(tag), parts);

function transparentDigest(p: V5Pieces): Uint8Array {
  if (!p.hasTransparent) return emptyDigest("ZTxIdTranspaHash");
  return h("ZTxIdTranspaHash", [
    h("ZTxIdPrevoutHash", [p.prevouts]),
    h("ZTxIdSequencHash", [p.sequences]),
    h("ZTxIdOutputsHash", [p.outputs]),
  ]);
}

function saplingDigest(s: SaplingPieces, v6: boolean): Uint8Array {
  if (s.spends + s.outputs === 0) return emptyDigest("ZTxIdSaplingHash");
  const k = s.template;
  // v6 drops the anchor from the per-spend non-compact part (ZIP 229).
  const spends =
    s.spends === 0
      ? emptyDigest("ZTxIdSSpendsHash")
      : h("ZTxIdSSpendsHash", [
          h("ZTxIdSSpendCHash", [s.nullifiers]),
          v6
            ? repeatedDigest("ZTxIdSSpendNH_v6", k, s.spends, (t) => [t.cv, t.rk])
            : repeatedDigest("ZTxIdSSpendNHash", k, s.spends, (t) => [t.cv, t.anchor, t.rk]),
        ]);
  const outputs =
    s.outputs === 0
      ? emptyDigest("ZTxIdSOutputHash")
      : h("ZTxIdSOutputHash", [
          h("ZTxIdSOutC__Hash", [s.compact]),
          repeatedDigest("ZTxIdSOutM__Hash", k, s.outputs, (t) => [t.memo]),
          repeatedDigest("ZTxIdSOutN__Hash", k, s.outputs, (t) => [t.cv, t.encTail, t.outCiphertext]),
        ]);
  return h("ZTxIdSaplingHash", [spends, outputs, s.valueBalance]);
}

const orchardTags = ["ZTxIdOrcActCHash", "ZTxIdOrcActMHash", "ZTxIdOrcActNHash"];
const ironwoodTags = ["ZTxIdIrnActCH_v6", "ZTxIdIrnActMH_v6", "ZTxIdIrnActNH_v6"];

/** `withAnchor` is v5 Orchard; v6 moves anchors to the auth digest (ZIP 229). */
function actionDigest(a: ActionPieces, bundleTag: string, tags: string[], withAnchor: boolean): Uint8Array {
  if (a.count === 0) return emptyDigest(bundleTag);
  const parts = [
    h(tags[0]!, [a.compact]),
    repeatedDigest(tags[1]!, a.template, a.count, (t) => [t.memo]),
    repeatedDigest(tags[2]!, a.template, a.count, (t) => [t.cv, t.rk, t.encTail, t.outCiphertext]),
    Uint8Array.of(a.flags),
    a.valueBalance,
  ];
  if (withAnchor) parts.push(a.anchor);
  return h(bundleTag, parts);
}

const txPersonals = new Map<number, Uint8Array>();

/** "ZcashTxHash_" ‖ branch id LE (one array per branch id, so the hash memoizes its state). */
function txPersonal(branchId: number): Uint8Array {
  let p = txPersonals.get(branchId);
  if (p === undefined) {
    p = new Uint8Array(16);
    p.set(personal("ZcashTxHash_\0\0\0\0").subarray(0, 12));
    new DataView(p.buffer).setUint32(12, branchId, true);
    txPersonals.set(branchId, p);
  }
  return p;
}

/** The txid, internal (wire) byte order. */
export function fastTxid(p: V5Pieces): Uint8Array {
  const v6 = p.version === 6;
  const personalization = txPersonal(p.branchId);
  const parts = [
    h("ZTxIdHeadersHash", [p.header]),
    transparentDigest(p),
    saplingDigest(p.sapling, v6),
    v6
      ? actionDigest(p.orchard, "ZTxIdOrchardH_v6", orchardTags, false)
      : actionDigest(p.orchard, "ZTxIdOrchardHash", orchardTags, true),
  ];
  if (v6) parts.push(actionDigest(p.ironwood, "ZTxIdIronwd_H_v6", ironwoodTags, false));
  return blake2b256(personalization, parts);
}
