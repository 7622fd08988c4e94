import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StartedAll, startAll } from "../../origin/main/start-all.ts";
import { clientFor } from "../../origin/serve/testing.ts";
import {
  hasWalletHarness,
  runWallet,
  type WalletOptions,
  type WalletReport,
} from "../support/wallet-harness.ts";
import { hasZebrad, startZebrad, type Zebrad } from "../support/zebrad.ts";

/**
 * Real money through lightedge over a real zebrad on Regtest: the wallet library (test/wallet/)
 * mines to its own transparent address, shields its coinbase, sends Sapling and Orchard notes to a
 * second seed — real proofs, every transaction through SendTransaction at the edge — and the
 * balances, mempool views, transparent-address answers and tree roots are checked against zebrad's
 * own JSON-RPC answers.
 */

// Coinbase maturity (protocol spec §7.1.2, zebra's MIN_TRANSPARENT_COINBASE_MATURITY): a coinbase
// output is spendable 100 blocks after its own. 101 blocks leave a couple of mature outputs, so the
// shielding transaction stays small.
const MATURE_AFTER = 101;
/**
 * The wallet learns its UTXOs from GetAddressUtxos, which does not say which are coinbase, so the
 * shield asks for this many confirmations itself (zebrad refuses "immature transparent coinbase
 * spend" otherwise).
 */
const COINBASE_MATURITY = 100;
const TO_SAPLING = 100_000_000;
const TO_ORCHARD = 50_000_000;
/** A second wallet (the BIP 39 test vector seed), the receiver of the sends. */
const RECEIVER_SEED =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon " +
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art";

/** The crates' upgrade names (test/wallet/src/params.rs) for zebrad's getblockchaininfo names. */
const HARNESS_UPGRADE: Record<string, string> = {
  Overwinter: "overwinter",
  Sapling: "sapling",
  Blossom: "blossom",
  Heartwood: "heartwood",
  Canopy: "canopy",
  NU5: "nu5",
  NU6: "nu6",
  "NU6.1": "nu6_1",
  "NU6.2": "nu6_2",
  "NU6.3": "nu6_3",
  NU7: "nu7",
};

/**
 * `--regtest-heights` exactly as zebrad activates them: every upgrade zebrad lists at its height,
 * every other one `none` (zebrad's Regtest lists upgrades up to the highest configured only).
 */
function harnessHeights(upgrades: Record<string, { name: string; activationheight: number }>): string {
  const active = new Map(Object.values(upgrades).map((u) => [u.name, u.activationheight]));
  for (const name of active.keys())
    if (!(name in HARNESS_UPGRADE)) throw new Error(`zebrad lists an upgrade the harness lacks: ${name}`);
  return Object.entries(HARNESS_UPGRADE)
    .map(([name, flag]) => `${flag}=${active.get(name) ?? "none"}`)
    .join(",");
}

interface DecodedTx {
  txid: string;
  version: number;
  vin: { coinbase?: string; txid?: string; vout?: number }[];
  vout: { valueZat: number }[];
  vShieldedSpend?: unknown[];
  vShieldedOutput?: unknown[];
  valueBalanceZat?: number;
  orchard?: { actions?: unknown[]; valueBalanceZat?: number };
  ironwood?: { actions?: unknown[]; valueBalanceZat?: number };
}

interface Utxo {
  address: string;
  txid: string;
  outputIndex: number;
  script: string;
  satoshis: number;
  height: number;
}

type PoolTree = { commitments?: { finalRoot?: string; finalState?: string } };
interface TreeStateAnswer {
  height: number;
  sapling?: PoolTree;
  orchard?: PoolTree;
  ironwood?: PoolTree;
}

const display = (wire: Uint8Array) => Buffer.from(wire).reverse().toString("hex");

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The harness's report, failing the test with the library's own error when it did not succeed. */
function ok(report: WalletReport, what: string): WalletReport {
  if (!report.ok) throw new Error(`${what}: ${report.error}\n${report.errorDebug ?? ""}`);
  return report;
}

