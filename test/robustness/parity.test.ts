import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientFor, PROTOCOLS, type Stack, startStack } from "../../origin/serve/testing.ts";
import type { CompactBlock } from "../../proto/index.ts";

/** Behaviour matched to lightwalletd (frontend/service.go, common/common.go), each cited in the code. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ blocks: 40, seed: "parity" });
});
afterAll(() => stack?.close());

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const displayHex = (b: Uint8Array) => Buffer.from(b).reverse().toString("hex");

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("GetBlockNullifiers", () => {
  it("keeps every transaction of GetBlock, each stripped to its nullifiers (fast path and connect-node)", async () => {
    for (const protocol of PROTOCOLS) {
      const c = clientFor(protocol, stack.server.url);
      for (const height of [1n, 20n, 39n]) {
        const full: CompactBlock = await c.getBlock({ height });
        const nf: CompactBlock = await c.getBlockNullifiers({ height });
        // Every block has a coinbase with no nullifiers: lightwalletd keeps it.
        expect(nf.vtx.map((t) => hex(t.txid))).toEqual(full.vtx.map((t) => hex(t.txid)));
        expect(nf.vtx.map((t) => t.index)).toEqual(full.vtx.map((t) => t.index));
        for (const [i, tx] of nf.vtx.entries()) {
          expect(tx.outputs).toEqual([]);
          expect(tx.vin).toEqual([]);
          expect(tx.vout).toEqual([]);
          expect(tx.spends.map((s) => hex(s.nf))).toEqual(full.vtx[i]!.spends.map((s) => hex(s.nf)));
          expect(tx.actions.map((a) => [hex(a.nullifier), a.cmx.length, a.ciphertext.length])).toEqual(
            full.vtx[i]!.actions.map((a) => [hex(a.nullifier), 0, 0]),
          );
        }
        expect(nf.chainMetadata?.saplingCommitmentTreeSize ?? 0).toBe(0);
        expect(nf.chainMetadata?.orchardCommitmentTreeSize ?? 0).toBe(0);
      }
    }
  });
});

describe("GetBlockRange past the tip", () => {
  it("streams the blocks that exist, then OutOfRange; descending from above the tip sends none", async () => {
    const tip = stack.indexer.view.tip()!.height;
    for (const protocol of PROTOCOLS) {
      const c = clientFor(protocol, stack.server.url);
      for (const [start, end, want] of [
        [tip - 2, tip + 5, [tip - 2, tip - 1, tip]],
        [tip + 5, tip - 2, []],
      ] as const) {
        const got: number[] = [];
        const err = await (async () => {
          for await (const b of c.getBlockRange({
            start: { height: BigInt(start) },
            end: { height: BigInt(end) },
          }))
            got.push(Number(b.height));
        })().then(
          () => undefined,
          (e: unknown) => ConnectError.from(e),
        );
        expect(got).toEqual(want);
        expect(err?.code).toBe(Code.OutOfRange);
        expect(err?.rawMessage).toMatch(/^GetBlockRange: height \d+ is above the tip/);
      }
    }
  });
});

describe("GetMempoolTx", () => {
  it("sends transactions in ascending display-txid order", async () => {
    await stack.control("mempool", { count: 12 });
    const all = await collect(clientFor("grpc", stack.server.url).getMempoolTx({ poolTypes: [] }));
    const ids = all.map((t) => displayHex(t.txid));
    expect(ids.length).toBeGreaterThan(1);
    expect(ids).toEqual([...ids].sort());
  });
});
