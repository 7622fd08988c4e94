import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasChain, missingChainMessage } from "../support/chain.ts";
import {
  hasRealTreeStateAt,
  realRoots,
  startWalletSystem,
  until,
  type WalletSystem,
} from "../support/wallet-system.ts";
import { harnessReady } from "./harness-ready.ts";
import {
  expectSyncedTo,
  openWallet,
  type SyncReport,
  type Wallet,
  walletRoots,
  walletView,
} from "./wallet.ts";

/**
 * The real wallet syncs every consecutive real-chain corpus run long enough to matter, and the two
 * short mainnet runs the corpus has real tree states before (Sapling activation; NU5, the only
 * Orchard run), over both transports, from a birthday at the run start. First the run alone (its
 * blocks in the origin's unsealed tail), where the wallet's roots at the run's last block are also
 * checked against the chain's real roots when the corpus has them; then the dev node mines past
 * the seal depth so the run seals, and the same wallets continue across the sealed/tail seam to
 * the new tip. The 663150–663250 run is in devwallet-notes.test.ts, where a wallet owns notes on
 * it. Chain list: chain/README.md, "Consecutive runs".
 */
interface Run {
  network: "mainnet" | "testnet";
  from: number;
  to: number;
  /** Divides `from`, so the origin's first range starts at the run start. */
  rangeSize: number;
}

// Not mainnet 0–20 (21 blocks): it is before Sapling activation, where the wallet scans nothing
// (zcash_client_backend starts at the Sapling activation height: blocksScanned 0, no roots) and
// the dev node mines nothing on top (it builds no blocks before Sapling), so nothing to check.
const RUNS: Run[] = [
  { network: "testnet", from: 1_028_400, to: 1_028_600, rangeSize: 10 },
  // Sapling activation (419200), short but with zebrad's real tree state before it and real roots.
  { network: "mainnet", from: 419_199, to: 419_202, rangeSize: 3 },
  // NU5 activated at 1687104; the corpus has 1687106–1687108 and zebrad's tree state at 1687105.
  { network: "mainnet", from: 1_687_106, to: 1_687_108, rangeSize: 2 },
];

/** Mainnet and testnet seal 100 deep (origin/config.ts); this many blocks on top seal the run. */
const ON_TOP = 115;

const ready = hasChain && harnessReady.ok;
if (!hasChain) console.warn(`wallet corpus-run tests skipped: ${missingChainMessage}`);

for (const run of RUNS) {
  describe.skipIf(!ready)(`a real wallet on the ${run.network} corpus run ${run.from}–${run.to}`, () => {
    let system: WalletSystem;
    let wallets: Wallet[];
    let first: SyncReport[];

    beforeAll(async () => {
      system = await startWalletSystem({
        chain: { corpus: { network: run.network, from: run.from, to: run.to } },
        rangeSize: run.rangeSize,
        sealDepth: 100,
      });
      wallets = system.servers.map((s) => openWallet(s, { network: run.network, birthday: run.from }));
    }, 120_000);

    afterAll(async () => {
      await system?.close();
    });

    it("syncs the run to its last block over both transports; roots equal the server's and the chain's", async () => {
      expect(await system.settle()).toBe(run.to);
      first = [];
      for (const w of wallets) {
        const r = await w.sync();
        expectSyncedTo(r, run.to, `${w.server.name} (${w.server.transport})`);
        first.push(r);
      }
      expect(walletView(first[1]!), "edge and origin wallets agree").toEqual(walletView(first[0]!));
      // Real roots only where the dev node's tree before the run is the chain's real one.
      if (hasRealTreeStateAt(run.network, run.from - 1)) {
        const real = realRoots(run.network, run.to);
        for (const [pool, root] of Object.entries(real))
          expect(walletRoots(first[0]!)[pool as "sapling"], `real ${pool} root at ${run.to}`).toBe(root);
      }
    }, 240_000);

    it("continues across the sealed/tail seam once the run is sealed", async () => {
      expect(first, "the first sync ran").toBeDefined();
      await system.control("mine", { blocks: ON_TOP });
      const tip = await system.settle(120_000);
      expect(tip).toBe(run.to + ON_TOP);
      await until(() => system.all.origin.indexer.view.sealedTip() >= run.to, 60_000, "run sealed");
      const sealed = system.all.origin.indexer.view.sealedTip();
      expect(sealed, "the seam lies between the run and the tip").toBeLessThan(tip);
      const after: SyncReport[] = [];
      for (const w of wallets) {
        const r = await w.sync();
        expectSyncedTo(r, tip, `${w.server.name} (${w.server.transport}) after sealing`);
        after.push(r);
      }
      expect(walletView(after[1]!), "edge and origin wallets agree").toEqual(walletView(after[0]!));
      // A fresh wallet from the run start, through sealed ranges and the tail in one sync.
      const fresh = openWallet(system.servers[1], { network: run.network, birthday: run.from });
      const r = await fresh.sync();
      expectSyncedTo(r, tip, "fresh edge wallet across the seam");
      expect(walletView(r)).toEqual(walletView(after[1]!));
    }, 300_000);
  });
}
