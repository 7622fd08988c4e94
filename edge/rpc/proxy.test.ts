import { env } from "cloudflare:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ShieldedProtocol } from "../../proto/index.ts";
import { decodeHead, headKey } from "../../proto/range/index.ts";
import { encodeTreeStateRange, treeStateKey } from "../../proto/treestate/index.ts";
import { MAX_ADDRESSES } from "../../proto/wire/limits.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { fixture, seedBucket, testEnv } from "../testing/fixture.ts";

const taddr = "t1XVXWCvpMgBvUaed4XDqWtgQgJSu1Ghz7F";

describe.skipIf(fixture === null)("node-only RPCs proxied to the origin", () => {
  describe.each(clientsFor(testEnv("good")))("over %s", (_name, client) => {
    it("passes unary calls through with the secret", async () => {
      const tx = await client.getTransaction({ hash: new Uint8Array(32) });
      expect(tx.data.length).toBeGreaterThan(100);
      const sent = await client.sendTransaction({ data: new Uint8Array(300) });
      expect(sent).toMatchObject({ errorCode: -26, errorMessage: "rejected 300-byte transaction" });
      expect((await client.getTaddressBalance({ addresses: [taddr, taddr] })).valueZat).toBe(2000n);
      expect((await client.getTreeState({ height: 1000000n })).saplingTree).toMatch(/^01/);
      expect((await client.getLatestTreeState({})).network).toBe("main");
      expect((await client.getAddressUtxos({ addresses: [taddr] })).addressUtxos[0]?.address).toBe(taddr);
    });

    it("passes server streams through", async () => {
      expect((await collect(client.getMempoolTx({}))).items.length).toBe(1);
      expect((await collect(client.getMempoolStream({}))).items[0]?.height).toBe(0n);
      const roots = await collect(
        client.getSubtreeRoots({ shieldedProtocol: ShieldedProtocol.sapling, startIndex: 4 }),
      );
      expect(roots.items[0]?.completingBlockHeight).toBe(5n);
      expect((await collect(client.getAddressUtxosStream({ addresses: [taddr] }))).items.length).toBe(1);
      const range = { start: { height: 663150n } };
      expect((await collect(client.getTaddressTransactions({ address: taddr, range }))).items.length).toBe(1);
      expect(
        (await collect(client.getTaddressTxids({ address: taddr, range }))).items[0]?.data.length,
      ).toBeGreaterThan(100);
    });

    it("refuses over-limit address and exclude lists before asking the origin", async () => {
      const many = Array.from({ length: MAX_ADDRESSES + 1 }, (_, i) => `t1${String(i).padStart(33, "0")}`);
      const err = await client.getTaddressBalance({ addresses: many }).catch((e) => ConnectError.from(e));
      expect(err).toMatchObject({ code: Code.ResourceExhausted });
      const bad = await collect(client.getMempoolTx({ excludeTxidSuffixes: [new Uint8Array(33)] }));
      expect(ConnectError.from(bad.error).code).toBe(Code.InvalidArgument);
      expect(ConnectError.from(bad.error).rawMessage).toMatch(/^GetMempoolTx: /);
    });
  });

  it("answers GetLatestTreeState at GetLatestBlock's tip; with the origin down, the sealed tip's stored state", async () => {
    await seedBucket();
    // The sealed tip's tree-state object (the seeded ranges carry none): its tip entry has the
    // tip's own hash, so a stored answer is told apart from any origin's.
    const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;
    const head = decodeHead(new Uint8Array(await (await bucket.get(headKey("mainnet")))!.arrayBuffer()));
    const tipHeight = head.tip!.height;
    const first = Math.floor(tipHeight / head.rangeSize) * head.rangeSize;
    const tipWire = Uint8Array.from(Buffer.from(head.tip!.displayHash, "hex").reverse());
    const blocks = Array.from({ length: tipHeight - first + 1 }, (_, i) => ({
      height: first + i,
      wireHash: first + i === tipHeight ? tipWire : new Uint8Array(32).fill(i + 1),
      time: 1_700_000_000 + i,
      sapling: { left: new Uint8Array(32).fill(3), parents: [] },
    }));
    await bucket.put(
      treeStateKey("mainnet", head.rangeSize, first / head.rangeSize),
      encodeTreeStateRange({ network: "main", blocks }),
    );
    for (const origin of ["good", "down"] as const) {
      const [, client] = clientsFor(testEnv(origin))[0]!;
      const tip = await client.getLatestBlock({});
      const state = await client.getLatestTreeState({});
      expect(state.height, origin).toBe(tip.height);
      // The stored state is the sealed block's own (the test origin's tail tree states come from
      // its stand-in node, whose hashes are its own).
      if (origin === "down") expect(state.hash).toBe(Buffer.from(tip.hash).reverse().toString("hex"));
      expect(state.network, origin).toBe("main");
      expect(await client.getLatestTreeState({}), origin).toEqual(state);
    }
  });

  it("answers Unavailable within a second when the origin is down", async () => {
    const [, client] = clientsFor(testEnv("down"))[0]!;
    const t0 = Date.now();
    const err = await client.getTransaction({ hash: new Uint8Array(32) }).catch((e) => ConnectError.from(e));
    expect(err).toMatchObject({ code: Code.Unavailable });
    expect((err as ConnectError).rawMessage).toMatch(/^GetTransaction: /);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("gives up on an origin that accepts but never answers within about a second", async () => {
    const [, client] = clientsFor(testEnv("hung"))[0]!;
    const t0 = Date.now();
    const err = await client.getTreeState({ height: 1n }).catch((e) => ConnectError.from(e));
    expect(err).toMatchObject({ code: Code.Unavailable });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(Date.now() - t0).toBeLessThan(1500);
  });
});
