import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import {
  runWallet,
  type ShieldedPool,
  type WalletCommand,
  type WalletOptions,
  type WalletReport,
} from "../support/wallet-harness.ts";
import type { WalletServer } from "../support/wallet-system.ts";

/**
 * The real wallet (test/wallet: zcash_client_backend's unmodified `sync::run` over
 * zcash_client_sqlite) pointed at one server of a wallet system, in its own wallet directory.
 */

export type { ShieldedPool };
export type SyncReport = WalletReport;

/** A second valid BIP 39 phrase (the all-"abandon" test vector), for a counterparty wallet. */
export const OTHER_SEED = `${"abandon ".repeat(23)}art`;

export interface Wallet {
  server: WalletServer;
  dir: string;
  sync(): Promise<SyncReport>;
  run(command: WalletCommand, options?: WalletOptions): Promise<WalletReport>;
}

/**
 * A wallet of `seedPhrase` (default: the harness's, the darkside test seed) with a birthday,
 * talking to one server over that server's transport. Regtest upgrades default to height 1, as
 * on the dev node's synthetic chains.
 */
export function openWallet(
  server: WalletServer,
  o: { network: "mainnet" | "testnet" | "regtest"; birthday: number; seedPhrase?: string },
): Wallet {
  const dir = mkdtempSync(join(tmpdir(), `lightedge-wallet-${server.name}-`));
  const base: WalletOptions = {
    server: server.url,
    transport: server.transport,
    network: o.network,
    walletDir: dir,
    birthday: o.birthday,
    seedPhrase: o.seedPhrase,
  };
  const run = (command: WalletCommand, options: WalletOptions = {}) =>
    runWallet(command, { ...base, ...options });
  return { server, dir, run, sync: () => run("sync") };
}

/**
 * What every wallet sync must end with: no error, the server's tip reached and scanned, and the
 * wallet's own note-commitment tree roots equal to the server's GetTreeState at that tip.
 */
export function expectSyncedTo(r: SyncReport, tip: number, label: string): void {
  expect(r.error, `${label}: wallet error (${r.errorDebug ?? ""})`).toBeNull();
  expect(r.ok, label).toBe(true);
  expect(r.tip, `${label}: tip`).toBe(tip);
  expect(r.scannedTo, `${label}: scanned to`).toBe(tip);
  const roots = r.roots;
  if (!roots || "error" in roots) throw new Error(`${label}: no roots: ${roots?.error}`);
  expect(roots.serverHeight, `${label}: roots compared at`).toBe(tip);
  expect(roots.wallet, `${label}: wallet roots = server roots`).toEqual(roots.server);
  expect(roots.equal, `${label}: roots equal`).toBe(true);
}

/** The wallet's own roots (display order), after `expectSyncedTo`. */
export function walletRoots(r: SyncReport): Record<ShieldedPool, string | null> {
  if (!r.roots || "error" in r.roots) throw new Error(`no roots: ${r.roots?.error}`);
  return r.roots.wallet;
}

/** The parts of a sync that must not depend on the transport it came over. */
export function walletView(r: SyncReport) {
  const notes = [...(r.notes ?? [])].sort((a, b) => a.txid.localeCompare(b.txid) || a.value - b.value);
  return { tip: r.tip, balances: r.balances, notes, roots: walletRoots(r) };
}

/** Every pool's total, transparent included. */
export function totalBalance(r: SyncReport): number {
  return Object.values(r.balances ?? {}).reduce((sum, b) => sum + b.total, 0);
}

export function notesOf(r: SyncReport): NonNullable<SyncReport["notes"]> {
  return r.notes ?? [];
}
