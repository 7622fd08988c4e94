import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChain, missingChainMessage } from "../support/chain.ts";
import { startWalletSystem, until, type WalletSystem } from "../support/wallet-system.ts";

/**
 * A subtree completed in the unsealed tail. Mainnet's corpus run 663150–663250 sits just short of
 * Sapling subtree 1 (mainnet completed it at 670209); the dev node's blocks mined on top complete it
 * (deterministically, at 663342), above the sealed tip. The edge's stored roots stop at the sealed
 * tip, yet it announces the origin's tip: found by the differential fuzzer
 * (fuzz-differential.ts), the edge answered GetSubtreeRoots without that root while its origin
 * sent it.
 */
const RUN = { network: "mainnet", from: 663_150, to: 663_250 } as const;
const ON_TOP = 115;

if (!hasChain) console.warn(`edge subtree-tail test skipped: ${missingChainMessage}`);

describe.skipIf(!hasChain)("GetSubtreeRoots when a subtree completes above the sealed tip", () => {
  let system: WalletSystem;

  beforeAll(async () => {
    system = await startWalletSystem({ chain: { corpus: RUN }, rangeSize: 10, sealDepth: 100 });
    await system.settle(120_000);
    await system.control("mine", { blocks: ON_TOP });
    await system.settle(120_000);
    await until(() => system.all.origin.indexer.view.sealedTip() >= RUN.to, 60_000, "run sealed");
  }, 240_000);

  afterAll(async () => {
    await system?.close();
  });

  it("sends the tail's roots after the stored ones, as the origin does, from any start", async () => {
    const roots = async (name: "edge" | "origin", startIndex: number, maxEntries: number) => {
      const server = system.servers.find((s) => s.name === name)!;
      const out: string[] = [];
      for await (const r of system
        .client(server)
        .getSubtreeRoots({ startIndex, shieldedProtocol: 0, maxEntries }))
        out.push(`${r.completingBlockHeight}:${Buffer.from(r.rootHash).toString("hex")}`);
      return out;
    };
    const sealed = system.all.origin.indexer.view.sealedTip();
    const all = await roots("origin", 0, 0);
    expect(all.length, "subtree 1 completed in the mined blocks").toBe(2);
    expect(Number(all[1]!.split(":")[0]), "above the sealed tip").toBeGreaterThan(sealed);
    for (const [start, max] of [
      [0, 0],
      [0, 2],
      [1, 0],
      [1, 1],
      [0, 1],
      [2, 0],
    ] as const)
      expect(await roots("edge", start, max), `start ${start}, max ${max}`).toEqual(
        await roots("origin", start, max),
      );
  });
});
