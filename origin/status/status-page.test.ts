import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { artifactsDir, hasChromium, launchChromium } from "../../test/support/chromium.ts";
import { renderStatusPage } from "./status-page.ts";
import { createStatusRecorder, type StatusSample } from "./status-recorder.ts";

function history() {
  const t0 = Date.now() - 60_000;
  const samples: StatusSample[] = Array.from({ length: 60 }, (_, i) => ({
    at: t0 + i * 1000,
    nodeTip: 1000 + i * 3,
    indexedTip: Math.min(1000 + i * 3, 200 + i * 40),
    sealedTip: Math.max(0, 100 * Math.floor((Math.min(1000 + i * 3, 200 + i * 40) - 100) / 100)),
    rangesPublished: Math.floor(i / 10),
    reorgs: i > 30 ? 1 : 0,
    requests: i * i * 5,
  }));
  return {
    samples,
    events: [{ at: t0 + 31_000, text: "reorg of depth 2 at 1093" }],
    network: "regtest",
    startedAt: t0,
  };
}

describe("the status page", () => {
  it("shows tips, lag, index rate and reorgs from the recorded samples", () => {
    const html = renderStatusPage(history());
    expect(html).toContain("sealed tip");
    expect(html).toContain("1,177"); // node tip of the last sample: 1000 + 59 * 3
    expect(html).toContain("reorg of depth 2 at 1093");
    expect(html).toMatch(/<svg[^>]+aria-label="index rate \(blocks\/s\)"/);
  });

  it("escapes event text so a node-supplied string cannot inject markup", () => {
    const h = history();
    h.events.push({ at: Date.now(), text: "<script>alert(1)</script>" });
    expect(renderStatusPage(h)).not.toContain("<script>alert(1)");
  });

  it("keeps only the newest samples in its ring", () => {
    let n = 0;
    const rec = createStatusRecorder(
      {
        sample: () => ({
          nodeTip: ++n,
          indexedTip: n,
          sealedTip: 0,
          rangesPublished: 0,
          reorgs: 0,
          requests: 0,
        }),
        events: () => [],
      },
      "regtest",
      3,
    );
    for (let i = 0; i < 5; i++) rec.record();
    rec.stop();
    expect(rec.history().samples.map((s) => s.nodeTip)).toEqual([4, 5, 6]);
  });

  it.skipIf(!hasChromium)(
    "renders in headless Chromium with three plots (screenshot in test-results/)",
    async () => {
      const server = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(renderStatusPage(history()));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        expect(await page.locator("svg path").count()).toBe(3);
        expect(await page.locator(".card b").first().textContent()).toBe("1,177");
        mkdirSync(artifactsDir, { recursive: true });
        await page.screenshot({ path: join(artifactsDir, "status-page.png"), fullPage: true });
      } finally {
        await browser.close();
        server.close();
      }
    },
  );
});
