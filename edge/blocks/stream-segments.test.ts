import { env } from "cloudflare:test";
import { Code } from "@connectrpc/connect";
import { beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_SPAN_READ_BYTES,
  decodeHead,
  headEndsLevels,
  headKey,
  rangeKeys,
} from "../../proto/range/index.ts";
import { startDeadline } from "../../proto/wire/deadline.ts";
import { createR2Reader } from "../store/r2-reader.ts";
import { createRangeReaders } from "../store/range-store.ts";
import { b64, type EdgeFixture, fixture, seedBucket } from "../testing/fixture.ts";
import { DEFAULT_MAX_BUFFERED_BYTES } from "./buffer-budget.ts";
import {
  type RangeStream,
  readConnections,
  SEALED_READ_CONNECTIONS,
  segmentPieces,
} from "./stream-segments.ts";

const f = fixture as EdgeFixture;
const bucket = (env as unknown as { BLOCKS: R2Bucket }).BLOCKS;

/** The real binding; every range data object it is asked for recorded, bodies cancelled counted. */
function watchedBucket(gets: string[], cancelled: string[], delayMs = 0): R2Bucket {
  return new Proxy(bucket, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "get") return typeof value === "function" ? value.bind(target) : value;
      return async (key: string, options?: R2GetOptions) => {
        const data = key.endsWith(".shielded.bin");
        if (data) gets.push(key);
        if (data && delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        const object = (await target.get(key, options)) as R2ObjectBody | null;
        if (object === null || !data) return object;
        const reader = object.body.getReader();
        const watched = new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            const { value: chunk, done } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(chunk);
          },
          cancel: async (reason) => {
            cancelled.push(key);
            await reader.cancel(reason);
          },
        });
        return new Proxy(object, { get: (o, p) => (p === "body" ? watched : Reflect.get(o, p, o)) });
      };
    },
  });
}

describe.skipIf(fixture === null)("a sealed stream's reads", () => {
  beforeAll(seedBucket);

  async function streamOf(
    gets: string[],
    cancelled: string[],
    hot?: (first: number) => number,
    o: { delayMs?: number; timeoutMs?: number } = {},
  ) {
    const head = decodeHead(new Uint8Array(await (await bucket.get(headKey("testnet")))!.arrayBuffer()));
    const ranges = createRangeReaders(createR2Reader(watchedBucket(gets, cancelled, o.delayMs)))(
      "testnet",
      head.rangeSize,
    );
    const first = head.firstHeight / head.rangeSize;
    const indexes = Array.from({ length: head.rangeCount }, (_, k) => first + k);
    const stream: RangeStream = {
      rpc: "GetBlockRange",
      segments: indexes.map((index) => ({
        kind: "sealed",
        index,
        from: index * head.rangeSize,
        to: (index + 1) * head.rangeSize - 1,
      })),
      opened: new Map(),
      source: { projection: "shielded" },
      ranges,
      ascending: true,
      endsLevels: headEndsLevels(head),
      hotFrom: hot?.(first),
      deadline: startDeadline("GetBlockRange", o.timeoutMs),
      bufferBytes: DEFAULT_MAX_BUFFERED_BYTES,
      spanReads: { maxBytes: DEFAULT_SPAN_READ_BYTES, spareCalls: 0 },
    };
    return {
      stream,
      indexes,
      keys: indexes.map((index) => rangeKeys("testnet", head.rangeSize, index).data.shielded),
    };
  }

  /** How many reads are open while segment `sent` is sent: it, and those ahead that fit the budget. */
  const openWhileSending = (indexes: number[], sent: number, hotFrom: number | undefined) => {
    let open = readConnections(indexes[sent]!, hotFrom);
    let n = sent + 1;
    while (n < indexes.length) {
      const next = readConnections(indexes[n]!, hotFrom);
      if (n > sent + 1 && open + next > SEALED_READ_CONNECTIONS) break;
      open += next;
      n++;
    }
    return n;
  };

  it.each([
    ["no range is hot", undefined],
    [
      "the newest ranges are hot (two connections each while they fill the Cache API)",
      (first: number) => first + 8,
    ],
  ] as const)(
    "are started ahead of the one being sent within the connection budget when %s",
    async (_name, hot) => {
      const gets: string[] = [];
      const { stream, keys, indexes } = await streamOf(gets, [], hot);
      expect(keys.length).toBeGreaterThan(12);
      let sent = 0;
      for await (const piece of segmentPieces(stream, true)) {
        if (piece.kind !== "sealed") throw new Error("no origin segment here");
        // The reads up to this one and those ahead of it are asked for, and no more while this one is
        // sent (the reads ahead reach storage after their own awaits).
        const expected = openWhileSending(indexes, sent, stream.hotFrom);
        for (let i = 0; i < 50 && gets.length < expected; i++) await new Promise((r) => setTimeout(r, 10));
        expect(gets.length).toBe(expected);
        expect(new Uint8Array(await new Response(piece.read.body).arrayBuffer())).toEqual(
          b64(f.seed.objects[keys[sent]!]!),
        );
        sent++;
      }
      expect(sent).toBe(keys.length);
      expect(gets).toEqual(keys);
      // What the budget means here: 4 reads open among older ranges, 2 among hot ones.
      expect(openWhileSending(indexes, 0, undefined)).toBe(SEALED_READ_CONNECTIONS);
      if (stream.hotFrom !== undefined) expect(openWhileSending(indexes, 10, stream.hotFrom) - 10).toBe(2);
    },
  );

  it("cancels the reads started ahead when the sender stops early", async () => {
    const gets: string[] = [];
    const cancelled: string[] = [];
    const { stream, keys } = await streamOf(gets, cancelled);
    for await (const piece of segmentPieces(stream, true)) {
      if (piece.kind === "sealed") await new Response(piece.read.body).arrayBuffer();
      break;
    }
    // Cancelled once their reads settle (after the generator has returned).
    for (let i = 0; i < 50 && cancelled.length < SEALED_READ_CONNECTIONS - 1; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gets).toEqual(keys.slice(0, SEALED_READ_CONNECTIONS));
    expect(cancelled.sort()).toEqual(keys.slice(1, SEALED_READ_CONNECTIONS).sort());
  });

  it("cancels every started read, the awaited one too, when the deadline passes before a read answers", async () => {
    const gets: string[] = [];
    const cancelled: string[] = [];
    // Every data read answers after 300 ms; the client's deadline is 50 ms.
    const { stream, keys } = await streamOf(gets, cancelled, undefined, { delayMs: 300, timeoutMs: 50 });
    const pieces = segmentPieces(stream, true);
    await expect(pieces.next()).rejects.toMatchObject({ code: Code.DeadlineExceeded });
    for (let i = 0; i < 100 && cancelled.length < SEALED_READ_CONNECTIONS; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(gets).toEqual(keys.slice(0, SEALED_READ_CONNECTIONS));
    // The first read, awaited when the deadline fired and never handed to a sender, is released too.
    expect(cancelled.sort()).toEqual(keys.slice(0, SEALED_READ_CONNECTIONS).sort());
    stream.deadline.dispose();
  });
});
