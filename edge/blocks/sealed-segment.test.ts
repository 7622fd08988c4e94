import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { concatBytes } from "../../proto/bytes.ts";
import { ChainCheck } from "../../proto/range/chain-link.ts";
import { decodeHead, headEndsLevels, headKey, rangeKeys } from "../../proto/range/index.ts";
import { createR2Reader } from "../store/r2-reader.ts";
import { createRangeReaders } from "../store/range-store.ts";
import { type EdgeFixture, fixture, seedBucket } from "../testing/fixture.ts";
import { checkSealedRun, piecesOf, startSealedRead } from "./sealed-segment.ts";

const f = fixture as EdgeFixture;
const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;

/** The real binding, each key it is asked for recorded. */
function countedBucket(keys: string[]): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (typeof args[0] === "string") keys.push(args[0]);
        return value.apply(target, args);
      };
    },
  });
}

describe.skipIf(fixture === null)("whole sealed ranges read from a cold isolate", () => {
  beforeAll(seedBucket);

  it("take their ends from the head's range-ends objects: no metadata read, chained, as stored", async () => {
    const head = decodeHead(new Uint8Array(await (await bucket.get(headKey("testnet")))!.arrayBuffer()));
    const levels = headEndsLevels(head);
    expect(levels.length).toBe(2); // the seed's 18 ranges: a base level of 4 epochs and a recent level
    const keys: string[] = [];
    const ranges = createRangeReaders(createR2Reader(countedBucket(keys)))("testnet", head.rangeSize);
    const check = new ChainCheck(true);
    const first = head.firstHeight / head.rangeSize;
    for (let index = first; index < first + head.rangeCount; index++) {
      const from = index * head.rangeSize;
      const seg = { kind: "sealed", index, from, to: from + head.rangeSize - 1 } as const;
      const read = await startSealedRead(ranges, { projection: "shielded" }, seg, true, levels);
      checkSealedRun(check, read, from, from + head.rangeSize - 1);
      const stored = f.seed.objects[rangeKeys("testnet", head.rangeSize, index).data.shielded]!;
      expect(new Uint8Array(await new Response(read.body).arrayBuffer())).toEqual(
        Uint8Array.from(atob(stored), (c) => c.charCodeAt(0)),
      );
    }
    expect(keys.filter((k) => k.endsWith(".meta.bin"))).toEqual([]);
    expect(keys.filter((k) => k.endsWith("/ends.bin")).length).toBe(2);
    expect(keys.length).toBe(head.rangeCount + 2);
  });

  it("read each range's metadata when the head names no range-ends objects", async () => {
    const keys: string[] = [];
    const ranges = createRangeReaders(createR2Reader(countedBucket(keys)))("testnet", 10);
    const from = 1028410;
    const seg = { kind: "sealed", index: 102841, from, to: from + 9 } as const;
    await (await startSealedRead(ranges, { projection: "shielded" }, seg, true, [])).body.cancel();
    expect(keys).toEqual([
      rangeKeys("testnet", 10, 102841).meta,
      rangeKeys("testnet", 10, 102841).data.shielded,
    ]);
  });
});

describe("piecesOf (a descending range's frames, sent in pieces)", () => {
  const frame = (n: number, fill: number) => new Uint8Array(n).fill(fill);

  it("groups consecutive frames into pieces of at most the limit, a larger frame alone, bytes unchanged", () => {
    const frames = [frame(3, 1), frame(4, 2), frame(2, 3), frame(9, 4), frame(1, 5), frame(5, 6)];
    const pieces = [...piecesOf(frames, 7)];
    expect(pieces.map((p) => p.length)).toEqual([7, 2, 9, 6]);
    expect(concatBytes(pieces)).toEqual(concatBytes(frames));
    expect([...piecesOf(frames, 100)]).toEqual([concatBytes(frames)]);
    expect([...piecesOf(frames, 1)].map((p) => p.length)).toEqual(frames.map((f) => f.length));
    expect([...piecesOf([], 7)]).toEqual([]);
  });

  it("sends a frame of the alone size or more as it is, a view of the stored bytes, between pieces", () => {
    const stored = new Uint8Array(30).map((_, i) => i);
    const frames = [
      stored.subarray(0, 2),
      stored.subarray(2, 4),
      stored.subarray(4, 14),
      stored.subarray(14, 16),
    ];
    const pieces = [...piecesOf(frames, 100, 10)];
    expect(pieces.map((p) => p.length)).toEqual([4, 10, 2]);
    expect(pieces[1]!.buffer).toBe(stored.buffer);
    expect(pieces[0]!.buffer).not.toBe(stored.buffer);
    expect(concatBytes(pieces)).toEqual(stored.subarray(0, 16));
  });

  it("makes each piece from the frames it needs, as it is asked for", () => {
    let made = 0;
    const frames = (function* () {
      for (let i = 0; i < 10; i++) {
        made++;
        yield frame(4, i);
      }
    })();
    const pieces = piecesOf(frames, 8);
    expect(made).toBe(0);
    expect(pieces.next().value).toEqual(concatBytes([frame(4, 0), frame(4, 1)]));
    // The third frame was made to learn that the first piece was full; no more.
    expect(made).toBe(3);
    expect([...pieces].length).toBe(4);
    expect(made).toBe(10);
  });
});
