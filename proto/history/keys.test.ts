import { describe, expect, it } from "vitest";
import {
  addressDirectoryKey,
  addressRecordsKey,
  rawBlocksKey,
  txIndexShardKey,
  txTableKey,
} from "./index.ts";

describe("history object keys", () => {
  it("puts a range's raw blocks and transaction table beside its other objects", () => {
    expect(rawBlocksKey("mainnet", 1000, 2222)).toBe("v1/mainnet/r1000/00002222.raw.bin");
    expect(txTableKey("mainnet", 1000, 2222)).toBe("v1/mainnet/r1000/00002222.txs.bin");
    expect(rawBlocksKey("regtest", 2, 123_456_789)).toBe("v1/regtest/r2/123456789.raw.bin");
  });

  it("names index shards in their level's folder, as the hash index does", () => {
    const level = { network: "testnet", rangeSize: 1000, firstIndex: 0, lastIndex: 63 };
    expect(txIndexShardKey(level, 0x2a)).toBe("v1/testnet/r1000/txid/00000000-00000063/002a.bin");
    expect(addressDirectoryKey(level, 0xffff)).toBe("v1/testnet/r1000/taddr/00000000-00000063/ffff.dir.bin");
    expect(addressRecordsKey(level, 1)).toBe("v1/testnet/r1000/taddr/00000000-00000063/0001.rec.bin");
  });

  it("refuses what cannot be a key", () => {
    expect(() => rawBlocksKey("mainnet", 1000, -1)).toThrow(expect.objectContaining({ kind: "bad-request" }));
    expect(() => txTableKey("Main", 1000, 0)).toThrow(expect.objectContaining({ kind: "bad-request" }));
    expect(() => txTableKey("mainnet", 0, 0)).toThrow(expect.objectContaining({ kind: "bad-request" }));
  });
});
