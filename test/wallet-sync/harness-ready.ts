import { hasWalletHarness, missingWalletHarnessMessage } from "../support/wallet-harness.ts";

/**
 * Whether the wallet harness binary is built. Without it the wallet tests skip; the wrapper prints
 * why (and in CI refuses to run without it).
 */
export const harnessReady = { ok: hasWalletHarness, message: missingWalletHarnessMessage };
