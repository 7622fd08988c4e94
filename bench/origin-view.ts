// The origin's sealed read path: iterating ChainView.blockFrames over a synthetic sealed chain in a
// directory store (server CPU per byte, beside the floor of one ranged read per range in the same
// run), then p50 latency of 10 / 100 / 1,000-block GetBlockRange calls through the fast path
// (gRPC-web over a keep-alive HTTP/1.1 connection, as bench/lib/load-child.ts; gRPC over h2c).
//   node --expose-gc bench/origin-view.ts [--blocks 10000] [--range-size 1000] [--requests 40] [--rounds 5]
import { connect as h2Connect } from "node:http2";
import { parseArgs } from "node:util";
import { create, toBinary } from "@bufbuild/protobuf";
import { codecOptions } from "../origin/index/codec-options.ts";
import { createSealedReader } from "../origin/index/sealed-reader.ts";
import { createTail } from "../origin/index/tail.ts";
import { tempDir } from "../origin/index/testing.ts";
import { createChainView } from "../origin/index/view.ts";
import { createNodeClient } from "../origin/node/index.ts";
import { createOriginServer } from "../origin/serve/origin-server.ts";
import { type BlobStore, bodyLength, createDirectoryStore, readBodyRange } from "../origin/store/index.ts";
import { displayHex } from "../proto/bytes.ts";
import { encodeFrame } from "../proto/frame.ts";
import { BlockRangeSchema, CompactTxStreamer } from "../proto/index.ts";
import {
  blockSpan,
  encodeHead,
  encodeSealedRange,
  type HeadObject,
  type Projection,
  rangeKeys,
} from "../proto/range/index.ts";
import { syntheticRange, syntheticWireHash } from "../proto/range/testing.ts";
import { runLoad } from "./lib/load.ts";
import { randomWindows, rangeRequest } from "./lib/rpc-requests.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "10000" },
    "range-size": { type: "string", default: "1000" },
    requests: { type: "string", default: "40" },
    rounds: { type: "string", default: "9" },
  },
});
const BLOCKS = Number(values.blocks);
const RANGE_SIZE = Number(values["range-size"]);
const NETWORK = "mainnet";
const PROJECTION: Projection = "shielded";
/** ≈ mainnet's average shielded block (5.4 KB), wobbling ±50 %. */
const sizes = (h: number) => {
  const shielded = Math.round(5400 * (0.5 + ((h * 2654435761) % 1000) / 1000));
  return { shielded, full: shielded * 2, nullifiers: Math.round(shielded / 10) };
};

async function buildStore(store: BlobStore): Promise<HeadObject> {
  const ranges = Math.ceil(BLOCKS / RANGE_SIZE);
  for (let index = 0; index < ranges; index++) {
    const encoded = encodeSealedRange(
      syntheticRange({ network: NETWORK, rangeSize: RANGE_SIZE, index, sizes }),
      codecOptions,
    );
    const keys = rangeKeys(NETWORK, RANGE_SIZE, index);
    for (const p of ["shielded", "full", "nullifiers"] as const)
      await store.put(keys.data[p], encoded.data[p]);
    await store.put(keys.meta, encoded.meta);
  }
  const tip = ranges * RANGE_SIZE - 1;
  const head: HeadObject = {
    format: "lightedge-head",
    version: 1,
    network: NETWORK,
    rangeSize: RANGE_SIZE,
    firstHeight: 0,
    rangeCount: ranges,
    tip: { height: tip, displayHash: displayHex(syntheticWireHash(tip)), time: 1_600_000_000 + tip * 75 },
    updatedAt: new Date().toISOString(),
    lightdInfo: {
      chainName: "main",
      saplingActivationHeight: 0,
      consensusBranchId: "c2d6d0b4",
      blockHeight: tip,
      estimatedHeight: tip,
      upgradeName: "Nu6",
      upgradeHeight: 0,
      zcashdBuild: "bench",
      zcashdSubversion: "/bench/",
    },
  };
  encodeHead(head); // validates
  return head;
}

const viewOf = (store: BlobStore, head: HeadObject) =>
  createChainView({
    tail: createTail(),
    sealed: createSealedReader(store, NETWORK, RANGE_SIZE),
    rangeSize: RANGE_SIZE,
    head: () => head,
    floor: () => 0,
  });

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => {});

/** Objects kept in memory; reads return views (no copy): the view's own CPU, without file I/O. */
function memoryStore(inner: BlobStore, keys: string[]): Promise<BlobStore> {
  const objects = new Map<string, Uint8Array>();
  return Promise.all(keys.map(async (k) => objects.set(k, (await inner.get(k))!))).then(() => ({
    put: async (key, body) => void objects.set(key, await readBodyRange(body, 0, bodyLength(body))),
    get: async (key, range) => {
      const bytes = objects.get(key);
      if (bytes === undefined) return null;
      return range ? bytes.subarray(range.offset, range.offset + range.length) : bytes;
    },
    stat: async () => null,
    list: async () => [...objects.keys()].sort(),
    delete: async (keys) => {
      for (const k of keys) objects.delete(k);
    },
  }));
}

/** CPU of one full pass: the first (cold: metadata not cached yet), then the median of `rounds`. */
async function iterate(label: string, pass: () => Promise<number>, rounds: number) {
  const runs: { ms: number; bytes: number }[] = [];
  let since = process.cpuUsage();
  await pass();
  const cold = cpuMs(since);
  for (let r = 0; r < rounds; r++) {
    collectGarbage(); // each pass pays for its own garbage, not the last one's
    since = process.cpuUsage();
    const bytes = await pass();
    runs.push({ ms: cpuMs(since), bytes });
  }
  runs.sort((a, b) => a.ms - b.ms);
  const { ms, bytes } = runs[Math.floor(runs.length / 2)]!;
  const nsPerByte = (ms * 1e6) / bytes;
  console.log(
    `${label.padEnd(34)} CPU ${ms.toFixed(1).padStart(6)} ms (min ${runs[0]!.ms.toFixed(1)}, cold ${cold.toFixed(1)})  ${(bytes / 1e6).toFixed(1)} MB  ${nsPerByte.toFixed(2)} ns/byte`,
  );
  return nsPerByte;
}

