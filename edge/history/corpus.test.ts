import { beforeAll, describe, expect, it } from "vitest";
import { BalanceSchema, BlockIDSchema, RawTransactionSchema } from "../../proto/index.ts";
import { MAX_ADDRESSES } from "../../proto/wire/limits.ts";
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
import { chainEnv, loadChain, mapLimited, originClient, stream, unary } from "./testing.ts";

/**
 * Real chains with real transparent spends (mainnet 663150–663250, testnet 1028400–1028600, each
 * with mined blocks on top), sealed with history by the origin's own indexer: every transaction and
 * every address answered by the edge from storage (and the origin's tail) exactly as the origin
 * answers from its node.
 */
describe.skipIf(fixture === null).each(["mainnet", "testnet"])(
  "node-free history of the %s corpus run",
  (name) => {
    let sides: Sides;
    beforeAll(async () => {
      const chain = await loadChain(name);
      sides = { chain, edge: clientsFor(chainEnv(chain))[1]![1], origin: originClient(chain) };
      expect(chain.sealedTip).toBeLessThan(chain.tip);
    }, 180_000);

    it("answers GetTransaction for every transaction, by txid and by block and index", async () => {
      const { chain } = sides;
      expect(await compareTransactions(sides, chain.txs)).toBe(2 * chain.txs.length);
      // The binary protocols take the fast path (rpc/fast-unary.ts), Connect JSON the router: the
      // same answers either way.
      const json = { ...sides, edge: clientsFor(chainEnv(chain))[2]![1] };
      await compareTransactions(
        json,
        chain.txs.filter((_, i) => i % 5 === 0),
      );
      // Past each block's last transaction, by height; blocks by hash in both byte orders.
      const counts = new Map<number, number>();
      for (const tx of chain.txs) counts.set(tx.height, (counts.get(tx.height) ?? 0) + 1);
      await mapLimited([...counts], 3, async ([height, count]) => {
        const past = await same(sides, `block ${height} index ${count}`, (c) =>
          unary(
            RawTransactionSchema,
            c.getTransaction({ block: { height: BigInt(height) }, index: BigInt(count) }),
          ),
        );
        expect(past.error?.code).toBe("NotFound");
      });
      for (const height of [
        chain.firstHeight,
        chain.sealedTip - 1,
        chain.sealedTip,
        chain.sealedTip + 1,
        chain.tip,
      ]) {
        const hash = (await sides.origin.getBlock({ height: BigInt(height) })).hash;
        for (const h of [hash, hash.slice().reverse()]) {
          const got = await same(sides, `block ${height} by hash`, (c) =>
            unary(RawTransactionSchema, c.getTransaction({ block: { hash: h }, index: 0n })),
          );
          expect(got.error).toBeUndefined();
        }
      }
      // Unknown txids and blocks, bad input.
      for (const req of [
        { hash: new Uint8Array(32).fill(7) },
        { hash: new Uint8Array(31) },
        {},
        { block: { height: BigInt(chain.tip + 1) } },
        { block: { height: 2n ** 32n } },
        { block: { hash: new Uint8Array(32).fill(9) } },
        { block: { hash: new Uint8Array(5) } },
        { block: { height: BigInt(chain.sealedTip) }, index: 2n ** 40n },
      ]) {
        const got = await same(
          sides,
          JSON.stringify(req, (_, v) => (typeof v === "bigint" ? `${v}` : v)),
          (c) => unary(RawTransactionSchema, c.getTransaction(req)),
        );
        expect(got.error).toBeDefined();
      }
    }, 300_000);

    it("answers every address's balance, unspent outputs and transactions", async () => {
      await compareEveryAddress(sides, sides.chain.addresses);
    }, 600_000);

    it("answers GetTaddressTransactions and GetTaddressTxids over sealed, crossing, tail-only and unstored ranges", async () => {
      const { chain } = sides;
      const ranges: [number, number][] = [
        [chain.firstHeight, chain.sealedTip], // sealed only
        [chain.sealedTip - 4, chain.sealedTip + 4], // across the seam
        [chain.sealedTip + 1, 0], // the tail only: the origin's
        [0, chain.sealedTip], // from below the store's first height: the origin's
        [chain.firstHeight + 7, chain.firstHeight + 7], // one block
        [chain.firstHeight, chain.tip + 50], // past the tip
      ];
      await mapLimited(
        chain.addresses.filter((_, i) => i % 10 === 0),
        3,
        async (address) => {
          for (const [start, end] of ranges) await compareAddressTransactions(sides, address, start, end);
          await compareAddressTransactions(sides, address, chain.firstHeight, 0, "getTaddressTxids");
        },
      );
    }, 600_000);

    it("answers balances and unspent outputs of address lists, with startHeight and maxEntries", async () => {
      const { chain } = sides;
      const all = chain.addresses;
      await compareBalance(sides, all);
      await compareUtxos(sides, all);
      await compareBalance(sides, [...all].reverse().concat(all.slice(0, 10)));
      for (let i = 0; i < all.length; i += 40) {
        const list = all.slice(i, i + 40);
        await compareBalance(sides, list);
        await compareUtxos(sides, list);
      }
      for (const [startHeight, maxEntries] of [
        [chain.sealedTip - 3, 0],
        [chain.sealedTip + 1, 0],
        [chain.firstHeight, 1],
        [chain.firstHeight, 7],
        [chain.sealedTip - 10, 5],
        [chain.tip + 1, 0],
      ] as const)
        await compareUtxos(sides, all, startHeight, maxEntries);
    }, 300_000);

    it("refuses bad requests and answers unknown addresses as the origin does", async () => {
      const { chain } = sides;
      const address = chain.addresses[0]!;
      const other =
        chain.network === "mainnet"
          ? "tmRGkeumjW7Ggcqg4d71QeZcrweSs2zs6r5"
          : "t1XVXWCvpMgBvUaed4XDqWtgQgJSu1Ghz7F";
      const unused =
        chain.network === "mainnet"
          ? "t1XVXWCvpMgBvUaed4XDqWtgQgJSu1Ghz7F"
          : "tmRGkeumjW7Ggcqg4d71QeZcrweSs2zs6r5";
      const many = Array.from(
        { length: MAX_ADDRESSES + 1 },
        (_, i) => chain.addresses[i % chain.addresses.length]! + (i >= chain.addresses.length ? `${i}` : ""),
      );
      for (const list of [[], [unused], [other], ["t1short"], [address, other], many]) {
        await compareBalance(sides, list);
        await compareUtxos(sides, list);
      }
      await compareUtxos(sides, [address], 2 ** 33);
      for (const [start, end] of [
        [chain.firstHeight, chain.firstHeight - 1],
        [chain.firstHeight, chain.firstHeight + 10_000_001],
        [2 ** 33, 0],
        [chain.firstHeight, 2 ** 33],
      ])
        await compareAddressTransactions(sides, address, start, end);
      for (const a of [unused, other, "nonsense"])
        await compareAddressTransactions(sides, a, chain.firstHeight, 0);
      // No range at all: a start is required.
      const got = await same(sides, "no range", (c) =>
        stream(RawTransactionSchema, c.getTaddressTransactions({ address })),
      );
      expect(got.error?.code).toBe("InvalidArgument");
      // Both agree on the tip the tests read (GetLatestBlock is the edge's tip for unset ends).
      await same(sides, "tip", (c) => unary(BlockIDSchema, c.getLatestBlock({})));
      void BalanceSchema;
    }, 300_000);
  },
);
