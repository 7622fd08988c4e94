import { env } from "cloudflare:test";
import { Code, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { beforeAll, describe, expect, it } from "vitest";
import { historyIndexedTip, RECORD_BYTES } from "../../proto/history/index.ts";
import { History } from "../../proto/index.ts";
import { decodeHead, encodeHead, type HeadObject, headKey } from "../../proto/range/index.ts";
import type { Env } from "../env.ts";
import { clientsFor } from "../testing/clients.ts";
import { fixture } from "../testing/fixture.ts";
import {
  compareAddressTransactions,
  compareBalance,
  compareTransactions,
  compareUtxos,
  type Sides,
} from "./compare.ts";
import { chainEnv, loadChain, mapLimited, originClient, originFetch, prefixOf } from "./testing.ts";

/**
 * A head whose index levels cover fewer ranges than it names (written while the origin catches up
 * with its node: origin/history/level-schedule.ts): the edge answers from the levels up to their
 * last height and merges the origin's answers above it — the sealed ranges the levels lack
 * included — so every answer is still the origin's node-backed one.
 */
describe.skipIf(fixture === null).each([
  ["mainnet", "its origin's TailAddresses answering"],
  [
    "capped",
    "its origin's TailAddresses refusing more than 20 records (the whole answer then asked of the origin)",
  ],
])("node-free history whose index levels lag the head (%s chain: %s)", (name) => {
  let sides: Sides;
  let indexedTip: number;
  beforeAll(async () => {
    const chain = await loadChain(name);
    const bucket = (env as unknown as Env).BLOCKS!;
    const from = `${prefixOf(chain)}/`;
    const to = `${prefixOf(chain)}-lagging/`;
    const keys: string[] = [];
    for (let cursor: string | undefined, more = true; more; ) {
      const page = await bucket.list({ prefix: from, cursor });
      keys.push(...page.objects.map((o) => o.key));
      more = page.truncated;
      cursor = page.truncated ? page.cursor : undefined;
    }
    await mapLimited(keys, 8, async (key) => {
      const object = await bucket.get(key);
      await bucket.put(`${to}${key.slice(from.length)}`, await object!.arrayBuffer());
    });
    // The same store, its head naming only the base level: the recent level's ranges are sealed
    // (raw blocks, transaction tables) but in no index level.
    const head = decodeHead(
      new Uint8Array(await (await bucket.get(`${from}${headKey(chain.network)}`))!.arrayBuffer()),
    );
    const { epochRanges, levels } = head.history!;
    const base = Math.floor(head.rangeCount / epochRanges) * epochRanges;
    expect(base).toBeGreaterThan(0);
    expect(base).toBeLessThan(head.rangeCount);
    const lagging: HeadObject = {
      ...head,
      history: { version: 2, epochRanges, rangeCount: base, levels: levels.slice(0, 1) },
    };
    await bucket.put(`${to}${headKey(chain.network)}`, encodeHead(lagging));
    indexedTip = historyIndexedTip(lagging)!;
    const edgeEnv = chainEnv(chain, "good", { STORE_PREFIX: `${prefixOf(chain)}-lagging` });
    sides = { chain, edge: clientsFor(edgeEnv)[1]![1], origin: originClient(chain) };
  }, 180_000);

  it("answers transactions in the ranges the levels lack as the origin does", async () => {
    const { chain } = sides;
    const unindexed = chain.txs.filter((tx) => tx.height > indexedTip && tx.height <= chain.sealedTip);
    expect(unindexed.length).toBeGreaterThan(0);
    const sample = [...unindexed, ...chain.txs.filter((tx, i) => tx.height <= indexedTip && i % 4 === 0)];
    expect(await compareTransactions(sides, sample)).toBe(2 * sample.length);
  }, 300_000);

  it("answers balances, unspent outputs and address transactions across the levels' last height", async () => {
    const { chain } = sides;
    // The capped origin refuses the whole list's records above the levels (so the edge's answers
    // below can only equal the origin's by asking it for them whole); the other answers.
    const history = createClient(
      History,
      createConnectTransport({ baseUrl: chain.origin, fetch: originFetch, useBinaryFormat: true }),
    );
    const tail = history.tailAddresses({ addresses: chain.addresses, aboveHeight: BigInt(indexedTip) });
    if (name === "capped") await expect(tail).rejects.toMatchObject({ code: Code.ResourceExhausted });
    else expect((await tail).records.length / RECORD_BYTES).toBeGreaterThan(20);
    await compareBalance(sides, chain.addresses);
    await compareUtxos(sides, chain.addresses);
    await mapLimited(chain.addresses, 3, async (address) => {
      await compareBalance(sides, [address]);
      await compareUtxos(sides, [address], 0, 0, false);
    });
    for (const address of chain.busiest.slice(0, 4)) {
      await compareAddressTransactions(sides, address, chain.firstHeight, 0);
      await compareAddressTransactions(sides, address, indexedTip - 5, chain.sealedTip);
      await compareAddressTransactions(sides, address, indexedTip + 1, 0, "getTaddressTxids");
    }
  }, 300_000);
});
