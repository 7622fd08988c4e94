import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  chainDir,
  hasChain,
  missingChainMessage,
  readChainFile,
  readChainHex,
} from "../../../test/support/chain.ts";

const main = fileURLToPath(new URL("../main.ts", import.meta.url));

function cli(args: string[], input?: Uint8Array) {
  const r = spawnSync(process.execPath, [main, ...args], { input, encoding: "buffer" });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.skipIf(!hasChain)(
  `lightedge compact / txid (${hasChain ? "corpus present" : missingChainMessage})`,
  () => {
    const dir = hasChain ? mkdtempSync(join(tmpdir(), "lightedge-cli-")) : "";

    it("prints FILE<TAB>hex equal to lightwalletd's golden block, from hex text and from raw bytes", () => {
      const golden = JSON.parse(readChainFile("compact/lightwalletd-compact_blocks.json").toString())[1];
      const hexFile = join(dir, "b.hex");
      const rawFile = join(dir, "b.bin");
      writeFileSync(hexFile, `${golden.full}\n`);
      writeFileSync(rawFile, Buffer.from(golden.full, "hex"));
      const r = cli(["compact", "--zero-txids", hexFile, rawFile]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${hexFile}\t${golden.compact}\n${rawFile}\t${golden.compact}\n`);
    });

    it("reads stdin for '-' and honours --shielded, --nullifiers and --tree-sizes", () => {
      const raw = readChainHex("blocks/mainnet/2222000.hex");
      const full = cli(["compact", "-"], raw);
      const shielded = cli(["compact", "--shielded", "--tree-sizes", "1,2,3", "-"], raw);
      const pools = cli(
        ["compact", "--pools", "sapling,orchard,ironwood", "--tree-sizes", "1,2,3", "-"],
        raw,
      );
      const nf = cli(["compact", "--nullifiers", "--shielded", "-"], raw);
      for (const r of [full, shielded, pools, nf]) expect(r.code, r.stderr).toBe(0);
      expect(shielded.stdout).toBe(pools.stdout);
      expect(shielded.stdout).not.toBe(full.stdout);
      expect(shielded.stdout.trimEnd()).toMatch(/4206080110021803$/); // chainMetadata {1,2,3}
      expect(nf.stdout.trimEnd()).toMatch(/4200$/); // chainMetadata present, sizes zeroed
      expect(nf.stdout.length).toBeLessThan(shielded.stdout.length);
    });

    it("reports a bad block with the file and byte offset on stderr and exits non-zero", () => {
      const r = cli(["compact", join(chainDir, "blocks/invalid/mainnet-202-bad-merkle.hex")]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/mainnet-202-bad-merkle\.hex: merkle root does not match.*byte 36/);
    });

    it("reports a truncated transaction with its tx index and byte offset", () => {
      const raw = readChainHex("blocks/mainnet/2222000.hex");
      const r = cli(["compact", "-"], raw.subarray(0, raw.length - 100));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/-: truncated .*\(tx 1, byte \d+\)/);
    });

    it("prints display-order txids for raw transactions, v6 included, and rejects bad usage", () => {
      const index = JSON.parse(readChainFile("tx/v6/index.json").toString());
      const t = index.transactions.find((x: { txidDisplay: string | null }) => x.txidDisplay);
      const file = join(chainDir, "tx/v6", t.file);
      const r = cli(["txid", file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${file}\t${t.txidDisplay}\n`);
      expect(cli(["compact", "--pools", "bogus", file]).code).toBe(2);
      expect(cli(["txid"]).code).toBe(2);
    });
  },
);
