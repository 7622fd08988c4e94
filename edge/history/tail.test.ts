import { beforeAll, describe, expect, it } from "vitest";
import { BalanceSchema, GetAddressUtxosReplyListSchema, RawTransactionSchema } from "../../proto/index.ts";
import { clientsFor, type Streamer } from "../testing/clients.ts";
import { fetchWith, fixture } from "../testing/fixture.ts";
import {
  balanceStream,
  compareAddressTransactions,
  compareBalance,
  compareTransactions,
  compareUtxos,
  type Sides,
  wire,
} from "./compare.ts";
import {
  chainEnv,
  type HistoryChain,
  loadChain,
  mapLimited,
  originClient,
  originFetch,
  reorgChain,
  stream,
  unary,
} from "./testing.ts";

/**
 * The seam between the store and the origin's tail: with the origin down or absent, sealed history
 * is still answered and whatever depends on the tail (a balance, unspent outputs, a range or a
 * transaction above the sealed tip) says Unavailable, never a partial answer; after a reorg in the
 * tail the edge and the origin still agree; GetTaddressBalanceStream over Connect is the origin's.
 */
describe.skipIf(fixture === null)("node-free history and the origin's tail", () => {
  let chain: HistoryChain;
  let up: Streamer;
  beforeAll(async () => {
    chain = await loadChain("mainnet");
    up = clientsFor(chainEnv(chain))[1]![1];
  }, 180_000);

  describe.each(["down", "none"] as const)("with the origin %s", (origin) => {
    const edge = () => clientsFor(chainEnv(chain, origin))[0]![1]; // gRPC-web, as browsers ask

    it("answers every sealed transaction by txid and by block and index, and no tail one", async () => {
      const client = edge();
      const sealed = chain.txs.filter((tx) => tx.height <= chain.sealedTip);
      const tail = chain.txs.filter((tx) => tx.height > chain.sealedTip);
      expect(tail.length).toBeGreaterThan(0);
      await mapLimited(sealed, 4, async (tx) => {
        for (const req of [
          { hash: wire(tx.txid) },
          { block: { height: BigInt(tx.height) }, index: BigInt(tx.index) },
        ]) {
          const got = await unary(RawTransactionSchema, client.getTransaction(req));
          expect(got.error, tx.txid).toBeUndefined();
          expect(got).toEqual(await unary(RawTransactionSchema, up.getTransaction(req)));
        }
      });
      for (const tx of tail.slice(0, 5)) {
        for (const req of [
          { hash: wire(tx.txid) },
          { block: { height: BigInt(tx.height) }, index: BigInt(tx.index) },
        ]) {
          const got = await unary(RawTransactionSchema, client.getTransaction(req));
          expect(got.error?.code, tx.txid).toBe("Unavailable");
          expect(got.error?.message).toMatch(/^GetTransaction: /);
        }
      }
    }, 300_000);

    it("answers an address's sealed transactions, and refuses whole a range that reaches the tail", async () => {
      const client = edge();
      for (const address of chain.addresses.filter((_, i) => i % 8 === 0)) {
        const range = {
          start: { height: BigInt(chain.firstHeight) },
          end: { height: BigInt(chain.sealedTip) },
        };
        for (const rpc of ["getTaddressTransactions", "getTaddressTxids"] as const) {
          const got = await stream(RawTransactionSchema, client[rpc]({ address, range }));
          expect(got.error, address).toBeUndefined();
          expect(got).toEqual(await stream(RawTransactionSchema, up[rpc]({ address, range })));
        }
        const crossing = { start: { height: BigInt(chain.sealedTip - 5) }, end: { height: 0n } };
        const refused = await stream(
          RawTransactionSchema,
          client.getTaddressTransactions({ address, range: crossing }),
        );
        // Without an origin the edge's tip (GetLatestBlock) is its sealed tip: an unset end stays sealed.
        expect(refused.error).toBeUndefined();
        expect(refused).toEqual(
          await stream(
            RawTransactionSchema,
            up.getTaddressTransactions({
              address,
              range: { start: crossing.start, end: { height: BigInt(chain.sealedTip) } },
            }),
          ),
        );
        const past = { start: { height: BigInt(chain.sealedTip - 5) }, end: { height: BigInt(chain.tip) } };
        const cut = await stream(
          RawTransactionSchema,
          client.getTaddressTransactions({ address, range: past }),
        );
        expect(cut).toEqual({ messages: [], error: expect.objectContaining({ code: "Unavailable" }) });
        expect(cut.error!.message).toMatch(/^GetTaddressTransactions: /);
      }
    }, 300_000);

    it("says Unavailable for balances and unspent outputs, which include the tail", async () => {
      const client = edge();
      const list = chain.addresses.slice(0, 5);
      const balance = await unary(BalanceSchema, client.getTaddressBalance({ addresses: list }));
      expect(balance.messages).toEqual([]);
      expect(balance.error?.code).toBe("Unavailable");
      expect(balance.error?.message).toMatch(/^GetTaddressBalance: /);
      const utxos = await unary(GetAddressUtxosReplyListSchema, client.getAddressUtxos({ addresses: list }));
      expect(utxos).toEqual({ messages: [], error: expect.objectContaining({ code: "Unavailable" }) });
      expect(utxos.error?.message).toMatch(/^GetAddressUtxos: /);
      // Bad input is still the client's fault, whatever the origin's state.
      const bad = await unary(BalanceSchema, client.getTaddressBalance({ addresses: ["t1short"] }));
      expect(bad.error?.code).toBe("InvalidArgument");
    }, 120_000);
  });

  it("answers GetTaddressBalanceStream over Connect as the origin does, and refuses it over gRPC-web", async () => {
    const env = chainEnv(chain);
    const edgeFetch = fetchWith(env);
    for (const list of [
      chain.addresses.slice(0, 1),
      chain.addresses,
      [...chain.addresses.slice(0, 3), ...chain.addresses.slice(0, 3)],
      [],
      ["t1short"],
    ]) {
      const atEdge = await balanceStream(edgeFetch, "https://edge.test", list);
      const atOrigin = await balanceStream(originFetch, chain.origin, list);
      expect(atEdge, list.slice(0, 2).join()).toEqual(atOrigin);
    }
    const grpcWeb = await fetchWith(env)(
      "https://edge.test/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetTaddressBalanceStream",
      { method: "POST", headers: { "content-type": "application/grpc-web+proto" }, body: new Uint8Array() },
    );
    expect(grpcWeb.headers.get("grpc-status") ?? (await grpcWeb.text())).toMatch(/12|Unimplemented/);
  }, 120_000);
});

