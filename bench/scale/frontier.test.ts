import { describe, expect, it } from "vitest";
import { legacyTreeSize, slotsForSize } from "../../proto/treestate/index.ts";
import { frontierMaker } from "./frontier.ts";

const PALLAS_P = 0x40000000000000000000000000000000224698fc094cf91b992d30ed00000001n;
const le = (b: Uint8Array) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);

describe("synthetic frontiers", () => {
  const sizes = [
    1,
    2,
    3,
    4,
    5,
    7,
    8,
    1_000,
    1_025,
    73_938_773,
    50_362_760,
    2 ** 31 - 1,
    2 ** 31,
    2 ** 32 - 1,
  ];

  it("have exactly the slots of a real tree of that size, with canonical nodes", () => {
    const make = frontierMaker("t", "sapling");
    for (const size of sizes) {
      const tree = make(size);
      const { leaves, parentMask } = slotsForSize(size);
      expect(legacyTreeSize(tree)).toBe(size);
      expect([tree.left, tree.right].filter(Boolean).length).toBe(leaves);
      expect(tree.parents.flatMap((p, i) => (p ? [i] : []))).toEqual(parentMask);
      expect(tree.parents.length).toBe(parentMask.length === 0 ? 0 : parentMask.at(-1)! + 1);
      for (const node of [tree.left, tree.right, ...tree.parents].filter((n) => n !== undefined)) {
        expect(node.length).toBe(32);
        expect(le(node) < PALLAS_P).toBe(true);
      }
    }
  });

  it("keep a node until its subtree changes, share the tree of an unchanged size, differ by pool", () => {
    const make = frontierMaker("t", "orchard");
    const a = make(1_000_001);
    expect(make(1_000_001)).toBe(a);
    const b = make(1_000_003);
    // 1,000,001 and 1,000,003: parents at levels ≥ 2 cover the same leaves.
    for (let i = 1; i < a.parents.length; i++) expect(b.parents[i]).toEqual(a.parents[i]);
    expect(b.left).not.toEqual(a.left);
    // A fresh maker (another worker) gives the same nodes; another pool or seed other ones.
    expect(frontierMaker("t", "orchard")(1_000_003)).toEqual(b);
    expect(frontierMaker("t", "sapling")(1_000_003).left).not.toEqual(b.left);
    expect(frontierMaker("u", "orchard")(1_000_003).left).not.toEqual(b.left);
  });
});
