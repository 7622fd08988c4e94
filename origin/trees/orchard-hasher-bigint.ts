import { computeEmptyRoots, type MerkleHasher } from "./merkle-hasher.ts";
import { type PallasPoint, pallasBatchAdd, pallasBatchDouble } from "./pallas.ts";
import { SINSEMILLA_K, sinsemillaQ, sinsemillaS } from "./sinsemilla.ts";

/**
 * The all-bigint form of the Orchard hasher: the benchmark baseline, the test oracle and the
 * complete-formula fallback of the WebAssembly one in orchard-hasher.ts.
 *
 * Orchard MerkleCRH (spec "Orchard Merkle tree hash"): SinsemillaHash("z.cash:Orchard-MerkleCRH",
 * I2LEBSP₁₀(level) ‖ left₂₅₅ ‖ right₂₅₅), 52 chunks. Sinsemilla is linear away from its
 * (negligible) exceptional cases: Acc = [2⁵²]Q + Σᵢ [2⁵¹⁻ⁱ]S(mᵢ), so with tables
 * rows[i][j] = [2⁵¹⁻ⁱ]S(j) a hash is a sum of 52 table points. Sums are taken pairwise, all hashes
 * of a batch at once, with one inversion per round. The 10-bit level prefix is mainnet's; the
 * 6-bit prefix in zcash-test-vectors' orchard_merkle_tree.py does not match the chain.
 */
export const ORCHARD_DOMAIN = "z.cash:Orchard-MerkleCRH";
export const CHUNKS = 52;
const BATCH = 512;
const MASK = (1n << BigInt(SINSEMILLA_K)) - 1n;

export interface SinsemillaTables {
  rows: PallasPoint[][];
  /** Per level: [2⁵²]Q + [2⁵¹]S(level), the sum of the two constant terms. */
  layerBase: (PallasPoint | undefined)[];
}

export function buildSinsemillaTables(): SinsemillaTables {
  const rows = new Array<PallasPoint[]>(CHUNKS);
  rows[CHUNKS - 1] = sinsemillaS();
  for (let i = CHUNKS - 2; i >= 0; i--) rows[i] = pallasBatchDouble(rows[i + 1]!);
  let q = sinsemillaQ(ORCHARD_DOMAIN);
  for (let i = 0; i < CHUNKS; i++) q = pallasBatchDouble([q])[0]!;
  const levels = Array.from({ length: 32 }, (_, l) => l);
  const layerBase = pallasBatchAdd(
    levels.map(() => q),
    levels.map((l) => rows[0]![l]),
  );
  return { rows, layerBase };
}

/** Sums each group of points pairwise; groups[i] has the points of hash i. */
function sumGroups(groups: (PallasPoint | undefined)[][]): (PallasPoint | undefined)[] {
  let current = groups;
  while (current[0]!.length > 1) {
    const as: (PallasPoint | undefined)[] = [];
    const bs: (PallasPoint | undefined)[] = [];
    for (const g of current) {
      for (let k = 0; k + 1 < g.length; k += 2) {
        as.push(g[k]);
        bs.push(g[k + 1]);
      }
    }
    const sums = pallasBatchAdd(as, bs);
    let s = 0;
    current = current.map((g) => {
      const next: (PallasPoint | undefined)[] = [];
      for (let k = 0; k + 1 < g.length; k += 2) next.push(sums[s++]);
      if (g.length % 2 === 1) next.push(g[g.length - 1]);
      return next;
    });
  }
  return current.map((g) => g[0]);
}

export function createOrchardBigintHasher(): MerkleHasher {
  let tables: SinsemillaTables | undefined;
  let empty: bigint[] | undefined;
  const hashLevel = (level: number, lefts: readonly bigint[], rights: readonly bigint[]): bigint[] => {
    tables ??= buildSinsemillaTables();
    const { rows, layerBase } = tables;
    const out: bigint[] = [];
    for (let start = 0; start < lefts.length; start += BATCH) {
      const groups: (PallasPoint | undefined)[][] = [];
      for (let h = start; h < Math.min(start + BATCH, lefts.length); h++) {
        const m = lefts[h]! | (rights[h]! << 255n);
        const g: (PallasPoint | undefined)[] = [layerBase[level]];
        for (let i = 1; i < CHUNKS; i++)
          g.push(rows[i]![Number((m >> BigInt(SINSEMILLA_K * (i - 1))) & MASK)]);
        groups.push(g);
      }
      // ⊥ (the identity) maps to 0, as the spec's MerkleCRH^Orchard does.
      for (const pt of sumGroups(groups)) out.push(pt ? pt.x : 0n);
    }
    return out;
  };
  return {
    pool: "orchard",
    hashLevel,
    emptyRoot(level) {
      empty ??= computeEmptyRoots(2n, hashLevel);
      return empty[level]!;
    },
  };
}
