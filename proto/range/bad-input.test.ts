import { describe, expect, it } from "vitest";
import { LightedgeError } from "../errors.ts";
import { assertMetaIdentity, decodeRangeMeta, encodeSealedRange, verifySection } from "./index.ts";
import { syntheticRange } from "./testing.ts";

const encoded = encodeSealedRange(syntheticRange({ rangeSize: 20, index: 5 }));

function expectCorrupt(fn: () => unknown, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(LightedgeError);
    expect((err as LightedgeError).kind).toBe("corrupt");
    expect((err as Error).message).toMatch(message);
    return;
  }
  throw new Error("expected a corrupt error, got none");
}

describe("range metadata that is damaged is refused as corrupt", () => {
  it("refuses a truncated metadata object at every length", () => {
    for (const cut of [0, 7, 40, 200, encoded.meta.length - 1]) {
      expectCorrupt(() => decodeRangeMeta(encoded.meta.subarray(0, cut)), /truncated|size/);
    }
  });

  it("refuses a metadata object with any single byte flipped", () => {
    for (let at = 0; at < encoded.meta.length; at += 37) {
      const bad = encoded.meta.slice();
      bad[at]! ^= 0x01;
      expect(() => decodeRangeMeta(bad), `byte ${at}`).toThrow(LightedgeError);
    }
  });

  it("refuses wrong magic (some other object stored under the key)", () => {
    expectCorrupt(() => decodeRangeMeta(encoded.data.full), /magic/);
    expectCorrupt(
      () => decodeRangeMeta(new TextEncoder().encode(`{"format":"lightedge-head"}${" ".repeat(200)}`)),
      /magic/,
    );
  });

  it("refuses a format version it does not know", () => {
    const v2 = encoded.meta.slice();
    v2[9] = 2;
    expectCorrupt(() => decodeRangeMeta(v2), /version 2/);
  });

  it("refuses metadata read under another range's key", () => {
    const meta = decodeRangeMeta(encoded.meta);
    expectCorrupt(
      () => assertMetaIdentity(meta, { network: "testnet", rangeSize: 20, index: 6 }),
      /describes/,
    );
    expectCorrupt(
      () => assertMetaIdentity(meta, { network: "mainnet", rangeSize: 20, index: 5 }),
      /describes/,
    );
  });
});

describe("data sections that do not match their metadata are refused as corrupt", () => {
  const meta = decodeRangeMeta(encoded.meta);

  it("refuses a truncated section", () => {
    expectCorrupt(
      () => verifySection(meta, "shielded", encoded.data.shielded.subarray(1)),
      /bytes, metadata says/,
    );
  });

  it("refuses a section with a flipped byte (SHA-256 mismatch)", () => {
    const bad = encoded.data.nullifiers.slice();
    bad[bad.length >> 1]! ^= 0x80;
    expectCorrupt(() => verifySection(meta, "nullifiers", bad), /SHA-256/);
  });

  it("refuses another projection's section", () => {
    expectCorrupt(() => verifySection(meta, "full", encoded.data.shielded), /full/);
  });
});
