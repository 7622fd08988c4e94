import { describe, expect, it } from "vitest";
import { decodeFrames } from "../../proto/frame.ts";
import {
  blockSpan,
  decodeRangeMeta,
  encodeSealedRange,
  PROJECTIONS,
  rangeKeys,
} from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import type { ObjectReader } from "./object-reader.ts";

/** A reader under test plus a way to put objects where it reads (keys relative to its prefix). */
export interface ReaderFixture {
  reader: ObjectReader;
  put(key: string, bytes: Uint8Array): Promise<void>;
}

async function bytesOf(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/**
 * The behaviour every edge ObjectReader adapter must show, run inside workerd once per adapter
 * (r2-reader.test.ts, s3-fetch-reader.test.ts, public-url-reader.test.ts).
 */
export function describeObjectReaderContract(name: string, open: () => Promise<ReaderFixture>): void {
  describe(`${name} satisfies the ObjectReader contract`, () => {
    const bytes = Uint8Array.from({ length: 5000 }, (_, i) => (i * 13 + 1) & 0xff);
    const key = "v1/testnet/r10/00000001.full.bin";
    const ready = open().then(async (f) => {
      await f.put(key, bytes);
      return f;
    });

    it("returns the whole object as a native stream, with its size and etag", async () => {
      const { reader } = await ready;
      const got = await reader.get(key);
      expect(got?.body).toBeInstanceOf(ReadableStream);
      expect(got?.size).toBe(5000);
      expect(got?.etag).toMatch(/^(W\/)?".+"$/);
      expect(got?.range).toBeUndefined();
      expect(await bytesOf(got!.body)).toEqual(bytes);
    });

    it("returns a byte range with the whole object's size", async () => {
      const { reader } = await ready;
      const got = await reader.get(key, { offset: 1000, length: 2345 });
      expect(got?.size).toBe(5000);
      expect(got?.range).toEqual({ offset: 1000, length: 2345 });
      expect(await bytesOf(got!.body)).toEqual(bytes.subarray(1000, 3345));
    });

    it("clamps a range that runs past the end, and answers no bytes for one that starts there", async () => {
      const { reader } = await ready;
      const tail = await reader.get(key, { offset: 4990, length: 100 });
      expect(tail?.range).toEqual({ offset: 4990, length: 10 });
      expect(await bytesOf(tail!.body)).toEqual(bytes.subarray(4990));
      const past = await reader.get(key, { offset: 5000, length: 10 });
      expect(past?.range?.length).toBe(0);
      expect(await bytesOf(past!.body)).toEqual(new Uint8Array(0));
    });

    it("reports size and etag without a body, matching get", async () => {
      const { reader } = await ready;
      const info = await reader.head(key);
      expect(info?.size).toBe(5000);
      const got = await reader.get(key, { offset: 0, length: 1 });
      await got?.body.cancel();
      expect(info?.etag).toBe(got?.etag);
    });

    it("answers null for a missing key on get, ranged get and head", async () => {
      const { reader } = await ready;
      expect(await reader.get("v1/testnet/r10/00000099.full.bin")).toBeNull();
      expect(await reader.get("v1/testnet/r10/00000099.full.bin", { offset: 0, length: 10 })).toBeNull();
      expect(await reader.head("v1/testnet/r10/00000099.full.bin")).toBeNull();
    });

    it("serves a sealed range: one metadata read and one ranged read per projection", async () => {
      const { reader, put } = await ready;
      const input = syntheticRange({ rangeSize: 40, index: 2 });
      const encoded = encodeSealedRange(input);
      const keys = rangeKeys("testnet", 40, 2);
      await put(keys.meta, encoded.meta);
      for (const p of PROJECTIONS) await put(keys.data[p], encoded.data[p]);
      const meta = decodeRangeMeta(await bytesOf((await reader.get(keys.meta))!.body));
      for (const p of PROJECTIONS) {
        const span = blockSpan(meta, p, 95, 111);
        const got = await reader.get(keys.data[p], span);
        expect(got?.size).toBe(meta.sections[p].length);
        const frames = [...decodeFrames(await bytesOf(got!.body))].map((f) => f.message);
        expect(frames).toEqual(input.blocks.slice(15, 32).map((b) => b.messages[p]));
      }
    });
  });
}
