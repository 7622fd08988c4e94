import { describe, expect, it } from "vitest";
import { parseBlock } from "../chain/index.ts";
import { knownScripts, scriptAddress } from "./address.ts";
import { createAddressIndex } from "./address-index.ts";
import { createDevChain } from "./chain.ts";
import { blockRandom } from "./prng.ts";
import { addressReference, blocksDigest } from "./testing.ts";
import { FIRST_TRAFFIC_HEIGHT, POOL_SIZE, poolAddress, SPEND_DELAY } from "./transparent-traffic.ts";
import { buildTx } from "./tx-builder.ts";

describe("default synthetic chains", () => {
  it("are byte-identical to the chains before heavy transparent traffic existed", () => {
    // Regression guard, not a specification: these digests were computed with the generator as it
    // was before heavy transparent traffic was added (commit bbd9de0), and hard-coded here so that
    // any change to a default chain's bytes — which tests, the wallet harness and benches rely on —
    // fails loudly. A deliberate change of the default chain updates them.
    const plain = createDevChain({ network: "regtest", seed: "devaddr-regression", blocks: 400 });
    expect(blocksDigest(plain)).toBe("1c66c811be2ce036c5ce4525f6fc1d0f8d028c69b1a6be77d714f84bab944358");
    const mined = createDevChain({ network: "regtest", seed: "devaddr-regression", blocks: 200 });
    const tx = buildTx(
      {
        version: 5,
        vin: [],
        vout: [],
        saplingSpends: 0,
        saplingOutputs: 1,
        orchardActions: 2,
        ironwoodActions: 0,
        lockTime: 7,
        expiryHeight: 300,
      },
      blockRandom("mempool", 1, 1),
    );
    mined.mine(3, [tx]);
    mined.reorg(5);
    mined.mine(2, [tx, tx], 1);
    expect(mined.tip()).toBe(204);
    expect(blocksDigest(mined)).toBe("1cfc3a9833d18b219c3e9f8636ef6066687fc124125eeb33acb6c364e8ef3d33");
  });
});

