// Shared by the indexer's tests and benches (not production code): temp dirs, a poll-until
// helper, dev node control and a switchable proxy. The indexer wired to a dev node with real
// metrics is test/support/test-indexer.ts.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `lightedge-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Polls `check` until it returns a value other than undefined/false. */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 10_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Collects an async iterable (test streams are short). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Dev node control, in process: mine k blocks (hashing them so the node serves them at once). */
export function mine(
  dev: { chain: { mine(k: number): void; tip(): number; hashAt(h: number): string } },
  k: number,
): void {
  dev.chain.mine(k);
  dev.chain.hashAt(dev.chain.tip());
}

/** Replace the last d blocks with a new branch. */
export function reorg(
  dev: { chain: { reorg(d: number): void; tip(): number; hashAt(h: number): string } },
  d: number,
): void {
  dev.chain.reorg(d);
  dev.chain.hashAt(dev.chain.tip());
}

/** A reverse proxy whose upstream can be swapped: another node behind the same URL. */
export async function switchableProxy(
  target: string,
): Promise<{ url: string; target(url: string): void; close(): Promise<void> }> {
  let upstream = target;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      const answer = await fetch(upstream, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    target: (url) => {
      upstream = url;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
