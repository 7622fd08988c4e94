import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runWallet } from "../support/wallet-harness.ts";
import type { WalletServer } from "../support/wallet-system.ts";

/**
 * The real wallet (test/wallet: zcash_client_backend's unmodified `sync::run` over
 * zcash_client_sqlite) pointed at one server of a wallet system, in its own wallet directory.
 */

export type ShieldedPool = "sapling" | "orchard" | "ironwood";

export interface SyncReport {
  ok: boolean;
  error: string | null;
  tip: number;
  scannedTo: number;
  blocksScanned: number;
  elapsedMs: number;
  balances: Partial<Record<ShieldedPool, { total: number; spendable: number }>>;
  notes: { pool: ShieldedPool; value: number; txid: string; height: number; spent: boolean }[];
  roots: {
    wallet: Partial<Record<ShieldedPool, string | null>>;
    server: Partial<Record<ShieldedPool, string | null>>;
    serverHeight: number;
    equal: boolean;
  };
}

/** The darkside test seed (the harness default), from the mobile SDKs' darkside tests. */
export const DARKSIDE_SEED =
  "still champion voice habit trend flight survey between bitter process artefact blind carbon truly provide dizzy crush flush breeze blouse charge solid fish spread";

/** A second valid BIP 39 phrase (the all-"abandon" test vector), for a counterparty wallet. */
export const OTHER_SEED = `${"abandon ".repeat(23)}art`;

export interface WalletOptions {
  network: "mainnet" | "testnet" | "regtest";
  birthday: number;
  seedPhrase?: string;
}

export interface Wallet {
  server: WalletServer;
  dir: string;
  sync(): Promise<SyncReport>;
  run<T>(command: string, args?: string[]): Promise<T>;
}

/** Every upgrade at height 1, as the dev node's synthetic regtest chains have them. */
const REGTEST_HEIGHTS = ["--regtest-heights", "1"];

export function openWallet(server: WalletServer, o: WalletOptions): Wallet {
  const dir = mkdtempSync(join(tmpdir(), `lightedge-wallet-${server.name}-`));
  const common = [
    ...["--server", server.url, "--transport", server.transport, "--network", o.network],
    ...(o.network === "regtest" ? REGTEST_HEIGHTS : []),
    ...["--wallet-dir", dir, "--birthday", String(o.birthday)],
    ...(o.seedPhrase ? ["--seed-phrase", o.seedPhrase] : []),
  ];
  const run = async <T>(command: string, args: string[] = []) =>
    (await runWallet(command, [...common, ...args])) as T;
  return { server, dir, run, sync: () => run<SyncReport>("sync") };
}

/**
 * What every wallet sync must end with: no error, the server's tip reached and scanned, and the
 * wallet's own note-commitment tree roots equal to the server's GetTreeState at that tip.
 */
export function expectSyncedTo(r: SyncReport, tip: number, label: string): void {
  expect(r.error, `${label}: wallet error`).toBeNull();
  expect(r.ok, label).toBe(true);
  expect(r.tip, `${label}: tip`).toBe(tip);
  expect(r.scannedTo, `${label}: scanned to`).toBe(tip);
  expect(r.roots.serverHeight, `${label}: roots compared at`).toBe(tip);
  expect(r.roots.wallet, `${label}: wallet roots = server roots`).toEqual(r.roots.server);
  expect(r.roots.equal, `${label}: roots equal`).toBe(true);
}

/** The parts of a sync that must not depend on the transport it came over. */
export function walletView(r: SyncReport) {
  const notes = [...r.notes].sort((a, b) => a.txid.localeCompare(b.txid) || a.value - b.value);
  return { tip: r.tip, balances: r.balances, notes, roots: r.roots.wallet };
}

export function totalBalance(r: SyncReport): number {
  return Object.values(r.balances).reduce((sum, b) => sum + (b?.total ?? 0), 0);
}
