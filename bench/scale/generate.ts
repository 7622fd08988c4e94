import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { BundleWriter } from "../../origin/index/bundle-writer.ts";
import { codecOptions } from "../../origin/index/codec-options.ts";
import { forEachLimited } from "../../origin/index/for-each-limited.ts";
import { bodyLength, openStore } from "../../origin/store/index.ts";
import { displayHex } from "../../proto/bytes.ts";
import {
  DEFAULT_BUNDLE_RANGES,
  encodeHead,
  HashIndexBuilder,
  type HeadObject,
  headKey,
  type RangeEnds,
  type RangeHashes,
} from "../../proto/range/index.ts";
import { startMoto } from "../../test/support/moto.ts";
import { pointPools } from "./points.ts";
import { TREE_ANCHORS } from "./profile.ts";
import { chainName, createRangeBuilder } from "./range.ts";
import type { WorkerJob, WorkerMessage } from "./worker.ts";

// `node bench/scale/generate.ts --to 3500000 [--payload-scale F] --store dir:PATH|s3://B/P
//   [--range-size 1000] [--network mainnet] [--workers 2] [--seed S]`: a mainnet-shaped store at
// full height (range.ts says what is real and what is synthetic). `--estimate` writes nothing and
// projects the shielded total over 419,200–3,145,000 (seed 000's wallet download) from a sample.

export interface GenerateOptions {
  to: number;
  store: string;
  payloadScale: number;
  rangeSize: number;
  network: string;
  workers: number;
  seed: string;
  /** Ranges uploading at once per worker. */
  inFlight?: number;
  /** Ranges per block-hash index epoch (default: the format's). */
  hashEpochRanges?: number;
  /** Ranges per bundle (default: the format's); 0: none. */
  bundleRanges?: number;
  log?: (message: string) => void;
}

export interface GenerateResult {
  ranges: number;
  tip: number;
  seconds: number;
  blocksPerSec: number;
  /** Bytes written per kind (data projections, metadata, tree states, hash index, bundles); head excluded. */
  bytes: {
    shielded: number;
    full: number;
    nullifiers: number;
    meta: number;
    trees: number;
    hashIndex: number;
    bundles: number;
  };
  objects: number;
}

/** NU6.3 on mainnet (origin/devnode/info-rpc.ts); the head's lightdInfo names it. */
const LATEST_UPGRADE = { name: "NU6.3", height: 3_428_143, branchId: "37a5165b" };

