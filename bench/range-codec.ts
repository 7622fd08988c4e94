// Sealed-range format and stores: encode speed, metadata decode, reading a 10,000-block sub-range
// (directory store and moto_server, with a plain file read as the side-by-side baseline), and
// storage overhead per projection on the real corpus and on a synthetic mainnet-sized range.
//   node bench/range-codec.ts [--blocks 10000] [--no-moto]
import { createHash } from "node:crypto";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { BlobStore } from "../origin/store/blob-store.ts";
import { createDirectoryStore } from "../origin/store/directory-store.ts";
import { createS3Store } from "../origin/store/s3-store.ts";
import {
  blockSpan,
  decodeRangeMeta,
  encodeSealedRange,
  type Projection,
  rangeKeys,
} from "../proto/range/index.ts";
import { syntheticRange } from "../proto/range/testing.ts";
import { startMoto } from "../test/support/moto.ts";
import { processCpuSeconds } from "./lib/proc-cpu.ts";
import { corpusOverhead, mainnetSizes, overheadOf } from "./range-overhead.ts";

const { values } = parseArgs({
  options: { blocks: { type: "string", default: "10000" }, "no-moto": { type: "boolean" } },
});
const READ_BLOCKS = Number(values.blocks);
const RANGE_SIZE = 1000;
const FIRST = 500; // unaligned on purpose: the read touches a partial range at each end
const NETWORK = "mainnet";
const PROJECTION: Projection = "shielded";

const sizes = mainnetSizes();
const rangeAt = (index: number) => syntheticRange({ network: NETWORK, rangeSize: RANGE_SIZE, index, sizes });

function benchEncode(): Record<string, number> {
  const input = rangeAt(0);
  encodeSealedRange(input); // warm-up
  const rounds = 5;
  const t = performance.now();
  let bytes = 0;
  for (let i = 0; i < rounds; i++) {
    const e = encodeSealedRange(input);
    bytes = e.meta.length + e.data.full.length + e.data.shielded.length + e.data.nullifiers.length;
  }
  const ms = (performance.now() - t) / rounds;
  const encoded = encodeSealedRange(input);
  const all = [encoded.data.full, encoded.data.shielded, encoded.data.nullifiers];
  const nodeSha256 = (b: Uint8Array) => createHash("sha256").update(b).digest();
  const t2 = performance.now();
  for (const d of all) nodeSha256(d);
  const nodeHashMs = performance.now() - t2;
  const t4 = performance.now();
  for (let i = 0; i < rounds; i++) encodeSealedRange(input, { sha256: nodeSha256 });
  const nodeEncodeMs = (performance.now() - t4) / rounds;
  const t3 = performance.now();
  for (let i = 0; i < 100; i++) decodeRangeMeta(encoded.meta);
  const decodeMs = (performance.now() - t3) / 100;
  return {
    "encode.msPerRange": ms,
    "encode.MBps": bytes / 1e6 / (ms / 1000),
    "encode.usPerBlock": (ms * 1000) / RANGE_SIZE,
    "encode.nodeCryptoSha256MsSameBytes": nodeHashMs,
    "encodeWithNodeSha256.msPerRange": nodeEncodeMs,
    "encodeWithNodeSha256.MBps": bytes / 1e6 / (nodeEncodeMs / 1000),
    "decodeMeta.msPerRange": decodeMs,
    "meta.bytesPerRange": encoded.meta.length,
  };
}

async function seed(store: BlobStore, indexes: number[]): Promise<number> {
  let sectionBytes = 0;
  for (const index of indexes) {
    const e = encodeSealedRange(rangeAt(index));
    const keys = rangeKeys(NETWORK, RANGE_SIZE, index);
    await store.put(keys.meta, e.meta, { immutable: true });
    await store.put(keys.data[PROJECTION], e.data[PROJECTION], { immutable: true });
    sectionBytes += e.data[PROJECTION].length;
  }
  return sectionBytes;
}

