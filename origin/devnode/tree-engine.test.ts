import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { toHex } from "../../proto/bytes.ts";
import { computeSubtreeRoot, EMPTY_FRONTIER, SUBTREE_LEAVES } from "../trees/index.ts";
import { type Commitments, noCommitments } from "./commitments.ts";
import { createTreeEngine, type Frontiers } from "./tree-engine.ts";

/** Each dev node hashes on a worker thread and builds the hash tables first: slow on a shared machine. */
const HEAVY = 120_000;

/** A canonical field element per (block, pool, i): < 2^254. */
function leaf(seed: string): Uint8Array {
  const b = createHash("sha256").update(seed).digest();
  b[31]! &= 0x3f;
  return new Uint8Array(b);
}

const empty: Frontiers = { sapling: EMPTY_FRONTIER, orchard: EMPTY_FRONTIER, ironwood: EMPTY_FRONTIER };

/** Block h adds `counts(h)` leaves to the Sapling and Ironwood trees. */
function source(counts: (h: number) => number) {
  return (h: number): Commitments => {
    const c = noCommitments();
    for (const pool of ["sapling", "ironwood"] as const)
      for (let i = 0; i < counts(h); i++) c[pool].push(leaf(`${pool}|${h}|${i}`));
    return c;
  };
}

describe("tree engine", () => {
  it("records each completed subtree with the root computed independently and the completing height", {
    timeout: HEAVY,
  }, () => {
    // Ironwood only (the Orchard hash): 40,000 + 30,000 leaves, so block 2 completes subtree 0 mid-block.
    let branch = 0;
    const commitments = (h: number): Commitments => {
      const c = noCommitments();
      for (let i = 0; i < (h === 1 ? 40_000 : h === 2 ? 30_000 : 3); i++)
        c.ironwood.push(leaf(`${h}|${h >= 2 ? branch : 0}|${i}`));
      return c;
    };
    const engine = createTreeEngine({ base: 1, start: empty, commitments, checkpointEvery: 2 });
    expect(engine.sizesAt(3).ironwood).toBe(70_003);
    const leaves = [1, 2].flatMap((h) => commitments(h).ironwood).slice(0, SUBTREE_LEAVES);
    const expected = toHex(computeSubtreeRoot("orchard", leaves));
    expect(engine.subtrees("ironwood")).toEqual([{ index: 0, root: expected, endHeight: 2 }]);
    expect(engine.subtrees("sapling")).toEqual([]);
    // A reorg from block 2 drops the subtree; the new branch completes a different one.
    branch = 1;
    engine.invalidate(2);
    expect(engine.subtrees("ironwood")).toEqual([]);
    expect(engine.computed()).toBe(1);
    engine.advance(3);
    const [again] = engine.subtrees("ironwood");
    expect(again!.endHeight).toBe(2);
    expect(again!.root).not.toBe(expected);
  });

  it("answers any height the same from the cursor, a checkpoint replay or a fresh walk", {
    timeout: HEAVY,
  }, () => {
    const counts = (h: number) => (h * 7) % 5;
    const a = createTreeEngine({
      base: 10,
      start: empty,
      commitments: source(counts),
      checkpointEvery: 4,
      recentLimit: 3,
    });
    const at30 = a.stateAt(30); // cursor walks to 30; only 28..30 stay recent
    const at13 = a.stateAt(13); // replayed from the checkpoint at 12
    const b = createTreeEngine({ base: 10, start: empty, commitments: source(counts) });
    expect(b.stateAt(13)).toEqual(at13);
    expect(b.stateAt(30)).toEqual(at30);
    expect(a.stateAt(9)).toEqual(b.stateAt(9)); // base − 1: the start
    expect(at13.sapling.size).toBe([10, 11, 12, 13].reduce((s, h) => s + counts(h), 0));
  });
});
