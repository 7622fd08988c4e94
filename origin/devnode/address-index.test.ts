import { describe, expect, it } from "vitest";
import { chainDir, hasChain } from "../../test/support/chain.ts";
import { knownScripts, p2pkhScript, scriptAddress } from "./address.ts";
import { createAddressIndex, type DevAddressIndex, type Utxo } from "./address-index.ts";
import { createDevChain } from "./chain.ts";
import { loadCorpusRun } from "./corpus.ts";
import { createDevNode } from "./index.ts";
import { blockRandom } from "./prng.ts";
import { addressReference } from "./testing.ts";
import { poolAddress } from "./transparent-traffic.ts";
import { buildTxWithId, type TxShape } from "./tx-builder.ts";
import type { DevChain } from "./types.ts";

const known = (k: number, network: DevChain["network"] = "regtest") =>
  scriptAddress(knownScripts()[k]!, network)!;
const wire = (display: string) => Uint8Array.from(Buffer.from(display, "hex").reverse());

/**
 * Outputs heavy traffic never spends (those of the spender, the last generated transaction of its
 * block), so a test's own spend of them is never followed by a second one.
 */
function neverSpent<T extends { txid: string; height: number }>(chain: DevChain, utxos: T[]): T[] {
  return utxos.filter((u) => {
    const txs = chain.indexedTxs(u.height);
    return (
      Buffer.from(txs[txs.length - 1]!.wireTxid)
        .reverse()
        .toString("hex") === u.txid
    );
  });
}

/** Every answer of the index equals the brute-force recomputation, for every address of the chain. */
async function expectMatches(chain: DevChain, index: DevAddressIndex, extra: string[][] = []) {
  const tip = chain.tip();
  const ref = addressReference(chain, tip);
  expect(ref.addresses.length).toBeGreaterThan(2);
  const lists = [...ref.addresses.map((a) => [a]), ...extra];
  for (const list of lists) {
    expect(await index.txids(list, 1, tip)).toEqual(ref.txids(list, 1, tip));
    expect(await index.utxos(list, tip)).toEqual(ref.utxos(list));
    expect(await index.balance(list, tip)).toEqual(ref.balance(list));
  }
  const mid = chain.base + Math.floor((tip - chain.base) / 2);
  for (const list of extra)
    expect(await index.txids(list, mid, tip - 1)).toEqual(ref.txids(list, mid, tip - 1));
  // Every transaction is located at its height (getrawtransaction).
  for (const [txid, height] of ref.heights) expect((await index.locate(txid, tip))?.height).toBe(height);
  return ref;
}

/** A transparent-only v5 transaction spending `utxos`, paying `pay` (fee 10,000). */
function spendTx(
  utxos: { txid: string; outputIndex: number; satoshis: number }[],
  pay: Uint8Array[],
  lockTime: number,
) {
  const total = utxos.reduce((s, u) => s + u.satoshis, 0) - 10_000;
  const shape: TxShape = {
    version: 5,
    vin: utxos.map((u) => ({
      wirePrevTxid: wire(u.txid),
      index: u.outputIndex,
      script: new Uint8Array(107),
    })),
    vout: pay.map((script, i) => ({
      value: i === 0 ? total - Math.floor(total / 2) * (pay.length - 1) : Math.floor(total / 2),
      script,
    })),
    saplingSpends: 0,
    saplingOutputs: 0,
    orchardActions: 0,
    ironwoodActions: 0,
    lockTime,
    expiryHeight: 0,
  };
  const { raw, wireTxid } = buildTxWithId(shape, blockRandom("spend-test", lockTime, 0));
  return { raw, txid: Buffer.from(wireTxid).reverse().toString("hex") };
}

const p2sh = (hash: number) => Uint8Array.from([0xa9, 0x14, ...new Uint8Array(20).fill(hash), 0x87]);

