import { describe, expect, it } from "vitest";
import { LightedgeError } from "../../proto/errors.ts";
import { checkExcludeSuffixes as checkSuffixes, MAX_EXCLUDE_SUFFIXES } from "../../proto/wire/limits.ts";
import { excludedIndices } from "./mempool-filter.ts";

const txid = (...tail: number[]) => {
  const bytes = new Uint8Array(32).fill(0x11);
  bytes.set(tail, 32 - tail.length);
  return bytes;
};

describe("mempool exclusion", () => {
  const txids = [txid(0xaa, 0x01), txid(0xbb, 0x01), txid(0xcc, 0x02)];

  it("excludes the one transaction a suffix matches", () => {
    expect([...excludedIndices(txids, [Uint8Array.of(0x02)])]).toEqual([2]);
    expect([...excludedIndices(txids, [Uint8Array.of(0xbb, 0x01)])]).toEqual([1]);
  });

  it("excludes none of the transactions an ambiguous suffix matches", () => {
    expect(excludedIndices(txids, [Uint8Array.of(0x01)]).size).toBe(0);
    expect(excludedIndices(txids, [new Uint8Array(0)]).size).toBe(0);
  });

  it("matches whole txids and ignores suffixes that match nothing", () => {
    expect([...excludedIndices(txids, [txids[0]!, Uint8Array.of(0x99)])]).toEqual([0]);
  });

  it("refuses more than 20,000 suffixes and suffixes longer than a txid", () => {
    const many = Array.from({ length: MAX_EXCLUDE_SUFFIXES + 1 }, () => Uint8Array.of(1));
    expect(() => checkSuffixes("GetMempoolTx", many)).toThrow(LightedgeError);
    expect(() => checkSuffixes("GetMempoolTx", [new Uint8Array(33)])).toThrow(/longer than 32/);
    expect(() => checkSuffixes("GetMempoolTx", [new Uint8Array(32)])).not.toThrow();
  });
});
