import { invert } from "@noble/curves/abstract/modular.js";

/**
 * Montgomery's trick: n inverses for one modular inversion and 3(n − 1) multiplications. Hashing a
 * tree level at a time shares this one inversion across the level. Every value must be nonzero.
 * `inverse` computes the one inversion (the hashers pass their WebAssembly Fermat inversion).
 */
export function batchInvert(
  values: readonly bigint[],
  p: bigint,
  inverse: (v: bigint) => bigint = (v) => invert(v, p),
): bigint[] {
  const n = values.length;
  const prefix = new Array<bigint>(n);
  let acc = 1n;
  for (let i = 0; i < n; i++) {
    prefix[i] = acc;
    acc = (acc * values[i]!) % p;
  }
  let inv = inverse(acc);
  const out = new Array<bigint>(n);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = (inv * prefix[i]!) % p;
    inv = (inv * values[i]!) % p;
  }
  return out;
}
