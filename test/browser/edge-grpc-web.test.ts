import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EdgeDev, startEdgeDev } from "../../origin/main/edge-dev.ts";
import { serveWalletPage, syncInPage, type WalletPage } from "../e2e/wallet-page.ts";
import { hasChain, missingChainMessage } from "../support/chain.ts";
import { hasChromium, launchChromium, missingChromiumMessage } from "../support/chromium.ts";
import { seedLocalR2 } from "../support/seed-local-r2.ts";
import { buildSeed, type Seed } from "../support/seed-ranges.ts";
import { startTestOrigin, TEST_ORIGIN_SECRET, type TestOrigin } from "../support/test-origin.ts";

const ready = hasChromium && hasChain;
if (!ready)
  console.warn(`browser test skipped: ${hasChromium ? missingChainMessage : missingChromiumMessage}`);

describe.skipIf(!ready)("a browser wallet page against the edge under wrangler dev", () => {
  let seed: Seed;
  let persist: string;
  let origin: TestOrigin;
  let edge: EdgeDev;
  let page: WalletPage;
  let browser: Browser;

  beforeAll(async () => {
    seed = buildSeed();
    persist = mkdtempSync(join(tmpdir(), "lightedge-browser-"));
    await seedLocalR2(persist, seed.objects);
    origin = await startTestOrigin({ network: "mainnet", blocks: seed.blocks.get("mainnet")! });
    edge = await startEdgeDev({
      port: 0,
      persist,
      origin: origin.url,
      originSecret: TEST_ORIGIN_SECRET,
      networks: "mainnet,testnet",
      quiet: true,
    });
    page = await serveWalletPage();
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    page?.close();
    await edge?.stop();
    await origin?.stop();
    if (persist) rmSync(persist, { recursive: true, force: true });
  });

  it("syncs a range across the sealed tip over gRPC-web from another origin, hashes and chain intact", async () => {
    const tab = await browser.newPage();
    await tab.goto(page.url);
    const tip = seed.heads.get("mainnet")!.tip!.height;
    const [start, end] = [663150, tip + 20];
    const result = await syncInPage(tab, edge.url, start, end);
    const want = seed.blocks.get("mainnet")!.filter((b) => b.height >= start && b.height <= end);
    expect(result.problems).toEqual([]);
    expect(result.blocks.map((b) => b.height)).toEqual(want.map((b) => b.height));
    expect(result.blocks.map((b) => b.hash)).toEqual(
      want.map((b) => Buffer.from(b.wireHash).toString("hex")),
    );
    expect(result.blocks.map((b) => b.prevHash)).toEqual(
      want.map((b) => Buffer.from(b.wirePrevHash).toString("hex")),
    );
    expect(result.latestHeight).toBe(663250);
    await tab.close();
  }, 60_000);
});
