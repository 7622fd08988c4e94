import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainDir, hasChain, readChainFile } from "../support/chain.ts";
import { startWalletSystem, until, type WalletSystem } from "../support/wallet-system.ts";
import { harnessReady } from "./harness-ready.ts";
import { expectSyncedTo, notesOf, openWallet, type SyncReport, type Wallet, walletView } from "./wallet.ts";

/**
 * A wallet that owns notes, on real transactions. The corpus's tx/mainnet/devwallet-recv/ are 14
 * real mainnet transactions from the darksidewalletd test data, each paying one Sapling note to
 * the darkside seed's account 0 — 18,404,000 zatoshi in all. Five of them are in the real blocks
 * 663174–663229 of the run; the other nine are staged into the dev node's mempool and mined on
 * top of the run, as darksidewalletd's StageTransactions does. The seed is restored with a
 * birthday at the run start; the notes and the balance must be the same via edge and origin.
 */
const [FROM, TO] = [663_150, 663_250];
const TOTAL_ZATOSHI = 18_404_000;
/** Mainnet seals 100 deep: this many blocks on top seal the run and the staged block. */
const ON_TOP = 115;
const RECV_DIR = "tx/mainnet/devwallet-recv";

const ready = hasChain && harnessReady.ok;

describe.skipIf(!ready)(`the darkside wallet on the mainnet corpus run ${FROM}–${TO}`, () => {
  let system: WalletSystem;
  let wallets: Wallet[];
  let inRun: string[];
  let staged: string[];
  let first: SyncReport[] | undefined;

  beforeAll(async () => {
    const recv = readdirSync(join(chainDir, RECV_DIR)).map((f) => f.replace(/\.hex$/, ""));
    inRun = recv.filter((txid) => corpusHeightOf(txid) !== undefined);
    staged = recv.filter((txid) => corpusHeightOf(txid) === undefined);
    system = await startWalletSystem({
      chain: { corpus: { network: "mainnet", from: FROM, to: TO } },
      rangeSize: 10,
      sealDepth: 100,
    });
    // The harness's default seed is the darkside seed.
    wallets = system.servers.map((s) => openWallet(s, { network: "mainnet", birthday: FROM }));
  }, 120_000);

  afterAll(async () => {
    await system?.close();
  });

  it("the corpus has 14 such transactions, 5 of them in the run", () => {
    expect(inRun.length + staged.length).toBe(14);
    expect(inRun.map(corpusHeightOf).sort()).toEqual([663174, 663188, 663202, 663218, 663229]);
    expect(staged).toHaveLength(9);
  });

  it("syncs the run over both transports and finds the 5 notes in its real blocks", async () => {
    expect(await system.settle()).toBe(TO);
    first = [];
    for (const w of wallets) {
      const r = await w.sync();
      expectSyncedTo(r, TO, `${w.server.name} (${w.server.transport})`);
      expect(
        notesOf(r)
          .map((n) => n.txid)
          .sort(),
        `${w.server.name}: notes`,
      ).toEqual([...inRun].sort());
      for (const n of notesOf(r)) {
        expect(n.pool).toBe("sapling");
        expect(n.height).toBe(corpusHeightOf(n.txid));
        expect(n.value).toBeGreaterThan(0);
        expect(n.spent).toBe(false);
      }
      const sum = notesOf(r).reduce((s, n) => s + n.value, 0);
      expect(r.balances?.sapling.total, `${w.server.name}: balance`).toBe(sum);
      first.push(r);
    }
    expect(walletView(first[1]!), "edge and origin wallets agree").toEqual(walletView(first[0]!));
  }, 240_000);

  it("after the other 9 are staged and mined, owns all 14 notes, 18,404,000 zatoshi, across the seam", async () => {
    expect(first, "the first sync ran").toBeDefined();
    const hex = staged.map((txid) => readChainFile(`${RECV_DIR}/${txid}.hex`).toString("utf8").trim());
    const { added } = await system.control<{ added: string[] }>("mempool", { hex });
    expect([...added].sort()).toEqual([...staged].sort());
    await system.control("mine", { blocks: 1 }); // the first mined block takes the mempool
    await system.control("mine", { blocks: ON_TOP });
    const tip = await system.settle(120_000);
    expect(tip).toBe(TO + 1 + ON_TOP);
    await until(() => system.all.origin.indexer.view.sealedTip() > TO + 1, 60_000, "staged block sealed");
    const after: SyncReport[] = [];
    for (const w of wallets) {
      const r = await w.sync();
      const label = `${w.server.name} (${w.server.transport})`;
      expectSyncedTo(r, tip, label);
      expect(
        notesOf(r)
          .map((n) => n.txid)
          .sort(),
        `${label}: notes`,
      ).toEqual([...inRun, ...staged].sort());
      for (const n of notesOf(r)) {
        expect(n.pool).toBe("sapling");
        expect(n.height).toBe(corpusHeightOf(n.txid) ?? TO + 1);
        expect(n.spent).toBe(false);
      }
      expect(
        notesOf(r).reduce((s, n) => s + n.value, 0),
        `${label}: note values`,
      ).toBe(TOTAL_ZATOSHI);
      expect(r.balances?.sapling.total, `${label}: Sapling balance`).toBe(TOTAL_ZATOSHI);
      after.push(r);
    }
    expect(walletView(after[1]!), "edge and origin wallets agree").toEqual(walletView(after[0]!));
    // The in-run notes are unchanged by the continuation.
    for (const n of notesOf(first![0]!))
      expect(notesOf(after[0]!).find((m) => m.txid === n.txid)?.value).toBe(n.value);
    // A fresh restore of the seed, through sealed ranges and the tail in one sync, sees the same.
    const fresh = openWallet(system.servers[1], { network: "mainnet", birthday: FROM });
    const r = await fresh.sync();
    expectSyncedTo(r, tip, "fresh edge wallet");
    expect(walletView(r)).toEqual(walletView(after[1]!));
  }, 300_000);
});

let txHeights: Map<string, number> | undefined;

/** The corpus block a transaction is in (txindex.json), if any. */
function corpusHeightOf(txid: string): number | undefined {
  if (!txHeights) {
    const index = JSON.parse(readChainFile("txindex.json").toString("utf8")) as Record<
      string,
      { txid: string; height: number; network: string }[]
    >;
    txHeights = new Map();
    for (const txs of Object.values(index))
      for (const t of txs) if (t.network === "mainnet") txHeights.set(t.txid, t.height);
  }
  return txHeights.get(txid);
}
