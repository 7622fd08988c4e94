import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LightedgeError } from "../../../proto/errors.ts";
import { decodeFrames } from "../../../proto/frame.ts";
import { BlockIDSchema, BlockRangeSchema, PoolType } from "../../../proto/index.ts";
import type { ChainView } from "../../index/chain-view.ts";
import { BufferPool } from "../../store/index.ts";
import { createOriginServer, type OriginServer } from "../origin-server.ts";
import { clientFor, PROTOCOLS, type Stack, startStack } from "../testing.ts";
import type { FastProtocol } from "./detect.ts";
import { rawCall } from "./raw-call.ts";
import { hookedView, type ViewHooks } from "./view-hooks.ts";

let stack: Stack;
const fastCalls: string[] = [];
let hooks: ViewHooks = {};
let fast: OriginServer;
let slow: OriginServer;
let pooled: OriginServer;
// Every range object pooled (the default pools from 64 KiB, more than a test range holds).
const readPool = new BufferPool({ minBytes: 1 });

const serve = (chain: ChainView, fastPath: boolean, pool?: BufferPool) =>
  createOriginServer({
    chain,
    node: stack.node,
    network: "regtest",
    fastPath,
    readPool: pool,
    observer: { observe() {}, fastPath: (rpc, protocol) => fastCalls.push(`${rpc} ${protocol}`) },
    listen: { host: "127.0.0.1", port: 0 },
  });

beforeAll(async () => {
  stack = await startStack({ blocks: 60, seed: "fast-path" });
  // Both servers read the same indexer through the same hooks; only the fast path differs.
  const view = hookedView(stack.indexer.view, {
    beforeBlock: (i, b) => hooks.beforeBlock?.(i, b),
    streamClosed: () => hooks.streamClosed?.(),
  });
  fast = await serve(view, true);
  slow = await serve(view, false);
  pooled = await serve(stack.indexer.view, true, readPool);
});
afterAll(async () => {
  await pooled?.close();
  await fast?.close();
  await slow?.close();
  await stack?.close();
});

const range = (start: number, end: number, poolTypes: PoolType[] = []) =>
  toBinary(
    BlockRangeSchema,
    create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) }, poolTypes }),
  );
const blockId = (height: number) =>
  toBinary(BlockIDSchema, create(BlockIDSchema, { height: BigInt(height) }));
const FRAMED: FastProtocol[] = ["grpc", "grpc-web", "connect-stream"];

/** The same call to the fast-path server and to the connect-node-only server. */
async function both(
  protocol: FastProtocol,
  rpc: string,
  message: Uint8Array,
  headers?: Record<string, string>,
) {
  fastCalls.length = 0;
  const a = await rawCall(fast.url, protocol, rpc, message, headers);
  const taken = fastCalls.length;
  const b = await rawCall(slow.url, protocol, rpc, message, headers);
  expect(taken).toBe(1);
  expect(fastCalls).toHaveLength(1);
  return { fast: a, slow: b };
}

function expectSame(r: Awaited<ReturnType<typeof both>>) {
  expect(r.fast.status).toBe(r.slow.status);
  expect(r.fast.contentType).toBe(r.slow.contentType);
  expect(r.fast.trailers).toEqual(r.slow.trailers);
  expect(r.fast.body.equals(r.slow.body)).toBe(true);
}

/** The status a framed response ends with (gRPC trailers, gRPC-web trailer frame, Connect end-stream). */
function statusOf(protocol: FastProtocol, r: { body: Buffer; trailers: Record<string, string> }): string {
  if (protocol === "grpc") return r.trailers["grpc-status"] ?? "none";
  const last = [...decodeFrames(r.body)].at(-1)!;
  const text = Buffer.from(last.message).toString();
  if (protocol === "grpc-web") return /grpc-status: (\d+)/.exec(text)?.[1] ?? "none";
  return JSON.parse(text).error?.code ?? "0";
}

