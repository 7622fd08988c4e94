import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ShieldedProtocol } from "../../proto/index.ts";
import { MAX_ADDRESSES } from "../../proto/wire/limits.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { fixture, testEnv } from "../testing/fixture.ts";

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
      expect((await collect(client.getTaddressTransactions({ address: taddr }))).items.length).toBe(1);
      expect(
        (await collect(client.getTaddressTxids({ address: taddr }))).items[0]?.data.length,
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