async function viewFigures(label: string, store: BlobStore, head: HeadObject, rounds: number) {
  console.log(`-- ${label}`);
  const top = head.tip!.height;
  const reader = createSealedReader(store, NETWORK, RANGE_SIZE);
  const floor = await iterate(
    "floor: one store.get per range",
    async () => {
      let bytes = 0;
      for (let index = 0; index * RANGE_SIZE <= top; index++) {
        const meta = await reader.meta(index);
        const span = blockSpan(meta, PROJECTION, index * RANGE_SIZE, (index + 1) * RANGE_SIZE - 1);
        bytes += (await store.get(rangeKeys(NETWORK, RANGE_SIZE, index).data[PROJECTION], span))!.length;
      }
      return bytes;
    },
    rounds,
  );
  // One view per pattern, as a server holds one: passes after the first find the metadata cached.
  const pass = (from: number, to: number) => {
    const view = viewOf(store, head);
    return async () => {
      let bytes = 0;
      for await (const frame of view.blockFrames(PROJECTION, from, to)) bytes += frame.length;
      return bytes;
    };
  };
  const asc = await iterate(`blockFrames 0..${top}`, pass(0, top), rounds);
  const desc = await iterate(`blockFrames ${top}..0 (descending)`, pass(top, 0), rounds);
  const blocksView = viewOf(store, head);
  const blocks = await iterate(
    `blocks 0..${top}`,
    async () => {
      let bytes = 0;
      for await (const b of blocksView.blocks(PROJECTION, 0, top)) bytes += b.frame.length;
      return bytes;
    },
    rounds,
  );
  console.log(
    `ratio to floor: blockFrames ×${(asc / floor).toFixed(2)}, descending ×${(desc / floor).toFixed(2)}, blocks ×${(blocks / floor).toFixed(2)}`,
  );
}

const rangeBody = (start: number, end: number) =>
  encodeFrame(
    toBinary(
      BlockRangeSchema,
      create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) } }),
    ),
  );
const PATH = `/${CompactTxStreamer.typeName}/GetBlockRange`;

function grpcCall(session: ReturnType<typeof h2Connect>, body: Uint8Array): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": PATH,
      "content-type": "application/grpc+proto",
      te: "trailers",
    });
    let bytes = 0;
    stream.on("data", (c: Buffer) => {
      bytes += c.length;
    });
    stream.on("error", reject);
    stream.on("close", () => resolve(bytes));
    stream.end(body);
  });
}

async function p50(call: (body: Uint8Array) => Promise<number>, size: number, count: number) {
  const top = BLOCKS - 1;
  let seed = 12345;
  const next = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const ms: number[] = [];
  for (let i = 0; i < count + 2; i++) {
    const start = next() % Math.max(1, top - size + 2);
    const started = performance.now();
    await call(rangeBody(start, Math.min(top, start + size - 1)));
    if (i >= 2) ms.push(performance.now() - started); // two warm-up calls
  }
  ms.sort((a, b) => a - b);
  return ms[Math.floor(ms.length / 2)]!;
}

async function latencyFigures(store: BlobStore, head: HeadObject, count: number) {
  const server = await createOriginServer({
    chain: viewOf(store, head),
    node: createNodeClient({ url: "http://127.0.0.1:9/", retries: 0, timeoutMs: 100 }),
    network: "mainnet",
    listen: { host: "127.0.0.1", port: 0 },
  });
  const session = h2Connect(server.url);
  try {
    for (const size of [10, 100, 1000].filter((s) => s <= BLOCKS)) {
      // gRPC-web over one keep-alive HTTP/1.1 connection from another process (bench/lib/load.ts).
      const windows = randomWindows(size, count, size, 0, BLOCKS - 1);
      const web = await runLoad({
        baseUrl: server.url,
        requests: windows.map((w) => rangeRequest(w.start, w.end)),
        clients: 1,
        warmup: 2,
        requestsPerClient: count,
        countFrames: true,
      });
      if (web.errors > 0) throw new Error(`gRPC-web errors: ${web.errorSamples.join("; ")}`);
      const h2 = await p50((b) => grpcCall(session, b), size, count);
      console.log(
        `GetBlockRange ${String(size).padStart(5)} blocks p50: gRPC-web/HTTP1.1 ${web.p50Ms.toFixed(2)} ms (p99 ${web.p99Ms.toFixed(2)}), gRPC/h2c in-process ${h2.toFixed(2)} ms`,
      );
    }
  } finally {
    session.close();
    await server.close();
  }
}

const dir = tempDir("origin-view");
try {
  const store = createDirectoryStore(dir.path);
  const head = await buildStore(store);
  console.log(
    `origin-view: ${BLOCKS} blocks, range size ${RANGE_SIZE}, projection ${PROJECTION}, node ${process.version}`,
  );
  const keys = await store.list("");
  await viewFigures(
    "memory store (no I/O, no copy)",
    await memoryStore(store, keys),
    head,
    Number(values.rounds),
  );
  await viewFigures("directory store", store, head, Number(values.rounds));
  await latencyFigures(store, head, Number(values.requests));
} finally {
  dir.remove();
}
