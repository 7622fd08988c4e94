import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { knownScripts, scriptAddress } from "../devnode/index.ts";
import { EDGE_SECRET_HEADER } from "./edge-secret.ts";
import { clientFor, PROTOCOLS, type Stack, startStack } from "./testing.ts";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    blocks: 40,
    seed: "faults",
    secrets: ["edge-secret"],
    retryPushbackMs: 750,
    nodeGate: { maxInFlight: 2, publicShare: 0.5, queueTimeoutMs: 100, maxQueued: 2 },
  });
});
afterAll(() => stack?.close());
afterEach(() => stack.control("clear"));

const failure = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (err) {
    return ConnectError.from(err);
  }
  throw new Error("expected the call to fail");
};
const txid = new Uint8Array(32).fill(3);

describe.each(PROTOCOLS)("a failing node over %s", (protocol) => {
  const client = () => clientFor(protocol, stack.server.url);

  it("turns the node's HTTP 429 and 503 into Unavailable with retry pushback", async () => {
    for (const status of [429, 503]) {
      await stack.control("fail", { status });
      const err = await failure(client().getTransaction({ hash: txid }));
      expect(err.code).toBe(Code.Unavailable);
      expect(err.message).toMatch(/^\[unavailable\] GetTransaction: /);
      expect(err.metadata.get("grpc-retry-pushback-ms")).toBe("750");
    }
  });

  it("answers Unavailable when the node closes connections", async () => {
    await stack.control("fail", { close: true });
    const err = await failure(
      client().getTaddressBalance({ addresses: [scriptAddress(knownScripts()[0]!, "regtest")!] }),
    );
    expect(err.code).toBe(Code.Unavailable);
  });

  it("answers ResourceExhausted when the node's answer never ends", async () => {
    await stack.control("fail", { flood: "chunked" });
    const err = await failure(
      client().getAddressUtxos({ addresses: [scriptAddress(knownScripts()[0]!, "regtest")!] }),
    );
    expect(err.code).toBe(Code.ResourceExhausted);
    expect(err.rawMessage).toMatch(/^GetAddressUtxos: node getaddressutxos: answer over \d+ bytes, refused$/);
  });

  it("keeps serving blocks from the index while the node is down", async () => {
    await stack.control("fail", { status: 503 });
    const block = await client().getBlock({ height: 5n });
    expect(block.height).toBe(5n);
  });
});

describe("node limits", () => {
  it("ends a stream with Unavailable when the node fails mid-stream", async () => {
    const address = scriptAddress(knownScripts()[0]!, "regtest")!;
    await stack.control("stall", { ms: 150 });
    const stream = clientFor("grpc", stack.server.url)
      .getTaddressTransactions({ address, range: { start: { height: 1n } } })
      [Symbol.asyncIterator]();
    const first = await stream.next();
    expect(first.done).toBe(false);
    await stack.control("fail", { status: 500 });
    const err = await failure(
      (async () => {
        while (!(await stream.next()).done);
      })(),
    );
    expect(err.code).toBe(Code.Unavailable);
  });

  it("refuses calls beyond the node budget quickly, and keeps a share for the edge", async () => {
    await stack.control("stall", { ms: 400 });
    const pub = clientFor("grpc", stack.server.url);
    const edge = clientFor("grpc", stack.server.url, { headers: { [EDGE_SECRET_HEADER]: "edge-secret" } });
    const started = Date.now();
    const publicCalls = Array.from({ length: 4 }, () =>
      pub.getTransaction({ hash: txid }).then(() => null, ConnectError.from),
    );
    const edgeCall = edge.getTransaction({ hash: txid }).then(() => null, ConnectError.from);
    const publicResults = await Promise.all(publicCalls);
    const unavailable = publicResults.filter((e) => e?.code === Code.Unavailable);
    expect(unavailable.length).toBeGreaterThanOrEqual(2);
    expect(unavailable.every((e) => e?.metadata.get("grpc-retry-pushback-ms") === "750")).toBe(true);
    // The edge call got the slot public traffic may not use: the node answered it (not found).
    expect((await edgeCall)?.code).toBe(Code.NotFound);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
