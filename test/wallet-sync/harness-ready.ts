import { hasWalletHarness, missingWalletHarnessMessage } from "../support/wallet-harness.ts";

/** Whether the wallet harness binary is there; the tests skip (and say why) when it is not. */
export const harnessReady = { ok: hasWalletHarness, message: missingWalletHarnessMessage };
if (!hasWalletHarness) console.warn(`wallet tests skipped: ${missingWalletHarnessMessage}`);