export async function generate(o: GenerateOptions): Promise<GenerateResult> {
  const rangeCount = Math.floor(o.to / o.rangeSize) + 1; // last range holds `to`
  const started = performance.now();
  const bytes = { shielded: 0, full: 0, nullifiers: 0, meta: 0, trees: 0, hashIndex: 0, bundles: 0 };
  const hashEntries: RangeHashes[] = new Array(rangeCount);
  const ends: RangeEnds[] = new Array(rangeCount);
  let tip: { height: number; wireHash: Uint8Array; time: number } | undefined;
  let done = 0;
  let lastLog = started;
  const workers = Math.max(1, Math.min(o.workers, rangeCount));
  const points = pointPools();
  await Promise.all(
    Array.from({ length: workers }, (_, w) => {
      const job: WorkerJob = {
        options: {
          network: o.network,
          rangeSize: o.rangeSize,
          payloadScale: o.payloadScale,
          seed: o.seed,
          points,
        },
        store: o.store,
        first: w,
        end: rangeCount,
        stride: workers,
        inFlight: o.inFlight ?? 16,
      };
      const worker = new Worker(new URL("./worker.ts", import.meta.url), { workerData: job });
      return new Promise<void>((resolve, reject) => {
        worker.on("message", (m: WorkerMessage) => {
          if (m.kind === "range") {
            done++;
            for (const k of Object.keys(bytes) as (keyof typeof bytes)[]) bytes[k] += m.bytes[k] ?? 0;
            hashEntries[m.index] = m.hashEntries;
            ends[m.index] = m.ends;
            if (m.index === rangeCount - 1) tip = m.tip;
            const now = performance.now();
            if (o.log && now - lastLog > 5000) {
              lastLog = now;
              const rate = (done * o.rangeSize) / ((now - started) / 1000);
              o.log(`${done}/${rangeCount} ranges, ${Math.round(rate)} blocks/s`);
            }
          } else if (m.kind === "error") {
            reject(new Error(`scale generator worker: ${m.message}`));
          } else {
            worker.terminate().then(() => resolve(), reject);
          }
        });
        worker.on("error", reject);
      });
    }),
  );
  // The block-hash index and range ends of every range (what the sealer leaves for this head: its base and
  // recent levels), then the head last, once everything it names is durable
  // (proto/range-format.md §Head, §Hash index).
  const store = openStore(o.store);
  const hashIndex = new HashIndexBuilder({
    network: o.network,
    rangeSize: o.rangeSize,
    firstIndex: 0,
    epochRanges: o.hashEpochRanges,
  });
  for (let index = 0; index < rangeCount; index++) hashIndex.add(index, hashEntries[index]!, ends[index]!);
  const indexObjects = hashIndex.objects(codecOptions);
  await forEachLimited(indexObjects, 16, async (obj) => {
    await store.put(obj.key, obj.bytes, { contentType: "application/octet-stream", immutable: true });
    bytes.hashIndex += obj.bytes.length;
  });
  // Bundles, read back from the store as the sealer does (origin/index/bundle-writer.ts).
  const bundleRanges = o.bundleRanges ?? DEFAULT_BUNDLE_RANGES;
  let bundleObjects = 0;
  const bundles =
    bundleRanges === 0
      ? undefined
      : new BundleWriter({
          store,
          network: o.network,
          rangeSize: o.rangeSize,
          firstIndex: 0,
          ranges: bundleRanges,
          put: async (key, body) => {
            await store.put(key, body, { contentType: "application/octet-stream", immutable: true });
            bytes.bundles += bodyLength(body);
            bundleObjects++;
          },
        });
  await bundles?.catchUp(rangeCount, Number.POSITIVE_INFINITY, 4);
  const head = {
    ...headFor(o, rangeCount, tip!),
    hashIndex: hashIndex.headField,
    ...(bundles ? { bundles: bundles.field } : {}),
  };
  await store.put(headKey(o.network), encodeHead(head), { contentType: "application/json" });
  const seconds = (performance.now() - started) / 1000;
  return {
    ranges: rangeCount,
    tip: tip!.height,
    seconds,
    blocksPerSec: (rangeCount * o.rangeSize) / seconds,
    bytes,
    objects: rangeCount * 5 + indexObjects.length + bundleObjects + 1,
  };
}

function headFor(
  o: GenerateOptions,
  rangeCount: number,
  tip: { height: number; wireHash: Uint8Array; time: number },
): HeadObject {
  return {
    format: "lightedge-head",
    version: 1,
    network: o.network,
    rangeSize: o.rangeSize,
    firstHeight: 0,
    rangeCount,
    tip: { height: tip.height, displayHash: displayHex(tip.wireHash), time: tip.time },
    updatedAt: new Date().toISOString(),
    lightdInfo: {
      chainName: chainName(o.network),
      saplingActivationHeight: 419_200,
      consensusBranchId: tip.height >= LATEST_UPGRADE.height ? LATEST_UPGRADE.branchId : "c8e71055",
      blockHeight: tip.height,
      estimatedHeight: tip.height,
      upgradeName: LATEST_UPGRADE.name,
      upgradeHeight: LATEST_UPGRADE.height,
      zcashdBuild: "lightedge-scale (SYNTHETIC mainnet-shaped store)",
      zcashdSubversion: "/lightedge-scale/",
    },
  };
}

export interface EstimateResult {
  from: number;
  to: number;
  sampledRanges: number;
  /** Projected bytes of the shielded projection's frames over from..to. */
  shieldedBytes: number;
  /** The same for the full and nullifiers projections and the tree-state objects. */
  fullBytes: number;
  nullifiersBytes: number;
  treesBytes: number;
}

/**
 * Projects per-projection totals over `from..to` at `payloadScale` from every `every`-th range
 * (stratified: one range per stratum of `every` ranges between profile anchors, scaled by the
 * stratum size; the outer ranges are weighted by the share of their heights inside from..to).
 */
