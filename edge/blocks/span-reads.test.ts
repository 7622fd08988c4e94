import { env } from "cloudflare:test";
import { create, toBinary } from "@bufbuild/protobuf";
import { beforeAll, describe, expect, it } from "vitest";
import { BlockRangeSchema, type CompactBlock, CompactBlockSchema, PoolType } from "../../proto/index.ts";
import type { Env } from "../env.ts";
import { clientsFor, collect } from "../testing/clients.ts";
import { b64, type EdgeFixture, fixture, seedBucket, testEnv } from "../testing/fixture.ts";
import { bufferedBytes, DEFAULT_MAX_BUFFERED_BYTES } from "./buffer-budget.ts";

const f = fixture as EdgeFixture;
const bucket = (env as unknown as Env).BLOCKS!;
const cap = DEFAULT_MAX_BUFFERED_BYTES;
const range = (start: number, end: number, poolTypes: PoolType[] = []) =>
  create(BlockRangeSchema, { start: { height: BigInt(start) }, end: { height: BigInt(end) }, poolTypes });
/** 663188 down to 663151: the sealed mainnet corpus (4 ranges of 10), sent descending, so buffered. */
const DOWN = { from: 663188, to: 663151 };
const BLOCKS = DOWN.from - DOWN.to + 1;
const stored = (h: number) => b64(f.seed.blocks.mainnet!.find((b) => b.height === h)!.shielded);
const expectedDown = () => Array.from({ length: BLOCKS }, (_, k) => stored(DOWN.from - k));
const sent = (items: CompactBlock[]) => items.map((b) => toBinary(CompactBlockSchema, b));

/** The real binding, every get of a mainnet projection's data object recorded with its byte range. */
function countedBucket(gets: string[]): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return (key: string, options?: R2GetOptions) => {
        if (key.includes("/mainnet/") && /\.(shielded|full|nullifiers)\.bin$/.test(key))
          gets.push(JSON.stringify({ key, ...((options?.range as R2Range | undefined) ?? {}) }));
        return target.get(key, options);
      };
    },
  });
}

function counted(extra: Partial<Env>) {
  const gets: string[] = [];
  // The Cache API off: the corpus's ranges are the newest, whose data objects it would hold whole.
  return { gets, env: testEnv("none", { BLOCKS: countedBucket(gets), CACHE_HOT_RANGES: "off", ...extra }) };
}

/**
 * A buffered read (descending, re-projected, JSON) of a span larger than SPAN_READ_BYTES reads it in
 * runs of ranged reads from its sending end, holding one run at a time (proto/range/span-runs.ts):
 * a spam-era range sent descending no longer needs its whole span in the isolate.
 */
