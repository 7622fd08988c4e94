import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeClient, type NodeClient } from "../node/index.ts";
import { createOriginServer, type OriginServer } from "./origin-server.ts";
import { clientFor, type Stack, startStack } from "./testing.ts";

/**
 * A pass-through in front of the dev node that sees what the node sees: every JSON-RPC request,
 * and each one whose connection closed before the answer was sent (the caller gave up on it).
 */
function startNodeProxy(
  target: string,
): Promise<{ url: string; requests(): number; abandoned(): number; server: Server }> {
  let requests = 0;
  let abandoned = 0;
  const server = createServer((req, res) => {
    requests++;
    res.on("close", () => {
      if (!res.writableFinished) abandoned++;
    });
    const upstream = request(new URL(target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        requests: () => requests,
        abandoned: () => abandoned,
        server,
      }),
    ),
  );
}

let stack: Stack;
let proxy: Awaited<ReturnType<typeof startNodeProxy>>;
let node: NodeClient;
let origin: OriginServer;
beforeAll(async () => {
  stack = await startStack({ blocks: 20, seed: "node-deadline" });
  proxy = await startNodeProxy(stack.dev.url);
  // The production defaults: 30 s per request, 3 retries with backoff.
  node = createNodeClient({ url: proxy.url });
  origin = await createOriginServer({
    chain: stack.indexer.view,
    node,
    network: "regtest",
    listen: { host: "127.0.0.1", port: 0 },
  });
});
afterAll(async () => {
  await stack?.control("clear");
  await origin?.close();
  node?.close();
  proxy?.server.closeAllConnections();
  proxy?.server.close();
  await stack?.close();
});

describe("node calls under the caller's deadline", () => {
  it("answers DeadlineExceeded at a 1 s deadline with the node stalled, and aborts the node request", async () => {
    await stack.control("stall", { ms: 20_000 });
    const before = { requests: proxy.requests(), abandoned: proxy.abandoned() };
    const started = performance.now();
    const err = await clientFor("grpc", origin.url)
      .getTransaction({ hash: new Uint8Array(32).fill(7) }, { timeoutMs: 1000 })
      .then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
    const seconds = (performance.now() - started) / 1000;
    expect(err?.code).toBe(Code.DeadlineExceeded);
    // The node sees its one request closed by the origin, not held until its 30 s timeout …
    await expect.poll(() => proxy.abandoned() - before.abandoned, { timeout: 5000 }).toBe(1);
    // … and no retry follows it.
    await new Promise((r) => setTimeout(r, 500));
    expect(proxy.requests() - before.requests).toBe(1);
    console.log(
      `GetTransaction with a 1 s deadline, node stalled: DeadlineExceeded after ${seconds.toFixed(2)} s`,
    );
  });
});
