import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import { PoolType, ShieldedProtocol } from "../../proto/index.ts";
import { codeOf } from "../../test/support/connect-code.ts";
import { computeTxid } from "../chain/index.ts";
import { knownScripts, scriptAddress } from "../devnode/index.ts";
import { blockRandom } from "../devnode/prng.ts";
import { buildTx } from "../devnode/tx-builder.ts";
import { collect } from "../index/testing.ts";
import { LIGHTWALLET_PROTOCOL_VERSION } from "./lightd-info.ts";
import { clientFor, PROTOCOLS, type Stack, startStack } from "./testing.ts";
import { MAX_SEND_BYTES } from "./transactions.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ blocks: 60, seed: "node-rpcs", donationAddress: "u1donate", ping: true });
});
afterAll(() => stack?.close());

const wire = (display: string) => new Uint8Array(Buffer.from(display, "hex").reverse());
const address = (k: number) => scriptAddress(knownScripts()[k]!, "regtest")!;
let sendCounter = 0;
const freshTx = () =>
  buildTx(
    {
      version: 5,
      vin: [],
      vout: [],
      saplingSpends: 0,
      saplingOutputs: 1,
      orchardActions: 2,
      ironwoodActions: 0,
      lockTime: ++sendCounter,
      expiryHeight: 0,
    },
    blockRandom("send-test", 0, sendCounter),
  );

