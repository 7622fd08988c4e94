/**
 * Reusable buffers that split a pair of tree nodes (255-bit field elements) into 32-bit
 * little-endian limbs, the form both hashers pack into their chunk messages.
 */
export function createNodeLimbs() {
  const left64 = new BigUint64Array(4);
  const right64 = new BigUint64Array(4);
  const split = (v: bigint, into: BigUint64Array) => {
    for (let k = 0; k < 4; k++) into[k] = BigInt.asUintN(64, v >> BigInt(64 * k));
  };
  return {
    left: new Uint32Array(left64.buffer),
    right: new Uint32Array(right64.buffer),
    load(left: bigint, right: bigint): void {
      split(left, left64);
      split(right, right64);
    },
  };
}
