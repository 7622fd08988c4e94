import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWalletSystem, until, type WalletSystem } from "../support/wallet-system.ts";
import { harnessReady } from "./harness-ready.ts";
import {
  expectSyncedTo,
  notesOf,
  OTHER_SEED,
  openWallet,
  type ShieldedPool,
  type SyncReport,
  totalBalance,
  type Wallet,
  walletRoots,
  walletView,
} from "./wallet.ts";

/**
 * The real wallet on a synthetic regtest chain the dev node generates with every shielded pool
 * (Sapling, Orchard, Ironwood; every upgrade at height 1): a long first sync through many sealed
 * ranges and the tail; then real shielded transactions the harness builds to the wallet (one per
 * pool), sent through the edge and mined with the control API; a spend; and a reorg under a
 * syncing wallet. One system, both transports:
 * the origin's native gRPC and the edge's gRPC-web (workerd).
 */
const BLOCKS = 3_000;
const RANGE_SIZE = 100;
const SEAL_DEPTH = 10;
/** Spendable notes need confirmations (zcash_client_backend's default is 3 for a wallet's own). */
const CONFIRMATIONS = 10;
const FUNDS: { pool: ShieldedPool; amount: number }[] = [
  { pool: "sapling", amount: 250_000 },
  { pool: "orchard", amount: 130_000 },
  { pool: "ironwood", amount: 70_000 },
];
const SEND_AMOUNT = 40_000;
const REORG_DEPTH = 8;
const REORGED_AMOUNT = 55_000;
/** Blocks the edge wallet is behind when the reorg comes (seconds of scanning). */
const BEHIND = 600;

const ready = harnessReady.ok;

