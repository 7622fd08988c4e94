import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { chainDir, hasChain } from "../support/chain.ts";
import { hasWalletHarness, runWallet, walletArgs } from "../support/wallet-harness.ts";

// The harness's own contract, without a server (whole-system wallet tests live elsewhere).
describe("wallet harness CLI", () => {
  it("passes only the options given, with their flags", () => {
    expect(walletArgs("fund", { to: "t1x", amount: 5, pool: "sapling", height: 3 })).toEqual([
      "fund",
      "--to",
      "t1x",
      "--amount",
      "5",
      "--pool",
      "sapling",
      "--height",
      "3",
    ]);
  });

  it.skipIf(!hasWalletHarness || !hasChain)(
    "derives the darkside seed's transparent address that darksidewalletd's test UTXO pays",
    async () => {
      // darksidewalletd-test-data shield-funds/utxo-1631177.json: a mainnet UTXO for the test seed.
      const utxo = JSON.parse(readFileSync(join(chainDir, "tx/mainnet/darkside-utxo-1631177.json"), "utf8"));
      const report = await runWallet("address", { network: "mainnet" });
      expect(report.ok).toBe(true);
      expect(report.transparent).toBe(utxo.address);
      expect(report.sapling).toMatch(/^zs1/);
      expect(report.unified).toMatch(/^u1/);
    },
  );

  it.skipIf(!hasWalletHarness)(
    "rejects a usage error (exit 2) and reports a failed run verbatim (exit 1)",
    async () => {
      await expect(runWallet("sync", {})).rejects.toThrow(/exit 2[\s\S]*--server is required/);
      const own = await runWallet("address", {});
      const foreign = await runWallet("address", {
        seedPhrase: `${"abandon ".repeat(23)}art`,
      });
      expect(foreign.unified).not.toBe(own.unified);
      // From NU6.3 (active at 1 by default) the Orchard pool takes no cross-address outputs.
      const report = await runWallet("fund", {
        to: foreign.unified,
        amount: 1000,
        pool: "orchard",
        height: 10,
      });
      expect(report.ok).toBe(false);
      expect(report.error).toMatch(/Cross-address transfers are disabled/);
    },
  );

  it.skipIf(!hasWalletHarness)("builds a v6 Sapling payment with real proofs for the dev chain", async () => {
    const { sapling } = await runWallet("address", {});
    if (!sapling) throw new Error("address: no Sapling receiver");
    const report = await runWallet("fund", {
      to: sapling,
      amount: 12_345,
      pool: "sapling",
      count: 2,
      height: 10,
    });
    expect(report.ok).toBe(true);
    expect(report.txid).toMatch(/^[0-9a-f]{64}$/);
    expect(typeof report.rawHex).toBe("string");
    // v6 header (NU6.3 at height 10 on the default regtest heights): 0x80000006 little-endian.
    expect(String(report.rawHex).slice(0, 8)).toBe("06000080");
    expect(report.fee).toBe(15_000); // ZIP 317: 1 transparent input + 2 Sapling outputs = 3 actions
  });
});
