import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wranglerNames } from "../../infra/check/names.ts";
// wrangler's own Miniflare, so the workerd here is the one `wrangler dev` runs.
import {
  convertV4MiniflareOptions,
  Miniflare,
} from "../../node_modules/wrangler/node_modules/miniflare/dist/src/index.js";
import { encodeFrame } from "../../proto/frame.ts";
import { BlockIDSchema, BlockRangeSchema } from "../../proto/index.ts";
import { buildSeed } from "../support/seed-ranges.ts";

/** wrangler.toml's settings: what a deployed edge runs with. */
const toml = wranglerNames(readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8"));

/** 663188 down to 663151: sealed mainnet ranges of the seed, sent descending, so buffered. */
const DOWN = { from: 663188, to: 663151 };

/**
 * The seed's objects over HTTP as a public bucket (GET with one Range), whose mainnet shielded and
 * full data objects stall: headers and one byte, then nothing. Each stalled answer is counted, and counted
 * again when the reader closes it.
 */
async function startStallingStore(objects: ReadonlyMap<string, Uint8Array>) {
  const counts = { stalled: 0, closed: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    const key = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.slice(1));
    const bytes = objects.get(key);
    if (bytes === undefined) return void res.writeHead(404).end();
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    const [from, to] = m ? [Number(m[1]), Math.min(Number(m[2]), bytes.length - 1)] : [0, bytes.length - 1];
    const headers = {
      "content-length": String(to - from + 1),
      etag: '"seed"',
      ...(m ? { "content-range": `bytes ${from}-${to}/${bytes.length}` } : {}),
    };
    res.writeHead(m ? 206 : 200, headers);
    if (req.method === "HEAD") return void res.end();
    if (!(key.includes("/mainnet/") && /\.(shielded|full)\.bin$/.test(key)))
      return void res.end(bytes.subarray(from, to + 1));
    counts.stalled++;
    res.write(bytes.subarray(from, from + 1));
    res.on("close", () => counts.closed++);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/**
 * The edge itself under workerd, a descending range waiting on a storage read that has stalled
 * mid-body: the read is bounded (edge/store/read-all.ts storageReadMs: 10 s for a small span),
 * so the stream ends Unavailable instead of hanging with its share of the isolate's buffer
 * allowance held; the storage read is closed, not left open; and the same holds when the client has
 * already gone, which workerd does not notice while nothing is written to it.
 */
describe("the edge, when a storage read stalls mid-body (workerd, real sockets)", () => {
  let mf: Miniflare;
  let edgeUrl: URL;
  let store: Awaited<ReturnType<typeof startStallingStore>>;
  let script: string;

  /** The edge bundle under workerd with wrangler.toml's settings, reading the stalling store. */
  const startEdge = (bindings: Record<string, string>) =>
    new Miniflare(
      convertV4MiniflareOptions({
        host: "127.0.0.1",
        port: 0,
        workers: [
          {
            name: "edge",
            modules: true,
            script,
            compatibilityDate: toml.compatibilityDate,
            compatibilityFlags: toml.compatibilityFlags,
            bindings: {
              ...Object.fromEntries(toml.varValues),
              NETWORKS: "mainnet,testnet",
              ORIGIN_URL: "",
              STORE_PUBLIC_URL: store.url,
              ...bindings,
            },
          },
        ],
      }),
    );

  beforeAll(async () => {
    store = await startStallingStore(buildSeed().objects);
    const out = await build({
      entryPoints: [new URL("../../edge/index.ts", import.meta.url).pathname],
      bundle: true,
      format: "esm",
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["browser", "module", "main"],
      external: ["node:*", "cloudflare:*"],
      write: false,
    });
    script = out.outputFiles[0]!.text;
    // The Cache API off: the seed's ranges are the newest, whose data objects it would fill whole.
    mf = startEdge({ CACHE_HOT_RANGES: "off" });
    edgeUrl = await mf.ready;
  }, 120_000);

  afterAll(async () => {
    await mf?.dispose();
    store?.stop();
  });

  const bufferedBytes = async () =>
    ((await (await fetch(new URL("/stats", edgeUrl))).json()) as { held: { bufferedBytes: number } }).held
      .bufferedBytes;

  async function until(ok: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
  }

  /**
   * A range over gRPC-web on a socket of its own (descending unless `up`): the request, and its
   * answer — the bytes, and whether the response ended whole or was cut.
   */
  function openRange(up = false, url = edgeUrl) {
    const [start, end] = up ? [DOWN.to, DOWN.from] : [DOWN.from, DOWN.to];
    const range = create(BlockRangeSchema, {
      start: { height: BigInt(start) },
      end: { height: BigInt(end) },
    });
    const req = http.request(new URL("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlockRange", url), {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", "x-grpc-web": "1" },
    });
    const answer = new Promise<{ text: string; whole: boolean }>((resolve) => {
      req.on("response", (res) => {
        const parts: Buffer[] = [];
        const done = (whole: boolean) => resolve({ text: Buffer.concat(parts).toString("latin1"), whole });
        res.on("data", (d: Buffer) => parts.push(d));
        res.on("end", () => done(res.complete));
        res.on("error", () => done(false));
        res.on("aborted", () => done(false));
      });
      req.on("error", () => resolve({ text: "", whole: false }));
    });
    req.end(encodeFrame(toBinary(BlockRangeSchema, range)));
    return { req, answer };
  }

  it("ends buffered and piped answers within the stall's bound, and closes the storage reads", async () => {
    const before = { ...store.counts };
    const started = Date.now();
    const down = openRange().answer;
    // Ascending stored frames are piped natively: nothing but the pipe's own bound sees the stall.
    const up = openRange(true).answer;
    // GetBlock over Connect pipes the block's frame from the (stalling) full object.
    const unary = fetch(new URL("/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetBlock", edgeUrl), {
      method: "POST",
      headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
      body: toBinary(BlockIDSchema, create(BlockIDSchema, { height: 663170n })),
    });
    await until(async () => store.counts.stalled >= before.stalled + 3 && (await bufferedBytes()) > 0);
    expect(await bufferedBytes()).toBeGreaterThan(0);

    // Buffered (descending): Unavailable in the stream's trailer. The first range sent
    // (663180…663188) is the one whose read stalled: 9 frames, 1,903 bytes.
    const { text, whole } = await down;
    expect(whole).toBe(true);
    expect(text).toMatch(/grpc-status: ?14\r\n/);
    expect(decodeURIComponent(/grpc-message: ?([^\r\n]*)/.exec(text)![1]!)).toBe(
      "GetBlockRange: range 66318: the store did not send its 1903 bytes within 10 s",
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    // Piped: a native pipe cannot be stopped and still send a status, so the response is cut.
    const piped = await up;
    expect(piped.whole).toBe(false);
    expect(piped.text).not.toMatch(/grpc-status/);
    const res = await unary;
    expect(res.status).toBe(200); // its headers went out before the frame's bytes stalled
    await expect(res.arrayBuffer()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(30_000);

    await until(async () => (await bufferedBytes()) === 0 && store.counts.closed === store.counts.stalled);
    expect(await bufferedBytes()).toBe(0);
    expect(store.counts.closed).toBe(store.counts.stalled);
  }, 60_000);

  it("gives back the span its request held once its client has gone, and closes the storage read", async () => {
    const before = { ...store.counts };
    const { req } = openRange();
    await until(async () => store.counts.stalled > before.stalled && (await bufferedBytes()) > 0);
    expect(await bufferedBytes()).toBeGreaterThan(0);
    // workerd does not see this client leave (nothing has been written to it since the headers):
    // the request runs on, and the stall's bound ends it.
    req.destroy();
    for (let i = 0; i < 300 && (await bufferedBytes()) !== 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(await bufferedBytes()).toBe(0);
    await until(async () => store.counts.closed === store.counts.stalled);
    expect(store.counts.closed).toBe(store.counts.stalled);
  }, 60_000);

  it("gives up a Cache API fill whose storage body stalls, then reads storage directly, bounded too", async () => {
    // The Cache API on (wrangler.toml's CACHE_HOT_RANGES): the seed's ranges are hot, so the first
    // read of a range streams its whole data object into the cache (edge/store/cached-reader.ts).
    const hot = startEdge({});
    try {
      const url = await hot.ready;
      const before = { ...store.counts };
      const started = Date.now();
      const { text, whole } = await openRange(true, url).answer;
      const elapsed = Date.now() - started;
      // The fill's bound (10 s for a small object), then the ranged read's pipe bound (10 s): cut.
      expect(whole).toBe(false);
      expect(text).not.toMatch(/grpc-status/);
      expect(elapsed).toBeGreaterThanOrEqual(19_500);
      expect(elapsed).toBeLessThan(45_000);
      // The whole object for the fill, then the range itself: both stalled, both closed.
      expect(store.counts.stalled - before.stalled).toBeGreaterThanOrEqual(2);
      await until(async () => store.counts.closed === store.counts.stalled);
      expect(store.counts.closed).toBe(store.counts.stalled);
    } finally {
      await hot.dispose();
    }
  }, 60_000);
});