/** What the edge does per range touched: one metadata read + one ranged data read. */
async function readSubRange(store: BlobStore, from: number, to: number): Promise<number> {
  let bytes = 0;
  for (let index = Math.floor(from / RANGE_SIZE); index <= Math.floor(to / RANGE_SIZE); index++) {
    const keys = rangeKeys(NETWORK, RANGE_SIZE, index);
    const meta = decodeRangeMeta((await store.get(keys.meta))!);
    const a = Math.max(from, meta.firstHeight);
    const b = Math.min(to, meta.lastHeight);
    const span = blockSpan(meta, PROJECTION, a, b);
    const data = await store.get(keys.data[PROJECTION], span);
    if (data?.length !== span.length) throw new Error("short read");
    bytes += data.length;
  }
  return bytes;
}

/** Baseline: the same bytes read straight from the files with one fs read each, no format. */
async function readFilesPlain(root: string, from: number, to: number): Promise<number> {
  let bytes = 0;
  for (let index = Math.floor(from / RANGE_SIZE); index <= Math.floor(to / RANGE_SIZE); index++) {
    const file = await open(join(root, ...rangeKeys(NETWORK, RANGE_SIZE, index).data[PROJECTION].split("/")));
    const buf = new Uint8Array((await file.stat()).size);
    await file.read(buf, 0, buf.length, 0);
    await file.close();
    bytes += buf.length;
  }
  return bytes;
}

async function timed(label: string, fn: () => Promise<number>, extraPid?: number) {
  await fn(); // warm the page cache / connections
  const cpu0 = process.cpuUsage();
  const ext0 = extraPid ? processCpuSeconds(extraPid) : 0;
  const t = performance.now();
  const bytes = await fn();
  const seconds = (performance.now() - t) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const nodeCpu = (cpu.user + cpu.system) / 1e6;
  const serverCpu = extraPid ? processCpuSeconds(extraPid) - ext0 : 0;
  return {
    [`${label}.MBps`]: bytes / 1e6 / seconds,
    [`${label}.ms`]: seconds * 1000,
    [`${label}.clientCpuUsPerBlock`]: (nodeCpu * 1e6) / READ_BLOCKS,
    ...(extraPid ? { [`${label}.serverCpuUsPerBlock`]: (serverCpu * 1e6) / READ_BLOCKS } : {}),
  };
}

async function main(): Promise<void> {
  const figures: Record<string, number> = { ...benchEncode() };
  const from = FIRST;
  const to = FIRST + READ_BLOCKS - 1;
  const indexes: number[] = [];
  for (let i = Math.floor(from / RANGE_SIZE); i <= Math.floor(to / RANGE_SIZE); i++) indexes.push(i);

  const root = await mkdtemp(join(tmpdir(), "lightedge-range-bench-"));
  try {
    const dir = createDirectoryStore(root);
    await seed(dir, indexes);
    Object.assign(figures, await timed("dirStore.read10k", () => readSubRange(dir, from, to)));
    Object.assign(figures, await timed("plainFile.readSameRanges", () => readFilesPlain(root, from, to)));
  } finally {
    await rm(root, { recursive: true, force: true });
  }

  if (!values["no-moto"]) {
    const moto = await startMoto();
    try {
      await moto.createBucket("bench");
      const s3 = createS3Store({
        bucket: "bench",
        endpoint: moto.endpoint,
        region: moto.region,
        forcePathStyle: true,
        credentials: { accessKeyId: moto.accessKeyId, secretAccessKey: moto.secretAccessKey },
      });
      await seed(s3, indexes);
      Object.assign(figures, await timed("motoS3.read10k", () => readSubRange(s3, from, to), moto.pid));
    } finally {
      await moto.stop();
    }
  }

  Object.assign(figures, overheadOf("synthetic", encodeSealedRange(rangeAt(0))));
  Object.assign(figures, corpusOverhead());
  figures["dirStore.vsPlainFile.MBpsRatio"] =
    figures["dirStore.read10k.MBps"]! / figures["plainFile.readSameRanges.MBps"]!;
  for (const [k, v] of Object.entries(figures))
    console.log(`${k.padEnd(48)} ${v.toFixed(k.includes("Pct") || k.includes("Ratio") ? 2 : 1)}`);
}

await main();
