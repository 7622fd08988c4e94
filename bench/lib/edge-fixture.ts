import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getPlatformProxy } from "wrangler";
import { type EdgeDev, startEdgeDev } from "../../origin/cli/commands/edge.ts";
import type { StoreScan } from "./store-scan.ts";

export interface EdgeFixture {
  edge: EdgeDev;
  url: string;
  /** wrangler's pid: its tree holds workerd and the local R2 emulator (all server-side). */
  pid: number;
  seedSec: number;
  startSec: number;
}

/**
 * The edge as `lightedge edge` runs it locally (wrangler dev → workerd), reading the R2 binding —
 * the production path — from a local bucket seeded with the directory store's very objects.
 */
export async function startEdgeFixture(o: {
  repoRoot: string;
  tmp: string;
  scan: StoreScan;
  originUrl?: string;
  originSecret?: string;
  log(message: string): void;
}): Promise<EdgeFixture> {
  const persist = join(o.tmp, "wrangler-state");
  const t0 = performance.now();
  await seedBucket(o.repoRoot, persist, o.scan);
  const seedSec = (performance.now() - t0) / 1000;
  o.log(`edge: seeded local R2 with ${o.scan.objects.length} objects in ${seedSec.toFixed(1)} s`);
  const t1 = performance.now();
  const edge = await startEdgeDev({
    port: 0,
    persist,
    quiet: true,
    networks: o.scan.network,
    origin: o.originUrl,
    originSecret: o.originSecret,
  });
  const startSec = (performance.now() - t1) / 1000;
  o.log(`edge: wrangler dev healthy in ${startSec.toFixed(1)} s at ${edge.url}`);
  return { edge, url: edge.url, pid: edge.child.pid!, seedSec, startSec };
}

/** Puts each object through wrangler's platform proxy on the same persistence directory. */
async function seedBucket(repoRoot: string, persist: string, scan: StoreScan): Promise<void> {
  const proxy = await getPlatformProxy<{ BLOCKS: { put(key: string, value: Uint8Array): Promise<unknown> } }>(
    {
      configPath: join(repoRoot, "wrangler.toml"),
      // wrangler dev --persist-to DIR keeps its state under DIR/v3.
      persist: { path: join(persist, "v3") },
    },
  );
  try {
    for (const object of scan.objects) await proxy.env.BLOCKS.put(object.key, readFileSync(object.path));
  } finally {
    await proxy.dispose();
  }
}
