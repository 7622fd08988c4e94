import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { displayHex, toHex } from "../../proto/bytes.ts";
import {
  chainDir,
  hasChain,
  missingChainMessage,
  readChainFile,
  readChainHex,
} from "../../test/support/chain.ts";
import { computeTxid, parseTransaction } from "./index.ts";
import { catchParse } from "./testing.ts";

const fromHex = (hex: string) => Uint8Array.from(Buffer.from(hex, "hex"));

interface V6Vector {
  scenario: string;
  tx?: string;
  txid: string;
  derive?: { from: string; anchorA: string; anchorB: string };
}

function v6Vectors(): V6Vector[] {
  return JSON.parse(readChainFile("tx/v6/zcash-test-vectors-ironwood_v6_tx_hash-subset.json").toString())
    .vectors;
}

describe.skipIf(!hasChain)(`transactions (${hasChain ? "corpus present" : missingChainMessage})`, () => {
  it("reproduces the txid of every real v6 transaction in tx/v6", () => {
    const index = JSON.parse(readChainFile("tx/v6/index.json").toString());
    expect(index.transactions.length).toBeGreaterThanOrEqual(3);
    for (const t of index.transactions) {
      const tx = parseTransaction(readChainHex(`tx/v6/${t.file}`));
      expect(tx.version, t.file).toBe(6);
      expect(tx.versionGroupId, t.file).toBe(0xd884b698);
      expect(tx.raw.length, t.file).toBe(t.size);
      expect(displayHex(tx.wireTxid), t.file).toBe(t.txidDisplay ?? t.txidComputedIndependently);
    }
  });

  it("reproduces the synthetic Ironwood vectors' txids (internal order) in non-strict mode", () => {
    const vectors = v6Vectors();
    const byName = new Map(vectors.map((v) => [v.scenario, v]));
    for (const v of vectors) {
      let hex = v.tx;
      if (hex === undefined && v.derive)
        hex = byName.get(v.derive.from)!.tx!.replace(v.derive.anchorA, v.derive.anchorB);
      const tx = parseTransaction(fromHex(hex!), { strictV6: false });
      expect(toHex(tx.wireTxid), v.scenario).toBe(v.txid);
    }
  });

  it("keeps the txid when only a v6 anchor changes (ZIP 229 moves anchors to the auth digest)", () => {
    const vectors = v6Vectors().filter((v) => v.derive);
    expect(vectors.length).toBeGreaterThan(0);
    for (const v of vectors) {
      const a = v6Vectors().find((x) => x.scenario === v.derive!.from)!;
      expect(a.txid).toBe(v.txid);
    }
  });

  it("rejects the placeholder v6 group id 0xFFFFFFFF in strict mode (the default)", () => {
    const hex = v6Vectors()[0]!.tx!;
    const err = catchParse(() => parseTransaction(fromHex(hex)));
    expect(err.message).toMatch(/version group id 0xffffffff/);
    expect(err.offset).toBe(4);
  });

  it("reproduces lightwalletd's v5 vectors' txids (display order there)", () => {
    const rows: unknown[][] = JSON.parse(readChainFile("tx/vectors/lightwalletd-tx_v5.json").toString());
    const vectors = rows.filter((r) => r.length > 2) as [string, string, ...unknown[]][];
    expect(vectors.length).toBe(10);
    for (const [hex, txid] of vectors) {
      const tx = parseTransaction(fromHex(hex));
      expect(tx.version).toBe(5);
      expect(displayHex(computeTxid(fromHex(hex)))).toBe(txid);
    }
  });

  it("parses the ZIP 143 (v3) and ZIP 243 (v4) vectors with no bytes left over", () => {
    for (const file of ["lightwalletd-zip143_raw_tx.txt", "lightwalletd-zip243_raw_tx.txt"]) {
      const lines = readChainFile(`tx/vectors/${file}`).toString().split("\n");
      const txs = lines.filter((l) => l.trim() !== "" && !l.startsWith("#"));
      expect(txs.length, file).toBeGreaterThan(0);
      for (const hex of txs)
        expect(parseTransaction(fromHex(hex.trim())).raw.length).toBe(hex.trim().length / 2);
    }
  });

  it("computes SHA256d txids for the real v4 transactions named by their txid", () => {
    for (const name of ["c8845fe5", "2196438e"]) {
      const file = readdirHex("tx/mainnet", name);
      expect(displayHex(computeTxid(readChainHex(`tx/mainnet/${file}`)))).toBe(file.replace(".hex", ""));
    }
  });
});

function readdirHex(dir: string, prefix: string): string {
  const names = listDir(dir);
  const name = names.find((n) => n.startsWith(prefix));
  if (name === undefined) throw new Error(`no ${prefix}* in ${dir}`);
  return name;
}

function listDir(dir: string): string[] {
  return readdirSync(join(chainDir, dir));
}

describe("malformed transactions", () => {
  const minimalV1 = fromHex("01000000000000000000");

  it("parses a minimal v1 transaction (no inputs, no outputs)", () => {
    expect(parseTransaction(minimalV1).version).toBe(1);
  });

  it("rejects trailing bytes with the offset where they start", () => {
    const err = catchParse(() => parseTransaction(fromHex("0100000000000000000000")));
    expect(err.message).toMatch(/1 trailing byte/);
    expect(err.offset).toBe(10);
  });

  it("rejects unknown versions, overwintered or not", () => {
    for (const header of ["03000000", "07000080", "02000080", "00000000", "ffffffff"]) {
      const err = catchParse(() => parseTransaction(fromHex(`${header}98b684d8000000000000000000`)));
      expect(err.message, header).toMatch(/unsupported transaction version/);
      expect(err.offset).toBe(0);
    }
  });

  it("rejects a wrong version group id for v3, v4 and v5", () => {
    for (const header of ["03000080", "04000080", "05000080"]) {
      const err = catchParse(() => parseTransaction(fromHex(`${header}00000000${"00".repeat(20)}`)));
      expect(err.message).toMatch(/version group id/);
    }
  });

  it("rejects a count claiming more inputs than bytes remain, before allocating", () => {
    const err = catchParse(() => parseTransaction(fromHex("01000000feffffff7f00000000")));
    expect(err.message).toMatch(/tx_in count 2147483647 exceeds/);
    expect(err.offset).toBe(4);
  });

  it("rejects non-canonical compactSize encodings", () => {
    const err = catchParse(() => parseTransaction(fromHex("01000000fd0100000000000000")));
    expect(err.message).toMatch(/non-canonical/);
  });
});