export function estimate(o: {
  from: number;
  to: number;
  payloadScale: number;
  rangeSize: number;
  network: string;
  seed: string;
  every: number;
}): EstimateResult {
  const build = createRangeBuilder({ ...o, points: pointPools() });
  const firstIndex = Math.floor(o.from / o.rangeSize);
  const lastIndex = Math.floor(o.to / o.rangeSize);
  // Strata never straddle a profile anchor: rates change there (the spam starts and ends at one),
  // and a stratum sampled on one side would stand for ranges on the other.
  const cuts = new Set([firstIndex, lastIndex + 1]);
  for (const [h] of TREE_ANCHORS) {
    const i = Math.floor(h / o.rangeSize);
    if (i > firstIndex && i <= lastIndex) cuts.add(i);
  }
  const edges = [...cuts].sort((a, b) => a - b);
  const totals = { shielded: 0, full: 0, nullifiers: 0, trees: 0 };
  let sampled = 0;
  for (let e = 0; e + 1 < edges.length; e++) {
    for (let s = edges[e]!; s < edges[e + 1]!; s += o.every) {
      const strata = Math.min(o.every, edges[e + 1]! - s);
      const r = build(s + Math.floor(strata / 2));
      sampled++;
      // Heights of the stratum inside from..to (only the two outer strata can be partial).
      const lo = Math.max(o.from, s * o.rangeSize);
      const hi = Math.min(o.to, (s + strata) * o.rangeSize - 1);
      const weight = (hi - lo + 1) / o.rangeSize;
      totals.shielded += r.bytes.shielded * weight;
      totals.full += r.bytes.full * weight;
      totals.nullifiers += r.bytes.nullifiers * weight;
      totals.trees += r.bytes.trees * weight;
    }
  }
  return {
    from: o.from,
    to: o.to,
    sampledRanges: sampled,
    shieldedBytes: Math.round(totals.shielded),
    fullBytes: Math.round(totals.full),
    nullifiersBytes: Math.round(totals.nullifiers),
    treesBytes: Math.round(totals.trees),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      to: { type: "string", default: "3500000" },
      "payload-scale": { type: "string", default: "1" },
      store: { type: "string" },
      "range-size": { type: "string", default: "1000" },
      network: { type: "string", default: "mainnet" },
      workers: { type: "string", default: String(Math.min(2, availableParallelism())) },
      seed: { type: "string", default: "lightedge-scale" },
      estimate: { type: "boolean", default: false },
      every: { type: "string", default: "20" },
    },
  });
  const payloadScale = Number(values["payload-scale"]);
  const rangeSize = Number(values["range-size"]);
  const to = Number(values.to);
  if (!(payloadScale > 0 && payloadScale <= 1) || !Number.isInteger(rangeSize) || !Number.isInteger(to)) {
    throw new Error("usage: --to N --payload-scale 0<F≤1 --range-size N --store dir:PATH|s3://B/P");
  }
  const log = (m: string) => process.stderr.write(`scale: ${m}\n`);
  if (values.estimate) {
    const started = performance.now();
    const e = estimate({
      from: 419_200,
      to: 3_145_000,
      payloadScale,
      rangeSize,
      network: values.network,
      seed: values.seed,
      every: Number(values.every),
    });
    log(`estimate took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${JSON.stringify({ payloadScale, ...e }, null, 2)}\n`);
    return;
  }
  if (!values.store) throw new Error("--store dir:PATH, s3://BUCKET/PREFIX or moto is required");
  // `--store moto`: a fresh moto_server (test/support/moto.ts) and bucket, for measuring S3 writes.
  const moto = values.store === "moto" ? await startMoto() : undefined;
  if (moto) {
    await moto.createBucket("scale");
    Object.assign(process.env, {
      S3_ENDPOINT: moto.endpoint,
      S3_REGION: moto.region,
      S3_ACCESS_KEY_ID: moto.accessKeyId,
      S3_SECRET_ACCESS_KEY: moto.secretAccessKey,
    });
  }
  const r = await generate({
    to,
    store: moto ? "s3://scale/lightedge" : values.store,
    payloadScale,
    rangeSize,
    network: values.network,
    workers: Number(values.workers),
    seed: values.seed,
    log,
  }).finally(() => moto?.stop());
  process.stdout.write(`${JSON.stringify({ payloadScale, store: values.store, ...r }, null, 2)}\n`);
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  main().catch((err: unknown) => {
    process.stderr.write(`scale: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