describe.each(PROTOCOLS)("node-backed RPCs over %s", (protocol) => {
  const client = () => clientFor(protocol, stack.server.url);

  it("answers GetTransaction with the mined height, and height 0 for a mempool transaction", async () => {
    const block = stack.dev.chain.block(7);
    const mined = await client().getTransaction({ hash: wire(block.txids[0]!) });
    expect(mined.height).toBe(7n);
    expect(displayHex(computeTxid(mined.data))).toBe(block.txids[0]);
    const added = ((await stack.control("mempool", { count: 1 })) as { added: string[] }).added[0]!;
    expect((await client().getTransaction({ hash: wire(added) })).height).toBe(0n);
  });

  it("answers GetTransaction errors: NotFound for unknown txids, InvalidArgument for bad ones", async () => {
    expect(await codeOf(client().getTransaction({ hash: new Uint8Array(32).fill(9) }))).toBe(Code.NotFound);
    expect(await codeOf(client().getTransaction({ hash: new Uint8Array(31) }))).toBe(Code.InvalidArgument);
  });

  it("answers GetTransaction by block and index: height or hash (either byte order), NotFound past the block", async () => {
    const block = stack.dev.chain.block(5);
    const byTxid = await client().getTransaction({ hash: wire(block.txids[1]!) });
    const hash = wire(stack.dev.chain.hashAt(5));
    for (const id of [{ height: 5n }, { hash }, { hash: hash.slice().reverse() }]) {
      const tx = await client().getTransaction({ block: id, index: 1n });
      expect(tx).toEqual(byTxid);
    }
    expect((await client().getTransaction({ block: { height: 5n }, index: 0n })).height).toBe(5n);
    const count = BigInt(block.txids.length);
    const past = await client()
      .getTransaction({ block: { height: 5n }, index: count })
      .catch((e: unknown) => e as { code: Code; rawMessage: string });
    expect(past).toMatchObject({
      code: Code.NotFound,
      rawMessage: `GetTransaction: block 5 has no transaction ${count}`,
    });
    expect(await codeOf(client().getTransaction({ block: { height: 1_000_000n }, index: 0n }))).toBe(
      Code.OutOfRange,
    );
    expect(await codeOf(client().getTransaction({ block: { hash: new Uint8Array(32).fill(3) } }))).toBe(
      Code.NotFound,
    );
    expect(await codeOf(client().getTransaction({ block: { hash: new Uint8Array(5) } }))).toBe(
      Code.InvalidArgument,
    );
  });

  it("sends a transaction, reports node rejections inside SendResponse, refuses oversized ones", async () => {
    const tx = freshTx();
    const sent = await client().sendTransaction({ data: tx });
    expect(sent).toMatchObject({ errorCode: 0, errorMessage: displayHex(computeTxid(tx)) });
    const again = await client().sendTransaction({ data: tx });
    expect(again.errorCode).toBe(-26);
    expect(again.errorMessage).toMatch(/already/);
    const garbage = await client().sendTransaction({ data: Uint8Array.of(1, 2, 3) });
    expect(garbage.errorCode).toBe(-22);
    expect(await codeOf(client().sendTransaction({ data: new Uint8Array(MAX_SEND_BYTES + 1) }))).toBe(
      Code.InvalidArgument,
    );
  });

  it("answers tree states by height, by hash and at the tip", async () => {
    const node = await stack.node.treeState(30);
    const byHeight = await client().getTreeState({ height: 30n });
    expect(byHeight).toMatchObject({
      network: "regtest",
      height: 30n,
      hash: node.hash,
      saplingTree: node.sapling.commitments.finalState ?? "",
    });
    expect(byHeight.orchardTree).toBe(node.orchard.commitments.finalState ?? "");
    expect(byHeight.ironwoodTree).toBe(node.ironwood?.commitments.finalState ?? "");
    const byHash = await client().getTreeState({ hash: wire(node.hash) });
    expect(byHash.height).toBe(30n);
    const latest = await client().getLatestTreeState({});
    expect(latest.height).toBe(BigInt(stack.indexer.view.tip()!.height));
    expect(await codeOf(client().getTreeState({ height: 10_000n }))).toBe(Code.OutOfRange);
    // A hash no block has: NotFound (the node's "Block not found" is not "above the tip").
    expect(await codeOf(client().getTreeState({ hash: new Uint8Array(32).fill(7) }))).toBe(Code.NotFound);
  });

  it("streams subtree roots with the completing block's display-order hash, as lightwalletd", async () => {
    const node = await stack.node.subtrees("sapling", 0);
    const roots = await collect(client().getSubtreeRoots({ shieldedProtocol: ShieldedProtocol.sapling }));
    expect(roots.length).toBe(node.subtrees.length);
    for (const [i, root] of roots.entries()) {
      const want = node.subtrees[i]!;
      expect(Buffer.from(root.rootHash).toString("hex")).toBe(want.root);
      expect(root.completingBlockHeight).toBe(BigInt(want.end_height));
      // lightwalletd frontend/service.go: hash32.ReverseSlice(block.Hash), i.e. the display hex's bytes.
      expect(Buffer.from(root.completingBlockHash).toString("hex")).toBe(
        stack.dev.chain.hashAt(want.end_height),
      );
    }
    expect(await codeOf(collect(client().getSubtreeRoots({ shieldedProtocol: 9 as ShieldedProtocol })))).toBe(
      Code.InvalidArgument,
    );
  });

  it("answers the transparent address RPCs as the node does, filtered again", async () => {
    const a = address(0);
    const txids = await stack.node.addressTxids({ addresses: [a], start: 1, end: stack.dev.chain.tip() });
    const txs = await collect(
      client().getTaddressTransactions({ address: a, range: { start: { height: 1n } } }),
    );
    expect(txs.map((t) => displayHex(computeTxid(t.data)))).toEqual(txids);
    const legacy = await collect(
      client().getTaddressTxids({ address: a, range: { start: { height: 1n }, end: { height: 20n } } }),
    );
    expect(legacy.every((t) => t.height >= 1n && t.height <= 20n)).toBe(true);
    const balance = await stack.node.addressBalance([a, address(1)]);
    expect((await client().getTaddressBalance({ addresses: [a, address(1), a] })).valueZat).toBe(
      BigInt(balance.balance),
    );
    const utxos = await client().getAddressUtxos({ addresses: [a], startHeight: 20n, maxEntries: 3 });
    expect(utxos.addressUtxos.length).toBeLessThanOrEqual(3);
    expect(utxos.addressUtxos.every((u) => u.height >= 20n && u.address === a)).toBe(true);
    const streamed = await collect(
      client().getAddressUtxosStream({ addresses: [a], startHeight: 20n, maxEntries: 3 }),
    );
    expect(streamed.map((u) => u.txid)).toEqual(utxos.addressUtxos.map((u) => u.txid));
    expect(await codeOf(client().getTaddressBalance({ addresses: ["not-an-address"] }))).toBe(
      Code.InvalidArgument,
    );
    expect(await codeOf(collect(client().getTaddressTxids({ address: a })))).toBe(Code.InvalidArgument);
  });

  it("lists the mempool as CompactTxs with suffix exclusion and pool filters", async () => {
    const added = ((await stack.control("mempool", { count: 2 })) as { added: string[] }).added;
    const all = await collect(client().getMempoolTx({}));
    const ids = all.map((t) => displayHex(t.txid));
    expect(ids).toEqual(expect.arrayContaining(added));
    const suffix = wire(added[0]!).subarray(28);
    const without = await collect(client().getMempoolTx({ excludeTxidSuffixes: [suffix] }));
    expect(without.map((t) => displayHex(t.txid))).not.toContain(added[0]);
    expect(without.length).toBe(all.length - 1);
    const transparentOnly = await collect(client().getMempoolTx({ poolTypes: [PoolType.TRANSPARENT] }));
    expect(transparentOnly.every((t) => t.actions.length === 0 && t.outputs.length === 0)).toBe(true);
  });

  it("answers GetLightdInfo with every field", async () => {
    const info = await client().getLightdInfo({});
    expect(info).toMatchObject({
      vendor: "lightedge",
      taddrSupport: true,
      chainName: "regtest",
      blockHeight: BigInt(stack.indexer.view.tip()!.height),
      donationAddress: "u1donate",
      lightwalletProtocolVersion: LIGHTWALLET_PROTOCOL_VERSION,
    });
    expect(info.consensusBranchId).toMatch(/^[0-9a-f]{8}$/);
    expect(info.zcashdSubversion).not.toBe("");
    // Every upgrade is active from height 1 on regtest: none pending (lightwalletd common/common.go).
    expect(info.upgradeName).toBe("");
    expect(info.upgradeHeight).toBe(0n);
  });

  it("answers Ping when enabled", async () => {
    const pong = await client().ping({ intervalUs: 1000n });
    expect(pong.entry).toBeGreaterThanOrEqual(1n);
  });
});