describe.each(FRAMED)("the fast path over %s", (protocol) => {
  it("answers ranges byte for byte as connect-node does: ascending, descending, across the seam", async () => {
    const tip = stack.indexer.view.tip()!.height;
    for (const [from, to] of [
      [tip - 30, tip],
      [tip, tip - 30],
      [3, 3],
    ] as const) {
      const r = await both(protocol, "GetBlockRange", range(from, to));
      expectSame(r);
      expect([...decodeFrames(r.fast.body)].length).toBe(
        Math.abs(to - from) + 1 + (protocol === "grpc" ? 0 : 1),
      );
      expect(statusOf(protocol, r.fast)).toMatch(/^(0)$/);
    }
  });

  it("reuses read buffers across concurrent streams with every byte in place (BufferPool)", async () => {
    const tip = stack.indexer.view.tip()!.height;
    const ranges = [
      [0, tip],
      [5, 37],
      [10, 29],
      [0, 19],
      [23, tip - 1],
      [tip - 2, tip],
    ] as const;
    const expected = new Map<string, Buffer>();
    for (const [from, to] of ranges)
      expected.set(
        `${from}-${to}`,
        (await rawCall(slow.url, protocol, "GetBlockRange", range(from, to))).body,
      );
    for (let round = 0; round < 3; round++) {
      const calls = ranges.flatMap(([from, to]) =>
        [0, 1, 2].map(async () => {
          const r = await rawCall(pooled.url, protocol, "GetBlockRange", range(from, to));
          return r.body.equals(expected.get(`${from}-${to}`)!);
        }),
      );
      expect(await Promise.all(calls)).toEqual(calls.map(() => true));
    }
    // The buffers came back after their writes, and were lent again.
    expect(readPool.freeBytes).toBeGreaterThan(0);
  });

  it("answers nullifier ranges, filtered pool sets and GetBlock byte for byte", async () => {
    expectSame(await both(protocol, "GetBlockRangeNullifiers", range(20, 40)));
    expectSame(await both(protocol, "GetBlockRange", range(40, 44, [PoolType.TRANSPARENT])));
    expectSame(await both(protocol, "GetBlockRangeNullifiers", range(44, 40, [PoolType.SAPLING])));
    if (protocol !== "connect-stream") {
      expectSame(await both(protocol, "GetBlock", blockId(17)));
      expectSame(await both(protocol, "GetBlockNullifiers", blockId(55)));
    }
  });

  it("streams a range that runs past the tip up to the tip, then OutOfRange (lightwalletd); bad requests are InvalidArgument", async () => {
    const tip = stack.indexer.view.tip()!.height;
    const frameCount = (r: { body: Buffer }) =>
      [...decodeFrames(r.body)].length - (protocol === "grpc" ? 0 : 1);
    const outOfRange = protocol === "connect-stream" ? "out_of_range" : String(Code.OutOfRange);
    const above = await both(protocol, "GetBlockRange", range(tip - 2, tip + 5));
    expectSame(above);
    expect(statusOf(protocol, above.fast)).toBe(outOfRange);
    expect(frameCount(above.fast)).toBe(3);
    // Descending from above the tip: the first block asked for is missing, so none is sent.
    const down = await both(protocol, "GetBlockRange", range(tip + 5, tip - 2));
    expectSame(down);
    expect(statusOf(protocol, down.fast)).toBe(outOfRange);
    expect(frameCount(down.fast)).toBe(0);
    const filtered = await both(
      protocol,
      "GetBlockRangeNullifiers",
      range(tip - 1, tip + 1, [PoolType.SAPLING]),
    );
    expectSame(filtered);
    expect(frameCount(filtered.fast)).toBe(2);
    const noEnd = toBinary(BlockRangeSchema, create(BlockRangeSchema, { start: { height: 1n } }));
    const bad = await both(protocol, "GetBlockRange", noEnd);
    expectSame(bad);
    expect(statusOf(protocol, bad.fast)).toBe(
      protocol === "connect-stream" ? "invalid_argument" : String(Code.InvalidArgument),
    );
  });

  it("ends a stream broken mid-way (chain-break) with Aborted after the blocks before it, as connect-node", async () => {
    hooks = {
      beforeBlock: (i) => {
        if (i === 3)
          throw new LightedgeError("chain-break", "test", "blocks 13 and 14 do not chain (reorg mid-stream)");
      },
    };
    try {
      const r = await both(protocol, "GetBlockRange", range(10, 20));
      expectSame(r);
      expect(statusOf(protocol, r.fast)).toBe(
        protocol === "connect-stream" ? "aborted" : String(Code.Aborted),
      );
      expect([...decodeFrames(r.fast.body)].length).toBe(3 + (protocol === "grpc" ? 0 : 1));
    } finally {
      hooks = {};
    }
  });

  it("ends with DeadlineExceeded when the request's timeout passes, as connect-node", async () => {
    hooks = { beforeBlock: () => new Promise((r) => setTimeout(r, 40)) };
    const timeout: Record<string, string> =
      protocol === "connect-stream" ? { "connect-timeout-ms": "100" } : { "grpc-timeout": "100m" };
    try {
      const r = await both(protocol, "GetBlockRange", range(1, 30), timeout);
      for (const side of [r.fast, r.slow]) {
        expect(statusOf(protocol, side)).toBe(
          protocol === "connect-stream" ? "deadline_exceeded" : String(Code.DeadlineExceeded),
        );
      }
    } finally {
      hooks = {};
    }
  });
});

