import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The real-wallet harness (test/wallet/, built by scripts/ensure-wallet-harness.sh): the Zcash
 * wallet library driven against a server, one JSON report per command (keys in
 * test/wallet/README.md). LIGHTEDGE_WALLET_HARNESS overrides the default cache path.
 */
export const walletHarnessPath =
  process.env.LIGHTEDGE_WALLET_HARNESS ??
  join(
    process.env.LIGHTEDGE_CACHE_DIR ??
      join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "lightedge"),
    "wallet-harness-target/release/lightedge-wallet",
  );

/** True when the harness binary is built. */
export const hasWalletHarness = existsSync(walletHarnessPath);

/** Printed once by tests that skip for lack of the harness; in CI the harness is required. */
export const missingWalletHarnessMessage = `wallet harness not found at ${walletHarnessPath} (run: source scripts/ensure-wallet-harness.sh); tests that need it are skipped`;

if (!hasWalletHarness) {
  if (process.env.CI) throw new Error(`CI requires the wallet harness: ${missingWalletHarnessMessage}`);
  console.warn(`\n*** ${missingWalletHarnessMessage} ***\n`);
}

export type WalletCommand = "sync" | "address" | "send" | "shield" | "fund";
export type Pool = "transparent" | "sapling" | "orchard" | "ironwood";
export type ShieldedPool = Exclude<Pool, "transparent">;

export interface PoolBalance {
  total: number;
  spendable: number;
}

export interface WalletNote {
  pool: Pool | "unknown";
  value: number;
  /** Display order (as RPCs and explorers show it). */
  txid: string;
  height: number | null;
  spent: boolean;
}

/** Roots in zebrad's `finalRoot` byte order (Sapling reversed, Orchard/Ironwood LE); null = empty or absent pool. */
export type PoolRoots = Record<ShieldedPool, string | null>;

export interface WalletReport {
  ok: boolean;
  /** The library's error, verbatim (null on success). */
  error: string | null;
  /** The library error's Debug form (names the variant, e.g. `EncodingInvalid`), sync only. */
  errorDebug?: string;
  // sync (also filled when sync fails, as far as the wallet got)
  tip?: number | null;
  scannedTo?: number | null;
  /** Net blocks added by this call (a reorg's rewind-and-rescan is not counted). */
  blocksScanned?: number;
  elapsedMs?: number;
  balances?: Record<Pool, PoolBalance> | null;
  notes?: WalletNote[];
  roots?: { wallet: PoolRoots; server: PoolRoots; serverHeight: number; equal: boolean } | { error: string };
  subtreeRoots?: Record<ShieldedPool, number | null>;
  // address
  unified?: string;
  sapling?: string | null;
  orchard?: string | null;
  transparent?: string;
  // send / shield
  txids?: string[];
  // send / shield: array; fund: one transaction
  rawHex?: string[] | string;
  fee?: number;
  // fund
  txid?: string;
  version?: string;
}

/** Options every command accepts; undefined ones are left to the harness's defaults. */
export interface WalletOptions {
  server?: string;
  transport?: "grpc" | "grpc-web";
  network?: "mainnet" | "testnet" | "regtest";
  regtestHeights?: string;
  walletDir?: string;
  seedPhrase?: string;
  birthday?: number;
  batchSize?: number;
  to?: string;
  amount?: number;
  memo?: string;
  pool?: ShieldedPool;
  count?: number;
  height?: number;
  /** Kill the harness after this long (default 10 min: proofs and long syncs are slow). */
  timeoutMs?: number;
}

const flags: Record<Exclude<keyof WalletOptions, "timeoutMs">, string> = {
  server: "--server",
  transport: "--transport",
  network: "--network",
  regtestHeights: "--regtest-heights",
  walletDir: "--wallet-dir",
  seedPhrase: "--seed-phrase",
  birthday: "--birthday",
  batchSize: "--batch-size",
  to: "--to",
  amount: "--amount",
  memo: "--memo",
  pool: "--pool",
  count: "--count",
  height: "--height",
};

/** The command line for `options` (exported for tests of the wrapper itself). */
export function walletArgs(command: WalletCommand, options: WalletOptions = {}): string[] {
  const args: string[] = [command];
  for (const [key, flag] of Object.entries(flags) as [keyof typeof flags, string][]) {
    const value = options[key];
    if (value !== undefined) args.push(flag, String(value));
  }
  return args;
}

/**
 * Runs one harness command and returns its report. Resolves for exit 0 (ok) and exit 1 (ran and
 * failed: `ok: false`, `error` verbatim); rejects on usage errors (exit 2), a timeout, a crash, or
 * output that is not one JSON object.
 */
export function runWallet(command: WalletCommand, options: WalletOptions = {}): Promise<WalletReport> {
  const args = walletArgs(command, options);
  return new Promise((resolve, reject) => {
    execFile(
      walletHarnessPath,
      args,
      { timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err && typeof err.code === "number" ? err.code : err ? null : 0;
        if (code !== 0 && code !== 1) {
          const why = err?.killed
            ? `timed out after ${options.timeoutMs ?? 600_000} ms`
            : `exit ${err?.code ?? "?"}`;
          reject(new Error(`lightedge-wallet ${args.join(" ")}: ${why}\n${stdout}\n${stderr.slice(-4000)}`));
          return;
        }
        try {
          const report = JSON.parse(stdout) as WalletReport;
          if (typeof report.ok !== "boolean") throw new Error("no ok field");
          resolve(report);
        } catch (parseError) {
          reject(
            new Error(
              `lightedge-wallet ${command}: unparseable output (${parseError}): ${stdout}\n${stderr.slice(-4000)}`,
            ),
          );
        }
      },
    );
  });
}
