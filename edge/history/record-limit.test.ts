import { env } from "cloudflare:test";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, createClient, type HandlerContext } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { beforeAll, describe, expect, it } from "vitest";
import { RECORD_BYTES } from "../../proto/history/index.ts";
import { History, RawTransactionSchema, TailAddressesRequestSchema } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import { clientsFor } from "../testing/clients.ts";
import { fixture } from "../testing/fixture.ts";
import { DEFAULT_MAX_HISTORY_RECORDS, holdRecords } from "./budget.ts";
import { compareAddressTransactions, compareBalance, compareUtxos, type Sides } from "./compare.ts";
import { tailRecords } from "./origin-tail.ts";
import { chainEnv, loadChain, originClient, originFetch, stream } from "./testing.ts";

/** The bucket, with the address-record objects (`….rec.bin`) it is asked for written down. */
function recordReadsOf(bucket: R2Bucket, reads: string[]): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (key: string, options?: R2GetOptions) => {
        if (key.endsWith(".rec.bin")) reads.push(key);
        return target.get(key, options);
      };
    },
  });
}

/**
 * The isolate's transparent-address calls hold at most MAX_HISTORY_RECORDS address records at once
 * (edge/history/budget.ts): the stored ones counted from their directory entries before any is
 * read, the origin's above the levels asked for at most that many per call. Over it the call is
 * the origin's whole — the same answer, no records read — instead of an isolate out of memory.
 */
describe.skipIf(fixture === null)("history calls over the isolate's record limit (mainnet chain)", () => {
  let sides: Sides;
  let busiest: string;
  const reads: string[] = [];
  /** The chain's edge with its origin up, reading through `recordReadsOf`, with these settings. */
  const edgeWith = (extra: Partial<Env>) =>
    clientsFor(
      chainEnv(sides.chain, "good", {
        BLOCKS: recordReadsOf((env as unknown as Env).BLOCKS!, reads),
        ...extra,
      }),
    )[1]![1];

  beforeAll(async () => {
    const chain = await loadChain("mainnet");
    sides = { chain, edge: clientsFor(chainEnv(chain))[1]![1], origin: originClient(chain) };
    busiest = chain.busiest[0]!;
  }, 180_000);

  it("asks the origin's TailAddresses for at most the limit, and counts an older origin's records before decoding them", async () => {
    const { chain } = sides;
    const above = chain.sealedTip;
    const ctx = { signal: new AbortController().signal, timeoutMs: () => undefined } as HandlerContext;
    const historyOf = (fetch: typeof globalThis.fetch) =>
      createClient(History, createConnectTransport({ baseUrl: chain.origin, fetch, useBinaryFormat: true }));
    const tailOf = (fetch: typeof globalThis.fetch) => ({
      network: chain.network,
      api: undefined,
      history: historyOf(fetch),
    });
    // The origin itself: all of the list's records above the sealed tip, or ResourceExhausted.
    const ask = (maxRecords: number) =>
      historyOf(originFetch).tailAddresses({
        addresses: chain.addresses,
        aboveHeight: BigInt(above),
        maxRecords,
      });
    const all = (await ask(0)).records.length / RECORD_BYTES;
    expect(all).toBeGreaterThan(1);
    expect((await ask(all)).records.length / RECORD_BYTES).toBe(all);
    await expect(ask(all - 1)).rejects.toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: `TailAddresses: more than ${all - 1} address records above height ${above}`,
    });
    // An origin that predates the field answers every record: the edge counts them itself.
    const olderOrigin: typeof fetch = async (input, init) => {
      const req = fromBinary(TailAddressesRequestSchema, init!.body as Uint8Array);
      req.maxRecords = 0;
      return originFetch(input, { ...init, body: toBinary(TailAddressesRequestSchema, req) });
    };
    // …and the limit goes in the request (an origin that knows it stops early).
    const asked: number[] = [];
    const watched: typeof fetch = (input, init) => {
      asked.push(fromBinary(TailAddressesRequestSchema, init!.body as Uint8Array).maxRecords);
      return originFetch(input, init);
    };
    for (const fetch of [watched, olderOrigin]) {
      const records = (max: number) =>
        tailRecords(tailOf(fetch), "GetTaddressBalance", chain.addresses, above, max, ctx);
      expect((await records(all))?.length).toBe(all);
      expect(await records(all - 1)).toBeUndefined();
    }
    expect(asked).toEqual([all, all - 1]);
  }, 60_000);

  it("answers a busy address from storage under the limit, and as the origin over it without reading its records", async () => {
    const { chain } = sides;
    const span = { start: { height: BigInt(chain.firstHeight) }, end: { height: BigInt(chain.sealedTip) } };
    const txids = (edge: Sides["edge"]) =>
      stream(RawTransactionSchema, edge.getTaddressTxids({ address: busiest, range: span }));

    // The default limit: the records are read, and the answers are the origin's.
    const roomy = { ...sides, edge: edgeWith({}) };
    reads.length = 0;
    await compareUtxos(roomy, [busiest]);
    await compareAddressTransactions(roomy, busiest, chain.firstHeight, chain.sealedTip, "getTaddressTxids");
    expect(reads.length).toBeGreaterThan(0);
    const stored = await txids(roomy.edge);
    expect(stored.error).toBeUndefined();
    expect(stored.messages.length).toBeGreaterThan(1);

    // A limit of one record: every call about the busiest address is the origin's, read nowhere else.
    const tight = { ...sides, edge: edgeWith({ MAX_HISTORY_RECORDS: "1" }) };
    reads.length = 0;
    await compareUtxos(tight, [busiest]);
    await compareAddressTransactions(tight, busiest, chain.firstHeight, chain.sealedTip, "getTaddressTxids");
    await compareAddressTransactions(tight, busiest, chain.firstHeight, 0);
    expect(await txids(tight.edge)).toEqual(stored);
    expect(reads).toEqual([]);
    // The whole list's records above the sealed tip are more than one: balances are the origin's too.
    await compareBalance(tight, chain.addresses);
    await compareUtxos(tight, chain.addresses);
    expect(reads).toEqual([]);
  }, 300_000);

  it("proxies a call whose records do not fit beside those the isolate's other calls hold, and gives them back", async () => {
    const { chain } = sides;
    const roomy = { ...sides, edge: edgeWith({}) };
    const limit = DEFAULT_MAX_HISTORY_RECORDS;
    // Another call holding the isolate's whole allowance: the busiest address's calls are the origin's.
    const other = holdRecords(limit, limit)!;
    try {
      reads.length = 0;
      await compareUtxos(roomy, [busiest]);
      await compareAddressTransactions(
        roomy,
        busiest,
        chain.firstHeight,
        chain.sealedTip,
        "getTaddressTxids",
      );
      expect(reads).toEqual([]);
    } finally {
      other();
    }
    reads.length = 0;
    await compareUtxos(roomy, [busiest]);
    await compareAddressTransactions(roomy, busiest, chain.firstHeight, chain.sealedTip, "getTaddressTxids");
    expect(reads.length).toBeGreaterThan(0);
    // Both calls gave their records back when they ended: the whole allowance is free again.
    const all = holdRecords(limit, limit);
    expect(all).toBeDefined();
    all?.();
  }, 300_000);
});
