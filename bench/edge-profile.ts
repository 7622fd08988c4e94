// Where a request's time goes in the edge worker under workerd (Worker-alone: the store is a
// separate server process read through STORE_PUBLIC_URL, as bench/lib/fixtures.ts runs it):
// a V8 CPU profile of the worker's isolate through Miniflare's inspector, per request kind, plus
// the Miniflare tree's CPU per request from /proc.
// Usage: node bench/scale/generate.ts --to 20999 --payload-scale 0.05 --store dir:/tmp/s
//        node bench/edge-profile.ts /tmp/s [SECONDS] [BUNDLE_DIR]
// Knobs (environment): PROFILE_NETWORK=regtest for a dev chain's store (bench/lib/chain-fixture.ts); PROFILE_ONLY=TEXT profiles only kinds whose name holds TEXT;
// PROFILE_CALLERS=REGEX prints the call chains of functions matching REGEX;
// EDGE_PROFILE_ENV='{"CACHE_HOT_RANGES":"off"}' adds worker vars (here: no Cache API layer);
// PROFILE_DUMP=PREFIX writes each kind's V8 profile to PREFIX.<kind>.cpuprofile (the bundle's
// index.js.map maps its frames to source files: Chrome DevTools, or any source-map reader).

import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { freePort } from "../origin/main/port-free.ts";
import { BlockIDSchema, ChainSpecSchema } from "../proto/index.ts";
import {
  blockInfo,
  decodeHead,
  decodeRangeMeta,
  headKey,
  lastRangeIndex,
  rangeKeys,
} from "../proto/range/index.ts";
import { buildBundle } from "./edge-runtimes.ts";
import { memoryStateDir } from "./lib/edge-fixture.ts";
import { createFrameCounter, trailerOk } from "./lib/frame-counter.ts";
import { connectInspector } from "./lib/isolate-inspector.ts";
import { createCpuMeter } from "./lib/proc-cpu.ts";
import { rangeRequest } from "./lib/rpc-requests.ts";
import { spawnStoreServer } from "./lib/store-server.ts";

const [storeDir, secondsArg, bundleArg] = process.argv.slice(2);
if (storeDir === undefined)
  throw new Error("usage: node bench/edge-profile.ts STORE_DIR [SECONDS] [BUNDLE_DIR]");
const seconds = Number(secondsArg ?? 3);
const SERVICE = "/cash.z.wallet.sdk.rpc.CompactTxStreamer";

interface Kind {
  name: string;
  init: () => { path: string; init: RequestInit };
}

/** The store's network: a generated mainnet-shaped store, or a dev chain's (`PROFILE_NETWORK=regtest`). */
const network = process.env.PROFILE_NETWORK ?? "mainnet";
let rangeStart = 1000;
let downloadStart = 419_200;
const head = decodeHead(readFileSync(join(storeDir, headKey(network))));
const lastRange = lastRangeIndex(head);
/** A random sealed height past the first 20 ranges (which the range kind walks: their metadata is cached). */
const randomHeight = () =>
  Math.min(
    lastRange * head.rangeSize + head.rangeSize - 1,
    20 * head.rangeSize + Math.floor(Math.random() * ((lastRange - 19) * head.rangeSize)),
  );
/** The wire hash of a sealed height, from its range's metadata in the store directory. */
const wireHashAt = (height: number) => {
  const key = rangeKeys(network, head.rangeSize, Math.floor(height / head.rangeSize)).meta;
  return blockInfo(decodeRangeMeta(readFileSync(join(storeDir, key))), height).wireHash;
};
const getBlock = (id: { height?: bigint; hash?: Uint8Array }) => ({
  path: `${SERVICE}/GetBlock`,
  init: {
    method: "POST",
    headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
    body: toBinary(BlockIDSchema, create(BlockIDSchema, id)),
  },
});
/** GetBlockRange over gRPC-web, as the load benches send it (lib/rpc-requests.ts). */
const blockRange = (start: number, end: number) => {
  const r = rangeRequest(start, end);
  return {
    path: r.path,
    init: { method: r.method, headers: r.headers, body: Buffer.from(r.bodyBase64!, "base64") },
  };
};
const kinds: Kind[] = [
  { name: "healthz", init: () => ({ path: "/healthz", init: {} }) },
  {
    name: "GetLatestBlock (Connect proto)",
    init: () => ({
      path: `${SERVICE}/GetLatestBlock`,
      init: {
        method: "POST",
        headers: { "content-type": "application/proto", "connect-protocol-version": "1" },
        body: toBinary(ChainSpecSchema, create(ChainSpecSchema)),
      },
    }),
  },
  {
    name: "GetBlockRange 100 (gRPC-web)",
    init: () => {
      // Walk 100-block windows through ranges 1…19 so metadata is cached after the first pass.
      rangeStart = rangeStart >= Math.min(19_800, lastRange * head.rangeSize - 100) ? 1000 : rangeStart + 100;
      return blockRange(rangeStart, rangeStart + 99);
    },
  },
  // Random sealed heights: each request misses the isolate's metadata (and, by hash, shard) caches
  // as most of scale.blockByHash's 1,000 calls do at 3.5 M blocks.
  {
    name: "GetBlock by height, random (Connect proto)",
    init: () => getBlock({ height: BigInt(randomHeight()) }),
  },
  {
    name: "GetBlock by hash, random (Connect proto)",
    init: () => getBlock({ hash: wireHashAt(randomHeight()) }),
  },
  {
    // The scale download's requests in its order (bench/scenarios/scale.ts: 419,200 → tip, 10,000
    // blocks each), wrapping at the tip: after the first lap, the next wallet's steady state.
    name: "GetBlockRange 10000, wallet download order (gRPC-web)",
    init: () => {
      const start = downloadStart;
      downloadStart = start + 20_000 > lastRange * head.rangeSize ? 419_200 : start + 10_000;
      return blockRange(start, start + 9_999);
    },
  },
  {
    // A wallet download's request (bench/scenarios/scale.ts): 10 ranges, metadata not yet cached.
    name: "GetBlockRange 10000, random start (gRPC-web)",
    init: () => {
      const start = Math.min(randomHeight(), lastRange * head.rangeSize - 10_000);
      return blockRange(start, start + 9_999);
    },
  },
];

