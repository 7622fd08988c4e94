// Shared by the indexer's tests and benches (not production code): a dev node, a store, an
// indexer wired to them, and a poll-until helper.
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Registry } from "prom-client";
import { createIndexMetrics, type IndexMetrics } from "../admin/index-metrics.ts";
import { createNodeClient, type NodeClient } from "../node/index.ts";
import { type BlobStore, createDirectoryStore } from "../store/index.ts";
import { createIndexer, type Indexer, type IndexerOptions } from "./indexer.ts";

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `lightedge-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface TestIndexer {
  indexer: Indexer;
  node: NodeClient;
  metrics: IndexMetrics;
  registry: Registry;
  store: BlobStore;
  stop(): Promise<void>;
}

export function testIndexer(
  url: string,
  o: Partial<IndexerOptions> & { dataDir: string; store?: BlobStore; storeDir?: string },
): TestIndexer {
  const node = createNodeClient({
    url,
    network: o.network as "regtest",
    timeoutMs: 2_000,
    retries: 1,
    backoffMs: 20,
  });
  const registry = new Registry();
  const metrics = createIndexMetrics(registry);
  const store = o.store ?? createDirectoryStore(o.storeDir!);
  const indexer = createIndexer({
    chain: node,
    info: node,
    store,
    network: "regtest",
    rangeSize: 10,
    sealDepth: 10,
    concurrency: 4,
    fromHeight: 0,
    pollMs: 50,
    log: pino({ level: process.env.LIGHTEDGE_TEST_LOG ?? "silent" }),
    metrics,
    ...o,
  });
  return {
    indexer,
    node,
    metrics,
    registry,
    store,
    async stop() {
      await indexer.stop();
      node.close();
    },
  };
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

export async function metricValue(registry: Registry, name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? Number.NaN;
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
