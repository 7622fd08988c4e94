import { beforeAll, describe, expect, it } from "vitest";
import { RawTransactionSchema } from "../../proto/index.ts";
import { clientsFor } from "../testing/clients.ts";
import { fixture } from "../testing/fixture.ts";
import {
  compareAddressTransactions,
  compareBalance,
  compareEveryAddress,
  compareTransactions,
  compareUtxos,
  type Sides,
  same,
} from "./compare.ts";
import { chainEnv, loadChain, originClient, stream } from "./testing.ts";

/**
 * A synthetic chain of 2,000 blocks with heavy transparent traffic (fan-outs of coinbases, spends
 * of outputs 0–1,000 blocks old, a pool of 1,000 addresses and one-time ones), range size 20, a
 * base and a recent index level: the edge's answers from storage and the origin's tail against
 * the origin's node-backed ones. Every address is compared; transactions and per-address streams
 * of a chain this size are sampled (every comparison costs the origin a node call per transaction).
 */
describe.skipIf(fixture === null)("node-free history of a heavy synthetic chain", () => {
  let sides: Sides;
  beforeAll(async () => {
    const chain = await loadChain("heavy");
    sides = { chain, edge: clientsFor(chainEnv(chain))[1]![1], origin: originClient(chain) };
  }, 300_000);

  it("answers GetTransaction by txid and by block and index: the tail, every coinbase, the first and last sealed ranges, every 10th other", async () => {
    const { chain } = sides;
    const lastRange = Math.floor(chain.sealedTip / chain.rangeSize);
    const sample = chain.txs.filter((tx, i) => {
      const range = Math.floor(tx.height / chain.rangeSize);
      return (
        tx.height > chain.sealedTip || tx.index === 0 || range === 0 || range === lastRange || i % 10 === 0
      );
    });
    expect(sample.length).toBeGreaterThan(3_000);
    expect(await compareTransactions(sides, sample)).toBe(2 * sample.length);
  }, 600_000);

  it("answers every address's balance and unspent outputs; the transactions of every 8th and of the busiest", async () => {
    const { chain } = sides;
    expect(chain.addresses.length).toBeGreaterThan(2_000);
    const busiest = new Set(chain.busiest.slice(0, 4));
    await compareEveryAddress(sides, chain.addresses, (address, i) => i % 8 === 0 || busiest.has(address));
  }, 900_000);

  it("answers address lists across every shard, with startHeight and maxEntries", async () => {
    const { chain } = sides;
    const all = chain.addresses;
    await compareBalance(sides, all);
    await compareUtxos(sides, all);
    for (const [startHeight, maxEntries] of [
      [chain.sealedTip - 50, 0],
      [chain.sealedTip + 1, 0],
      [0, 1],
      [1_000, 100],
      [chain.sealedTip - 5, 3],
    ] as const)
      await compareUtxos(sides, all, startHeight, maxEntries);
    for (let i = 0; i < all.length; i += 700) {
      await compareBalance(sides, all.slice(i, i + 700));
      await compareUtxos(sides, all.slice(i, i + 700), 0, 0, false);
    }
  }, 300_000);

  it("answers the busiest addresses' transactions over sealed, crossing and tail ranges, in both RPCs", async () => {
    const { chain } = sides;
    for (const address of chain.busiest.slice(0, 3)) {
      for (const [start, end] of [
        [0, chain.sealedTip],
        [chain.sealedTip - 30, chain.sealedTip + 5],
        [chain.sealedTip + 1, 0],
        [777, 1_234],
      ])
        await compareAddressTransactions(sides, address, start, end);
      await compareAddressTransactions(sides, address, 1_500, 0, "getTaddressTxids");
    }
  }, 300_000);

  it("proxies a call over its read budget whole to the origin", async () => {
    const { chain } = sides;
    const address = chain.busiest[0]!;
    const req = { address, range: { start: { height: 0n }, end: { height: BigInt(chain.sealedTip) } } };
    // With the origin down, a sealed range is answered from storage…
    const [, down] = clientsFor(chainEnv(chain, "down"))[1]!;
    const stored = await stream(RawTransactionSchema, down.getTaddressTransactions(req));
    expect(stored.error).toBeUndefined();
    expect(stored.messages.length).toBeGreaterThan(100);
    // …unless it needs more reads than the budget allows: then it is the origin's call (down).
    const [, tight] = clientsFor(chainEnv(chain, "down", { SUBREQUEST_BUDGET: "40" }))[1]!;
    const proxied = await stream(RawTransactionSchema, tight.getTaddressTransactions(req));
    expect(proxied).toEqual({
      messages: [],
      error: {
        code: "Unavailable",
        message: "GetTaddressTransactions: the origin is unavailable, retry later",
      },
    });
    // With the origin up, the proxied answer is the same as the stored one.
    const [, tightUp] = clientsFor(chainEnv(chain, "good", { SUBREQUEST_BUDGET: "40" }))[1]!;
    await same({ ...sides, edge: tightUp }, "over budget", (c) =>
      stream(RawTransactionSchema, c.getTaddressTransactions(req)),
    );
    expect(await stream(RawTransactionSchema, tightUp.getTaddressTransactions(req))).toEqual(stored);
  }, 300_000);
});
