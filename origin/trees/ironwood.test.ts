import { FpIsSquare } from "@noble/curves/abstract/modular.js";
import { describe, expect, it } from "vitest";
import { leBytesToBigint } from "../../proto/bytes.ts";
import { parseFinalState } from "../../proto/treestate/index.ts";
import { chainDir, hasChain, readChainFile } from "../../test/support/chain.ts";
import { Fp } from "./pallas.ts";

/** Sinsemilla outputs are x-coordinates of Pallas points; a random field element is one half the time. */
const isPallasX = (v: bigint) => v < Fp.ORDER && FpIsSquare(Fp, Fp.add(Fp.mul(Fp.sqr(v), v), 5n));

function internalNodes(file: string, key: string): bigint[] {
  const tree = parseFinalState(JSON.parse(readChainFile(`treestate/${file}.json`).toString())[key]);
  return tree.parents.filter((p) => p !== undefined).map((p) => leBytesToBigint(p));
}

describe.skipIf(!hasChain)(`what the Ironwood checkpoints say about its tree hash (${chainDir})`, () => {
  it("has only Pallas x-coordinates as internal nodes, as a Sinsemilla-over-Pallas tree would", () => {
    const nodes = ["mainnet/3429810", "mainnet/3444780", "testnet/4255170"].flatMap((f) =>
      internalNodes(f, "ironwoodTree"),
    );
    expect(nodes.length).toBeGreaterThanOrEqual(20);
    expect(nodes.filter(isPallasX).length).toBe(nodes.length);
  });

  it("tells a Pedersen (Sapling) tree apart with the same check", () => {
    const nodes = internalNodes("mainnet/3444780", "saplingTree");
    expect(nodes.filter(isPallasX).length).toBeLessThan(nodes.length);
  });
});
