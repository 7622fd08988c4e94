import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { connect, createServer, type Socket } from "node:net";
import type { TestProject } from "vitest/node";
import { hasChain, missingChainMessage } from "./chain.ts";
import { startHistoryFixtureServer } from "./history-chains.ts";
import { buildSeed, seedToJson } from "./seed-ranges.ts";
import { startTestOrigin, TEST_ORIGIN_SECRET, type TestOrigin } from "./test-origin.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** Typed for the edge tests in edge/testing/fixture.ts (a separate TypeScript program). */
    edgeFixture: unknown;
  }
}

/**
 * Global setup of the workerd project: builds sealed ranges from real corpus runs with the real
 * origin code (chain parser + range codec) in Node, starts test origins, and provides both to the
 * edge tests (which put the objects into their R2 binding).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!hasChain) {
    console.warn(missingChainMessage);
    project.provide("edgeFixture", null);
    return async () => {};
  }
  const seed = buildSeed();
  const mainnet = seed.blocks.get("mainnet")!;
  const testnet = seed.blocks.get("testnet")!;
  const tip = seed.heads.get("mainnet")!.tip!.height;
  const origins: TestOrigin[] = [
    await startTestOrigin({ network: "mainnet", blocks: mainnet }),
    await startTestOrigin({ network: "testnet", blocks: testnet }),
    await startTestOrigin({ network: "mainnet", blocks: mainnet, breakAt: tip + 1 }),
    await startTestOrigin({ network: "mainnet", blocks: mainnet, breakAt: tip + 5 }),
  ];
  // An origin that accepts connections and never answers: the 1 s deadline must fire.
  const held: Socket[] = [];
  const hung = createServer((socket) => {
    held.push(socket);
  });
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
  // An origin that refuses every call with the deadline it was given in its message, so edge tests
  // can see the client's remaining deadline passed on (connect-timeout-ms) to proxied calls.
  const echo = createHttpServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const timeout = req.headers["connect-timeout-ms"] ?? "none";
      const error = { code: "failed_precondition", message: `connect-timeout-ms=${timeout}` };
      if (req.headers["content-type"] === "application/connect+proto") {
        // A Connect stream: 200 and one end-stream frame (flag 0x02) carrying the error.
        const json = Buffer.from(JSON.stringify({ error }));
        const head = Buffer.from([0x02, 0, 0, 0, 0]);
        head.writeUInt32BE(json.length, 1);
        res.writeHead(200, { "content-type": "application/connect+proto" });
        res.end(Buffer.concat([head, json]));
        return;
      }
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify(error));
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  // The good origin that stops mid-answer: its headers and its first block, then nothing.
  const stalled: ServerResponse[] = [];
  const stalling = createHttpServer((req, res) => {
    void stallAfterFirstFrame(origins[0]!.url, req, res).then(() => stalled.push(res));
  });
  await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
  // Chains with node-free history and real origins, built when a test first asks (history-chains.ts).
  const history = await startHistoryFixtureServer();
  project.provide("edgeFixture", {
    seed: seedToJson(seed),
    originSecret: TEST_ORIGIN_SECRET,
    history: history.url,
    origins: {
      good: `mainnet=${origins[0]!.url},testnet=${origins[1]!.url}`,
      brokenAtSeam: `mainnet=${origins[2]!.url}`,
      brokenInTail: `mainnet=${origins[3]!.url}`,
      down: `mainnet=${await closedPortUrl()}`,
      hung: `mainnet=http://127.0.0.1:${(hung.address() as { port: number }).port}`,
      echo: `mainnet=http://127.0.0.1:${(echo.address() as { port: number }).port}`,
      stalling: `mainnet=http://127.0.0.1:${(stalling.address() as { port: number }).port}`,
    },
  });
  return async () => {
    await history.close();
    hung.close();
    echo.close();
    for (const res of stalled) res.destroy();
    stalling.close();
    for (const socket of held) socket.destroy();
    await Promise.all(origins.map((o) => o.stop()));
  };
}

/**
 * Asks `origin` what `req` asks, then sends its status and headers and, of its body, the first
 * Connect frame of a stream (none of a unary answer), and nothing more: an origin stuck mid-answer.
 */
async function stallAfterFirstFrame(
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers))
    if (typeof value === "string" && !["host", "connection", "content-length"].includes(name))
      headers.set(name, value);
  const answer = await fetch(`${origin}${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) });
  const body = Buffer.from(await answer.arrayBuffer());
  res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "" });
  if (answer.headers.get("content-type") === "application/connect+proto" && body.length >= 5)
    res.write(body.subarray(0, 5 + body.readUInt32BE(1)));
  else res.flushHeaders();
}

/**
 * A URL whose connections are refused, like an origin that is down. Not a port that was just free:
 * an ephemeral port is handed out again to the next server that listens on port 0, and with the
 * suites' servers running in parallel one did (a CI run's "down" origin answered PermissionDenied).
 * A port below the kernel's ephemeral range is never handed out so; the first one that refuses is
 * taken, checked by connecting.
 */
async function closedPortUrl(): Promise<string> {
  const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
    .trim()
    .split(/\s+/)
    .map(Number);
  for (const port of [1, 9, 7, (low ?? 32768) - 1])
    if (await refused(port)) return `http://127.0.0.1:${port}`;
  throw new Error("no closed port below the ephemeral range for the down-origin fixture");
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED"));
  });
}
