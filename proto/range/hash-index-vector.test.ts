import { readFileSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import {
  blockHashEntries,
  decodeHashShard,
  HashIndexBuilder,
  type HeadObject,
  hashKey32,
  headHashLevels,
  shardBitsFor,
  shardCandidates,
} from "./index.ts";
import { specVectorLines, specVectorObjects } from "./spec-vectors.ts";

/** The hash index test vector printed in proto/range-format.md must be what the codec writes. */
const spec = readFileSync(new URL("../range-format.md", import.meta.url), "utf8");

const block = (tag: string) => specVectorLines(spec, tag);

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const hashOf = (height: number) => sha256(new TextEncoder().encode(String(height)));

/** The `full` message of height k is 10 + k bytes long (its content is not in the index). */
const fullOf = (height: number) => new Uint8Array(10 + height);

const builder = new HashIndexBuilder({ network: "regtest", rangeSize: 2, firstIndex: 0, epochRanges: 2 });
for (let index = 0; index < 3; index++)
  builder.add(
    index,
    blockHashEntries(
      [2 * index, 2 * index + 1].map((height) => ({
        height,
        wireHash: hashOf(height),
        messages: { full: fullOf(height) },
      })),
    ),
  );

const documentedObjects = () => specVectorObjects(spec, "vector-hash-objects");

describe("the specification's hash index test vector", () => {
  it("gives each documented hash its documented key", () => {
    for (const line of block("vector-hash-keys")) {
      const [height, hash, key] = line.split(" ");
      expect(hex(hashOf(Number(height)))).toBe(hash);
      expect(
        hashKey32(hashOf(Number(height)))
          .toString(16)
          .padStart(8, "0"),
      ).toBe(key);
      // The same key for the reversed (display-order) hash.
      expect(hashKey32(hashOf(Number(height)).reverse())).toBe(Number.parseInt(key!, 16));
    }
  });

  it("matches the shard objects the builder writes, byte for byte, under the documented keys", () => {
    const written = new Map(builder.objects().map((o) => [o.key, hex(o.bytes)]));
    expect(written).toEqual(documentedObjects());
  });

  it("names the documented levels from the head alone, and the shards decode to every block's frame", () => {
    const head = {
      firstHeight: 0,
      rangeCount: 3,
      rangeSize: 2,
      network: "regtest",
      hashIndex: builder.headField,
    };
    const levels = headHashLevels(head as HeadObject)!;
    expect(levels.map((l) => [l.firstIndex, l.lastIndex, l.bits])).toEqual([
      [0, 1, 0],
      [2, 2, 0],
    ]);
    const objects = [...documentedObjects().values()].map((h) => Uint8Array.from(Buffer.from(h, "hex")));
    for (let height = 0; height < 6; height++) {
      const level = height < 4 ? 0 : 1;
      const shard = decodeHashShard(objects[level]!, levels[level]!, 0);
      // The first block of a range is its first frame; the second follows it (5 header bytes).
      const offset = height % 2 === 0 ? 0 : 5 + fullOf(height - 1).length;
      expect(shardCandidates(shard, hashKey32(hashOf(height)))).toEqual([
        { height, offset, length: fullOf(height).length },
      ]);
    }
  });

  it("cuts levels into the documented number of shards", () => {
    for (const line of block("vector-hash-bits")) {
      const [entries, bits] = line.split(" ").map(Number);
      expect(shardBitsFor(entries!)).toBe(bits);
    }
  });
});
