import { describe, expect, it } from "vitest";
import { concatBytes } from "../../proto/bytes.ts";
import {
  decodeTreeStateRange,
  type LegacyTree,
  serializeFinalState,
  treeStateAt,
  treeStateKey,
} from "../../proto/treestate/index.ts";
import { parseBlock } from "../chain/index.ts";
import { createDevChain } from "../devnode/chain.ts";
import { createOrchardBigintHasher } from "../trees/orchard-hasher-bigint.ts";
import { type BackfillOptions, runBackfill } from "./backfill.ts";
import type { BackfillBlock } from "./backfill-source.ts";
import { createSubtreeJobRunner } from "./backfill-workers.ts";
import { runSubtreeJob } from "./subtree-job.ts";
import { createSubtreeLedger, type SubtreeLedger } from "./subtree-ledger.ts";
import { fakeLegacy, fakeNode, naiveAppend } from "./testing.ts";

const RANGE = 10;
/** Ironwood is checked against the independent all-bigint Orchard hasher (origin/trees/README.md). */
const oracle = createOrchardBigintHasher();
const chain = createDevChain({ network: "regtest", seed: "treestate", blocks: 40 });
while (!chain.advance(50));

function devBlocks(from: number, to: number): BackfillBlock[] {
  const out: BackfillBlock[] = [];
  for (let h = from; h <= to; h++) {
    const b = parseBlock(chain.block(h).raw);
    out.push({
      height: h,
      wireHash: b.wireHash,
      time: b.header.time,
      saplingCmus: b.txs.flatMap((tx) => tx.sapling.outputs.map((o) => o.cmu)),
      orchardCmxs: b.txs.flatMap((tx) => tx.orchard?.actions.map((a) => a.cmx) ?? []),
      ironwoodCmxs: b.txs.flatMap((tx) => tx.ironwood?.actions.map((a) => a.cmx) ?? []),
    });
  }
  return out;
}

/**
 * runBackfill from range 1 over `blocks` (ranges of RANGE, every pool active from height 0) on one
 * worker thread; `onPull` sees each block as the backfill takes it.
 */
async function backfillOver(
  blocks: BackfillBlock[],
  o: Pick<BackfillOptions, "toIndex" | "start" | "write" | "saveProgress"> & {
    ledger?: SubtreeLedger;
    onPull?: (height: number) => void;
  },
): Promise<void> {
  const runner = createSubtreeJobRunner(1);
  try {
    await runBackfill({
      network: "regtest",
      chainName: "regtest",
      rangeSize: RANGE,
      fromIndex: 1,
      toIndex: o.toIndex,
      start: o.start,
      activations: { sapling: 0, orchard: 0, ironwood: 0 },
      blocks: async function* (from, to) {
        for (const b of blocks.filter((b) => b.height >= from && b.height <= to)) {
          o.onPull?.(b.height);
          yield b;
        }
      },
      runner,
      ledger: o.ledger ?? createSubtreeLedger(),
      write: o.write,
      saveProgress: o.saveProgress,
    });
  } finally {
    await runner.close();
  }
}

