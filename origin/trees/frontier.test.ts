import { describe, expect, it } from "vitest";
import { parseFinalState, serializeFinalState } from "../../proto/treestate/legacy-tree.ts";
import {
  appendLeaves,
  EMPTY_FRONTIER,
  frontierFromLegacy,
  frontierRoot,
  frontierToLegacy,
} from "./frontier.ts";
import { hasherFor, NODE_MODULUS } from "./hashers.ts";
import { TREE_DEPTH, type TreePool } from "./merkle-hasher.ts";
import { computeSubtreeRoot } from "./subtree.ts";

/** Independent root: pad each level with the empty node and hash the whole level, 32 times. */
function naiveRoot(pool: TreePool, leaves: bigint[]): bigint {
  const h = hasherFor(pool);
  let row = leaves.slice();
  for (let l = 0; l < TREE_DEPTH; l++) {
    if (row.length === 0) return h.emptyRoot(TREE_DEPTH);
    if (row.length % 2 === 1) row.push(h.emptyRoot(l));
    row = h.hashLevel(
      l,
      row.filter((_, i) => i % 2 === 0),
      row.filter((_, i) => i % 2 === 1),
    );
  }
  return row[0]!;
}

const synthetic = (n: number, seed: bigint) =>
  Array.from({ length: n }, (_, i) => (BigInt(i + 1) * seed) % (1n << 250n));

describe.each(["sapling", "orchard"] as const)("the %s incremental frontier", (pool) => {
  const h = hasherFor(pool);
  const leaves = synthetic(70, 0x9e3779b97f4a7c15f39cc0605cedc834n);

  it("has the naive tree's root after every block of a synthetic chain", () => {
    let f = EMPTY_FRONTIER;
    for (const k of [1, 1, 2, 5, 0, 8, 3, 16, 34]) {
      f = appendLeaves(h, f, leaves.slice(f.size, f.size + k));
      expect(frontierRoot(h, f)).toBe(naiveRoot(pool, leaves.slice(0, f.size)));
    }
    expect(f.size).toBe(70);
  });

  it("round-trips through finalState in both styles and keeps appending correctly", () => {
    let f = appendLeaves(h, EMPTY_FRONTIER, leaves.slice(0, 23));
    for (const style of ["zebrad", "zcashd"] as const) {
      const text = serializeFinalState(frontierToLegacy(f), style);
      const g = frontierFromLegacy(h, parseFinalState(text), NODE_MODULUS[pool]);
      expect(g.size).toBe(23);
      expect(frontierRoot(h, appendLeaves(h, g, leaves.slice(23, 40)))).toBe(
        naiveRoot(pool, leaves.slice(0, 40)),
      );
    }
    f = appendLeaves(h, f, leaves.slice(23, 24));
    expect(serializeFinalState(frontierToLegacy(f), "zcashd").length).toBeLessThan(
      serializeFinalState(frontierToLegacy(f), "zebrad").length,
    );
  });

  it("computes a partial subtree root equal to the naive level-16 node", () => {
    const bytes = leaves.slice(0, 37).map((v) => {
      const b = new Uint8Array(32);
      for (let i = 0; i < 32; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
      return b;
    });
    const root = computeSubtreeRoot(pool, bytes);
    // A subtree padded to 2^16 leaves and lifted with empty nodes gives the tree root.
    let node = BigInt(`0x${Buffer.from(root).reverse().toString("hex")}`);
    for (let l = 16; l < TREE_DEPTH; l++) node = h.hashLevel(l, [node], [h.emptyRoot(l)])[0]!;
    expect(node).toBe(naiveRoot(pool, leaves.slice(0, 37)));
  });

  it("rejects a tree node that is not a canonical field element", () => {
    const bad = `01${"ff".repeat(32)}0000`;
    expect(() => frontierFromLegacy(h, parseFinalState(bad), NODE_MODULUS[pool])).toThrow(/canonical/);
  });
});
