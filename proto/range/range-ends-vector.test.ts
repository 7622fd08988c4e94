import { readFileSync } from "node:fs";
import { sha256 } from "@noble/hashes/sha2.js";
import { describe, expect, it } from "vitest";
import {
  decodeRangeEnds,
  HashIndexBuilder,
  type HeadObject,
  headEndsLevels,
  type RangeEnds,
  rangeEndsAt,
} from "./index.ts";
import { specVectorObjects } from "./spec-vectors.ts";

/** The range-ends test vector printed in proto/range-format.md must be what the codec writes. */
const spec = readFileSync(new URL("../range-format.md", import.meta.url), "utf8");

const documentedObjects = () => specVectorObjects(spec, "vector-range-ends");

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
/** The hash index vector's chain: the hash of height k is SHA-256 of ASCII k; height 0's parent is zeros. */
const hashOf = (height: number) =>
  height < 0 ? new Uint8Array(32) : sha256(new TextEncoder().encode(String(height)));

/** Range k of size 2: shielded 1000 + k bytes, full 2000 + k, nullifiers 300 + k. */
function endsOf(k: number): RangeEnds {
  return {
    firstHeight: 2 * k,
    parentWireHash: hashOf(2 * k - 1),
    lastHeight: 2 * k + 1,
    lastWireHash: hashOf(2 * k + 1),
    lengths: { shielded: 1000 + k, full: 2000 + k, nullifiers: 300 + k },
  };
}

const builder = new HashIndexBuilder({ network: "regtest", rangeSize: 2, firstIndex: 0, epochRanges: 2 });
for (let k = 0; k < 3; k++)
  builder.add(
    k,
    { keys: BigUint64Array.of(BigInt(2 * k), BigInt(2 * k + 1)), fullLengths: new Uint32Array(2) },
    endsOf(k),
  );
const head = {
  firstHeight: 0,
  rangeCount: 3,
  rangeSize: 2,
  network: "regtest",
  hashIndex: builder.headField,
} as HeadObject;

describe("the specification's range-ends test vector", () => {
  it("matches the range-ends objects the builder writes, byte for byte, under the documented keys", () => {
    const written = new Map(
      builder
        .objects()
        .filter((o) => o.key.endsWith("/ends.bin"))
        .map((o) => [o.key, hex(o.bytes)]),
    );
    expect(written).toEqual(documentedObjects());
  });

  it("decodes to every range's ends under the levels the head names", () => {
    const levels = headEndsLevels(head);
    expect(levels.map((l) => [l.firstIndex, l.lastIndex])).toEqual([
      [0, 1],
      [2, 2],
    ]);
    const objects = [...documentedObjects().values()].map((h) => Uint8Array.from(Buffer.from(h, "hex")));
    for (let k = 0; k < 3; k++) {
      const level = k < 2 ? 0 : 1;
      const table = decodeRangeEnds(objects[level]!, levels[level]!);
      expect(rangeEndsAt(table, k)).toEqual(endsOf(k));
    }
  });

  it("refuses an object read under another level's key, and a damaged one", () => {
    const levels = headEndsLevels(head);
    const objects = [...documentedObjects().values()].map((h) => Uint8Array.from(Buffer.from(h, "hex")));
    expect(() => decodeRangeEnds(objects[0]!, levels[1]!)).toThrow(/range-ends object/);
    const damaged = objects[1]!.slice();
    damaged[damaged.length - 40]! ^= 1;
    expect(() => decodeRangeEnds(damaged, levels[1]!)).toThrow(/SHA-256 mismatch/);
  });
});