/**
 * ZIP 317 conventional fee: 5,000 zatoshi per logical action, at least 2 — transparent
 * max(inputs, outputs), Sapling max(spends, outputs), one per Orchard action.
 */
function zip317Fee(tx: DecodedTx): number {
  const transparent = Math.max(tx.vin.filter((i) => !i.coinbase).length, tx.vout.length);
  const sapling = Math.max(tx.vShieldedSpend?.length ?? 0, tx.vShieldedOutput?.length ?? 0);
  const orchard = (tx.orchard?.actions?.length ?? 0) + (tx.ironwood?.actions?.length ?? 0);
  return 5000 * Math.max(2, transparent + sapling + orchard);
}

/** Net value leaving the Orchard-shaped pools (Orchard and Ironwood): negative when shielding. */
const orchardishBalance = (tx: DecodedTx) =>
  (tx.orchard?.valueBalanceZat ?? 0) + (tx.ironwood?.valueBalanceZat ?? 0);

/**
 * The two Regtest setups: NU5 only (the suite's default), and every upgrade through NU6.3 at 1 —
 * zebrad 7.0.0 knows NU6.3 and the Ironwood pool. After NU6.3 the crates put Orchard-receiver
 * payments to another wallet into Ironwood (the Orchard pool takes no cross-address outputs).
 */
const SETUPS = [
  {
    name: "NU5",
    activationHeights: {},
    upgrades: ["Overwinter", "Sapling", "Blossom", "Heartwood", "Canopy", "NU5"],
    harness:
      "overwinter=1,sapling=1,blossom=1,heartwood=1,canopy=1,nu5=1,nu6=none,nu6_1=none,nu6_2=none,nu6_3=none,nu7=none",
    /** Where the shielded coinbase lands (the harness asks for Orchard change). */
    shieldPool: "orchard",
    /** Where the second send (to the receiver's Orchard-only address) lands. */
    secondPool: "orchard",
  },
  {
    name: "NU6.3 (Ironwood)",
    activationHeights: { NU6: 1, "NU6.1": 1, "NU6.2": 1, "NU6.3": 1 },
    upgrades: [
      "Overwinter",
      "Sapling",
      "Blossom",
      "Heartwood",
      "Canopy",
      "NU5",
      "NU6",
      "NU6.1",
      "NU6.2",
      "NU6.3",
    ],
    harness:
      "overwinter=1,sapling=1,blossom=1,heartwood=1,canopy=1,nu5=1,nu6=1,nu6_1=1,nu6_2=1,nu6_3=1,nu7=none",
    shieldPool: "ironwood",
    secondPool: "ironwood",
  },
] as const;

