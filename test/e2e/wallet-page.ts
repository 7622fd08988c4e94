import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import type { PageResult } from "../browser/page/range-page.ts";

export type { PageBlock, PageResult } from "../browser/page/range-page.ts";

export interface WalletPage {
  url: string;
  close(): void;
}

/**
 * Serves the browser test's wallet page (test/browser/page/range-page.ts: connect-web's gRPC-web
 * transport, bundled with esbuild) from its own port, so every call to the edge is a real
 * cross-origin (CORS) request, as from a wallet web app.
 */
export async function serveWalletPage(): Promise<WalletPage> {
  const entry = fileURLToPath(new URL("../browser/page/range-page.ts", import.meta.url));
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    write: false,
    platform: "browser",
  });
  const js = bundle.outputFiles[0]!.text;
  const html = `<!doctype html><meta charset="utf-8"><title>lightedge wallet</title><script type="module" src="/page.js"></script>`;
  const server: Server = createServer((req, res) => {
    if (req.url === "/page.js") res.writeHead(200, { "content-type": "text/javascript" }).end(js);
    else res.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Runs the page's `syncRange(edge, start, end)`: GetLatestBlock, then GetBlockRange over gRPC-web. */
export async function syncInPage(
  tab: Page,
  edgeUrl: string,
  start: number,
  end: number,
): Promise<PageResult> {
  await tab.waitForFunction(() => "syncRange" in globalThis);
  return (await tab.evaluate(
    ([base, s, e]) =>
      (
        globalThis as unknown as { syncRange: (b: string, s: number, e: number) => Promise<unknown> }
      ).syncRange(base, s, e),
    [edgeUrl, start, end] as const,
  )) as PageResult;
}

/** Writes a summary into the page, so the screenshot left in test-results/ shows what was seen. */
export async function showInPage(tab: Page, lines: string[]): Promise<void> {
  await tab.evaluate((text) => {
    const doc = (
      globalThis as unknown as { document: { body: { textContent: string; style: { cssText: string } } } }
    ).document;
    doc.body.style.cssText = "font: 14px monospace; white-space: pre; margin: 16px";
    doc.body.textContent = text;
  }, lines.join("\n"));
}
