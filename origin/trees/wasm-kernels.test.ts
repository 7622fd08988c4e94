import { invert } from "@noble/curves/abstract/modular.js";
import { describe, expect, it } from "vitest";
import { groupHashPallas } from "./hash-to-pallas.ts";
import { JUBJUB_P } from "./jubjub.ts";
import { hashPair } from "./merkle-hasher.ts";
import { createOrchardHasher } from "./orchard-hasher.ts";
import { createOrchardBigintHasher } from "./orchard-hasher-bigint.ts";
import { PALLAS_P, type PallasPoint, pallasAdd } from "./pallas.ts";
import { createSaplingHasher } from "./sapling-hasher.ts";
import { createSaplingBigintHasher } from "./sapling-hasher-bigint.ts";
import { orchardKernel } from "./wasm-kernels.ts";
import { orchardAffineKernel } from "./wasm-orchard-affine.ts";
import { createFieldKernel } from "./wasm-runtime.ts";

/** Deterministic pseudo-random field elements (an LCG squared, reduced mod p). */
function randoms(p: bigint, n: number, seed: bigint): bigint[] {
  return Array.from({ length: n }, () => {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) % (1n << 256n);
    return (seed * seed) % p;
  });
}

describe("WebAssembly Montgomery field arithmetic", () => {
  for (const [name, p] of [
    ["Jubjub base field", JUBJUB_P],
    ["Pallas base field", PALLAS_P],
  ] as const) {
    it(`multiplies, adds, subtracts and inverts like bigint arithmetic mod the ${name}`, () => {
      const k = createFieldKernel(p, [orchardKernel(2)], 0);
      const R = (1n << 256n) % p;
      const rInv = invert(R, p);
      const [a, b, out] = [k.dataStart, k.dataStart + 32, k.dataStart + 64];
      const values = [0n, 1n, p - 1n, p - 2n, ...randoms(p, 200, 7n)];
      for (let i = 0; i + 1 < values.length; i++) {
        const [x, y] = [values[i]!, values[values.length - 1 - i]!];
        k.write(a, x);
        k.write(b, y);
        const run = (f: string) => {
          k.fn(f)(out, a, b);
          return k.read(out);
        };
        expect(run("mul")).toBe((x * y * rInv) % p);
        expect(run("add")).toBe((x + y) % p);
        expect(run("sub")).toBe((x - y + p) % p);
        if (x !== 0n) expect(k.invert(x)).toBe(invert(x, p));
      }
    });
  }
});

describe("WebAssembly tree hashers", () => {
  const [lefts, rights] = [randoms(PALLAS_P, 300, 3n), randoms(PALLAS_P, 300, 5n)];
  lefts[0] = PALLAS_P - 1n;
  rights[1] = 0n;

  it("give the bigint Sapling hasher's outputs for batches of 1, 7 and 300", () => {
    const [wasm, bigint] = [createSaplingHasher(), createSaplingBigintHasher()];
    for (const [level, n] of [
      [0, 1],
      [13, 7],
      [31, 300],
    ] as const) {
      expect(wasm.hashLevel(level, lefts.slice(0, n), rights.slice(0, n))).toEqual(
        bigint.hashLevel(level, lefts.slice(0, n), rights.slice(0, n)),
      );
    }
  });

  it("give the bigint Orchard hasher's outputs with the Jacobian (small) and affine (large) kernels", () => {
    const [wasm, bigint] = [createOrchardHasher(), createOrchardBigintHasher()];
    for (const [level, n] of [
      [0, 1],
      [13, 7],
      [31, 300],
    ] as const) {
      expect(wasm.hashLevel(level, lefts.slice(0, n), rights.slice(0, n))).toEqual(
        bigint.hashLevel(level, lefts.slice(0, n), rights.slice(0, n)),
      );
    }
    expect(hashPair(wasm, 5, 2n, 2n)).toBe(hashPair(bigint, 5, 2n, 2n));
  });
});

describe("Orchard kernels on exceptional pairs", () => {
  const g = groupHashPallas("z.cash:test", new Uint8Array([1, 2, 3]))!;
  const cases: [string, PallasPoint, PallasPoint, boolean][] = [
    ["G + G (doubling)", g, g, true],
    ["G + (−G)", g, { x: g.x, y: PALLAS_P - g.y }, true],
    ["G + 2G", g, pallasAdd(g, g)!, false],
  ];
  for (const [name, p1, p2, exceptional] of cases) {
    it(`${exceptional ? "flag" : "sum"} ${name}`, () => {
      const k = createFieldKernel(PALLAS_P, [orchardKernel(2), orchardAffineKernel(2)], 4096);
      const [pts, idx, out, den, pre, flags] = [0, 256, 512, 768, 1024, 1280].map((o) => k.dataStart + o);
      [p1, p2].forEach((pt, i) => {
        k.write(pts + 64 * i, pt.x);
        k.write(pts + 64 * i + 32, pt.y);
        k.u32[(idx >> 2) + i] = pts + 64 * i;
      });
      k.toMontgomery(pts, 4);
      const fromMont = (v: bigint) => (v * invert((1n << 256n) % PALLAS_P, PALLAS_P)) % PALLAS_P;
      k.fn("hash")(idx, out, 1);
      const [X, Z] = [fromMont(k.read(out)), fromMont(k.read(out + 32))];
      expect(Z === 0n).toBe(exceptional);
      k.u32[flags >> 2] = 0;
      k.fn("hashAffine")(idx, out, 1, den, pre, flags);
      expect(k.u32[flags >> 2]).toBe(exceptional ? 1 : 0);
      if (!exceptional) {
        const sum = pallasAdd(p1, p2)!;
        expect((X * invert((Z * Z) % PALLAS_P, PALLAS_P)) % PALLAS_P).toBe(sum.x);
        expect(fromMont(k.read(out))).toBe(sum.x);
        expect(fromMont(k.read(out + 32))).toBe(sum.y);
      }
    });
  }
});