describe.skipIf(!hasZebrad || !hasWalletHarness).each(SETUPS)(
  "real money through lightedge over zebrad on Regtest, $name",
  (setup) => {
    let zebrad: Zebrad;
    let all: StartedAll;
    const dirs: string[] = [];
    let minerAddress: string;
    let receiver: { sapling: string; orchard: string };
    /** Options for the miner's wallet (always the same folder, through the edge over gRPC-web). */
    let miner: WalletOptions;
    let receiverOptions: WalletOptions;
    let regtestHeights: string;
    let upgradeNames: string[];
    const tempDir = () => {
      const d = mkdtempSync(join(tmpdir(), "lightedge-zebrad-wallet-"));
      dirs.push(d);
      return d;
    };
    /** Orchard zatoshi the shielding transaction gave the miner's wallet. */
    let shielded = 0;
    const fees: number[] = [];

    beforeAll(async () => {
      const a = ok(await runWallet("address", { network: "regtest" }), "miner address");
      const b = ok(
        await runWallet("address", { network: "regtest", seedPhrase: RECEIVER_SEED }),
        "receiver address",
      );
      minerAddress = a.transparent!;
      receiver = { sapling: b.sapling!, orchard: b.orchard! };
      zebrad = await startZebrad({ minerAddress, activationHeights: setup.activationHeights });
      const info = await zebrad.rpc<{ upgrades: Record<string, { name: string; activationheight: number }> }>(
        "getblockchaininfo",
      );
      upgradeNames = Object.values(info.upgrades).map((u) => u.name);
      regtestHeights = harnessHeights(info.upgrades);
      await zebrad.generate(MATURE_AFTER);
      all = await startAll({
        dataDir: tempDir(),
        node: { url: zebrad.url, network: "regtest" },
        edgePort: 0,
        originPort: 0,
        adminPort: 0,
        rangeSize: 10,
        sealDepth: 10,
        originArgs: ["--log-level", "error", "--poll-ms", "100"],
        quiet: true,
        env: {},
      });
      await all.synced;
      // The origin answers a tail height's tree state once its worker has hashed it (Unavailable,
      // "not computed yet", before): wait for that, as a wallet's retry would.
      await all.origin.treeStates.settled(await zebrad.height());
      miner = {
        server: all.edgeUrl,
        transport: "grpc-web",
        network: "regtest",
        regtestHeights,
        walletDir: tempDir(),
      };
      receiverOptions = { ...miner, walletDir: tempDir(), seedPhrase: RECEIVER_SEED };
    }, 300_000);

    afterAll(async () => {
      await all?.close();
      await zebrad?.stop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }, 60_000);

    /** Mines n blocks and waits until the origin has indexed them. */
    async function mine(n: number) {
      await zebrad.generate(n);
      const tip = await zebrad.height();
      await until(() => all.origin.indexer.lastBlock()?.height === tip, `the origin at zebrad's tip ${tip}`);
      await all.origin.treeStates.settled(tip);
      return tip;
    }

    /** Every transaction in zebrad's mempool is visible through the edge: GetMempoolTx and GetMempoolStream. */
    async function expectInMempool(txid: string) {
      expect(await zebrad.rpc<string[]>("getrawmempool")).toContain(txid);
      const edge = clientFor("grpc-web", all.edgeUrl);
      await until(async () => {
        const seen: string[] = [];
        for await (const tx of edge.getMempoolTx({})) seen.push(display(tx.txid));
        return seen.includes(txid);
      }, `GetMempoolTx at the edge to list ${txid}`);
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 30_000);
      let streamed = false;
      try {
        for await (const raw of edge.getMempoolStream({}, { signal: abort.signal })) {
          const hex = Buffer.from(raw.data).toString("hex");
          if (hex === (await zebrad.rpc<string>("getrawtransaction", [txid, 0]))) {
            streamed = true;
            break;
          }
        }
      } finally {
        clearTimeout(timer);
      }
      expect(streamed, `GetMempoolStream at the edge streams ${txid}`).toBe(true);
    }

    /** The transparent-address RPCs through the edge and the origin equal zebrad's own answers. */
    async function expectTaddressRpcsAgree() {
      const tip = await zebrad.height();
      const zTxids = await zebrad.rpc<string[]>("getaddresstxids", [
        { addresses: [minerAddress], start: 1, end: tip },
      ]);
      const zUtxos = await zebrad.rpc<Utxo[]>("getaddressutxos", [{ addresses: [minerAddress] }]);
      const zBalance = await zebrad.rpc<{ balance: number }>("getaddressbalance", [
        { addresses: [minerAddress] },
      ]);
      const zRaw = await Promise.all(zTxids.map((t) => zebrad.rpc<string>("getrawtransaction", [t, 0])));
      for (const [transport, url] of [
        ["grpc-web", all.edgeUrl],
        ["grpc", all.originUrl],
      ] as const) {
        const client = clientFor(transport, url);
        const raw: string[] = [];
        for await (const tx of client.getTaddressTxids({
          address: minerAddress,
          range: { start: { height: 1n }, end: { height: BigInt(tip) } },
        }))
          raw.push(Buffer.from(tx.data).toString("hex"));
        expect(raw, `GetTaddressTxids (${transport})`).toEqual(zRaw);
        const utxos = await client.getAddressUtxos({ addresses: [minerAddress], startHeight: 0n });
        expect(
          utxos.addressUtxos.map((u) => ({
            address: u.address,
            txid: display(u.txid),
            outputIndex: u.index,
            script: Buffer.from(u.script).toString("hex"),
            satoshis: Number(u.valueZat),
            height: Number(u.height),
          })),
          `GetAddressUtxos (${transport})`,
        ).toEqual(zUtxos);
        const balance = await client.getTaddressBalance({ addresses: [minerAddress] });
        expect(Number(balance.valueZat), `GetTaddressBalance (${transport})`).toBe(zBalance.balance);
      }
      return { txids: zTxids, utxos: zUtxos, balance: zBalance.balance };
    }

    it("passes the wallet zebrad's own activation heights", () => {
      expect(upgradeNames).toEqual(setup.upgrades);
      expect(regtestHeights).toBe(setup.harness);
    });

    it("answers the transparent-address RPCs for the miner address as zebrad does (before shielding)", async () => {
      const { txids, utxos, balance } = await expectTaddressRpcsAgree();
      // One coinbase output per mined block pays the miner address.
      expect(txids).toHaveLength(MATURE_AFTER);
      expect(utxos).toHaveLength(MATURE_AFTER);
      expect(balance).toBe(utxos.reduce((s, u) => s + u.satoshis, 0));
    });

    it("shields mature coinbase through SendTransaction at the edge; zebrad mines it", async () => {
      const before = await zebrad.rpc<Utxo[]>("getaddressutxos", [{ addresses: [minerAddress] }]);
      const shield = ok(
        await runWallet("shield", { ...miner, minConfirmations: COINBASE_MATURITY }),
        "shield",
      );
      expect(shield.txids).toHaveLength(1);
      const txid = shield.txids![0]!;
      await expectInMempool(txid);
      const tx = await zebrad.rpc<DecodedTx>("getrawtransaction", [txid, 1]);
      // ZIP 213: a coinbase spend has no transparent outputs.
      expect(tx.vout).toHaveLength(0);
      expect(tx.vShieldedOutput ?? []).toHaveLength(0);
      const spent = tx.vin.map((i) => before.find((u) => u.txid === i.txid && u.outputIndex === i.vout));
      expect(spent.every((u) => u !== undefined)).toBe(true);
      const inputs = spent.reduce((s, u) => s + u!.satoshis, 0);
      // Value balance is value leaving the pool: negative when shielding.
      shielded = -orchardishBalance(tx);
      const fee = inputs - shielded;
      expect(fee).toBe(zip317Fee(tx));
      fees.push(fee);
      const tip = await mine(1);
      expect(await zebrad.rpc<string[]>("getrawmempool")).not.toContain(txid);
      const after = ok(await runWallet("sync", miner), "miner sync");
      expect(after.tip).toBe(tip);
      expect(after.balances![setup.shieldPool].total, `shielded into ${setup.shieldPool}`).toBe(shielded);
      expect(after.balances!.orchard.total + after.balances!.ironwood.total).toBe(shielded);
      expect(after.balances!.sapling.total).toBe(0);
      const zBalance = await zebrad.rpc<{ balance: number }>("getaddressbalance", [
        { addresses: [minerAddress] },
      ]);
      expect(after.balances!.transparent.total).toBe(zBalance.balance);
      // After shielding: the spent coinbase is gone from the UTXOs, the txid listed once more.
      const { txids, utxos } = await expectTaddressRpcsAgree();
      expect(txids).toContain(txid);
      expect(utxos.some((u) => spent.some((s) => s!.txid === u.txid))).toBe(false);
    }, 600_000);

    it(`sends Sapling and ${setup.secondPool} notes to a second wallet through the edge; balances are exactly what the transactions say`, async () => {
      for (const [to, amount, pool] of [
        [receiver.sapling, TO_SAPLING, "sapling"],
        [receiver.orchard, TO_ORCHARD, setup.secondPool],
      ] as const) {
        const send = ok(await runWallet("send", { ...miner, to, amount }), `send ${amount} to ${to}`);
        expect(send.txids).toHaveLength(1);
        const txid = send.txids![0]!;
        await expectInMempool(txid);
        const tx = await zebrad.rpc<DecodedTx>("getrawtransaction", [txid, 1]);
        // Fully shielded: the fee is what leaves the shielded pools.
        expect(tx.vin).toHaveLength(0);
        expect(tx.vout).toHaveLength(0);
        // The payment's pool has outputs; an Ironwood bundle exists only in v6 (ZIP 229).
        const outputs = pool === "sapling" ? tx.vShieldedOutput?.length : tx[pool]?.actions?.length;
        expect(outputs ?? 0, `${pool} outputs`).toBeGreaterThan(0);
        if (pool === "ironwood") expect(tx.version).toBe(6);
        const fee = (tx.valueBalanceZat ?? 0) + orchardishBalance(tx);
        expect(send.fee).toBe(fee);
        expect(fee).toBe(zip317Fee(tx));
        fees.push(fee);
        await mine(1);
      }
      const tip = await zebrad.height();
      const received = ok(await runWallet("sync", receiverOptions), "receiver sync");
      expect(received.tip).toBe(tip);
      expect(received.balances!.sapling).toEqual({ total: TO_SAPLING, spendable: TO_SAPLING });
      expect(received.balances![setup.secondPool]).toEqual({ total: TO_ORCHARD, spendable: TO_ORCHARD });
      expect(received.balances!.orchard.total + received.balances!.ironwood.total).toBe(TO_ORCHARD);
      expect(received.balances!.transparent.total).toBe(0);
      const sent = ok(await runWallet("sync", miner), "miner sync");
      expect(sent.balances!.sapling.total).toBe(0);
      expect(sent.balances!.orchard.total + sent.balances!.ironwood.total).toBe(
        shielded - TO_SAPLING - TO_ORCHARD - fees[1]! - fees[2]!,
      );
    }, 600_000);

    it("syncs zebrad's chain over the edge (gRPC-web) and the origin (native gRPC) to the tip, roots equal to zebrad's z_gettreestate", async () => {
      const tip = await zebrad.height();
      const z = await zebrad.rpc<TreeStateAnswer>("z_gettreestate", [String(tip)]);
      // zebrad gives an empty tree's root too (finalState "000000"); the wallet says null.
      const root = (pool: "sapling" | "orchard" | "ironwood") => {
        const c = z[pool]?.commitments;
        return c?.finalRoot === undefined || c.finalState === "000000" ? null : c.finalRoot;
      };
      const zRoots = { sapling: root("sapling"), orchard: root("orchard"), ironwood: root("ironwood") };
      // The sends above made the Sapling tree and the second send's pool non-empty.
      expect(zRoots.sapling).not.toBeNull();
      expect(zRoots[setup.secondPool]).not.toBeNull();
      for (const [transport, server] of [
        ["grpc-web", all.edgeUrl],
        ["grpc", all.originUrl],
      ] as const) {
        const r = ok(
          await runWallet("sync", { ...receiverOptions, transport, server, walletDir: tempDir() }),
          `sync over ${transport}`,
        );
        expect(r.tip, transport).toBe(tip);
        expect(r.scannedTo, transport).toBe(tip);
        expect(r.balances!.sapling.total).toBe(TO_SAPLING);
        expect(r.balances![setup.secondPool].total).toBe(TO_ORCHARD);
        const roots = r.roots as { wallet: Record<string, string | null>; equal: boolean };
        expect(roots.equal, transport).toBe(true);
        expect(roots.wallet.sapling, `sapling root over ${transport}`).toBe(zRoots.sapling);
        expect(roots.wallet.orchard, `orchard root over ${transport}`).toBe(zRoots.orchard);
        expect(roots.wallet.ironwood, `ironwood root over ${transport}`).toBe(zRoots.ironwood);
      }
    }, 600_000);
  },
);