describe.skipIf(fixture === null)("a large span read in runs", () => {
  beforeAll(seedBucket);

  describe.each(clientsFor(testEnv("none")).map(([name]) => name))("over %s", (name) => {
    it("sends a descending range block by block, one ranged read per run, the same bytes", async () => {
      const { gets, env: e } = counted({ SPAN_READ_BYTES: "1" });
      const client = clientsFor(e).find(([n]) => n === name)![1];
      const { items, error } = await collect(client.getBlockRange(range(DOWN.from, DOWN.to)));
      expect(error).toBeUndefined();
      expect(sent(items)).toEqual(expectedDown());
      // Every block is a run of its own (each frame is over 1 byte): one read each, highest first.
      expect(gets.length).toBe(BLOCKS);
      const reads = gets.map((g) => JSON.parse(g) as { key: string; offset: number });
      for (const key of new Set(reads.map((r) => r.key))) {
        const offsets = reads.filter((r) => r.key === key).map((r) => r.offset);
        expect(offsets).toEqual([...offsets].sort((a, b) => b - a));
      }
      expect(bufferedBytes(cap)).toBe(0);
    });
  });

  it("holds one run at a time, where a whole read holds the range's span", async () => {
    const peak = async (spanReadBytes: string) => {
      const { env: e } = counted({ SPAN_READ_BYTES: spanReadBytes });
      let most = 0;
      for await (const _ of clientsFor(e)[0]![1].getBlockRange(range(DOWN.from, DOWN.to)))
        most = Math.max(most, bufferedBytes(cap));
      return most;
    };
    const largest = Math.max(...expectedDown().map((b) => b.length)) + 5;
    // Read whole, a range's span is held while it is sent: the largest of the four.
    const spans = new Map<number, number>();
    for (let h = DOWN.to; h <= DOWN.from; h++)
      spans.set(Math.floor(h / 10), (spans.get(Math.floor(h / 10)) ?? 0) + stored(h).length + 5);
    const whole = Math.max(...spans.values());
    expect(await peak("1")).toBeLessThanOrEqual(largest);
    expect(await peak(String(16 * 2 ** 20))).toBe(whole);
    expect(bufferedBytes(cap)).toBe(0);
  });

  it("re-projects run by run: the same blocks as one read, in ranged reads of the given size", async () => {
    const pools = [PoolType.TRANSPARENT]; // no projection stores it alone
    const one = counted({});
    const whole = await collect(clientsFor(one.env)[0]![1].getBlockRange(range(DOWN.to, DOWN.from, pools)));
    expect(whole.error).toBeUndefined();
    expect(one.gets.length).toBe(4);
    const runs = counted({ SPAN_READ_BYTES: "4096" });
    const inRuns = await collect(clientsFor(runs.env)[0]![1].getBlockRange(range(DOWN.to, DOWN.from, pools)));
    expect(inRuns.error).toBeUndefined();
    expect(sent(inRuns.items)).toEqual(sent(whole.items));
    expect(inRuns.items.length).toBe(BLOCKS);
    expect(runs.gets.length).toBeGreaterThan(1);
    // Transparent outputs come from the full projection; a run exceeds the size only when one frame does.
    const largestFull = Math.max(...f.seed.blocks.mainnet!.map((b) => b64(b.full).length + 5));
    for (const g of runs.gets) {
      const { key, length } = JSON.parse(g) as { key: string; length: number };
      expect(key).toMatch(/\.full\.bin$/);
      expect(length).toBeLessThanOrEqual(Math.max(4096, largestFull));
    }
  });

  it("reads the span whole when the request's spare subrequests would not pay for the runs", async () => {
    // 16 reserved + 3 for each of the 4 ranges + 2 spare: a range in 9 or 10 runs costs 7 or 8 more.
    const { gets, env: e } = counted({ SPAN_READ_BYTES: "1", SUBREQUEST_BUDGET: "30" });
    const { items, error } = await collect(clientsFor(e)[0]![1].getBlockRange(range(DOWN.from, DOWN.to)));
    expect(error).toBeUndefined();
    expect(sent(items)).toEqual(expectedDown());
    expect(gets.length).toBe(4);
  });

  it("stops reading runs when the client goes away, and gives back what it held", async () => {
    const { gets, env: e } = counted({ SPAN_READ_BYTES: "1" });
    const abort = new AbortController();
    const seen: number[] = [];
    try {
      for await (const block of clientsFor(e)[0]![1].getBlockRange(range(DOWN.from, DOWN.to), {
        signal: abort.signal,
      })) {
        seen.push(Number(block.height));
        if (seen.length === 3) abort.abort();
      }
    } catch {
      // the abort
    }
    expect(seen).toEqual([DOWN.from, DOWN.from - 1, DOWN.from - 2]);
    for (let i = 0; i < 100 && bufferedBytes(cap) !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(bufferedBytes(cap)).toBe(0);
    // The runs read are those sent, the one started beside the last, and at most what the sink's
    // queue let through before the abort was seen: far fewer than the range's 38.
    expect(gets.length).toBeLessThan(BLOCKS / 2);
  });
});