describe.skipIf(!ready)(`a real wallet on a ${BLOCKS}-block synthetic chain with every pool`, () => {
  let system: WalletSystem;
  /** The test wallet (harness default seed), once per server: origin (gRPC), edge (gRPC-web). */
  let wallets: Wallet[];
  let synced: SyncReport[] | undefined;
  /** Pools the harness could build a funding transaction for, with the txids it built. */
  const funded: { pool: ShieldedPool; amount: number; txid: string }[] = [];
  let afterSend: SyncReport[] | undefined;

  beforeAll(async () => {
    system = await startWalletSystem({
      chain: { synthetic: { blocks: BLOCKS, seed: "wallet-sync" } },
      rangeSize: RANGE_SIZE,
      sealDepth: SEAL_DEPTH,
    });
    wallets = system.servers.map((s) => openWallet(s, { network: "regtest", birthday: 1 }));
  }, 180_000);

  afterAll(async () => {
    await system?.close();
  });

  it("syncs every block through sealed ranges and the tail over both transports; every pool's roots equal the server's", async () => {
    const tip = await system.settle(120_000);
    expect(tip).toBe(BLOCKS - 1);
    const sealed = system.all.origin.indexer.view.sealedTip();
    expect(sealed, "several sealed ranges").toBeGreaterThanOrEqual(5 * RANGE_SIZE);
    expect(sealed, "and a tail").toBeLessThan(tip);
    const tree = await system.client(system.servers[0]).getTreeState({ height: BigInt(tip) });
    for (const [pool, state] of Object.entries({
      sapling: tree.saplingTree,
      orchard: tree.orchardTree,
      ironwood: tree.ironwoodTree,
    }))
      expect(state.length > 6, `the chain has ${pool} commitments`).toBe(true);
    synced = [];
    for (const w of wallets) {
      const r = await w.sync();
      const label = `${w.server.name} (${w.server.transport})`;
      expectSyncedTo(r, tip, label);
      for (const pool of ["sapling", "orchard", "ironwood"] as const)
        expect(walletRoots(r)[pool], `${label}: the wallet has a ${pool} root`).toBeTruthy();
      expect(totalBalance(r), `${label}: owns nothing yet`).toBe(0);
      synced.push(r);
    }
    expect(walletView(synced[1]!)).toEqual(walletView(synced[0]!));
  }, 600_000);

  it("receives real shielded transactions sent through the edge: mempool, mined, balance exactly what was sent", async () => {
    expect(synced, "the first sync ran").toBeDefined();
    const edge = system.client(system.servers[1]);
    const to = await walletAddress(wallets[1]!);
    const height = (await system.nodeTip()).height + 1;
    const raws: { pool: ShieldedPool; amount: number; txid: string; hex: string }[] = [];
    // From NU6.3 (height 1 here) the crates' builder allows a new Orchard output only as the
    // wallet's own change; the harness builds it so for --pool orchard (test/wallet/README.md).
    for (const f of FUNDS) {
      const built = await fundTx(wallets[1]!, to, f.amount, f.pool, height);
      raws.push({ ...f, ...built });
    }
    expect(raws.map((r) => r.pool)).toEqual(["sapling", "orchard", "ironwood"]);
    for (const r of raws) {
      const res = await edge.sendTransaction({ data: Buffer.from(r.hex, "hex"), height: BigInt(height) });
      expect(res.errorCode, `SendTransaction ${r.pool}: ${res.errorMessage}`).toBe(0);
    }
    const wireTxids = raws.map((r) => Buffer.from(r.txid, "hex").reverse().toString("hex"));
    await until(
      async () => {
        const seen: string[] = [];
        for await (const tx of edge.getMempoolTx({})) seen.push(Buffer.from(tx.txid).toString("hex"));
        return wireTxids.every((t) => seen.includes(t));
      },
      30_000,
      "GetMempoolTx through the edge lists the sent transactions",
    );
    // GetMempoolStream through the edge streams what is pending and ends at the next block.
    const streamed: string[] = [];
    let streamError: unknown;
    const stream = (async () => {
      for await (const raw of edge.getMempoolStream({})) streamed.push(Buffer.from(raw.data).toString("hex"));
    })().catch((err: unknown) => {
      streamError = err;
    });
    await until(
      () => streamError !== undefined || raws.every((r) => streamed.includes(r.hex)),
      30_000,
      "GetMempoolStream through the edge streams them",
    );
    expect(streamError, "GetMempoolStream through the edge").toBeUndefined();
    await system.control("mine", { blocks: 1 });
    await stream; // a new block ends the stream
    expect(streamError, "GetMempoolStream through the edge").toBeUndefined();
    await system.control("mine", { blocks: CONFIRMATIONS });
    const tip = await system.settle();
    const views: SyncReport[] = [];
    for (const w of wallets) {
      const r = await w.sync();
      const label = `${w.server.name} (${w.server.transport})`;
      expectSyncedTo(r, tip, label);
      for (const f of raws) {
        expect(r.balances?.[f.pool]?.total, `${label}: ${f.pool} balance`).toBe(f.amount);
        expect(
          notesOf(r)
            .filter((n) => n.txid === f.txid)
            .map((n) => [n.pool, n.value, n.height, n.spent]),
          `${label}: the ${f.pool} note`,
        ).toEqual([[f.pool, f.amount, height, false]]);
      }
      expect(totalBalance(r), `${label}: total`).toBe(raws.reduce((s, f) => s + f.amount, 0));
      views.push(r);
    }
    expect(walletView(views[1]!)).toEqual(walletView(views[0]!));
    funded.push(...raws.map(({ pool, amount, txid }) => ({ pool, amount, txid })));
  }, 600_000);

  it("spends a note; both wallets see it spent and the balance drop by amount + fee", async () => {
    expect(funded.length, "the wallet was funded").toBeGreaterThan(0);
    const before = await wallets[1]!.sync();
    const beforeTotal = totalBalance(before);
    const other = openWallet(system.servers[1], {
      network: "regtest",
      birthday: before.tip ?? 1,
      seedPhrase: OTHER_SEED,
    });
    const to = await walletAddress(other);
    // The harness syncs, builds the spend and sends it with SendTransaction through the edge.
    const sent = await wallets[1]!.run("send", { to, amount: SEND_AMOUNT });
    expect(sent.error, "send").toBeNull();
    expect(sent.txids).toHaveLength(1);
    const txid = sent.txids![0]!;
    const fee = sent.fee!;
    // ZIP 317: 5,000 zatoshi per logical action, at least 2 actions.
    expect(fee % 5_000).toBe(0);
    expect(fee).toBeGreaterThanOrEqual(10_000);
    await system.control("mine", { blocks: 1 + CONFIRMATIONS });
    const tip = await system.settle();
    afterSend = [];
    for (const w of wallets) {
      const r = await w.sync();
      const label = `${w.server.name} (${w.server.transport})`;
      expectSyncedTo(r, tip, label);
      expect(totalBalance(r), `${label}: balance = before − amount − fee`).toBe(
        beforeTotal - SEND_AMOUNT - fee,
      );
      const spent = notesOf(r).filter((n) => n.spent);
      expect(spent.length, `${label}: a funded note is marked spent`).toBeGreaterThanOrEqual(1);
      for (const n of spent)
        expect(
          funded.map((f) => f.txid),
          label,
        ).toContain(n.txid);
      afterSend.push(r);
    }
    expect(walletView(afterSend[1]!)).toEqual(walletView(afterSend[0]!));
    const received = await other.sync();
    expectSyncedTo(received, tip, "recipient wallet");
    expect(totalBalance(received), "the recipient got the amount").toBe(SEND_AMOUNT);
    expect(notesOf(received).map((n) => n.txid)).toEqual([txid]);
  }, 600_000);

  it("GetMempoolStream through the edge, opened on an empty mempool, waits for a transaction", async () => {
    // A browser wallet opens the stream and waits (lightwalletd keeps it open until the next
    // block); the transaction arrives later.
    await system.control("mine", { blocks: 1 });
    await system.settle();
    const edge = system.client(system.servers[1]);
    const streamed: string[] = [];
    let streamError: unknown;
    const stream = (async () => {
      for await (const raw of edge.getMempoolStream({})) streamed.push(Buffer.from(raw.data).toString("hex"));
    })().catch((err: unknown) => {
      streamError = err;
    });
    await new Promise((r) => setTimeout(r, 3_000));
    const height = (await system.nodeTip()).height + 1;
    const built = await fundTx(wallets[1]!, await walletAddress(wallets[1]!), 10_000, "sapling", height);
    const res = await edge.sendTransaction({ data: Buffer.from(built.hex, "hex"), height: BigInt(height) });
    expect(res.errorCode, res.errorMessage).toBe(0);
    await until(
      () => streamError !== undefined || streamed.includes(built.hex),
      30_000,
      "GetMempoolStream streams the transaction",
    );
    expect(streamError, "GetMempoolStream through the edge").toBeUndefined();
    await system.control("mine", { blocks: 1 });
    await stream;
  }, 120_000);

  it(`recovers from a reorg of the last ${REORG_DEPTH} blocks under a syncing wallet, losing the note they held`, async () => {
    expect(synced, "the first sync ran").toBeDefined();
    // Mine whatever an earlier test left in the mempool, deep enough that the reorg below does
    // not reach it and every earlier note is spendable; and enough blocks that the edge wallet,
    // which only the origin wallet's sync below leaves behind, is still scanning at the reorg.
    await system.control("mine", { blocks: REORG_DEPTH + CONFIRMATIONS + BEHIND });
    await system.settle();
    const [origin, edge] = wallets as [Wallet, Wallet];
    const start = await origin.sync();
    expect(start.ok, start.error ?? "").toBe(true);
    // A Sapling note to the wallet in a block the reorg will replace (the dev node's new branch
    // does not carry the transactions mined into the old one).
    const to = await walletAddress(edge);
    const height = (await system.nodeTip()).height + 1;
    const built = await fundTx(edge, to, REORGED_AMOUNT, "sapling", height);
    await system.control("mempool", { hex: [built.hex] });
    await system.control("mine", { blocks: REORG_DEPTH - 2 });
    const oldTip = await system.settle();
    expect(oldTip - height, "the note's block is within the reorg").toBeLessThan(REORG_DEPTH);
    const before = await origin.sync();
    expectSyncedTo(before, oldTip, "origin wallet before the reorg");
    expect(notesOf(before).map((n) => n.txid)).toContain(built.txid);
    expect(totalBalance(before)).toBe(totalBalance(start) + REORGED_AMOUNT);
    // The edge wallet is syncing when the node reorganises.
    const oldHash = system.all.devnode!.chain.hashAt(oldTip);
    // Small batches: many round trips, so the reorg lands while it scans (how it ended is logged).
    const syncing = edge.run("sync", { batchSize: 10 });
    await new Promise((r) => setTimeout(r, 700));
    const { tip: newTip } = await system.control<{ tip: number }>("reorg", { depth: REORG_DEPTH });
    expect(newTip, "the reorg keeps the height").toBe(oldTip);
    expect(system.all.devnode!.chain.hashAt(oldTip), "the reorg replaced the tip").not.toBe(oldHash);
    await system.control("mine", { blocks: 3 });
    const interrupted = await syncing; // it may end at the old tip, the new one, or with an error
    console.info(
      `wallet under a reorg: the mid-sync run ended ok=${interrupted.ok} tip=${interrupted.tip} error=${interrupted.error}`,
    );
    const tip = await system.settle();
    expect(tip).toBe(oldTip + 3);
    const after: SyncReport[] = [];
    for (const w of wallets) {
      const r = await w.sync();
      const label = `${w.server.name} (${w.server.transport}) after the reorg`;
      expectSyncedTo(r, tip, label);
      // zcash_client_sqlite keeps a transaction whose block was rolled back as unmined (it may
      // be mined again until it expires): its note has no height, is not spendable, and counts
      // in the total only as pending.
      const reorged = notesOf(r).filter((n) => n.txid === built.txid);
      expect(
        reorged.map((n) => n.height),
        `${label}: the reorged note is not mined`,
      ).toEqual(reorged.map(() => null));
      expect(spendable(r), `${label}: spendable balance as before the reorged note`).toEqual(
        spendable(start),
      );
      after.push(r);
    }
    // The wallet that was mid-sync may never have seen the rolled-back note: compare the rest.
    const mined = (r: SyncReport) => ({
      tip: r.tip,
      roots: walletView(r).roots,
      spendable: spendable(r),
      notes: walletView(r).notes.filter((n) => n.height !== null),
    });
    expect(mined(after[1]!)).toEqual(mined(after[0]!));
  }, 600_000);
});

function spendable(r: SyncReport): Record<string, number> {
  return Object.fromEntries(Object.entries(r.balances ?? {}).map(([pool, b]) => [pool, b.spendable]));
}

async function walletAddress(w: Wallet): Promise<string> {
  const a = await w.run("address");
  expect(a.error, "address").toBeNull();
  expect(a.unified, "the harness prints a unified address").toMatch(/^u/);
  return a.unified!;
}

/** A real shielded transaction to `to` the harness builds (not broadcast). */
async function fundTx(
  w: Wallet,
  to: string,
  amount: number,
  pool: ShieldedPool,
  height: number,
): Promise<{ txid: string; hex: string }> {
  const out = await w.run("fund", { to, amount, pool, height });
  if (out.ok && typeof out.rawHex === "string" && out.txid) return { txid: out.txid, hex: out.rawHex };
  throw new Error(`fund ${pool}: ${out.error ?? JSON.stringify(out)}`);
}