/**
 * The request path's stages by function name (the bundle is one file: names, not paths). Hono's
 * router and compose are "routing"; its cors() middleware and header setters "CORS"; what is not
 * named here is "other JS".
 */
const STAGES: [string, RegExp][] = [
  ["idle", /^\(idle\)/],
  [
    "routing (Hono)",
    /^(#?dispatch|match|search|#pushHandlerSets|compose|Context|__name|fetch index|get (req|res)|set res|routeIndex|handler|#addRoute|app\.|getPath|splitPath|getPattern|mergeParams|Hono|HonoRequest|header index|param|c\.|next|\(anonymous\) index\.js:(1[0-9]{3}|[0-9]{3})\b)/,
  ],
  ["CORS", /^(cors2?|set index\.js:11\d{3}|corsMiddleware)/],
  ["size checks (URL, headers)", /^(oversizedRequest|forEach)/],
  [
    "protocol detection",
    /^(detectProtocol|parseContentType\d*|parseDeadlineMs|startDeadline|AbortController|addEventListener|removeEventListener|overRateLimit|clientKeyOf)/,
  ],
  [
    "request body read + decode",
    /^(readCapped|readRequestBytes|decodeRequestMessage|readRequestMessage|arrayBuffer|assertWireTypes|checkWire|fromBinary|unframe|readMessage|readField|skipField|int64|uint32|int32|tag|varint\w*)/,
  ],
  [
    "head / metadata (isolate caches)",
    /^(head|meta|get|createRefreshingCache|extentOf|planRange|heightOf|blockSpan|blockInfo|checkHeight|rangeKeys|frameSpan|clampToTip|createChainCheck|run)\b/,
  ],
  [
    "storage call (fetch, response parsing)",
    /^(fetch|send|httpGet|toStoredObject|partial|contentLength|etagOf|rangeHeader|keyPath|startSealedRead)\b/,
  ],
  [
    "stream setup + piping",
    /^(pipeTo|pipe|IdentityTransformStream|FixedLengthStream|createResponseSink|Response|streamSegments|writeSealedSegment|getWriter|releaseLock|serveBlockRange)\b/,
  ],
  [
    "end of stream (trailer, close)",
    /^(endOfStream|write|close|encodeFrame|trailerSerialize|setTrailerStatus|Headers)\b/,
  ],
  [
    "unary answer (encode)",
    /^(toBinary|serveFastUnary|answer|latestBlock|lightdInfo|writeMessage|writeField|BinaryWriter|create)\b/,
  ],
  ["health", /^health\b/],
  ["runtime (program, GC, tracing)", /^(\(program\)|\(garbage collector\)|set tracing|get tracing)/],
];

function categoryOf(label: string): string {
  for (const [name, re] of STAGES) if (re.test(label)) return name;
  return "other JS";
}

const store = await spawnStoreServer(storeDir);
const bundle = bundleArg ?? buildBundle();
const inspectorPort = await freePort();
// A state directory of this run's own: Cache API entries left by a run over another store under
// the same keys would answer for this one (a stale metadata object fails every range as DataLoss).
const state = memoryStateDir(tmpdir(), "edge-profile");
const child = spawn(
  process.execPath,
  [
    new URL("./edge-miniflare-server.ts", import.meta.url).pathname,
    bundle,
    state,
    JSON.stringify({
      NETWORKS: network,
      STORE_PUBLIC_URL: store.url,
      ORIGIN_URL: "",
      ...JSON.parse(process.env.EDGE_PROFILE_ENV ?? "{}"),
    }),
  ],
  {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, EDGE_INSPECTOR_PORT: String(inspectorPort) },
  },
);
const url = await new Promise<string>((resolve) =>
  child.stdout!.once("data", (d) => resolve(String(d).trim())),
);
try {
  const inspector = await connectInspector(inspectorPort);
  const cdp = inspector.call;
  await cdp("Profiler.enable");
  await cdp("Profiler.setSamplingInterval", { interval: 50 });
  for (const kind of kinds) {
    if (process.env.PROFILE_ONLY && !kind.name.includes(process.env.PROFILE_ONLY)) continue;
    for (let i = 0; i < 100; i++) await call(url, kind); // warm: head, metadata, connections
    const meter = createCpuMeter([child.pid!]);
    await cdp("Profiler.start");
    meter.start();
    const t0 = performance.now();
    let n = 0;
    while (performance.now() - t0 < seconds * 1000) {
      await call(url, kind);
      n++;
    }
    const cpuSec = meter.stop();
    const { profile } = (await cdp("Profiler.stop")) as { profile: Profile };
    if (process.env.PROFILE_DUMP)
      writeFileSync(`${process.env.PROFILE_DUMP}.${kinds.indexOf(kind)}.cpuprofile`, JSON.stringify(profile));
    report(kind.name, n, (performance.now() - t0) / n, (cpuSec * 1000) / n, profile);
  }
  inspector.close();
} finally {
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  await store.stop();
  rmSync(state, { recursive: true, force: true });
}

