import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (apt-get install chromium); CI installs it in .ci/run. */
export const chromiumPath = process.env.LIGHTEDGE_CHROMIUM ?? "/usr/bin/chromium";

export const hasChromium = existsSync(chromiumPath);

export const missingChromiumMessage = `Chromium not found at ${chromiumPath} (apt-get install -y chromium, or set LIGHTEDGE_CHROMIUM); browser tests are skipped`;

if (!hasChromium) {
  if (process.env.CI) throw new Error(`CI requires Chromium: ${missingChromiumMessage}`);
  console.warn(`\n*** ${missingChromiumMessage} ***\n`);
}

/** Headless Chromium with the flags this closed network needs (no background connections). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-quic",
      "--no-first-run",
    ],
  });
}

/** Where browser tests leave screenshots (kept as CI artifacts). */
export const artifactsDir = new URL("../../test-results/", import.meta.url).pathname;
