import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedAll, startAll } from "../../origin/main/start-all.ts";
import { chainDir, corpusIndex, hasChain, missingChainMessage } from "../support/chain.ts";
import { artifactsDir, hasChromium, launchChromium, missingChromiumMessage } from "../support/chromium.ts";
import { type PageResult, serveWalletPage, showInPage, syncInPage, type WalletPage } from "./wallet-page.ts";

// The real corpus run: darksidewalletd's mainnet 663150–663250 (101 consecutive blocks).
const [FROM, TO] = [663150, 663250];
// Synthetic blocks mined on top so the whole run is 100 deep (final) and seals; the rest of them
// stay in the origin's unsealed tail, where the reorg goes.
const ON_TOP = 130;
const REORG_DEPTH = 25;

const ready = hasChromium && hasChain;
if (!ready)
  console.warn(`end-to-end test skipped: ${hasChromium ? missingChainMessage : missingChromiumMessage}`);

const wire = (display: string) => Buffer.from(display, "hex").reverse().toString("hex");

describe.skipIf(!ready)("the whole system, as npm start runs it, seen by a wallet page in Chromium", () => {
  let data: string;
  let all: StartedAll;
  let page: WalletPage;
  let browser: Browser;
  let tab: Page;
  let firstSync: PageResult;
  const seen: string[] = [];

  beforeAll(async () => {
    data = mkdtempSync(join(tmpdir(), "lightedge-e2e-"));
    [all, page, browser] = await Promise.all([
      startAll({
        dataDir: data,
        dev: {
          node: { corpus: { dir: chainDir, from: FROM, to: TO }, network: "mainnet" },
          mineOnTop: ON_TOP,
        },
        edgePort: 0,
        originPort: 0,
        adminPort: "off",
        rangeSize: 10,
        sealDepth: 100,
        fromHeight: FROM,
        originArgs: ["--log-level", "error", "--poll-ms", "100"],
        quiet: true,
        env: {},
      }),
      serveWalletPage(),
      launchChromium(),
    ]);
    await all.synced;
    tab = await browser.newPage();
    await tab.goto(page.url);
  }, 90_000);

  afterAll(async () => {
    if (tab) {
      await showInPage(tab, [
        "lightedge end-to-end: a connect-web page over gRPC-web against the edge",
        ...seen,
      ]);
      await tab.screenshot({ path: join(artifactsDir, "e2e-full-system.png") }).catch(() => {});
    }
    await browser?.close();
    page?.close();
    await all?.close();
    if (data) rmSync(data, { recursive: true, force: true });
  });

  it("syncs every block of the real corpus run over gRPC-web, from sealed ranges, hashes as the chain has them", async () => {
    const tip = TO + ON_TOP;
    expect(all.origin.indexer.view.sealedTip()).toBeGreaterThanOrEqual(TO);
    firstSync = await syncInPage(tab, all.edgeUrl, FROM, tip);
    const corpus = corpusIndex()
      .blocks.filter((b) => b.network === "mainnet" && b.height >= FROM && b.height <= TO)
      .sort((a, b) => a.height - b.height);
    expect(corpus).toHaveLength(TO - FROM + 1);
    expect(firstSync.problems).toEqual([]);
    expect(firstSync.latestHeight).toBe(tip);
    expect(firstSync.blocks.map((b) => b.height)).toEqual(range(FROM, tip));
    const served = firstSync.blocks.slice(0, corpus.length);
    expect(served.map((b) => b.hash)).toEqual(corpus.map((b) => wire(b.hash)));
    expect(served.map((b) => b.prevHash)).toEqual(corpus.map((b) => wire(b.prevHash)));
    seen.push(`synced ${summary(firstSync)}`);
    const mined = firstSync.blocks.slice(corpus.length);
    expect(mined.map((b) => b.hash)).toEqual(mined.map((b) => wire(all.devnode!.chain.hashAt(b.height))));
  }, 60_000);

  it("after a reorg in the unsealed tail settles at the origin, the page sees the new branch", async () => {
    const tip = TO + ON_TOP;
    const fork = tip - REORG_DEPTH + 1;
    const before = new Map(firstSync.blocks.map((b) => [b.height, b.hash]));
    expect(all.origin.indexer.view.sealedTip(), "the reorg stays in the unsealed tail").toBeLessThan(fork);
    const res = await fetch(`${all.devnode!.url}control/reorg`, {
      method: "POST",
      body: JSON.stringify({ depth: REORG_DEPTH }),
    });
    expect(res.ok).toBe(true);
    const newTip = ((await res.json()) as { tip: number }).tip;
    const want = (h: number) => wire(all.devnode!.chain.hashAt(h));
    await until(() => {
      const t = all.origin.indexer.view.tip();
      return t?.height === newTip && Buffer.from(t.wireHash).toString("hex") === want(newTip);
    }, 20_000);
    // The edge caches the head for ≤ 1 s (HEAD_CACHE_SECONDS): settle means the page agrees soon.
    let after: PageResult | undefined;
    await until(async () => {
      after = await syncInPage(tab, all.edgeUrl, fork - 10, newTip);
      return after.blocks.at(-1)?.hash === want(newTip);
    }, 15_000);
    seen.push(`reorg of ${REORG_DEPTH} at the dev node; after it settled: ${summary(after!)}`);
    expect(after!.problems).toEqual([]);
    expect(after!.latestHeight).toBe(newTip);
    expect(after!.blocks.map((b) => b.height)).toEqual(range(fork - 10, newTip));
    const replaced = after!.blocks.filter((b) => before.has(b.height) && b.hash !== before.get(b.height));
    expect(replaced.map((b) => b.height)).toEqual(range(fork, tip));
    for (const b of after!.blocks) {
      expect(b.hash, `height ${b.height}`).toBe(want(b.height));
      if (b.height < fork) expect(b.hash, `height ${b.height} is below the fork`).toBe(before.get(b.height));
      else if (before.has(b.height))
        expect(b.hash, `height ${b.height} is on the new branch`).not.toBe(before.get(b.height));
    }
  }, 60_000);
});

function summary(r: PageResult): string {
  const [first, last] = [r.blocks[0], r.blocks.at(-1)];
  return `${r.blocks.length} blocks ${first?.height}..${last?.height} (tip ${last?.hash.slice(0, 16)}…), problems: ${r.problems.length}`;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
