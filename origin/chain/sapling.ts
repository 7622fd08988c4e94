import type { Reader } from "./reader.ts";
import type { SaplingBundle, SaplingOutput, SaplingSpend } from "./types.ts";

const V4_SPEND = 32 * 4 + 192 + 64; // cv, anchor, nf, rk, zkproof, spendAuthSig
const V4_OUTPUT = 32 * 3 + 580 + 80 + 192; // cv, cmu, epk, enc, out, zkproof
const V5_SPEND = 96; // cv, nf, rk (ZIP 225)
const V5_OUTPUT = 32 * 3 + 580 + 80;

function readOutput(r: Reader): SaplingOutput {
  const cv = r.bytes(32, "output cv");
  const cmu = r.bytes(32, "cmu");
  const ephemeralKey = r.bytes(32, "ephemeralKey");
  const encCiphertext = r.bytes(580, "encCiphertext");
  const outCiphertext = r.bytes(80, "outCiphertext");
  return { cv, cmu, ephemeralKey, encCiphertext, outCiphertext };
}

/** v4 Sapling: valueBalance, then spends and outputs with their proofs inline (ZIP 243 layout). */
export function readSaplingV4(r: Reader): SaplingBundle {
  const valueBalance = r.bytes(8, "valueBalance");
  const ns = r.count(V4_SPEND, "Sapling spend");
  const spends: SaplingSpend[] = new Array(ns);
  for (let i = 0; i < ns; i++) {
    const cv = r.bytes(32, "spend cv");
    const anchor = r.bytes(32, "spend anchor");
    const nf = r.bytes(32, "nullifier");
    const rk = r.bytes(32, "rk");
    r.skip(192 + 64, "spend proof and signature");
    spends[i] = { cv, anchor, nf, rk };
  }
  const no = r.count(V4_OUTPUT, "Sapling output");
  const outputs: SaplingOutput[] = new Array(no);
  for (let i = 0; i < no; i++) {
    outputs[i] = readOutput(r);
    r.skip(192, "output proof");
  }
  return { spends, outputs, valueBalance, anchor: null };
}

/** The v4 binding signature, present when the Sapling bundle is not empty. */
export function skipSaplingV4Binding(r: Reader, bundle: SaplingBundle): void {
  if (bundle.spends.length + bundle.outputs.length > 0) r.skip(64, "bindingSigSapling");
}

/** v5/v6 Sapling bundle (ZIP 225): descriptions, then shared fields, proofs and signatures. */
export function readSaplingV5(r: Reader): SaplingBundle {
  const ns = r.count(V5_SPEND, "Sapling spend");
  const spends: SaplingSpend[] = new Array(ns);
  for (let i = 0; i < ns; i++) {
    const cv = r.bytes(32, "spend cv");
    const nf = r.bytes(32, "nullifier");
    const rk = r.bytes(32, "rk");
    spends[i] = { cv, anchor: null, nf, rk };
  }
  const no = r.count(V5_OUTPUT, "Sapling output");
  const outputs: SaplingOutput[] = new Array(no);
  for (let i = 0; i < no; i++) outputs[i] = readOutput(r);
  const any = ns + no > 0;
  const valueBalance = any ? r.bytes(8, "valueBalanceSapling") : null;
  const anchor = ns > 0 ? r.bytes(32, "anchorSapling") : null;
  r.skip(ns * (192 + 64) + no * 192, "Sapling proofs and signatures");
  if (any) r.skip(64, "bindingSigSapling");
  return { spends, outputs, valueBalance, anchor };
}

export const EMPTY_SAPLING: SaplingBundle = Object.freeze({
  spends: [],
  outputs: [],
  valueBalance: null,
  anchor: null,
}) as SaplingBundle;
