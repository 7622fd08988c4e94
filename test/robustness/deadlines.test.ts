import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeClient, type NodeClient } from "../../origin/node/index.ts";
import type { FastProtocol } from "../../origin/serve/fast/detect.ts";
import { rawCall } from "../../origin/serve/fast/raw-call.ts";
import { createOriginServer, type OriginServer } from "../../origin/serve/origin-server.ts";
import { clientFor, PROTOCOLS, type Stack, startStack } from "../../origin/serve/testing.ts";
import { decodeFrames } from "../../proto/frame.ts";
import { BlockRangeSchema } from "../../proto/index.ts";
import { base58check, TADDR_PREFIXES } from "../../proto/taddress.ts";

let stack: Stack;
let node: NodeClient;
const servers: OriginServer[] = [];

beforeAll(async () => {
  stack = await startStack({ blocks: 30, seed: "deadlines" });
  // The node client as production configures it: 30 s per request, 3 retries.
  node = createNodeClient({ url: stack.dev.url });
});
afterAll(async () => {
  await stack.control("clear");
  for (const s of servers) await s.close();
  node?.close();
  await stack?.close();
});

const serve = async (fastPath: boolean, maxInFlight = 2) => {
  const server = await createOriginServer({
    chain: stack.indexer.view,
    node,
    network: "regtest",
    fastPath,
    nodeGate: { maxInFlight, publicShare: 1, queueTimeoutMs: 1000 },
    listen: { host: "127.0.0.1", port: 0 },
  });
  servers.push(server);
  return server;
};

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => Code[ConnectError.from(e).code],
  );

describe("client deadlines at the origin, the node stalled", () => {
  it("answer node-backed RPCs with DeadlineExceeded at the client's deadline and free the node gate", async () => {
    const server = await serve(true);
    await stack.control("stall", { ms: 20_000 });
    try {
      // Two gate slots: each call must give its slot back at its deadline, or the calls after them
      // would wait for a stalled node (30 s × 4 attempts) and be refused by the gate.
      for (const protocol of PROTOCOLS) {
        const c = clientFor(protocol, server.url);
        const opts = { timeoutMs: 300 };
        expect(await codeOf(c.getLightdInfo({}, opts))).toBe("DeadlineExceeded");
        expect(await codeOf(c.getTransaction({ hash: new Uint8Array(32).fill(7) }, opts))).toBe(
          "DeadlineExceeded",
        );
        expect(await codeOf(c.getTreeState({ hash: new Uint8Array(32).fill(0xab) }, opts))).toBe(
          "DeadlineExceeded",
        );
      }
      const c = clientFor("grpc", server.url);
      const opts = { timeoutMs: 300 };
      expect(await codeOf(c.getTaddressBalance({ addresses: [REGTEST_ADDRESS] }, opts))).toBe(
        "DeadlineExceeded",
      );
      expect(await codeOf(c.sendTransaction({ data: new Uint8Array(100) }, opts))).toBe("DeadlineExceeded");
      const mempool = (async () => {
        for await (const _ of c.getMempoolTx({}, opts));
      })();
      expect(await codeOf(mempool)).toBe("DeadlineExceeded");
    } finally {
      await stack.control("clear");
    }
    // The stalled node requests are still pending at the dev node; the gate must be free anyway.
    const c = clientFor("grpc", server.url);
    expect((await c.getLightdInfo({})).chainName).toBe("regtest");
    expect(await codeOf(c.getTransaction({ hash: new Uint8Array(32).fill(7) }))).toBe("NotFound");
  });
});

/** A well-formed regtest t-address (Base58Check, the tm prefix): checked, then asked of the node. */
const REGTEST_ADDRESS = base58check(
  Uint8Array.from([...TADDR_PREFIXES.regtest.p2pkh, ...new Uint8Array(20)]),
);

const range = (start: number, end: number) =>
  toBinary(
    BlockRangeSchema,
    create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } }),
  );

describe("huge client deadlines", () => {
  it("are clamped, not overflowed into an immediate DeadlineExceeded (fast and slow paths)", async () => {
    for (const fastPath of [true, false]) {
      const server = await serve(fastPath);
      const cases: [FastProtocol, Record<string, string>][] = [
        ["grpc", { "grpc-timeout": "597H" }],
        ["grpc", { "grpc-timeout": "99999999H" }],
        ["grpc-web", { "grpc-timeout": "2147484S" }],
        ["connect-stream", { "connect-timeout-ms": "9999999999" }],
      ];
      for (const [protocol, headers] of cases) {
        const r = await rawCall(server.url, protocol, "GetBlockRange", range(1, 5), headers);
        const frames = [...decodeFrames(r.body)];
        const data = protocol === "grpc" ? frames : frames.slice(0, -1);
        expect(data, `${protocol} ${JSON.stringify(headers)} fast=${fastPath}`).toHaveLength(5);
        if (protocol === "grpc") expect(r.trailers["grpc-status"]).toBe("0");
      }
    }
  });
});
