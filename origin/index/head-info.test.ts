import { afterEach, describe, expect, it } from "vitest";
import { chainDir, hasChain } from "../../test/support/chain.ts";
import { createDevNode } from "../devnode/index.ts";
import { createNodeClient } from "../node/index.ts";
import { headLightdInfo } from "./head-info.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function nodeInfo(options: Parameters<typeof createDevNode>[0]) {
  const dev = await createDevNode(options);
  await dev.ready;
  cleanups.push(() => dev.close());
  const node = createNodeClient({ url: dev.url, retries: 0, timeoutMs: 5000 });
  cleanups.push(() => node.close());
  return node.info();
}

describe("the head's upgrade: the next pending one (lightwalletd common/common.go)", () => {
  it("names none on regtest, where every upgrade is active from height 1", async () => {
    const info = await nodeInfo({ synthetic: { blocks: 5, seed: "head-info" }, network: "regtest" });
    expect(info.upgrades.length).toBeGreaterThan(0);
    expect(headLightdInfo(info)).toMatchObject({ upgradeName: "", upgradeHeight: 0 });
  });

  it.skipIf(!hasChain)("names Heartwood at 903000 on a mainnet run at 663150 (Blossom active)", async () => {
    const info = await nodeInfo({ corpus: { dir: chainDir, from: 663150, to: 663250 }, network: "mainnet" });
    expect(headLightdInfo(info)).toMatchObject({ upgradeName: "Heartwood", upgradeHeight: 903000 });
  });
});