describe("client streaming and the mempool stream", () => {
  it("sums GetTaddressBalanceStream over a client stream (gRPC and Connect on HTTP/2)", async () => {
    const a = [address(0), address(1)];
    const want = BigInt((await stack.node.addressBalance(a)).balance);
    async function* requests() {
      for (const address of [...a, a[0]!]) yield { address };
    }
    for (const protocol of ["grpc", "connect"] as const) {
      const client = clientFor(protocol, stack.server.url, { httpVersion: "2" });
      expect((await client.getTaddressBalanceStream(requests())).valueZat).toBe(want);
    }
  });

  it("streams the mempool, then new transactions, and closes when the tip changes", async () => {
    const client = clientFor("grpc", stack.server.url);
    const before = (await stack.node.rawMempool()).length;
    const stream = client.getMempoolStream({})[Symbol.asyncIterator]();
    for (let i = 0; i < before; i++) expect((await stream.next()).done).toBe(false);
    const [added] = ((await stack.control("mempool", { count: 1 })) as { added: string[] }).added;
    const next = await stream.next();
    expect(next.done).toBe(false);
    expect(displayHex(computeTxid(next.value!.data))).toBe(added);
    expect(next.value!.height).toBe(0n);
    const tip = stack.indexer.view.tip()!.height;
    await stack.control("mine", { blocks: 1 });
    await stack.waitForTip(tip + 1);
    expect((await stream.next()).done).toBe(true);
  });
});