async function call(base: string, kind: Kind): Promise<void> {
  const { path, init } = kind.init();
  const res = await fetch(`${base}${path}`, init);
  // A stream's status is in its end-of-stream frame: an error there is a failed call too, or the
  // profile is of the error path.
  const framed = res.headers.get("content-type")?.startsWith("application/grpc-web") ?? false;
  const counter = createFrameCounter();
  if (framed && res.body) for await (const chunk of res.body) counter.push(chunk);
  else await res.arrayBuffer();
  const status = res.headers.get("grpc-status") ?? undefined;
  if (res.status !== 200 || (framed ? !trailerOk(counter.trailer, status) : (status ?? "0") !== "0"))
    throw new Error(
      `${kind.name}: HTTP ${res.status} ${decodeURIComponent(res.headers.get("grpc-message") ?? counter.trailer ?? "").slice(0, 200)}`,
    );
}

interface Profile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (µs per request), the top entries, and the isolate's share of the wall time. */
function report(name: string, requests: number, wallMsPerReq: number, cpuMsPerReq: number, p: Profile) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    const dt = p.timeDeltas[i] ?? 0;
    const label =
      `${f.functionName || "(anonymous)"} ${f.url ? `${f.url.split("/").pop()}:${f.lineNumber + 1}` : ""}`.trim();
    self.set(label, (self.get(label) ?? 0) + dt);
    total += dt;
  });
  const idle = self.get("(idle)") ?? 0;
  process.stdout.write(
    `\n## ${name}: ${requests} requests, wall ${wallMsPerReq.toFixed(3)} ms/req, Miniflare tree CPU ${cpuMsPerReq.toFixed(3)} ms/req, isolate busy ${((total - idle) / requests).toFixed(0)} µs/req\n`,
  );
  const byCategory = new Map<string, number>();
  for (const [label, us] of self) {
    const c = categoryOf(label);
    byCategory.set(c, (byCategory.get(c) ?? 0) + us);
  }
  process.stdout.write("  by stage (µs per request, sampled self time):\n");
  for (const [c, us] of [...byCategory].filter(([c]) => c !== "idle").sort((a, b) => b[1] - a[1]))
    process.stdout.write(`    ${(us / requests).toFixed(1).padStart(8)} µs  ${c}\n`);
  const top = [...self]
    .filter(([k]) => k !== "(idle)")
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25);
  for (const [label, us] of top)
    process.stdout.write(`  ${(us / requests).toFixed(1).padStart(8)} µs  ${label}\n`);
  if (process.env.PROFILE_CALLERS) {
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const lab = (id: number) => {
      const f = byId.get(id)!.callFrame;
      return `${f.functionName || "(anon)"}:${f.lineNumber + 1}`;
    };
    const chains = new Map<string, number>();
    p.samples.forEach((id, i) => {
      const f = byId.get(id)!.callFrame;
      if (!new RegExp(process.env.PROFILE_CALLERS!).test(f.functionName)) return;
      const chain = [];
      let cur: number | undefined = id;
      for (let d = 0; d < 8 && cur !== undefined; d++) {
        chain.push(lab(cur));
        cur = parent.get(cur);
      }
      const k = chain.join(" < ");
      chains.set(k, (chains.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
    });
    for (const [k, us] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, 8))
      process.stdout.write(`    ${(us / requests).toFixed(1).padStart(8)} µs  ${k}\n`);
  }
}
