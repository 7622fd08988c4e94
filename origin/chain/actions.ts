import type { Reader } from "./reader.ts";
import type { ActionBundle, ShieldedAction } from "./types.ts";

const ACTION = 32 * 5 + 580 + 80; // cv, nf, rk, cmx, epk, enc, out (ZIP 225)

/**
 * An Orchard-shaped bundle: Orchard in v5/v6 (ZIP 225) and Ironwood in v6 (ZIP 229) share it.
 * Returns null when nActions is 0 (no further fields are encoded then).
 */
export function readActionBundle(r: Reader, pool: string): ActionBundle | null {
  const n = r.count(ACTION, `${pool} action`);
  if (n === 0) return null;
  const actions: ShieldedAction[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const cv = r.bytes(32, "action cv");
    const nullifier = r.bytes(32, "nullifier");
    const rk = r.bytes(32, "rk");
    const cmx = r.bytes(32, "cmx");
    const ephemeralKey = r.bytes(32, "ephemeralKey");
    const encCiphertext = r.bytes(580, "encCiphertext");
    const outCiphertext = r.bytes(80, "outCiphertext");
    actions[i] = { cv, nullifier, rk, cmx, ephemeralKey, encCiphertext, outCiphertext };
  }
  const flagsAt = r.pos;
  const flags = r.u8(`${pool} flags`);
  // Bits 3–7 must be zero (ZIP 225, ZIP 229 adds bit 2 enableCrossAddress).
  if (flags & 0xf8) r.fail(`${pool} flags 0x${flags.toString(16)} set reserved bits`, flagsAt);
  const valueBalance = r.bytes(8, `${pool} valueBalance`);
  const anchor = r.bytes(32, `${pool} anchor`);
  // Proof length is 2720 + 2272·n for real halo2 proofs, but synthetic vectors use other sizes, and
  // lightwalletd does not check it either: only bound it by what remains.
  r.varBytes(`${pool} proofs`);
  r.skip(64 * n + 64, `${pool} signatures`);
  return { actions, flags, valueBalance, anchor };
}