describe("the fast path", () => {
  it("answers Connect unary GetBlock byte for byte, errors as JSON with their HTTP status", async () => {
    expectSame(await both("connect-unary", "GetBlock", blockId(9)));
    const missing = await both("connect-unary", "GetBlock", blockId(10_000));
    expectSame(missing);
    expect(missing.fast.status).toBe(400);
    expect(JSON.parse(missing.fast.body.toString()).code).toBe("out_of_range");
  });

  it("is taken by connect-node clients in binary protocols, and not for JSON", async () => {
    for (const protocol of PROTOCOLS) {
      fastCalls.length = 0;
      const client = clientFor(protocol, fast.url);
      const blocks = [];
      for await (const b of client.getBlockRange({ start: { height: 5n }, end: { height: 9n } }))
        blocks.push(b);
      expect(blocks.map((b) => Number(b.height))).toEqual([5, 6, 7, 8, 9]);
      expect((await client.getBlock({ height: 4n })).height).toBe(4n);
      expect(fastCalls).toHaveLength(2);
    }
    fastCalls.length = 0;
    const json = await fetch(`${fast.url}/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ height: "4" }),
    });
    expect((await json.json()).height).toBe("4");
    expect(fastCalls).toHaveLength(0);
  });

  it("gives pooled buffers back when clients go away mid-stream; later streams are whole", async () => {
    const tip = stack.indexer.view.tip()!.height;
    const expected = (await rawCall(slow.url, "grpc", "GetBlockRange", range(0, tip))).body;
    for (const protocol of PROTOCOLS)
      for (let after = 1; after <= 41; after += 10) {
        const abort = new AbortController();
        const stream = clientFor(protocol, pooled.url).getBlockRange(
          { start: { height: 0n }, end: { height: BigInt(tip) } },
          { signal: abort.signal },
        );
        let seen = 0;
        try {
          for await (const _ of stream) {
            if (++seen === after) {
              abort.abort();
              break;
            }
          }
        } catch {
          // Canceled: the client's own abort.
        }
      }
    const again = await Promise.all(
      [0, 1, 2, 3].map(() => rawCall(pooled.url, "grpc", "GetBlockRange", range(0, tip))),
    );
    for (const r of again) expect(r.body.equals(expected)).toBe(true);
  });

  it("stops reading the chain when the client goes away", async () => {
    let closed!: () => void;
    const streamClosed = new Promise<void>((r) => (closed = r));
    hooks = { beforeBlock: () => new Promise((r) => setTimeout(r, 30)), streamClosed: () => closed() };
    try {
      const abort = new AbortController();
      const stream = clientFor("grpc", fast.url).getBlockRange(
        { start: { height: 1n }, end: { height: 50n } },
        { signal: abort.signal },
      );
      for await (const _ of stream) {
        abort.abort();
        break;
      }
      const t0 = Date.now();
      await streamClosed;
      expect(Date.now() - t0).toBeLessThan(1000);
    } finally {
      hooks = {};
    }
  });

  it("ends a range with Aborted when a real reorg cuts through it mid-stream", async () => {
    const tip = stack.indexer.view.tip()!.height;
    const replaced = await stack.indexer.view.blockMeta(tip - 3);
    hooks = {
      beforeBlock: async (i) => {
        if (i !== 3) return;
        hooks = {};
        // tip-5..tip-2 are read (tip-2 is in hand); tip-3..tip are now replaced by a new branch,
        // so the new tip-1 does not chain onto the old tip-2.
        await stack.control("reorg", { depth: 4 });
        for (let k = 0; k < 200; k++) {
          const now = await stack.indexer.view.blockMeta(tip - 3);
          if (now && Buffer.compare(now.wireHash, replaced!.wireHash) !== 0) return;
          await new Promise((r) => setTimeout(r, 25));
        }
        throw new Error("the indexer did not follow the reorg");
      },
    };
    const got: number[] = [];
    const err = await (async () => {
      for await (const b of clientFor("grpc", fast.url).getBlockRange({
        start: { height: BigInt(tip - 5) },
        end: { height: BigInt(tip) },
      }))
        got.push(Number(b.height));
    })().then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(got).toEqual([tip - 5, tip - 4, tip - 3, tip - 2]);
    expect(err?.code).toBe(Code.Aborted);
    expect(err?.rawMessage).toMatch(/^GetBlockRange: /);
  });
});
