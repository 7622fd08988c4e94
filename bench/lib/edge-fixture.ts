import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { freePort } from "../../origin/main/port-free.ts";
import { startEdgeRuntime } from "../edge-runtimes.ts";
import type { StoreScan } from "./store-scan.ts";

/**
 * The local runtimes the suite runs the edge under (bench/edge-runtimes.ts), and the key prefix
 * each one's figures use: `edge.*` stays `wrangler dev` (what `lightedge edge` runs, the documented
 * local run), `edgeMiniflare.*` is the deploy bundle under Miniflare alone (no dev proxy).
 */
export const EDGE_TIERS = { wrangler: "edge", miniflare: "edgeMiniflare" } as const;
export type EdgeRuntimeName = keyof typeof EDGE_TIERS;
export type EdgeTier = (typeof EDGE_TIERS)[EdgeRuntimeName];

export interface EdgeFixture {
  runtime: EdgeRuntimeName;
  url: string;
  /** Root of the runtime's process tree (wrangler or the Miniflare host; workerd below it). */
  pid: number;
  startSec: number;
  /** Miniflare with `inspect`: the isolate's V8 inspector port (bench/lib/isolate-inspector.ts). */
  inspectorPort?: number;
  stop(): Promise<void>;
}

/**
 * Seeds the local R2 state both runtimes read — the production path — with the directory store's
 * very objects, through wrangler's platform proxy. Both runtimes then open the same state directory
 * (read-only traffic, as bench/edge-range.ts runs them side by side).
 */
export async function seedEdgeState(o: {
  repoRoot: string;
  tmp: string;
  scan: StoreScan;
  log(message: string): void;
}): Promise<string> {
  const persist = join(o.tmp, "wrangler-state");
  const t0 = performance.now();
  const proxy = await getPlatformProxy<{ BLOCKS: { put(key: string, value: Uint8Array): Promise<unknown> } }>(
    {
      configPath: join(o.repoRoot, "wrangler.toml"),
      // wrangler dev --persist-to DIR keeps its state under DIR/v3.
      persist: { path: join(persist, "v3") },
    },
  );
  try {
    for (const object of o.scan.objects) await proxy.env.BLOCKS.put(object.key, readFileSync(object.path));
  } finally {
    await proxy.dispose();
  }
  const seedSec = (performance.now() - t0) / 1000;
  o.log(`edge: seeded local R2 with ${o.scan.objects.length} objects in ${seedSec.toFixed(1)} s`);
  return persist;
}

/**
 * A fresh state directory for a Worker-alone edge (which reads the store from a server, so holds
 * nothing but its Cache API entries), in memory (tmpfs) when the machine has one. Miniflare keeps
 * the Cache API simulator's entries in SQLite files under it, and on this disk, while the pages of
 * a just-written multi-GB store are being written back, a miss's put and a match waited for it:
 * GetBlock by hash at random heights measured 6.6 ms p50 inside the scale scenario against 3.3–4.5
 * alone and 3.0–3.3 on tmpfs (2026-12-06). A data center's cache is not the bench machine's disk.
 */
export function memoryStateDir(tmp: string, name: string): string {
  const root = existsSync("/dev/shm") ? "/dev/shm" : tmp;
  return mkdtempSync(join(root, `lightedge-${name}-`));
}

/** The edge under one runtime on the seeded state, configured with the origin for proxied RPCs. */
export async function startEdgeFixture(o: {
  runtime: EdgeRuntimeName;
  persist: string;
  networks: string;
  originUrl?: string;
  originSecret?: string;
  /** Miniflare: the store server's URL (Worker-alone mode) instead of the local R2 simulator. */
  storePublicUrl?: string;
  /** Miniflare: more worker vars (bench/edge-runtimes.ts). */
  vars?: Record<string, string>;
  /** Miniflare: open the isolate's inspector (the soak reads its heap). */
  inspect?: boolean;
  log(message: string): void;
}): Promise<EdgeFixture> {
  const t0 = performance.now();
  const inspectorPort = o.inspect && o.runtime === "miniflare" ? await freePort() : undefined;
  const rt = await startEdgeRuntime(o.runtime, o.persist, {
    origin: o.originUrl,
    originSecret: o.originSecret,
    networks: o.networks,
    storePublicUrl: o.storePublicUrl,
    vars: o.vars,
    inspectorPort,
  });
  const startSec = (performance.now() - t0) / 1000;
  const via = o.storePublicUrl ? ` (store: ${o.storePublicUrl}, Worker alone)` : "";
  o.log(`edge: ${o.runtime}${via} healthy in ${startSec.toFixed(1)} s at ${rt.url}`);
  return {
    runtime: o.runtime,
    url: rt.url,
    pid: rt.pids()[0]!,
    startSec,
    inspectorPort,
    stop: () => rt.stop(),
  };
}