describe("the dev node's address index", () => {
  it("answers as a brute-force scan of a heavy chain, through mined mempool spends and reorgs", {
    timeout: 240_000,
  }, async () => {
    const chain = createDevChain({
      network: "regtest",
      seed: "addr-index",
      blocks: 400,
      transparent: "heavy",
    });
    const index = createAddressIndex(chain);
    const mixed = [
      [known(2), poolAddress(0, "regtest"), known(0)],
      [poolAddress(7, "regtest"), poolAddress(3, "regtest"), poolAddress(7, "regtest")],
      [poolAddress(0, "regtest"), "tmNotAnIndexedAddressXXXXXXXXXXXXXX"],
    ];
    const first = await expectMatches(chain, index, mixed);
    expect(first.spends.size).toBeGreaterThan(300);

    // Mempool transactions mined later: one spends two real outputs (a pool address's and a known
    // address's), one pays a fresh P2SH address from a third.
    const pool0 = poolAddress(0, "regtest");
    const spentFrom = neverSpent(chain, await index.utxos([pool0], chain.tip())).filter(
      (u) => u.height < 280,
    )[0]!;
    const knownUtxo = neverSpent(chain, await index.utxos([known(1)], chain.tip()))[0]!;
    const other = neverSpent(chain, await index.utxos([known(2)], chain.tip()))[0]!;
    const a = spendTx(
      [spentFrom, knownUtxo],
      [knownScripts()[2]!, p2pkhScript(new Uint8Array(20).fill(9))],
      1,
    );
    const b = spendTx([other], [p2sh(4)], 2);
    chain.mine(3, [a.raw, b.raw], 1);
    await expectMatches(chain, index, mixed);
    // The spend is one of the address's transactions, and the output left its UTXOs.
    expect(await index.txids([pool0], 1, chain.tip())).toContain(a.txid);
    expect((await index.utxos([pool0], chain.tip())).map((u) => u.txid)).not.toContain(spentFrom.txid);
    expect((await index.txids([scriptAddress(p2sh(4), "regtest")!], 1, chain.tip())).length).toBe(1);
    // Answers up to an earlier tip do not see later spends.
    expect((await index.utxos([pool0], chain.tip() - 3)).map((u) => u.txid)).toContain(spentFrom.txid);

    // A reorg replaces the mined blocks (their transactions are dropped) and the last heavy blocks.
    chain.reorg(5);
    await expectMatches(chain, index, mixed);
    expect(await index.txids([pool0], 1, chain.tip())).not.toContain(a.txid);
    expect((await index.utxos([pool0], chain.tip())).map((u) => u.txid)).toContain(spentFrom.txid);
    expect(await index.locate(a.txid, chain.tip())).toBeUndefined();

    // Deeper: the replacement branch spends differently; mined blocks follow it.
    chain.reorg(120);
    chain.mine(4, [spendTx([spentFrom], [knownScripts()[0]!], 3).raw]);
    const last = await expectMatches(chain, index, mixed);
    expect(last.doubleSpends).toBe(0);
    expect(last.danglingInputs).toBe(0);
  });

  it("answers as a brute-force scan of a default synthetic chain (coinbases, one-payment addresses)", async () => {
    const chain = createDevChain({ network: "testnet", seed: "addr-default", blocks: 160 });
    const index = createAddressIndex(chain);
    const ref = await expectMatches(chain, index, [[known(0, "testnet"), known(1, "testnet")]]);
    // Coinbases pay the known addresses and are never spent; genesis's output is not indexed.
    expect(await index.txids([known(0, "testnet")], 0, 5)).toEqual(ref.txids([known(0, "testnet")], 1, 5));
    expect((await index.utxos([known(1, "testnet")], 159)).length).toBe(53);
    chain.mine(2);
    chain.reorg(3);
    await expectMatches(chain, index, [[known(2, "testnet"), known(1, "testnet")]]);
  });

  it.skipIf(!hasChain)(
    "answers as a brute-force scan of a corpus run, spends included, and after mining",
    {
      timeout: 120_000,
    },
    async () => {
      const fixed = loadCorpusRun(chainDir, "mainnet", 663150, 663250);
      const chain = createDevChain({ network: "mainnet", seed: "corpus", fixed });
      const index = createAddressIndex(chain);
      const ref = await expectMatches(chain, index);
      // Real transactions spend outputs paid inside the run.
      expect(ref.spends.size).toBeGreaterThan(0);
      for (const [outpoint, spender] of ref.spends) {
        const paid = ref.outputs.get(outpoint)!;
        expect(await index.txids([paid.address], 663150, 663250)).toContain(spender);
        expect(
          (await index.utxos([paid.address], 663250)).map((u) => `${u.txid}:${u.outputIndex}`),
        ).not.toContain(outpoint);
      }
      // Blocks mined on top (v4, Blossom rules), one with a transaction spending a real UTXO; a reorg.
      const holder = ref.addresses.find((a) => ref.utxos([a]).length > 0)!;
      const utxo = ref.utxos([holder])[0]!;
      const shape: TxShape = {
        version: 4,
        vin: [{ wirePrevTxid: wire(utxo.txid), index: utxo.outputIndex, script: new Uint8Array(107) }],
        vout: [{ value: utxo.satoshis - 10_000, script: knownScripts()[0]! }],
        saplingSpends: 0,
        saplingOutputs: 0,
        orchardActions: 0,
        ironwoodActions: 0,
        lockTime: 0,
        expiryHeight: 0,
      };
      chain.mine(2, [buildTxWithId(shape, blockRandom("corpus-spend", 0, 0)).raw]);
      await expectMatches(chain, index);
      expect((await index.utxos([holder], chain.tip())).map((u) => u.txid)).not.toContain(utxo.txid);
      chain.reorg(3);
      await expectMatches(chain, index);
    },
  );

  it("answers getrawtransaction for every transaction of the chain, and address RPCs, over JSON-RPC", {
    timeout: 120_000,
  }, async () => {
    const node = await createDevNode({ synthetic: { blocks: 260, seed: "addr-rpc", transparent: "heavy" } });
    const call = async (method: string, params: unknown[]) => {
      const res = await fetch(node.url, { method: "POST", body: JSON.stringify({ id: 1, method, params }) });
      // biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers, compared whole
      return (await res.json()) as { result?: any; error?: { code: number } };
    };
    const control = (path: string, body: unknown) =>
      fetch(`${node.url}control/${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) =>
        r.json(),
      );
    try {
      await node.ready;
      const pool0 = poolAddress(0, "regtest");
      const pooled: Utxo[] = (await call("getaddressutxos", [{ addresses: [pool0] }])).result;
      const utxo = neverSpent(node.chain, pooled)[0]!;
      const sent = spendTx([utxo], [knownScripts()[1]!], 7);
      expect((await call("sendrawtransaction", [Buffer.from(sent.raw).toString("hex")])).result).toBe(
        sent.txid,
      );
      await control("mine", { blocks: 2 });
      await control("reorg", { depth: 1 }); // keeps the block with the mempool transaction
      const tip = node.chain.tip();
      const ref = addressReference(node.chain);
      expect(ref.heights.get(sent.txid)).toBe(tip - 1);
      // Txids straight from the chain: none was served by getblock, so the index answers each.
      for (const [txid, height] of ref.heights) {
        const r = await call("getrawtransaction", [txid, 1]);
        expect(r.result?.height).toBe(height);
        if (height === tip - 1 && txid === sent.txid)
          expect(r.result.hex).toBe(Buffer.from(sent.raw).toString("hex"));
      }
      for (const list of [[pool0], [known(0), pool0, known(1)]]) {
        const range = { addresses: list, start: 1, end: tip };
        expect((await call("getaddresstxids", [range])).result).toEqual(ref.txids(list, 1, tip));
        expect((await call("getaddressutxos", [{ addresses: list }])).result).toEqual(ref.utxos(list));
        expect((await call("getaddressbalance", [{ addresses: list }])).result).toEqual(ref.balance(list));
      }
      expect((await call("getaddresstxids", [{ addresses: [pool0], start: 1, end: tip }])).result).toContain(
        sent.txid,
      );
      // Already mined: refused as zebrad does.
      expect((await call("sendrawtransaction", [Buffer.from(sent.raw).toString("hex")])).error?.code).toBe(
        -27,
      );
      expect((await call("getrawtransaction", ["ab".repeat(32), 1])).error?.code).toBe(-5);
      // A reorg drops the block that held it: not found, and accepted again.
      await control("reorg", { depth: 2 });
      expect((await call("getrawtransaction", [sent.txid, 1])).error?.code).toBe(-5);
      expect(
        (await call("getaddresstxids", [{ addresses: [pool0], start: 1, end: tip }])).result,
      ).not.toContain(sent.txid);
      expect((await call("sendrawtransaction", [Buffer.from(sent.raw).toString("hex")])).result).toBe(
        sent.txid,
      );
    } finally {
      await node.close();
    }
  });
});
