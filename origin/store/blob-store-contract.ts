import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decodeRangeMeta,
  encodeSealedRange,
  PROJECTIONS,
  rangeKeys,
  verifySection,
} from "../../proto/range/index.ts";
import { syntheticRange } from "../../proto/range/testing.ts";
import type { BlobStore } from "./blob-store.ts";

/**
 * The behaviour every BlobStore adapter must show, run once per adapter (directory-store.test.ts,
 * s3-store.test.ts). `open` returns a fresh, empty store.
 */
export function describeBlobStoreContract(
  name: string,
  open: () => Promise<{ store: BlobStore; close: () => Promise<void> }>,
): void {
  describe(`${name} satisfies the BlobStore contract`, () => {
    let store: BlobStore;
    let close: () => Promise<void>;
    const bytes = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7 + 3) & 0xff);

    beforeAll(async () => {
      ({ store, close } = await open());
      await store.put("v1/testnet/r10/00000001.full.bin", bytes, { immutable: true });
    });
    afterAll(async () => close?.());

    it("returns exactly the bytes that were put", async () => {
      expect(await store.get("v1/testnet/r10/00000001.full.bin")).toEqual(bytes);
    });

    it("returns a byte range from the middle of an object", async () => {
      const got = await store.get("v1/testnet/r10/00000001.full.bin", { offset: 1234, length: 567 });
      expect(got).toEqual(bytes.subarray(1234, 1801));
    });

    it("clamps a range that runs past the end to the bytes that exist", async () => {
      const got = await store.get("v1/testnet/r10/00000001.full.bin", { offset: 2990, length: 100 });
      expect(got).toEqual(bytes.subarray(2990));
    });

    it("reports size and an entity tag", async () => {
      const info = await store.stat("v1/testnet/r10/00000001.full.bin");
      expect(info?.size).toBe(bytes.length);
      expect(info?.etag.length).toBeGreaterThan(2);
    });

    it("answers null for a missing key on get, ranged get and stat", async () => {
      expect(await store.get("v1/testnet/r10/00000099.full.bin")).toBeNull();
      expect(await store.get("v1/testnet/r10/00000099.full.bin", { offset: 0, length: 10 })).toBeNull();
      expect(await store.stat("v1/testnet/r10/00000099.full.bin")).toBeNull();
    });

    it("accepts an identical overwrite of an immutable object and keeps its bytes and etag", async () => {
      const before = await store.stat("v1/testnet/r10/00000001.full.bin");
      await store.put("v1/testnet/r10/00000001.full.bin", bytes.slice(), { immutable: true });
      expect(await store.stat("v1/testnet/r10/00000001.full.bin")).toEqual(before);
      expect(await store.get("v1/testnet/r10/00000001.full.bin")).toEqual(bytes);
    });

    it("replaces a mutable object (the head) with the newer bytes", async () => {
      await store.put("v1/testnet/head.json", new TextEncoder().encode("{}"), {
        contentType: "application/json",
      });
      await store.put("v1/testnet/head.json", new TextEncoder().encode('{"a":1}'), {
        contentType: "application/json",
      });
      expect(new TextDecoder().decode((await store.get("v1/testnet/head.json"))!)).toBe('{"a":1}');
    });

    it("lists keys under a prefix in sorted order, and nothing outside it", async () => {
      await store.put("v1/testnet/r10/00000000.meta.bin", new Uint8Array([1]), { immutable: true });
      await store.put("v1/mainnet/r10/00000000.meta.bin", new Uint8Array([2]), { immutable: true });
      expect(await store.list("v1/testnet/r10/")).toEqual([
        "v1/testnet/r10/00000000.meta.bin",
        "v1/testnet/r10/00000001.full.bin",
      ]);
      expect(await store.list("v1/testnet/r10/00000000")).toEqual(["v1/testnet/r10/00000000.meta.bin"]);
      expect(await store.list("v1/regtest/")).toEqual([]);
    });

    it("deletes the objects named, takes an absent key as already deleted, and keeps the rest", async () => {
      const level = "v1/testnet/r10/txid/00000000-00000003/";
      const keys = [`${level}0000.bin`, `${level}0001.bin`, `${level}0002.bin`];
      for (const k of keys) await store.put(k, new Uint8Array([7]), { immutable: true });
      await store.put("v1/testnet/r10/txid/00000000-00000006/0000.bin", new Uint8Array([8]), {
        immutable: true,
      });
      await store.delete([keys[0]!, keys[1]!, `${level}0009.bin`]);
      expect(await store.list("v1/testnet/r10/txid/")).toEqual([
        keys[2],
        "v1/testnet/r10/txid/00000000-00000006/0000.bin",
      ]);
      expect(await store.get(keys[0]!)).toBeNull();
      await store.delete([keys[2]!, "v1/testnet/r10/txid/00000000-00000006/0000.bin"]);
      await store.delete([]);
      expect(await store.list("v1/testnet/r10/txid/")).toEqual([]);
      expect(await store.get("v1/testnet/r10/00000001.full.bin")).toEqual(bytes);
    });

    it("holds a sealed range whose every section verifies after read-back", async () => {
      const encoded = encodeSealedRange(syntheticRange({ rangeSize: 30, index: 4 }));
      const keys = rangeKeys("testnet", 30, 4);
      for (const p of PROJECTIONS) await store.put(keys.data[p], encoded.data[p], { immutable: true });
      await store.put(keys.meta, encoded.meta, { immutable: true });
      const meta = decodeRangeMeta((await store.get(keys.meta))!);
      for (const p of PROJECTIONS) verifySection(meta, p, (await store.get(keys.data[p]))!);
      expect((await store.stat(keys.data.full))?.size).toBe(meta.sections.full.length);
    });

    it("writes a body of parts as the one object they make, and an identical re-put of it keeps its etag", async () => {
      // Parts of uneven sizes, an empty one among them (a raw-block object: frame headers and blocks).
      const parts = [
        bytes.subarray(0, 5),
        bytes.subarray(5, 5),
        bytes.subarray(5, 2000),
        bytes.subarray(2000),
      ];
      await store.put("v1/testnet/r10/00000002.raw.bin", parts, { immutable: true });
      expect(await store.get("v1/testnet/r10/00000002.raw.bin")).toEqual(bytes);
      const before = await store.stat("v1/testnet/r10/00000002.raw.bin");
      expect(before?.size).toBe(bytes.length);
      await store.put("v1/testnet/r10/00000002.raw.bin", [bytes.slice()], { immutable: true });
      expect(await store.stat("v1/testnet/r10/00000002.raw.bin")).toEqual(before);
    });

    it("writes a file body: the file's first `length` bytes, read while written", async () => {
      const dir = await mkdtemp(join(tmpdir(), "lightedge-file-body-"));
      try {
        const file = join(dir, "spooled.raw");
        await writeFile(file, Buffer.concat([bytes, Buffer.from("not part of the object")]));
        await store.put(
          "v1/testnet/r10/00000003.raw.bin",
          { file, length: bytes.length },
          { immutable: true },
        );
        expect(await store.get("v1/testnet/r10/00000003.raw.bin")).toEqual(bytes);
        const before = await store.stat("v1/testnet/r10/00000003.raw.bin");
        await store.put(
          "v1/testnet/r10/00000003.raw.bin",
          { file, length: bytes.length },
          { immutable: true },
        );
        expect(await store.stat("v1/testnet/r10/00000003.raw.bin")).toEqual(before);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it("stores an empty object", async () => {
      await store.put("v1/testnet/empty.bin", new Uint8Array(0));
      expect(await store.get("v1/testnet/empty.bin")).toEqual(new Uint8Array(0));
      expect((await store.stat("v1/testnet/empty.bin"))?.size).toBe(0);
    });
  });
}