/**
 * A reorg in the origin's tail (the dev node replaces its last blocks; the origin follows): the
 * edge's answers, whose sealed part cannot change, still equal the origin's, for the replaced
 * transactions and the new ones.
 */
describe.skipIf(fixture === null)("node-free history across a reorg in the tail", () => {
  it("agrees with the origin before and after the tail is replaced", async () => {
    const before = await loadChain("reorg");
    const sidesOf = (chain: HistoryChain): Sides => ({
      chain,
      edge: clientsFor(chainEnv(chain))[1]![1],
      origin: originClient(chain),
    });
    const busiest = before.busiest.slice(0, 3);
    const compareAll = async (sides: Sides) => {
      const { chain } = sides;
      await compareTransactions(
        sides,
        chain.txs.filter((tx) => tx.height > chain.sealedTip - 10),
      );
      await compareBalance(sides, chain.addresses);
      await compareUtxos(sides, chain.addresses);
      for (const address of busiest)
        await compareAddressTransactions(sides, address, chain.sealedTip - 20, 0);
    };
    await compareAll(sidesOf(before));
    const depth = Math.min(6, before.tip - before.sealedTip);
    const after = await reorgChain(before, depth);
    expect(after.sealedTip).toBe(before.sealedTip);
    const replaced = before.txs.filter((tx) => tx.height > before.tip - depth);
    const kept = new Set(after.txs.map((tx) => tx.txid));
    expect(replaced.some((tx) => !kept.has(tx.txid))).toBe(true);
    // A new env: a new isolate view of the origin's tip (the old one was cached for the test).
    const sides = sidesOf(after);
    await compareAll(sides);
    // The replaced transactions: gone from both, or (a transaction carried over) found in both.
    await compareTransactions(sides, replaced);
  }, 600_000);
});
