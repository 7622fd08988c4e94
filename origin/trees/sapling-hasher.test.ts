import { describe, expect, it } from "vitest";
import { bigintToLeBytes, toHex } from "../../proto/bytes.ts";
import { chainDir, hasChain, readChainFile } from "../../test/support/chain.ts";
import { edBatchAdd, edMultiple, pedersenGenerator } from "./jubjub.ts";
import { hashPair } from "./merkle-hasher.ts";
import { createSaplingHasher } from "./sapling-hasher.ts";

/** Straight-from-the-spec Pedersen hash (one scalar multiplication per segment), for comparison. */
function referenceMerkleCrh(level: number, left: bigint, right: bigint): bigint {
  const m = BigInt(level) | (left << 6n) | (right << 261n);
  let acc = { x: 0n, y: 1n };
  for (let seg = 0; seg < 3; seg++) {
    let scalar = 0n;
    const chunks = seg < 2 ? 63 : 46;
    for (let j = 0; j < chunks; j++) {
      const c = Number((m >> BigInt(3 * (63 * seg + j))) & 7n);
      const enc = BigInt((1 - 2 * ((c >> 2) & 1)) * (1 + (c & 1) + 2 * ((c >> 1) & 1)));
      scalar += enc * 16n ** BigInt(j);
    }
    acc = edBatchAdd([acc], [edMultiple(pedersenGenerator(seg + 1), scalar)])[0]!;
  }
  return acc.x;
}

describe("Sapling MerkleCRH over Jubjub", () => {
  const h = createSaplingHasher();

  it("matches a direct Pedersen hash at several levels", () => {
    const left = 0xdead_beef_0000_1111_2222_3333n;
    const right = (1n << 254n) + 987654321n;
    for (const level of [0, 5, 31])
      expect(hashPair(h, level, left, right)).toBe(referenceMerkleCrh(level, left, right));
  });

  describe.skipIf(!hasChain)(`against mainnet (${chainDir})`, () => {
    it("gives the empty-tree root zebrad reports at Sapling activation (419200)", () => {
      const rpc = JSON.parse(
        readChainFile("rpc/zebrad-mainnet/z_gettreestate-419200.json").toString(),
      ).result;
      const display = toHex(bigintToLeBytes(h.emptyRoot(32)).reverse());
      expect(display).toBe(rpc.sapling.commitments.finalRoot);
    });
  });
});