describe("heavy transparent traffic", () => {
  it("appends transparent transactions to the default blocks, leaving their other transactions and trees", () => {
    const plain = createDevChain({ network: "regtest", seed: "traffic", blocks: 130 });
    const heavy = createDevChain({ network: "regtest", seed: "traffic", blocks: 130, transparent: "heavy" });
    expect(blocksDigest(heavy, 0, FIRST_TRAFFIC_HEIGHT - 1)).toBe(
      blocksDigest(plain, 0, FIRST_TRAFFIC_HEIGHT - 1),
    );
    for (let h = FIRST_TRAFFIC_HEIGHT; h <= 129; h++) {
      const a = parseBlock(plain.block(h).raw).txs;
      const b = parseBlock(heavy.block(h).raw).txs; // checks the merkle root too
      expect(b.length).toBe(a.length + 2);
      for (const [i, t] of a.entries()) expect(Buffer.from(b[i]!.raw).equals(Buffer.from(t.raw))).toBe(true);
      for (const t of b.slice(-2)) {
        expect(t.version).toBe(5);
        expect(t.sapling.outputs.length + (t.orchard?.actions.length ?? 0)).toBe(0);
        expect(t.vin.length).toBeGreaterThan(0);
        expect(t.vout.length).toBeGreaterThan(0);
      }
      expect(heavy.treeSizesAt(h)).toEqual(plain.treeSizesAt(h));
    }
  });

  it("spends only real, unspent earlier outputs, each once, also across a reorg and mined blocks", {
    timeout: 240_000,
  }, () => {
    const blocks = FIRST_TRAFFIC_HEIGHT + SPEND_DELAY[4] + 60;
    const chain = createDevChain({
      network: "regtest",
      seed: "traffic-spends",
      blocks,
      transparent: "heavy",
    });
    const check = () => {
      const ref = addressReference(chain);
      expect(ref.danglingInputs).toBe(0);
      expect(ref.doubleSpends).toBe(0);
      return ref;
    };
    const before = check();
    // A fan-out and a spender per block from FIRST_TRAFFIC_HEIGHT: ≥ 2 real spends per block.
    expect(before.realSpends).toBeGreaterThan(2 * (blocks - FIRST_TRAFFIC_HEIGHT));
    // The longest finite delay is reached: outputs of F(g) are spent 1,000 blocks later.
    const late = [...before.spends].filter(
      ([outpoint, by]) =>
        before.heights.get(by)! - before.heights.get(outpoint.split(":")[0]!)! === SPEND_DELAY[4],
    );
    expect(late.length).toBeGreaterThan(0);
    // Coinbases are spent 101 blocks after they were mined.
    const coinbase = parseBlock(chain.block(5).raw).txs[0]!;
    const cbTxid = Buffer.from(coinbase.wireTxid).reverse().toString("hex");
    expect(before.heights.get(before.spends.get(`${cbTxid}:0`)!)).toBe(5 + 101);
    // The replacement branch spends differently; every spend still resolves, none twice.
    const oldTip = chain.hashAt(chain.tip());
    chain.reorg(150);
    expect(chain.hashAt(chain.tip())).not.toBe(oldTip);
    chain.mine(20);
    const after = check();
    expect([...after.spends.values()].filter((t) => !before.heights.has(t)).length).toBeGreaterThan(300);
  });

  it("gives address histories of ~1, ~100 and ≥ 10,000 transactions, and moving UTXO sets", {
    timeout: 600_000,
  }, async () => {
    // 12,000 blocks, not 20,000 (the README's figures): a block depends on its height, not on the
    // chain's length, so these are the first 12,000 blocks of any longer chain and every count
    // below only grows with it; the shorter chain keeps the suite's CPU down on small machines.
    const chain = createDevChain({
      network: "regtest",
      seed: "traffic-sizes",
      blocks: 12_000,
      transparent: "heavy",
    });
    const index = createAddressIndex(chain);
    const tip = chain.tip();
    await index.ready(tip);
    const count = async (a: string) => (await index.txids([a], 1, tip)).length;
    const known = await Promise.all(knownScripts().map((s) => count(scriptAddress(s, "regtest")!)));
    const pool = await Promise.all(
      Array.from({ length: POOL_SIZE }, (_, i) => count(poolAddress(i, "regtest"))),
    );
    // Known addresses: a coinbase every third block and the fan-out spending it, plus payments.
    for (const n of known) expect(n).toBeGreaterThan(10_000);
    expect(pool[0]).toBeGreaterThan(5_000); // ~14,000 by height 20,000

    expect(pool.some((n) => n >= 90 && n <= 110)).toBe(true);
    expect(Math.min(...pool)).toBeGreaterThan(0);
    // One-time addresses: paid once by a spender (whose outputs nothing spends).
    const pooled = new Set(Array.from({ length: POOL_SIZE }, (_, i) => poolAddress(i, "regtest")));
    let singles = 0;
    for (let h = tip - 200; h <= tip; h++)
      for (const o of chain.indexedTxs(h).at(-1)!.vout) {
        const a = scriptAddress(o.script, "regtest")!;
        if (!pooled.has(a) && (await count(a)) === 1) singles++;
      }
    expect(singles).toBeGreaterThan(0);
    // UTXO sets change: pool 0's outputs at 5,000 partly spent by 20,000, and new ones since.
    const key = (u: { txid: string; outputIndex: number }) => `${u.txid}:${u.outputIndex}`;
    const early = new Set((await index.utxos([poolAddress(0, "regtest")], 5_000)).map(key));
    const now = new Set((await index.utxos([poolAddress(0, "regtest")], tip)).map(key));
    expect([...early].filter((k) => !now.has(k)).length).toBeGreaterThan(50);
    expect([...now].filter((k) => !early.has(k)).length).toBeGreaterThan(100);
    const balance = await index.balance([poolAddress(0, "regtest")], tip);
    expect(balance.received).toBeGreaterThan(balance.balance);
  });
});
