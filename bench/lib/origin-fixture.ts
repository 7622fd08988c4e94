import { join } from "node:path";
import { type SpawnedServer, spawnServer } from "./spawn.ts";

/** Secret the edge sends to the origin in the bench stack (local loopback only). */
export const BENCH_ORIGIN_SECRET = "lightedge-bench-secret";

/**
 * `lightedge origin` (indexer + server in one process) on the store the index scenario wrote and
 * the same dev node: it resumes from the sealed tip, so sealed ranges are served from the store as
 * stored frames and the last blocks from its in-memory tail.
 */
export async function startOriginFixture(o: {
  repoRoot: string;
  devnodeUrl: string;
  storeDir: string;
  dataDir: string;
  network: string;
  rangeSize: number;
}): Promise<SpawnedServer> {
  return spawnServer(
    "origin",
    [
      process.execPath,
      join(o.repoRoot, "origin/cli/main.ts"),
      ...["origin", "--node", o.devnodeUrl, "--network", o.network, "--store", `dir:${o.storeDir}`],
      ...["--data-dir", o.dataDir, "--range-size", String(o.rangeSize), "--listen", "127.0.0.1:0"],
      ...["--admin", "off", "--progress", "off", "--log-level", "warn", "--ping"],
      ...["--secret", BENCH_ORIGIN_SECRET],
    ],
    { timeoutMs: 600_000 },
  );
}
