import { groupHashPallas } from "./hash-to-pallas.ts";
import { type PallasPoint, pallasAdd } from "./pallas.ts";

/**
 * Sinsemilla (Zcash protocol spec, "Sinsemilla Hash Function"): k = 10-bit chunks,
 * Acc = Q(D); for each chunk Acc = (Acc ⊕ S(mᵢ)) ⊕ Acc with incomplete addition (⊥ on exceptions).
 * This is the reference form, used for the test vectors and to check the table-driven hasher.
 */
export const SINSEMILLA_K = 10;
const utf8 = (s: string) => new TextEncoder().encode(s);

let sTable: PallasPoint[] | undefined;

/** S(j) = GroupHash^P("z.cash:SinsemillaS", I2LEOSP₃₂(j)) for j < 2¹⁰, built once (~1 s). */
export function sinsemillaS(): PallasPoint[] {
  if (!sTable) {
    sTable = [];
    for (let j = 0; j < 1 << SINSEMILLA_K; j++) {
      const msg = new Uint8Array([j & 0xff, j >> 8, 0, 0]);
      sTable.push(groupHashPallas("z.cash:SinsemillaS", msg)!);
    }
  }
  return sTable;
}

export function sinsemillaQ(domain: string): PallasPoint {
  return groupHashPallas("z.cash:SinsemillaQ", utf8(domain))!;
}

/** Incomplete addition: ⊥ (undefined) when an input is ⊥ or the x-coordinates coincide. */
function incompleteAdd(a: PallasPoint | undefined, b: PallasPoint | undefined): PallasPoint | undefined {
  if (!a || !b || a.x === b.x) return undefined;
  return pallasAdd(a, b);
}

/** SinsemillaHashToPoint over a bit string (bits are 0/1, padded with zeros to a multiple of 10). */
export function sinsemillaHashToPoint(domain: string, bits: readonly number[]): PallasPoint | undefined {
  const S = sinsemillaS();
  let acc: PallasPoint | undefined = sinsemillaQ(domain);
  for (let i = 0; i < bits.length; i += SINSEMILLA_K) {
    let m = 0;
    for (let k = 0; k < SINSEMILLA_K; k++) m |= (bits[i + k] ?? 0) << k;
    acc = incompleteAdd(incompleteAdd(acc, S[m]), acc);
  }
  return acc;
}

/** SinsemillaHash: the x-coordinate of the point, or undefined for ⊥. */
export function sinsemillaHash(domain: string, bits: readonly number[]): bigint | undefined {
  return sinsemillaHashToPoint(domain, bits)?.x;
}