describe("the subtree backfill", () => {
  it("gives every block the frontier a naive one-leaf-at-a-time tree has, across a subtree boundary", async () => {
    // Start a few blocks' worth of leaves below 2^16 so a subtree completes inside the run.
    const start = {
      sapling: fakeLegacy(65536 - 130, 1),
      orchard: fakeLegacy(65536 - 20, 99),
      ironwood: fakeLegacy(65536 - 20, 999),
    };
    const blocks = devBlocks(10, 29);
    const stored = new Map<string, Uint8Array>();
    const progress: number[] = [];
    const ledger = createSubtreeLedger();
    await backfillOver(blocks, {
      toIndex: 3,
      start: {
        sapling: serializeFinalState(start.sapling),
        orchard: serializeFinalState(start.orchard),
        ironwood: serializeFinalState(start.ironwood),
      },
      ledger,
      write: async (objects) => {
        for (const w of objects) stored.set(w.key, w.bytes);
      },
      saveProgress: async (next) => void progress.push(next),
    });
    expect(progress).toEqual([2, 3]);
    const naive: Record<"sapling" | "orchard" | "ironwood", LegacyTree> = { ...start };
    for (const b of blocks) {
      for (const cm of b.saplingCmus) naive.sapling = naiveAppend("sapling", naive.sapling, cm);
      for (const cm of b.orchardCmxs) naive.orchard = naiveAppend("orchard", naive.orchard, cm);
      for (const cm of b.ironwoodCmxs!) naive.ironwood = naiveAppend("ironwood", naive.ironwood, cm, oracle);
      const range = decodeTreeStateRange(
        stored.get(treeStateKey("regtest", RANGE, Math.floor(b.height / RANGE)))!,
      );
      const view = treeStateAt(range, b.height);
      expect(view.saplingTree).toBe(serializeFinalState(naive.sapling));
      expect(view.orchardTree).toBe(serializeFinalState(naive.orchard));
      expect(view.ironwoodTree).toBe(serializeFinalState(naive.ironwood));
    }
    // Subtree 0 of each pool completed in the run, with its completing block.
    expect(ledger.get("sapling", 0)?.completingHeight).toBeGreaterThanOrEqual(10);
    expect(ledger.get("orchard", 0)?.completingHeight).toBeGreaterThanOrEqual(10);
    expect(ledger.get("ironwood", 0)?.completingHeight).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it("writes a range as soon as its subtree jobs have started, not at the end of the run", async () => {
    // Each pool's subtree 0 completes at its first block with leaves in range 2 (heights 20..29), so
    // range 1 is not ready at its own end (19) and is ready at range 2's end (29). Range 2's last
    // trees are in subtree 1 of every pool, which starts only when the run flushes.
    const blocks = devBlocks(10, 39);
    const pools = ["sapling", "orchard", "ironwood"] as const;
    const leavesOf = (b: BackfillBlock, pool: (typeof pools)[number]) =>
      ({ sapling: b.saplingCmus, orchard: b.orchardCmxs, ironwood: b.ironwoodCmxs ?? [] })[pool].length;
    const start = Object.fromEntries(
      pools.map((pool, seed) => {
        const completing = blocks.find((b) => b.height >= 20 && leavesOf(b, pool) > 0)!;
        expect(completing.height).toBeLessThan(29);
        const before = blocks
          .filter((b) => b.height <= completing.height)
          .reduce((n, b) => n + leavesOf(b, pool), 0);
        return [pool, serializeFinalState(fakeLegacy(65536 - before, seed + 1))];
      }),
    ) as Record<(typeof pools)[number], string>;
    let pulled = 0;
    const progressAt: Array<{ next: number; pulled: number }> = [];
    await backfillOver(blocks, {
      toIndex: 4,
      start,
      onPull: (height) => {
        pulled = height;
      },
      write: async () => {},
      saveProgress: async (next) => void progressAt.push({ next, pulled }),
    });
    expect(progressAt).toEqual([
      { next: 2, pulled: 29 },
      { next: 3, pulled: 39 },
      { next: 4, pulled: 39 },
    ]);
  }, 60_000);
});

describe("subtree jobs on worker threads", () => {
  /** `n` fake leaves packed 32 bytes each. */
  const packed = (n: number) => concatBytes(Array.from({ length: n }, (_, i) => fakeNode(i)));

  it("moves a job's packed leaves to the worker when the job owns their buffer, and copies a view", async () => {
    const runner = createSubtreeJobRunner(1);
    try {
      const owned = packed(64);
      const expected = runSubtreeJob({ pool: "sapling", leaves: owned.slice(), boundaries: [64] });
      const moved = await runner.run({ pool: "sapling", leaves: owned, boundaries: [64] });
      // Transferred: the sender's buffer is detached, so the lane cannot hold 2 MB per job.
      expect(owned.byteLength).toBe(0);
      expect(moved).toEqual(expected);
      // A view into a larger buffer is copied: the rest of that buffer stays the sender's.
      const larger = packed(128);
      const view = larger.subarray(0, 64 * 32);
      const copied = await runner.run({ pool: "sapling", leaves: view, boundaries: [64] });
      expect(larger.byteLength).toBe(128 * 32);
      expect(copied).toEqual(expected);
    } finally {
      await runner.close();
    }
  });

  it("refuses packed leaves that are not 32 bytes each", () => {
    expect(() => runSubtreeJob({ pool: "sapling", leaves: new Uint8Array(33), boundaries: [1] })).toThrow(
      /32 bytes each/,
    );
  });
});
