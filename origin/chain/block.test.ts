import { describe, expect, it } from "vitest";
import { displayHex } from "../../proto/bytes.ts";
import {
  corpusIndex,
  hasChain,
  missingChainMessage,
  readChainFile,
  readChainHex,
} from "../../test/support/chain.ts";
import { ChainParseError, parseBlock } from "./index.ts";
import { catchParse } from "./testing.ts";

interface TxSummary {
  txid: string;
  version: number;
  versionGroupId?: string;
  vin: number;
  vout: number;
  saplingSpends: number;
  saplingOutputs: number;
  orchardActions: number;
  joinSplits: number;
  size: number;
  coinbase: boolean;
}

describe.skipIf(!hasChain)(`every corpus block (${hasChain ? "present" : missingChainMessage})`, () => {
  const blocks = hasChain ? corpusIndex().blocks : [];
  const txindex: Record<string, TxSummary[]> = hasChain
    ? JSON.parse(readChainFile("txindex.json").toString())
    : {};

  it("covers mainnet, testnet and regtest blocks", () => {
    const networks = new Set(blocks.map((b) => b.network));
    expect([...networks].sort()).toEqual(["mainnet", "regtest", "testnet"]);
    expect(blocks.length).toBeGreaterThan(400);
  });

  it("parses with hash, prevHash, merkle root, height, time and txids equal to index.json", () => {
    for (const b of blocks) {
      const raw = readChainHex(b.file);
      const block = parseBlock(raw);
      expect(block.size, b.file).toBe(raw.length);
      expect(displayHex(block.wireHash), b.file).toBe(b.hash);
      expect(displayHex(block.header.wirePrevHash), b.file).toBe(b.prevHash);
      expect(displayHex(block.header.merkleRoot), b.file).toBe(b.merkleRoot);
      expect(block.height, b.file).toBe(b.height);
      expect(block.header.time, b.file).toBe(b.time);
      expect(
        block.txs.map((tx) => displayHex(tx.wireTxid)),
        b.file,
      ).toEqual(b.txids);
    }
  });

  it("gives per-tx versions, sizes and component counts equal to txindex.json", () => {
    for (const b of blocks) {
      const block = parseBlock(readChainHex(b.file));
      const expected = txindex[`${b.network}:${b.height}`]!;
      const got = block.txs.map((tx) => ({
        txid: displayHex(tx.wireTxid),
        version: tx.version,
        vin: tx.vin.length,
        vout: tx.vout.length,
        saplingSpends: tx.sapling.spends.length,
        saplingOutputs: tx.sapling.outputs.length,
        orchardActions: tx.orchard?.actions.length ?? 0,
        joinSplits: tx.joinSplitCount,
        size: tx.raw.length,
        coinbase: tx.index === 0,
      }));
      const want = expected.map((t) => ({
        txid: t.txid,
        version: t.version,
        vin: t.vin,
        vout: t.vout,
        saplingSpends: t.saplingSpends,
        saplingOutputs: t.saplingOutputs,
        orchardActions: t.orchardActions,
        joinSplits: t.joinSplits,
        size: t.size,
        coinbase: t.coinbase,
      }));
      expect(got, b.file).toEqual(want);
    }
  });

  it("reads the 36-byte regtest Equihash solution and the 1344-byte one elsewhere", () => {
    for (const b of blocks.filter((x) => x.height <= 1)) {
      const block = parseBlock(readChainHex(b.file));
      expect(block.header.solution.length, b.file).toBe(b.network === "regtest" ? 36 : 1344);
    }
  });

  it("rejects the bad-merkle block with a typed error at the header's merkle root", () => {
    const err = catchParse(() => parseBlock(readChainHex("blocks/invalid/mainnet-202-bad-merkle.hex")));
    expect(err.kind).toBe("malformed");
    expect(err.message).toMatch(/merkle root/);
    expect(err.offset).toBe(36);
  });

  it("rejects every line of lightwalletd's badblocks with a typed error", () => {
    const lines = readChainFile("blocks/invalid/lightwalletd-badblocks.txt")
      .toString()
      .split("\n")
      .filter(Boolean);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      const bytes = Uint8Array.from(Buffer.from(line.length % 2 === 0 ? line : `${line}0`, "hex"));
      expect(() => parseBlock(bytes), line.slice(0, 40)).toThrow(ChainParseError);
    }
  });

  it("rejects every truncation, trailing bytes and an inflated tx count of a v4+v5 block", () => {
    const raw = readChainHex("blocks/mainnet/2222000.hex");
    for (let cut = 0; cut < raw.length; cut += 7) {
      expect(() => parseBlock(raw.subarray(0, cut)), `cut at ${cut}`).toThrow(ChainParseError);
    }
    const trailing = catchParse(() => parseBlock(Uint8Array.of(...raw, 0)));
    expect(trailing.offset).toBe(raw.length);
    const inflated = raw.slice();
    inflated[1487] = 0xfc; // tx count right after the 1487-byte header: 252 txs claimed, 2 present
    const err = catchParse(() => parseBlock(inflated));
    expect(err.message).toMatch(/truncated|exceeds/);
    expect(err.txIndex).toBeGreaterThanOrEqual(2);
  });
});
